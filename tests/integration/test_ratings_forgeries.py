"""The export's ratings line bound to the log (issue 35, item 5), tried as
an operator who rewrites the line would: each forgery below is made
self-consistent (every μ and σ recomputed by the model for the accounts
the forger states), so only the binding of seats to accounts can catch it.

On a SQLite store filled as tests/integration/test_ratings_view.py fills
it, exported by ``opus export --ratings`` and checked by ``opus verify
--ratings --file``:

- two seats' accounts swapped, a loss of the top account dropped, and a
  guest's seat credited to an account that did not play: each fails,
  naming the game and the accounts the rules derive (before the line
  carried holdings, each passed: its accounts were taken as stated);
- a line without holdings (as written before), with a holding at a public
  event's position, past the ratings' position, or not a holding: refused;
- the accounts verify derives for the honest export equal those of a
  plain oracle written from the rule's text (README, Account decisions:
  a seat is an account's when its token hash is the account's holder hash
  or a token it adopted, from then on), not from domain/ratings.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.cli.ratings import ledger_of_records
from domain.application import Opus
from domain.audit import Record
from domain.engine import rank_keys
from domain.ratings import Ledger, Parameters, RatedGame, ordinal, rated_game
from tests.integration.test_ratings_cli import opus
from tests.integration.test_ratings_view import TOKEN, Log, fill, play

Line = dict[str, Any]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Log, Path]:
    folder = tmp_path_factory.mktemp("ratings-forgeries")
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(folder / "events.db"),
        "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
        "OPUS_RUN_PROJECTIONS": "0",
    }
    app = Opus(env={k: env[k] for k in ("PERSISTENCE_MODULE", "SQLITE_DBNAME")})
    log = fill(app)
    h = log.holders
    for seed in range(11, 17):  # more games of three, so that the top account has lost one
        log.games[f"more{seed}"] = play(app, [h["Dee"], h["Ben"], h["Cat"]], seed)
    app.close()
    done = opus(env, "rebuild", "ratings")  # the view the export reads
    assert done.exit_code == 0, done.output
    path = folder / "log.ndjson"
    done = opus(env, "export", "--ratings", "--output", str(path))
    assert done.exit_code == 0, done.output
    return env, log, path


def split(path: Path) -> tuple[list[str], Line]:
    """The export's event lines, and its ratings line's document."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[:-1], json.loads(lines[-1])["ratings"]


def records(events: list[str]) -> list[Record]:
    return [Record.from_line(json.loads(line)) for line in events]


def written(folder: Path, events: list[str], ratings: Line) -> Path:
    path = folder / "forged.ndjson"
    path.write_text("\n".join([*events, json.dumps({"ratings": ratings})]) + "\n", "utf-8")
    return path


def forged(carried: Line, change: Callable[[list[RatedGame]], list[RatedGame]]) -> Line:
    """The line with its rated games changed, and every number recomputed
    for them by the model, as a forger with the code would."""
    ledger = Ledger(Parameters.from_doc(carried["parameters"]))
    for game in change([RatedGame.from_doc(doc) for doc in carried["games"]]):
        ledger.apply(game)
    return {
        **carried,
        "games": ledger.games,
        "accounts": ledger.accounts(),
        "seats": ledger.seats(),
    }


def verify(env: dict[str, str], path: Path) -> tuple[int, str]:
    done = opus(env, "verify", "--ratings", "--file", str(path))
    return done.exit_code, done.output


# ---- the oracle: the rule's text, over the export's lines ----------------------------------


def oracle_seats(events: list[Record], holdings: list[Line]) -> dict[str, list[tuple[int, str]]]:
    """Each ended game with two accounts or more: its seats' (index, account),
    an account at its first seat only. A seat is an account's when the token
    hash it was taken with was made the account's (a holding) before the
    seat was taken; the latest such holding names it."""
    held: dict[str, list[tuple[int, str]]] = {}
    for h in holdings:
        for token_hash in h["token_hashes"]:
            held.setdefault(token_hash, []).append((h["position"], h["account"]))

    def account(token_hash: str, at: int) -> str | None:
        before = [(p, a) for p, a in held.get(token_hash, []) if p < at]
        return max(before)[1] if before else None

    seating: dict[str, list[str | None]] = {}
    rated: dict[str, list[tuple[int, str]]] = {}
    for r in sorted(events, key=lambda r: r.position or 0):
        payload = r.payload or {}
        if r.type == "PlayerJoined":
            seating.setdefault(r.aggregate_id, []).append(
                account(payload["token_hash"], r.position or 0)
            )
        elif r.type == "PlayerLeft":
            del seating[r.aggregate_id][payload["player"]]
        elif r.type == "GameEnded" and r.aggregate_id in seating:
            seats: list[tuple[int, str]] = []
            for index, who in enumerate(seating[r.aggregate_id]):
                if who is not None and who not in {a for _, a in seats}:
                    seats.append((index, who))
            if len(seats) >= 2:
                rated[r.aggregate_id] = seats
    return rated


def test_the_seats_accounts_derived_from_an_honest_export_are_the_oracles(
    exported: tuple[dict[str, str], Log, Path],
) -> None:
    env, log, path = exported
    events, carried = split(path)
    assert carried["holdings"], "the line binds its seats"
    # no token hash the line did not already tie to a rated seat: not the guest's
    assert TOKEN not in json.dumps(carried["holdings"])
    ledger = ledger_of_records(carried, records(events))
    derived = {g["game"]: [(s["seat"], s["account"]) for s in g["seats"]] for g in ledger.games}
    assert derived == oracle_seats(records(events), carried["holdings"])
    assert list(derived) == [
        str(log.games[n])
        for n in ("two", "token", "withdrawn", "moved", *map("more{}".format, range(11, 17)))
    ]
    code, output = verify(env, path)
    assert code == 0 and "ok   ratings of the export" in output, output


# ---- the three forgeries of the issue ---------------------------------------------------------


def test_two_seats_accounts_swapped_fail(
    exported: tuple[dict[str, str], Log, Path], tmp_path: Path
) -> None:
    env, log, path = exported
    events, carried = split(path)
    game = str(log.games["token"])
    ben, cat = str(log.accounts["Ben"]), str(log.accounts["Cat"])

    def swap(games: list[RatedGame]) -> list[RatedGame]:
        out = []
        for g in games:
            if g.game == game:
                names = {ben: cat, cat: ben}
                g = RatedGame(
                    g.game,
                    g.position,
                    g.players,
                    tuple(
                        type(s)(s.seat, names.get(s.account, s.account), s.place, s.withdrawn)
                        for s in g.seats
                    ),
                )
            out.append(g)
        return out

    line = forged(carried, swap)
    token_game = next(g for g in line["games"] if g["game"] == game)
    assert [s["account"] for s in token_game["seats"]][:2] == [cat, ben]
    code, output = verify(env, written(tmp_path, events, line))
    assert code == 1, output
    assert "FAIL ratings of the export" in output
    assert f"rated game 2 ({game}): seats" in output and "by the rules (R7.3)" in output
    assert f"'seat': 0, 'account': '{ben}'" in output.split("recorded,")[1]


def test_a_loss_of_the_top_account_dropped_fails(
    exported: tuple[dict[str, str], Log, Path], tmp_path: Path
) -> None:
    env, _, path = exported
    events, carried = split(path)
    accounts = carried["accounts"]
    top = max(accounts, key=lambda a: ordinal(accounts[a]["mu"], accounts[a]["sigma"]))
    lost = [
        g["game"]
        for g in carried["games"]
        for last in [max(s["place"] for s in g["seats"])]
        if any(s["account"] == top and s["place"] == last > 1 for s in g["seats"])
    ]
    assert lost, "the top account came last in a rated game"
    line = forged(carried, lambda games: [g for g in games if g.game != lost[-1]])
    assert line["accounts"][top]["games"] == accounts[top]["games"] - 1
    assert line["accounts"][top]["mu"] > accounts[top]["mu"]  # the forger's gain
    code, output = verify(env, written(tmp_path, events, line))
    assert code == 1, output
    rated = len(carried["games"])
    assert f"{rated - 1} rated games recorded, {rated} by the log" in output
    assert f"({lost[-1]})" in output  # the first game out of place is named


def test_a_guests_seat_credited_to_an_account_that_did_not_play_fails(
    exported: tuple[dict[str, str], Log, Path], tmp_path: Path
) -> None:
    env, log, path = exported
    events, carried = split(path)
    game = str(log.games["token"])
    dee = str(log.accounts["Dee"])
    app = Opus(env={k: env[k] for k in ("PERSISTENCE_MODULE", "SQLITE_DBNAME")})
    try:
        state = app.state(log.games["token"])
    finally:
        app.close()

    def credit(games: list[RatedGame]) -> list[RatedGame]:
        out = []
        for g in games:
            if g.game == game:  # the guest's seat 1 is Dee's, placed by R7.3 as it played
                accounts: list[str | None] = [None] * g.players
                for s in g.seats:
                    accounts[s.seat] = s.account
                accounts[1] = dee
                made = rated_game(g.game, g.position, accounts, rank_keys(state), state.withdrawn)
                assert made is not None
                g = made
            out.append(g)
        return out

    line = forged(carried, credit)
    assert line["accounts"][dee]["games"] == carried["accounts"][dee]["games"] + 1
    code, output = verify(env, written(tmp_path, events, line))
    assert code == 1, output
    assert f"rated game 2 ({game}): seats" in output
    assert f"'seat': 1, 'account': '{dee}'" in output


# ---- a line that does not bind, or binds falsely ------------------------------------------


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda line, public: line.pop("holdings"), "do not bind them to the log"),
        (
            lambda line, public: line["holdings"][0].update(position=public[0]),
            "an exported event is at that position",
        ),
        (
            lambda line, public: line["holdings"][0].update(position=line["position"] + 1),
            "after the ratings' position",
        ),
        (
            lambda line, public: line["holdings"][0].update(token_hashes=["Ann"]),
            "'Ann' is not a token hash",
        ),
        (lambda line, public: line.update(holdings={}), "the holdings are not a list"),
    ],
    ids=["none", "public position", "past the position", "not a hash", "not a list"],
)
def test_a_line_that_does_not_bind_its_seats_is_refused(
    exported: tuple[dict[str, str], Log, Path],
    tmp_path: Path,
    change: Callable[[Line, list[int]], Any],
    said: str,
) -> None:
    env, _, path = exported
    events, carried = split(path)
    public = [json.loads(line)["position"] for line in events]
    change(carried, public)
    code, output = verify(env, written(tmp_path, events, carried))
    assert code == 1, output
    assert "FAIL ratings of the export" in output and said in output
    assert "Traceback" not in output

"""T10.1 on revision 4's records: a tournament with teams, a drop in a
running game and a top cut, and one with a constraint, verify from their
exports; forgeries of the new events (tests/forgery.py: the chain
recomputed, so that only the rules can tell) each fail naming their T rule:
a constraint dropped from the log (T11.2), a team changed after pairing
(T11.2), a table's shares altered (T11.3), the cut with a player who did not
qualify (T12.1), seeded out of order (T12.2), a final of someone who did not
win (T12.3), a final ranking reordered (T12.4); and T2.2 on the timestamps
the chains cover: a drop moved before a recipe its seat placed afterwards,
a seat withdrawn 14 game records before its player dropped."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import cache
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import CreationError
from domain.events import GameEvent
from domain.pipeline import Caller
from domain.tournaments.aggregate import Tournament
from domain.tournaments.entrants import UNICODE_VERSION
from domain.tournaments.verify import TournamentVerdict, verify_tournament
from infra.eventlog import tournament_lines, tournament_records
from tests import tournament_oracle as oracle
from tests.forgery import moved_between, removed, retimed
from tests.unit.test_tournament_verify import (
    POPO,
    TournamentExport,
    player_hash,
    read_back,
    simulated_export,
)

TEAMS = ["Red", "Blue", "", "Green"]


def play_to_end(app: Opus, tournament: UUID, rng: random.Random) -> None:
    choose = BOTS["greedy"](rng)
    for seat in app.tournaments.get(tournament).state.rounds[-1].tables:
        state = app.state(seat.game)
        while state.status == "running":
            app.play(
                seat.game,
                choose(state, state.turn),
                caller=Caller(player_hash(seat.players[state.turn])),
            )
            state = app.state(seat.game)


@cache
def cut_lines() -> tuple[UUID, tuple[str, ...]]:
    """Twelve players in three teams (and some in none), two Swiss rounds
    and a cut of three tables. In round 2 the second seat of table 1 places
    a recipe, then their player drops (SeatWithdrawn) and the game goes on;
    eleven active players make the semifinals three tables of three (T12.1),
    then the final; finished (T12.4's ranking)."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    tournament = t.create(
        "Top cut", caller=organiser, rounds=2, cut=3, secret=bytes(range(3, 35))
    ).aggregate_id
    for n in range(1, 13):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)), team=TEAMS[n % 4])
    rng = random.Random(11)
    t.pair(tournament, caller=organiser)
    play_to_end(app, tournament, rng)
    t.pair(tournament, caller=organiser)
    first = t.get(tournament).state.rounds[-1].tables[0]
    choose = BOTS["greedy"](rng)
    placed = False
    while not placed:
        state = app.state(first.game)
        assert state.status == "running"
        seat = state.turn
        app.play(first.game, choose(state, seat), caller=Caller(player_hash(first.players[seat])))
        placed = seat == 1 and any(
            type(e).__name__ == "RecipePlaced" and getattr(e, "player", None) == 1
            for e in list(app.events.get(first.game))[-6:]
        )
    t.drop(tournament, first.players[1], caller=organiser)
    play_to_end(app, tournament, rng)
    t.pair(tournament, caller=organiser)  # the semifinals
    play_to_end(app, tournament, rng)
    t.pair(tournament, caller=organiser)  # the final
    play_to_end(app, tournament, rng)
    t.finish(tournament, caller=organiser)
    return tournament, tuple(tournament_lines(app, tournament))


def cut_export() -> TournamentExport:
    return read_back(*cut_lines())


@cache
def constrained_lines() -> tuple[UUID, tuple[str, ...]]:
    """Six players at tables of three, one round, no team: the organiser
    constrains a pair that T4.1's cut would seat together (the oracle says
    which), so round 1 is improved (T11.2) and records (c)."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    secret = bytes(range(7, 39))
    tournament = t.create(
        "Siblings", caller=organiser, rounds=1, sizes=(3, 3, 3), secret=secret
    ).aggregate_id
    for n in range(1, 7):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    records, _ = tournament_records(app, tournament)
    told = oracle.OracleTournament.of([(r.type, r.payload or {}) for r in records], secret)
    together = told.next_pairing()[0][0][:2]
    t.constrain(tournament, together, "siblings", "Arbiter", caller=organiser)
    t.pair(tournament, caller=organiser)
    play_to_end(app, tournament, random.Random(3))
    t.finish(tournament, caller=organiser)
    return tournament, tuple(tournament_lines(app, tournament))


def constrained_export() -> TournamentExport:
    return read_back(*constrained_lines())


def failure(log: TournamentExport) -> TournamentVerdict:
    verdict = log.verify()
    assert not verdict.ok, "the forgery verifies"
    return verdict


def test_revision_4_tournaments_verify_from_their_exports() -> None:
    for log in (cut_export(), constrained_export()):
        verdict = log.verify()
        assert verdict.ok and verdict.judged, verdict.reason
    log = cut_export()
    procedures = [(r.payload or {})["procedure"] for r in log.records if r.type == "RoundPaired"]
    assert procedures == ["regroup-1", "regroup-1", "cut", "cut"]
    assert {"SeatWithdrawn"} <= {r.type for g in log.games.values() for r in g}
    finish = log.first("TournamentFinished").payload or {}
    assert [row["reached"] for row in finish["ranking"]][:3] == ["final"] * 3
    paired = log.first("RoundPaired", round=1).payload or {}
    assert paired["objective_c"] == "0/1"  # teams: (c) recorded, none left at a table
    constrained = constrained_export().first("RoundPaired", round=1).payload or {}
    assert constrained["objective_c"] == "0/1"


# ---- T11 ---------------------------------------------------------------------------------


def test_T11_2_a_constraint_dropped_from_the_log_fails() -> None:
    log = constrained_export()
    added = log.first("PairingConstraintAdded")
    log.records = removed(log.records, added.version)
    verdict = failure(log)
    assert verdict.rule == "T11.2", verdict.reason
    assert verdict.reason == (
        "T11.2: round 1 records (c) = '0/1', but the tournament has no team and no "
        "constraint recorded before it"
    )
    assert verdict.version == added.version  # the RoundPaired moved into its place


def test_T11_2_a_team_changed_after_pairing_fails() -> None:
    """A registration's team rewritten to the team of a player it sat with in
    round 1: that round's (c) no longer is the one recorded."""
    log = cut_export()
    paired = log.first("RoundPaired", round=1).payload or {}
    teams = {
        (r.payload or {})["player"]: (r.payload or {})["team"]
        for r in log.records
        if r.type == "PlayerRegistered"
    }
    first, second = next(
        (p, q)
        for table in paired["tables"]
        for p in table["players"]
        for q in table["players"]
        if teams[p] and teams[q] != teams[p]
    )
    log.rewrite("PlayerRegistered", lambda p: p.update(team=teams[first]), player=second)
    verdict = failure(log)
    assert verdict.rule == "T11.2", verdict.reason
    assert verdict.reason.startswith(
        "T11.2: round 1's (c) is recorded '0/1', its tables give '1/1'"
    )


@pytest.mark.parametrize("term", ["a", "b", "c"])
def test_T11_3_a_tables_explained_shares_altered_fail(term: str) -> None:
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p["tables"][1]["shares"].update({term: "99/1"}), round=2)
    verdict = failure(log)
    assert verdict.rule == "T11.3", verdict.reason
    assert verdict.reason.startswith("T11.3: round 2 table 2's shares are recorded")


def test_T11_2_and_T11_3_revision_4_fields_where_the_rules_give_none_fail() -> None:
    log = simulated_export()  # no team, no constraint
    log.rewrite("RoundPaired", lambda p: p.update(objective_c="0/1"), round=2)
    assert failure(log).rule == "T11.2"
    log = simulated_export()
    log.rewrite("RoundPaired", lambda p: p["tables"][0].pop("shares"), round=2)
    assert failure(log).rule == "T11.3"


# ---- T12 ---------------------------------------------------------------------------------


def cut_tables(log: TournamentExport, round_: int) -> list[list[int]]:
    paired = log.first("RoundPaired", round=round_).payload or {}
    return [list(table["players"]) for table in paired["tables"]]


def test_T12_1_a_cut_with_a_player_who_did_not_qualify_fails() -> None:
    log = cut_export()
    qualified = {p for table in cut_tables(log, 3) for p in table}
    registered = [(r.payload or {})["player"] for r in log.records if r.type == "PlayerRegistered"]
    dropped = {(r.payload or {})["player"] for r in log.records if r.type == "PlayerDropped"}
    outsider = next(p for p in registered if p not in qualified and p not in dropped)
    log.rewrite(
        "RoundPaired", lambda p: p["tables"][2]["players"].__setitem__(2, outsider), round=3
    )
    verdict = failure(log)
    assert verdict.rule == "T12.1", verdict.reason
    assert "the top of the standings after the last Swiss round are" in verdict.reason


@pytest.mark.parametrize("how", ["seats", "tables"])
def test_T12_2_a_cut_seeded_out_of_order_fails(how: str) -> None:
    log = cut_export()

    def reseat(p: dict[str, Any]) -> None:
        one, two = p["tables"][0]["players"], p["tables"][1]["players"]
        if how == "seats":  # the best seed no longer at seat 0
            one[0], one[1] = one[1], one[0]
        else:  # seeds 1 and 2 at each other's tables
            one[0], two[0] = two[0], one[0]

    log.rewrite("RoundPaired", reseat, round=3)
    verdict = failure(log)
    assert verdict.rule == "T12.2", verdict.reason
    assert verdict.reason.startswith("T12.2: round 3's cut tables are")


def test_T12_3_a_final_of_a_player_who_did_not_win_fails() -> None:
    log = cut_export()
    finalists = cut_tables(log, 4)[0]
    loser = next(p for table in cut_tables(log, 3) for p in table if p not in finalists)
    log.rewrite("RoundPaired", lambda p: p["tables"][0]["players"].__setitem__(0, loser), round=4)
    verdict = failure(log)
    assert verdict.rule == "T12.3", verdict.reason
    assert "the semifinal tables send" in verdict.reason


@pytest.mark.parametrize("rows", [(0, 1), (3, 4), (10, 11)], ids=["final", "semis", "swiss"])
def test_T12_4_a_final_ranking_reordered_fails(rows: tuple[int, int]) -> None:
    log = cut_export()

    def reorder(p: dict[str, Any]) -> None:
        ranking = p["ranking"]
        one, two = rows
        ranking[one]["player"], ranking[two]["player"] = (
            ranking[two]["player"],
            ranking[one]["player"],
        )

    log.rewrite("TournamentFinished", reorder)
    verdict = failure(log)
    assert verdict.rule == "T12.4", verdict.reason
    assert verdict.reason.startswith(f"T12.4: the final ranking's row {rows[0] + 1} is recorded")


def test_T12_4_a_ranking_without_a_cut_fails() -> None:
    log = simulated_export()
    log.rewrite("TournamentFinished", lambda p: p.update(ranking=[]))
    assert failure(log).reason == "T12.4: a final ranking is recorded, but no cut is named"


@pytest.mark.parametrize(("cut", "rule"), [(2, "T12.1"), (6, "T12.1")])
def test_T12_1_a_creation_naming_a_cut_it_may_not_fails(cut: int, rule: str) -> None:
    log = cut_export()
    log.rewrite("TournamentCreated", lambda p: p.update(cut=cut))
    verdict = failure(log)
    assert verdict.rule == rule and verdict.version == 1, verdict.reason


# ---- T2.2 on timestamps ------------------------------------------------------------------------


def the_drop(log: TournamentExport) -> tuple[Any, str, list[Any], int]:
    """The drop, its game, the game's records and the SeatWithdrawn's index."""
    dropped = log.first("PlayerDropped")
    game = log.game(2, 1)
    records = log.games[game]
    at = next(k for k, r in enumerate(records) if r.type == "SeatWithdrawn")
    return dropped, game, records, at


def test_T2_2_a_drop_moved_before_a_recipe_its_seat_placed_afterwards_fails() -> None:
    """The PlayerDropped's timestamp moved to just before the seat's last
    RecipePlaced: in export order (positions) the drop still comes before
    the SeatWithdrawn, but the chains' timestamps say the game went on after
    it, before the withdrawal."""
    log = cut_export()
    dropped, game, records, at = the_drop(log)
    recipe = max(
        (k for k, r in enumerate(records[:at]) if r.type == "RecipePlaced"),
        default=None,
    )
    assert recipe is not None and (records[recipe].payload or {})["player"] == 1
    moved = moved_between(records[recipe - 1].timestamp, records[recipe].timestamp)
    log.records = retimed(log.records, dropped.version, moved)
    assert log.first("PlayerDropped").position == dropped.position  # the same export order
    verdict = failure(log)
    assert verdict.rule == "T2.2", verdict.reason
    assert verdict.aggregate_id == game
    named = records[(verdict.version or 0) - 1]
    assert recipe <= (verdict.version or 0) - 1 < at
    assert datetime.fromisoformat(named.timestamp) > datetime.fromisoformat(moved)
    assert "before the SeatWithdrawn it makes: nothing comes between the two" in verdict.reason


def test_T2_2_a_seat_withdrawn_14_game_records_before_its_player_dropped_fails() -> None:
    log = cut_export()
    dropped, game, records, at = the_drop(log)
    assert len(records) > at + 14
    log.records = retimed(log.records, dropped.version, records[at + 14].timestamp)
    verdict = failure(log)
    assert verdict.rule == "T2.2", verdict.reason
    assert (verdict.aggregate_id, verdict.version) == (game, records[at].version)
    assert verdict.reason.startswith(f"T2.2: game {game} withdraws player")


def test_T2_2_the_same_timestamp_as_the_drop_is_allowed_and_nothing_between() -> None:
    """The SeatWithdrawn at the drop's own timestamp verifies; a record
    before it at that timestamp but after the drop's does not."""
    log = cut_export()
    dropped, _, records, at = the_drop(log)
    log.records = retimed(log.records, dropped.version, records[at].timestamp)
    assert log.verify().ok
    log = cut_export()
    dropped, _, records, at = the_drop(log)
    log.records = retimed(log.records, dropped.version, records[at - 1].timestamp)
    assert log.verify().ok  # the record before it at the drop's own moment: allowed
    before = moved_between(records[at - 2].timestamp, records[at - 1].timestamp)
    log.records = retimed(log.records, dropped.version, before)
    assert failure(log).rule == "T2.2"


# ---- T2.1: the Unicode version recorded -----------------------------------------------------


def test_T2_1_a_name_refused_by_the_running_unicode_says_which_version_judged_it() -> None:
    """Our decision: verify judges names and teams with the running Python's
    Unicode tables; where the tournament recorded another version, a
    refusal says both (a forged private-use name here)."""
    log = constrained_export()
    log.rewrite("PlayerRegistered", lambda p: p.update(name="P\ue0002"), player=2)
    same = failure(log)
    assert same.rule == "T2.1" and "judged with Unicode" not in same.reason
    log.rewrite("TournamentCreated", lambda p: p.update(unicode_version="6.0.0"))
    other = failure(log)
    assert other.rule == "T2.1"
    assert other.reason.endswith(
        f"(judged with Unicode {UNICODE_VERSION}; the tournament recorded 6.0.0: "
        "verify with a Python of that version to tell)"
    )


def test_revision_4_exports_verify_from_the_store_too() -> None:
    _, lines = cut_lines()
    tournament, _ = cut_lines()
    log = read_back(tournament, lines)
    verdict = verify_tournament(log.records, log.games)
    assert verdict.ok and len(verdict.games) == 3 + 3 + 3 + 1


@cache
def running_cut_lines() -> tuple[UUID, tuple[str, ...]]:
    """Nine players, one Swiss round and a cut of three tables of three: the
    semifinals played, the final paired and under way; secret and seed
    sealed in the export."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    tournament = t.create(
        "Running cut",
        caller=organiser,
        rounds=1,
        cut=3,
        sizes=(3, 3, 3),
        secret=bytes(range(9, 41)),
    ).aggregate_id
    for n in range(1, 10):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)), team=TEAMS[n % 4])
    rng = random.Random(5)
    for _ in range(2):
        t.pair(tournament, caller=organiser)
        play_to_end(app, tournament, rng)
    t.pair(tournament, caller=organiser)
    final = t.get(tournament).state.rounds[-1].tables[0]
    choose = BOTS["greedy"](rng)
    for _ in range(5):
        state = app.state(final.game)
        seat = state.turn
        app.play(final.game, choose(state, seat), caller=Caller(player_hash(final.players[seat])))
    return tournament, tuple(tournament_lines(app, tournament))


def test_T12_a_running_cut_verifies_with_its_secret_sealed_and_its_final_is_checked() -> None:
    """Without the seed the qualifiers cannot be re-derived (the standings'
    last tie-break hangs on it), but the cut's shape and its final can: the
    final's players are the semifinal tables' winners, seated by seed."""
    log = read_back(*running_cut_lines())
    assert log.records[0].redacted
    verdict = log.verify()
    assert verdict.ok and not verdict.judged, verdict.reason
    paired = log.first("RoundPaired", round=3).payload or {}
    assert paired["procedure"] == "cut" and len(paired["tables"][0]["players"]) == 3
    semis = cut_tables(log, 2)
    loser = next(p for table in semis for p in table if p not in paired["tables"][0]["players"])
    log.rewrite("RoundPaired", lambda p: p["tables"][0]["players"].__setitem__(1, loser), round=3)
    assert failure(log).rule == "T12.3"
    log = read_back(*running_cut_lines())

    def reorder(p: dict[str, Any]) -> None:
        players = p["tables"][0]["players"]
        players[0], players[2] = players[2], players[0]

    log.rewrite("RoundPaired", reorder, round=3)
    assert failure(log).rule == "T12.2"
    log = read_back(*running_cut_lines())
    log.rewrite("RoundPaired", lambda p: p.update(byes=[1]), round=2)
    assert failure(log).rule == "T12.2"  # a cut round has no byes


@cache
def running_semifinal_lines() -> tuple[UUID, tuple[str, ...], bytes]:
    """Twelve players in teams, two Swiss rounds, a cut of three tables of
    three (nine of twelve qualify, T12.1): the semifinals paired, not
    played; secret and seed sealed in the export."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    secret = bytes(range(21, 53))
    tournament = t.create(
        "Running semifinals", caller=organiser, rounds=2, cut=3, sizes=(3, 3, 3), secret=secret
    ).aggregate_id
    for n in range(1, 13):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)), team=TEAMS[n % 4])
    rng = random.Random(8)
    for _ in range(2):
        t.pair(tournament, caller=organiser)
        play_to_end(app, tournament, rng)
    t.pair(tournament, caller=organiser)
    return tournament, tuple(tournament_lines(app, tournament)), secret


def running_semifinals() -> tuple[TournamentExport, oracle.OracleTournament]:
    """The export, and the oracle as of the semifinals' pairing (with the secret)."""
    tournament, lines, secret = running_semifinal_lines()
    log = read_back(tournament, lines)
    paired = log.first("RoundPaired", round=3)
    before = [(r.type, r.payload or {}) for r in log.records if r.version < paired.version]
    return log, oracle.OracleTournament.of(before, secret)


def _text(value: Fraction | int) -> str:
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


def test_T12_1_a_sealed_cut_with_a_low_player_in_seed_1s_seat_fails() -> None:
    """Without the seed the qualifiers are still checked on what needs no
    secret: the worst-placed active player put in seed 1's seat, the
    table's shares, the objective, (c) and the game's seat fixed up to
    match, leaves seed 1 out while standing above the last qualifier."""
    log, told = running_semifinals()
    assert log.records[0].redacted
    verdict = log.verify()
    assert verdict.ok and not verdict.judged, verdict.reason
    tables = cut_tables(log, 3)
    seated = {p for table in tables for p in table}
    points = told.match_points_now()
    outsider = min((p for p in told.active if p not in seated), key=lambda p: points[p])
    seed_1 = tables[0][0]
    assert points[outsider] < min(points[p] for p in seated)  # below every qualifier
    tables[0][0] = outsider
    terms = told.terms()
    shares = [terms.shares(table) for table in tables]
    c, rest = terms.value(tables)

    def forge(p: dict[str, Any]) -> None:
        p["tables"][0]["players"] = tables[0]
        a, b, own_c = shares[0]
        p["tables"][0]["shares"] = {"a": _text(a), "b": _text(b), "c": _text(own_c)}
        p["objective"] = _text(rest)
        p["objective_c"] = _text(c)

    log.rewrite("RoundPaired", forge, round=3)
    game = log.game(3, 1)
    joined = next(
        r for r in log.games[game] if r.type == "PlayerJoined" and (r.payload or {})["player"] == 0
    )
    registered = log.first("PlayerRegistered", player=outsider).payload or {}
    fields = ("name", "contribution", "token_hash")
    log.rewrite_game(game, joined.version, lambda p: p.update({k: registered[k] for k in fields}))
    verdict = failure(log)
    assert verdict.rule == "T12.1", verdict.reason
    assert f"left out, stand above its last qualifier (player {outsider})" in verdict.reason
    listed = verdict.reason.split("but players [", 1)[1].split("]", 1)[0]
    assert str(seed_1) in listed.split(", ")


def test_T12_2_a_sealed_cut_seeded_out_of_order_fails() -> None:
    """Seeds 1 and 7 (table 1's seats 0 and 2) exchanged: the same tables,
    shares and objective, but seed 1 now stands below seed 2 (T6.1 (1)–(3),
    no secret needed)."""
    log, told = running_semifinals()
    tables = cut_tables(log, 3)
    points = told.match_points_now()
    assert points[tables[0][0]] > points[tables[0][2]]

    def reseat(p: dict[str, Any]) -> None:
        one = p["tables"][0]["players"]
        one[0], one[2] = one[2], one[0]

    log.rewrite("RoundPaired", reseat, round=3)
    verdict = failure(log)
    assert verdict.rule == "T12.2", verdict.reason
    assert "seed 1 (player" in verdict.reason


# ---- T10.1: values compared as canonical JSON, never with Python's == ----------------------


@pytest.mark.parametrize("value", [1.0, True], ids=["float", "true"])
def test_T12_4_a_ranking_rank_recorded_as_another_json_value_fails(value: Any) -> None:
    """1, 1.0 and true are equal in Python, three values in JSON."""
    log = cut_export()
    log.rewrite("TournamentFinished", lambda p: p["ranking"][0].update(rank=value))
    verdict = failure(log)
    assert verdict.rule == "T12.4", verdict.reason
    assert verdict.reason.startswith("T12.4: the final ranking's row 1 is recorded")


def test_T5_1_a_results_scores_recorded_as_floats_fail() -> None:
    """A field of the whole event recorded as floats: equal in Python, not in JSON."""
    log = cut_export()
    log.rewrite(
        "GameResultRecorded",
        lambda p: p.update(scores=[float(s) for s in p["scores"]]),
        game=log.game(1, 1),
    )
    verdict = failure(log)
    assert verdict.rule == "T5.1", verdict.reason
    assert "GameResultRecorded differs: scores recorded" in verdict.reason


def test_T11_1_a_constraint_naming_a_player_as_a_float_fails() -> None:
    log = constrained_export()
    added = log.first("PairingConstraintAdded").payload or {}
    low, high = added["players"]
    log.rewrite("PairingConstraintAdded", lambda p: p.update(players=[low, float(high)]))
    verdict = failure(log)
    assert verdict.rule == "T11.1", verdict.reason
    assert "a constraint names two different registered players" in verdict.reason


@pytest.mark.parametrize("player", [lambda q: float(q), lambda q: str(q)], ids=["float", "text"])
def test_T10_1_a_pairing_naming_players_by_non_integers_fails_naming_a_rule(
    player: Callable[[int], Any],
) -> None:
    """A forged RoundPaired whose table names a player as 2.0 or "2": a
    verdict naming its rule, never an uncaught error."""
    log = cut_export()

    def forge(p: dict[str, Any]) -> None:
        players = p["tables"][0]["players"]
        players[0] = player(players[0])

    log.rewrite("RoundPaired", forge, round=2)
    verdict = failure(log)
    assert verdict.rule == "T1.2", verdict.reason
    assert "name players by their registration numbers, integers" in verdict.reason


# ---- T2.2: the drop's one moment ---------------------------------------------------------------


def test_T2_2_a_drop_after_a_move_stamped_in_the_future_is_stamped_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game's last move stamped an hour ahead (a clock stepped back since,
    or another host's): the drop and its SeatWithdrawn take one time, that
    move's, so the log still verifies (T2.2 on timestamps)."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    tournament = t.create(
        "Clock", caller=organiser, rounds=1, sizes=(3, 3, 3), secret=bytes(range(32))
    ).aggregate_id
    for n in range(1, 7):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    t.pair(tournament, caller=organiser)
    table = t.get(tournament).state.rounds[0].tables[0]
    ahead = datetime.now(UTC) + timedelta(hours=1)
    with monkeypatch.context() as patched:
        patched.setattr(GameEvent, "create_timestamp", staticmethod(lambda: ahead))
        state = app.state(table.game)
        choose = BOTS["greedy"](random.Random(1))
        seat = state.turn
        app.play(table.game, choose(state, seat), caller=Caller(player_hash(table.players[seat])))
    leaver = next(p for k, p in enumerate(table.players) if k != app.state(table.game).turn)
    t.drop(tournament, leaver, caller=organiser)
    log = read_back(tournament, tuple(tournament_lines(app, tournament)))
    dropped = log.first("PlayerDropped")
    withdrawn = next(r for r in log.games[str(table.game)] if r.type == "SeatWithdrawn")
    assert datetime.fromisoformat(dropped.timestamp) == ahead
    assert datetime.fromisoformat(withdrawn.timestamp) == ahead
    verdict = log.verify()
    assert verdict.ok, verdict.reason


# ---- the nits: rule ids and what a refusal says ----------------------------------------------


def test_T12_2_a_cut_round_recording_a_swiss_procedure_fails_as_T12_2() -> None:
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p.update(procedure="regroup-1"), round=3)
    verdict = failure(log)
    assert verdict.rule == "T12.2", verdict.reason
    assert "the pairing procedure 'regroup-1' is not this round's" in verdict.reason
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p.update(procedure="cut"), round=2)
    assert failure(log).rule == "T4.2"  # a Swiss round paired as the cut's


def test_T2_1_a_refusal_unrelated_to_unicode_says_nothing_of_its_version() -> None:
    """Our decision's suffix is for a text-policy refusal only: a name taken
    twice is refused whatever the Unicode version."""
    log = constrained_export()
    log.rewrite("TournamentCreated", lambda p: p.update(unicode_version="6.0.0"))
    taken = (log.first("PlayerRegistered", player=1).payload or {})["name"]
    log.rewrite("PlayerRegistered", lambda p: p.update(name=taken), player=2)
    verdict = failure(log)
    assert verdict.rule == "T2.1", verdict.reason
    assert "is taken" in verdict.reason and "judged with Unicode" not in verdict.reason


def test_T1_1_a_new_tournament_names_its_procedure() -> None:
    """The domain writes no revision-3-shaped TournamentCreated: a new
    tournament without a procedure is refused (T1.1)."""
    no_procedure: Any = None
    with pytest.raises(CreationError, match="names its pairing procedure") as refused:
        Tournament.create("Old shape", player_hash(0), procedure=no_procedure)
    assert refused.value.rule == "T1.1"

"""Revision 4's page parts through Flask's test client, on real SQLite stores
with the projections running (TOURNAMENT.md T11.3, T12; README, Tournament
decisions):

- the tournament page says, per table, why it was paired so: who at it
  had met before (and Σ m²), its spread of match points, the pairs kept
  apart that it could not avoid (teammates, or a constraint with its
  reason), in English and in Russian; each expectation computed here from
  the recorded rounds, teams and constraints (T2.1's key by the oracle);
- the cut as a bracket of tables: seeds, places, who went to the final,
  and the final ranking;
- the organiser's desk drives the new options (the pairing procedure and
  the cut, drawn from the API's schema), teams at registration (the
  desk's and the players' own), constraints (refused after round 1, or
  from a stranger), and the cut's pairing.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any
from uuid import UUID

import pytest
from flask import Flask

from api.web.i18n import STRINGS
from domain.application import Opus
from domain.bots import BOTS
from domain.simulation import simulate_tournament
from tests import tournament_oracle as oracle
from tests.apps import embedded_app
from tests.integration.test_desk_pages import Browser, after_of, notice, text_of


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path_factory.mktemp("r4pages"), run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def head(app: Flask) -> int:
    return int(opus(app).recorder.max_notification_id() or 0)


@cache
def simulated(app: Flask) -> tuple[str, int]:
    """Thirteen random bots in three teams, three constraints, two Swiss
    rounds and a cut of three tables, played to the finish."""
    run = simulate_tournament(
        opus(app), 13, 2, "random", seed=5, drop_rate=0.0, teams=3, constraints=3, cut=3
    )
    return str(run.tournament), head(app)


def say(key: str, lang: str, **values: Any) -> str:
    words = STRINGS[key][1 if lang == "ru" else 0]
    return words.format(**values) if values else words


def why_blocks(page: str) -> dict[str, str]:
    """Each round's table (by game id) and its "why" block, as a reader reads it."""
    found = re.findall(
        r'<li><a href="/table/([0-9a-f-]{36})">[^<]*</a>:(?:(?!</li>).)*?'
        r'<details class="why">(.*?)</details></li>',
        page,
        re.S,
    )
    return {game: block for game, block in found}


# ---- why each table was paired so (T11.3) ---------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_T11_3_each_table_says_its_repeats_its_spread_and_its_unavoidable_pairs(
    app: Flask, lang: str
) -> None:
    tournament, after = simulated(app)
    browser = Browser(app)
    browser.client.set_cookie("opus_lang", lang)
    page = browser.page(f"/tournament/{tournament}", after=after)
    doc = browser.get(f"/tournaments/{tournament}", after=after).json["data"]
    name = {p["player"]: p["name"] for p in doc["players"]}
    team_key = {p["player"]: oracle.key(p["team"]) for p in doc["players"] if p["team"]}
    constrained = {tuple(c["players"]): c["reason"] for c in doc["constraints"]}
    blocks = why_blocks(page)
    met: dict[tuple[int, int], int] = {}
    explained = cut_tables_with_pairs = 0
    for r in doc["rounds_paired"]:
        for table in r["tables"]:
            block = text_of(blocks[table["game"]])
            pairs = [
                (p, q)
                for i, p in enumerate(sorted(table["players"]))
                for q in sorted(table["players"])[i + 1 :]
            ]
            # (a): the pairs who shared a table in an earlier round, and Σ m²
            repeats = [(p, q, met[(p, q)]) for p, q in pairs if (p, q) in met]
            if repeats:
                listed = "; ".join(
                    say("r4_pair_met", lang, one=name[p], two=name[q], m=m) for p, q, m in repeats
                )
                a = sum(m * m for _, _, m in repeats)
                assert table["shares"]["a"] == f"{a}/1"
                assert say("r4_repeats", lang, pairs=listed, a=a) in block
            else:
                assert table["shares"]["a"] == "0/1"
                assert say("r4_no_repeats", lang) in block
            # (b): the spread, as recorded
            if table["shares"]["b"] == "0/1":
                assert say("r4_no_spread", lang) in block
            else:
                assert say("r4_spread", lang) in block
                b = table["shares"]["b"]
                shown = b.removesuffix("/1") if b.endswith("/1") else f'title="{b}"'
                assert shown in (block if b.endswith("/1") else blocks[table["game"]])
            # (c): the pairs at it sharing a team key or constrained, with the constraint's reason
            apart = [
                (p, q)
                for p, q in pairs
                if (p, q) in constrained or (team_key.get(p) and team_key.get(p) == team_key.get(q))
            ]
            assert table["shares"]["c"] == f"{len(apart)}/1"
            if apart:
                said = "; ".join(
                    say(
                        "r4_conflict_constraint",
                        lang,
                        one=name[p],
                        two=name[q],
                        reason=constrained[(p, q)],
                    )
                    if (p, q) in constrained
                    else say("r4_conflict_team", lang, one=name[p], two=name[q])
                    for p, q in apart
                )
                if r["stage"] == "swiss":
                    c = len(apart)
                    left = say("r4_conflicts", lang, pairs=said, c=c)
                    assert text_of(html.escape(left)) in block
                else:  # T12.1: no search runs at a cut table, the pairs are listed
                    cut_said = say("r4_cut_conflicts", lang, pairs=said)
                    assert text_of(html.escape(cut_said)) in block
                    assert say("r4_conflicts", lang).split("{")[0] not in block
                    cut_tables_with_pairs += 1
            else:
                assert say("r4_no_conflict", lang) in block
            if r["stage"] != "swiss":
                assert text_of(say("r4_cut_table", lang)) in block
            explained += 1
        for table in r["tables"]:
            for i, p in enumerate(sorted(table["players"])):
                for q in sorted(table["players"])[i + 1 :]:
                    met[(p, q)] = met.get((p, q), 0) + 1
    assert explained == len(blocks) == sum(len(r["tables"]) for r in doc["rounds_paired"])
    assert [r["stage"] for r in doc["rounds_paired"]] == ["swiss", "swiss", "semifinal", "final"]
    assert cut_tables_with_pairs  # three teams of 13: a cut table seats teammates


def test_T11_3_each_tables_repeats_in_the_view_are_its_pairs_earlier_rounds_only(
    app: Flask,
) -> None:
    """The view's ``repeats`` (the pairs at a table who met before, and m,
    how many earlier rounds they shared a table): held to the recorded
    rounds read here, not to a rebuild by the view's own code. A round's own
    table is never counted as a meeting (round 1's tables repeat nothing)."""
    tournament, after = simulated(app)
    doc = Browser(app).get(f"/tournaments/{tournament}", after=after).json["data"]
    earlier: list[list[list[int]]] = []
    for r in doc["rounds_paired"]:
        for table in r["tables"]:
            players = sorted(table["players"])
            expected = []
            for i, p in enumerate(players):
                for q in players[i + 1 :]:
                    m = sum(1 for tables in earlier for t in tables if p in t and q in t)
                    if m:
                        expected.append([p, q, m])
            assert table["repeats"] == expected, (r["round"], table["table"])
        earlier.append([t["players"] for t in r["tables"]])
    assert not any(t["repeats"] for t in doc["rounds_paired"][0]["tables"])
    assert any(t["repeats"] for r in doc["rounds_paired"][1:] for t in r["tables"])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_T11_3_a_pair_left_at_a_table_is_left_by_the_procedure_never_unavoidable(
    app: Flask, lang: str
) -> None:
    """P2's tournament (`opus tournament simulate --players 40 --rounds 2
    --teams 4 --cut 3 --seed 21`): round 1 leaves teammates at two tables,
    which one exchange would split; the page says the procedure left them,
    with the table's share of (c), and never calls them unavoidable."""
    run = simulate_tournament(opus(app), 40, 2, "random", seed=21, teams=4, cut=3)
    tournament, after = str(run.tournament), head(app)
    browser = Browser(app)
    browser.client.set_cookie("opus_lang", lang)
    page = browser.page(f"/tournament/{tournament}", after=after)
    doc = browser.get(f"/tournaments/{tournament}", after=after).json["data"]
    blocks = why_blocks(page)
    left = [t for t in doc["rounds_paired"][0]["tables"] if t["kept_apart"]]
    assert len(left) >= 2
    for table in left:
        block = text_of(blocks[table["game"]])
        opening = say("r4_conflicts", lang).split("{")[0]
        assert opening in block
        share = table["shares"]["c"].split("/")[0]
        assert share == str(len(table["kept_apart"]))
        assert f"(c): {share})" in block
    for word in ("Unavoidable", "unavoidable", "не удалось избежать"):
        assert word not in page


# ---- the cut as a bracket of tables (T12) ------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_T12_the_cut_is_shown_as_a_bracket_and_the_final_ranking_in_order(
    app: Flask, lang: str
) -> None:
    tournament, after = simulated(app)
    browser = Browser(app)
    browser.client.set_cookie("opus_lang", lang)
    page = browser.page(f"/tournament/{tournament}", after=after)
    doc = browser.get(f"/tournaments/{tournament}", after=after).json["data"]
    name = {p["player"]: p["name"] for p in doc["players"]}
    semis, final = doc["rounds_paired"][2], doc["rounds_paired"][3]
    cut = re.search(r'<section aria-labelledby="cut-h">(.*?)</section>\s*</div>', page, re.S)
    assert cut is not None
    bracket = cut.group(1)
    assert say("r4_semifinals", lang, n=3) in bracket and say("r4_final", lang, n=4) in bracket
    finalists = final["tables"][0]["players"]
    for table in semis["tables"]:
        seats = re.search(
            rf'href="/table/{table["game"]}">[^<]*</a>\s*<ol class="bracket-seats">(.*?)</ol>',
            bracket,
            re.S,
        )
        assert seats is not None
        lines = [
            text_of(item).strip() for item in re.findall(r"<li>(.*?)</li>", seats.group(1), re.S)
        ]
        expected = []
        for k, player in enumerate(table["players"]):
            line = (
                f"{say('r4_seed_n', lang, n=table['seeds'][k])}: {name[player]} · "
                f"{say('r4_place_n', lang, n=table['result']['places'][k])}"
            )
            if player in finalists:
                line += f" · {say('r4_advances', lang)}"
            expected.append(line)
        assert lines == expected
        assert table["seeds"] == sorted(table["seeds"])  # seats by seed (T12.2)
    assert len(finalists) == 3  # each semifinal table sent one
    ranking = re.search(r'<table class="standings ranking">(.*?)</table>', page, re.S)
    assert ranking is not None
    rows = [
        [text_of(cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(<td>.*?)</tr>", ranking.group(1), re.S)
    ]
    assert rows == [
        [
            str(row["rank"]),
            name[row["player"]],
            say(f"r4_reached_{row['reached']}", lang),
            "—" if row["place"] is None else str(row["place"]),
        ]
        for row in doc["finished"]["ranking"]
    ]
    assert len(rows) == 13


# ---- the organiser's desk ------------------------------------------------------------------------


def desk_post(browser: Browser, tournament: str, action: str, data: dict[str, Any]) -> Any:
    page = browser.page(f"/desk/tournament/{tournament}", after=head_of(browser))
    version = re.search(r'name="version" value="(\d+)"', page)
    assert version is not None
    return browser.post(
        f"/desk/tournament/{tournament}/{action}", {"version": version.group(1), **data}
    )


def head_of(browser: Browser) -> int:
    app = browser.client.application
    return head(app)


def play_round(app: Flask, tournament: str) -> None:
    choose = BOTS["random"](random.Random(3))
    state = opus(app).tournaments.get(UUID(tournament)).state
    for seat in state.rounds[-1].tables:
        game = opus(app).state(seat.game)
        while game.status == "running":
            opus(app).play(seat.game, choose(game, game.turn))
            game = opus(app).state(seat.game)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_desks_create_form_offers_the_procedure_and_the_cut_in_words(
    app: Flask, lang: str
) -> None:
    browser = Browser(app)
    browser.client.set_cookie("opus_lang", lang)
    page = browser.page("/desk/tournament/new")
    assert re.search(r'<input type="radio" name="procedure" value="swap-1">', page)
    assert re.search(r'<input type="radio" name="procedure" value="regroup-1" checked>', page)
    assert re.search(r'<input[^>]* name="cut"[^>]* min="1" max="5"', page)  # T12.1's bounds
    words = text_of(page)
    for key in ("desk_field_procedure", "desk_field_cut", "desk_field_cut_hint"):
        assert text_of(say(key, lang)) in words, key


def test_the_desk_drives_teams_a_constraint_and_the_cut(app: Flask) -> None:
    organiser = Browser(app)
    created = organiser.post(
        "/desk/tournament/new",
        {
            "name": "Families' cup",
            "draw": "five",
            "guild": "on",
            "tables.min": "3",
            "tables.preferred": "3",
            "tables.max": "3",
            "rounds": "1",
            "procedure": "swap-1",
            "cut": "1",
        },
    )
    after = after_of(created)
    tournament = re.search(r"/desk/tournament/([0-9a-f-]{36})", created.headers["Location"])
    assert tournament is not None
    tid = tournament.group(1)
    doc = organiser.get(f"/tournaments/{tid}", after=after).json["data"]
    assert (doc["procedure"], doc["cut"], doc["revision"]) == ("swap-1", 1, 4)
    for n, team in enumerate(["Home", "home", "", ""], start=1):
        registered = desk_post(
            organiser, tid, "register", {"name": f"P{n}", "contribution": "", "team": team}
        )
        assert registered.status_code == 200, registered.get_data(as_text=True)
    for n, team in ((5, "Away"), (6, "")):
        player = Browser(app)
        page = player.page(f"/tournament/{tid}", after=head(app))
        assert 'name="team"' in page  # a player names their own team (T11.1)
        answer = player.post(f"/tournament/{tid}/register", {"name": f"P{n}", "team": team})
        assert answer.status_code == 303, answer.get_data(as_text=True)
    desk = organiser.page(f"/desk/tournament/{tid}", after=head(app))
    assert 'id="constrain"' in desk and "P1 · " in text_of(desk)
    # a stranger's constraint: refused by the desk, nothing recorded
    before = head(app)
    stranger = Browser(app).post(
        f"/desk/tournament/{tid}/constrain",
        {"version": str(doc["version"] + 6), "players": ["3", "4"], "reason": "x"},
    )
    assert stranger.status_code == 403 and head(app) == before
    same = desk_post(organiser, tid, "constrain", {"players": ["3", "3"], "reason": "twins"})
    assert same.status_code == 409 and notice(same.get_data(as_text=True)).startswith(
        "Refused by rule T11.1"
    )
    kept = desk_post(organiser, tid, "constrain", {"players": ["4", "3"], "reason": "twins"})
    kept_after = after_of(kept)
    desk = organiser.page(f"/desk/tournament/{tid}", after=kept_after, done="constrained")
    assert say("desk_done_constrained", "en") in text_of(desk)
    assert "P3 and P4: twins (organiser)" in text_of(desk)
    state = opus(app).tournaments.get(UUID(tid)).state
    assert state.constraints == [(3, 4)]
    assert [r.team for r in state.registrations] == ["Home", "home", "", "", "Away", ""]
    paired = desk_post(organiser, tid, "pair", {})
    desk = organiser.page(f"/desk/tournament/{tid}", after=after_of(paired))
    assert 'id="constrain"' not in desk  # until round 1 is paired (T11.1)
    round_one = opus(app).tournaments.get(UUID(tid)).state.rounds[0]
    assert not any({1, 2} <= set(t.players) or {3, 4} <= set(t.players) for t in round_one.tables)
    play_round(app, tid)
    desk = organiser.page(f"/desk/tournament/{tid}", after=head(app))
    assert 'id="cut-next"' in desk and say("desk_pair_cut", "en") in desk
    assert 'id="register"' not in desk  # closed at the last Swiss round (T2.3)
    cut = desk_post(organiser, tid, "pair", {})
    after = after_of(cut)
    doc = organiser.get(f"/tournaments/{tid}", after=after).json["data"]
    final = doc["rounds_paired"][1]
    assert final["stage"] == "final" and final["procedure"] == "cut"
    assert final["tables"][0]["seeds"] == [1, 2, 3]
    play_round(app, tid)
    finished = desk_post(organiser, tid, "finish", {"sure": "on"})
    page = organiser.page(f"/tournament/{tid}", after=after_of(finished))
    assert 'id="ranking-h"' in page and 'class="table-layout bracket"' in page

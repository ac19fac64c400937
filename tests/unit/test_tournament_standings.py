"""T5–T7: places, match points, standings, corrections and penalties; T6.2's
"p/q" text (domain/tournaments/exact.py); T9.1's standings digest.

``reference_standings`` below is T6.1 written out again, plainly in
Fractions: hypothesis holds domain/tournaments/standings.py (which sums in
integers, for speed) to it.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.tournaments import exact
from domain.tournaments.seeds import rank_key
from domain.tournaments.standings import (
    Entrant,
    Outcome,
    Row,
    digest,
    is_competition_ranking,
    match_points,
    places,
    standings,
)

SEED = bytes(32)
F = Fraction


def game(
    round_: int,
    table: int,
    players: Sequence[int],
    places_: Sequence[int],
    scores: Sequence[int] | None = None,
    corrections: int = 0,
) -> Outcome:
    return Outcome(
        game=uuid.uuid5(uuid.NAMESPACE_OID, f"{round_}.{table}"),
        round=round_,
        table=table,
        players=tuple(players),
        places=tuple(places_),
        scores=tuple(scores) if scores is not None else (0,) * len(players),
        corrections=corrections,
    )


def entrants(count: int, dropped: Sequence[int] = ()) -> list[Entrant]:
    return [Entrant(n, f"P{n}", n in dropped) for n in range(1, count + 1)]


def by_player(rows: Sequence[Row]) -> dict[int, Row]:
    return {row.player: row for row in rows}


def order(rows: Sequence[Row]) -> list[int]:
    return [row.player for row in rows]


def seed_ranking_first(first: int, second: int) -> bytes:
    """A seed whose T6.1 (4) rank key puts ``first`` before ``second``."""
    return next(
        seed
        for seed in (bytes([i]) * 32 for i in range(256))
        if rank_key(seed, first) < rank_key(seed, second)
    )


# ---- T5.1, T5.2, T7.1 ------------------------------------------------------------


def test_T5_1_ties_share_a_place() -> None:
    assert places([(9, 1, 0), (7, 0, 2), (7, 0, 2), (3, 2, 2)]) == [1, 2, 2, 4]
    assert places([(5, 0, 0), (5, 0, 0), (5, 0, 0)]) == [1, 1, 1]


def test_T5_1_stages_then_recipes_break_ties_of_points() -> None:
    assert places([(5, 1, 0), (5, 0, 9), (5, 1, 1), (6, 0, 0)]) == [3, 4, 2, 1]


@pytest.mark.parametrize(
    ("places_", "expected"),
    [
        ([1, 2], [12, 0]),
        ([1, 2, 3], [12, 6, 0]),
        ([3, 1, 2], [0, 12, 6]),
        ([1, 2, 3, 4], [12, 8, 4, 0]),
        ([1, 2, 3, 4, 5], [12, 9, 6, 3, 0]),
    ],
)
def test_T5_2_match_points_by_place(places_: list[int], expected: list[int]) -> None:
    assert match_points(places_) == [F(points) for points in expected]


@pytest.mark.parametrize(
    ("places_", "expected"),
    [
        ([1, 2, 2, 4], [F(12), F(6), F(6), F(0)]),
        ([1, 1, 3], [F(9), F(9), F(0)]),
        ([1, 2, 2], [F(12), F(3), F(3)]),
        ([1, 1, 1, 1], [F(6)] * 4),
        ([1, 1], [F(6), F(6)]),
        ([1, 1, 3, 3, 5], [F(21, 2), F(21, 2), F(9, 2), F(9, 2), F(0)]),
        ([1, 2, 2, 2, 5], [F(12), F(6), F(6), F(6), F(0)]),
        ([4, 1, 1, 1], [F(0), F(8), F(8), F(8)]),
    ],
)
def test_T5_2_players_sharing_a_place_share_its_points(
    places_: list[int], expected: list[Fraction]
) -> None:
    assert match_points(places_) == expected


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 1)), min_size=2))
def test_T5_2_every_table_gives_6_on_average(keys: list[tuple[int, int, int]]) -> None:
    points = match_points(places(keys))
    assert sum(points) == 6 * len(keys)
    assert is_competition_ranking(places(keys))


def test_T7_1_competition_rankings() -> None:
    for valid in ([1, 2, 2, 4], [1, 1, 3], [2, 1], [1, 1, 1], [3, 1, 1]):
        assert is_competition_ranking(valid), valid
    for invalid in ([1, 1, 2], [1, 2, 2, 3], [2, 2], [1, 3, 3], [0, 1], [1, 2, 4]):
        assert not is_competition_ranking(invalid), invalid


def test_T7_1_match_points_refuse_what_is_not_a_competition_ranking() -> None:
    with pytest.raises(ValueError, match=r"^T7\.1"):
        match_points([1, 1, 2])
    with pytest.raises(ValueError, match=r"^T5\.2"):
        match_points([1])


# ---- T6.1 ------------------------------------------------------------------------


def test_T6_1_match_points_decide_first() -> None:
    # 1 wins a 3-player table (12) against weak opponents (5), scoring little;
    # 4 is second (9) at a 5-player table against strong ones (13/2), scoring much.
    outcomes = [
        game(1, 1, [1, 2, 3], [1, 2, 3], [5, 0, 0]),
        game(1, 2, [4, 5, 6, 7, 8], [2, 1, 3, 4, 5], [50, 60, 0, 0, 0]),
    ]
    rows = by_player(standings(entrants(8), outcomes, {}, {}, seed_ranking_first(4, 1)))
    assert rows[1].match_points == 12 and rows[4].match_points == 9
    assert rows[1].opponents == 5 and rows[4].opponents == F(12 + 6 + 4 + 4, 4)
    assert rows[1].game_points < rows[4].game_points
    assert rows[1].rank < rows[4].rank


def test_T6_1_opponents_average_decides_second_and_rates_are_floored_at_4() -> None:
    outcomes = [
        game(1, 1, [1, 2, 3], [1, 2, 3], [1, 0, 0]),  # 1's opponents: 6 and 0 → 4
        game(1, 2, [4, 5, 6], [1, 2, 2], [9, 0, 0]),  # 4's opponents: 3 → 4 and 3 → 4
    ]
    rows = by_player(standings(entrants(6), outcomes, {}, {}, seed_ranking_first(4, 1)))
    assert rows[1].match_points == rows[4].match_points == 12
    assert rows[1].opponents == F(6 + 4, 2) == 5
    assert rows[4].opponents == 4
    assert rows[1].game_points < rows[4].game_points
    assert rows[1].rank < rows[4].rank


def test_T6_1_game_points_decide_third() -> None:
    outcomes = [
        game(1, 1, [1, 2, 3, 4], [1, 2, 3, 4], [20, 0, 0, 0]),
        game(1, 2, [5, 6, 7, 8], [1, 2, 3, 4], [21, 0, 0, 0]),
    ]
    rows = by_player(standings(entrants(8), outcomes, {}, {}, seed_ranking_first(1, 5)))
    assert rows[1].match_points == rows[5].match_points
    assert rows[1].opponents == rows[5].opponents == F(8 + 4 + 4, 3)
    assert rows[5].rank < rows[1].rank


def test_T6_1_the_rank_key_decides_last_lower_first() -> None:
    outcomes = [
        game(1, 1, [1, 2, 3, 4], [1, 2, 3, 4], [20, 0, 0, 0]),
        game(1, 2, [5, 6, 7, 8], [1, 2, 3, 4], [20, 0, 0, 0]),
    ]
    for first, second in [(1, 5), (5, 1)]:
        seed = seed_ranking_first(first, second)
        ranked = order(standings(entrants(8), outcomes, {}, {}, seed))
        assert ranked.index(first) < ranked.index(second)
    # With no games at all, only the rank key orders.
    by_key = sorted(range(1, 6), key=lambda n: rank_key(SEED, n))
    assert order(standings(entrants(5), [], {}, {}, SEED)) == by_key


def test_T6_1_byes_score_6_and_stay_out_of_rates() -> None:
    outcomes = [
        game(1, 1, [1, 2, 3], [1, 2, 3]),
        game(2, 1, [4, 1, 2], [1, 2, 3]),  # 4 had the bye in round 1
    ]
    rows = by_player(standings(entrants(4), outcomes, {4: [1]}, {}, SEED))
    assert rows[4].match_points == 18 and rows[4].byes == 1 and rows[4].games == 1
    # 1's opponents in round 2: 4 at 12/1 (not 18/2) and 2 at (6 + 0)/2 = 3 → 4.
    # In round 1: 2 at 4 and 3 at 0 → 4. Average (4 + 4)/2 then (4 + 8)/2.
    assert rows[1].opponents == F(4 + 8, 2)


def test_T6_1_penalties_count_in_own_points_and_in_no_opponents_average() -> None:
    outcomes = [game(1, 1, [1, 2, 3], [1, 2, 3])]
    plain = by_player(standings(entrants(3), outcomes, {}, {}, SEED))
    penalised = by_player(standings(entrants(3), outcomes, {}, {1: [F(12)]}, SEED))
    assert penalised[1].match_points == 0 and penalised[1].penalties == 12
    assert penalised[2].opponents == plain[2].opponents == F(12 + 4, 2)
    assert penalised[1].rank > plain[1].rank


def test_T6_1_only_rounds_up_to_the_standings_round_count() -> None:
    outcomes = [
        game(1, 1, [1, 2, 3], [1, 2, 3]),
        game(2, 1, [1, 2, 4], [3, 1, 2]),
    ]
    rows = by_player(standings(entrants(4), outcomes, {4: [1, 3]}, {}, SEED, up_to_round=1))
    assert rows[1].match_points == 12 and rows[1].games == 1
    assert rows[2].opponents == F(12 + 4, 2)  # 1's rate from round 1 only
    assert rows[4].games == 0 and rows[4].byes == 1 and rows[4].match_points == 6
    assert rows[4].opponents == 0


def test_T6_1_a_dropped_player_stays_in_their_place_marked() -> None:
    outcomes = [game(1, 1, [1, 2, 3], [1, 2, 3])]
    rows = standings(entrants(3, dropped=[1]), outcomes, {}, {}, SEED)
    assert rows[0].player == 1 and rows[0].dropped and rows[0].rank == 1
    assert not rows[1].dropped


def test_T6_1_every_entrant_gets_a_row_with_or_without_games() -> None:
    rows = standings(entrants(5), [game(1, 1, [1, 2, 3], [1, 2, 3])], {}, {}, SEED)
    assert sorted(order(rows)) == [1, 2, 3, 4, 5]
    assert [row.rank for row in rows] == [1, 2, 3, 4, 5]
    late = by_player(rows)[5]
    assert late.games == 0 and late.match_points == 0 and late.opponents == 0


def test_T6_1_inputs_that_cannot_be_are_refused() -> None:
    with pytest.raises(ValueError, match="not registered"):
        standings(entrants(2), [game(1, 1, [1, 2, 3], [1, 2, 3])], {}, {}, SEED)
    with pytest.raises(ValueError, match="twice"):
        standings(entrants(3), [game(1, 1, [1, 2, 3], [1, 2, 3])] * 2, {}, {}, SEED)
    with pytest.raises(ValueError, match="malformed"):
        standings(entrants(3), [game(1, 1, [1, 2, 2], [1, 2, 3])], {}, {}, SEED)
    with pytest.raises(ValueError, match="share a registration number"):
        standings([Entrant(1, "A", False), Entrant(1, "B", False)], [], {}, {}, SEED)


# ---- T7 --------------------------------------------------------------------------


def test_T7_1_the_places_that_count_decide_and_the_corrections_are_counted() -> None:
    # The recorded places were 1, 2, 3; the latest correction says 2, 1, 3.
    corrected = game(1, 1, [1, 2, 3], [2, 1, 3], [30, 20, 10], corrections=2)
    rows = by_player(standings(entrants(4), [corrected], {}, {}, SEED))
    assert rows[2].match_points == 12 and rows[1].match_points == 6
    assert rows[1].game_points == 30  # scores never change
    assert [rows[n].corrections for n in (1, 2, 3, 4)] == [2, 2, 2, 0]


def test_T7_2_penalties_add_up_and_each_is_a_correction() -> None:
    outcomes = [game(1, 1, [1, 2, 3], [1, 2, 3], corrections=1)]
    rows = by_player(standings(entrants(3), outcomes, {}, {3: [F(1, 2), F(3)]}, SEED))
    assert rows[3].penalties == F(7, 2)
    assert rows[3].match_points == F(-7, 2)  # not floored at 0
    assert rows[3].corrections == 1 + 2
    assert rows[1].corrections == 1


# ---- T6.2, T9.1: rows as JSON, the "p/q" text, the digest -------------------------


def test_T6_2_a_row_as_json() -> None:
    outcomes = [game(1, 1, [1, 2, 3, 4], [1, 2, 2, 4], [9, 5, 5, 1])]
    rows = standings(entrants(4), outcomes, {}, {2: [F(1, 2)]}, SEED)
    assert [row.to_json() for row in rows[:2]] == [
        {
            "rank": 1,
            "player": 1,
            "name": "P1",
            "dropped": False,
            "match_points": "12/1",
            "penalties": "0/1",
            "opponents": "16/3",  # rates 6, 6 and 0 → 4
            "game_points": 9,
            "games": 1,
            "byes": 0,
            "corrections": 0,
        },
        {
            "rank": 2,
            "player": 3,
            "name": "P3",
            "dropped": False,
            "match_points": "6/1",
            "penalties": "0/1",
            "opponents": "22/3",  # rates 12, 6 and 4
            "game_points": 5,
            "games": 1,
            "byes": 0,
            "corrections": 0,
        },
    ]
    assert rows[2].to_json()["match_points"] == "11/2"
    assert rows[2].to_json()["penalties"] == "1/2"
    assert rows[2].to_json()["corrections"] == 1


def test_T6_2_exact_fractions_are_written_p_over_q_in_lowest_terms() -> None:
    assert exact.text(6) == "6/1"
    assert exact.text(F(-2, 4)) == "-1/2"
    assert exact.text(0) == "0/1"
    for value in (F(6), F(-1, 2), F(0), F(22, 3), F(10**30, 7)):
        assert exact.parse(exact.text(value)) == value


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("6", "p/q"),
        ("6.0/1", "p/q"),
        (" 1/2", "p/q"),
        ("1/2 ", "p/q"),
        ("1/2\n", "p/q"),
        ("+1/2", "p/q"),
        ("1/-2", "p/q"),
        ("١/٢", "p/q"),  # Arabic-Indic digits
        ("2/4", "lowest terms: write '1/2'"),
        ("-0/1", "zero is written"),
        ("0/2", "lowest terms: write '0/1'"),
        ("1/0", "denominator is 0"),
        ("01/2", "leading zero"),
        ("1/02", "leading zero"),
    ],
)
def test_T6_2_exact_parse_is_strict(text: str, fault: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fault)):
        exact.parse(text)


def jcs(value: Any) -> bytes:
    """RFC 8785 for strings, integers, booleans, lists and ASCII-keyed objects."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_T9_1_the_standings_digest_is_sha256_of_jcs_of_the_rows() -> None:
    people = [Entrant(1, 'Zoë \u2028 "Ω" \\', False), Entrant(2, "Борис", True)]
    rows = standings(people, [game(1, 1, [1, 2], [1, 1], [3, 3])], {}, {}, SEED)
    expected = hashlib.sha256(jcs([row.to_json() for row in rows])).hexdigest()
    assert digest(rows) == expected
    assert digest([]) == hashlib.sha256(b"[]").hexdigest()


# ---- properties ------------------------------------------------------------------


def reference_standings(
    people: Sequence[Entrant],
    outcomes: Sequence[Outcome],
    byes: Mapping[int, Sequence[int]],
    penalties: Mapping[int, Sequence[Fraction]],
    seed: bytes,
) -> list[Row]:
    """T6.1 and T6.2 written out plainly, in Fractions."""
    earned: dict[int, list[Fraction]] = {p.number: [] for p in people}
    for outcome in outcomes:
        for player, points in zip(outcome.players, match_points(outcome.places), strict=True):
            earned[player].append(points)

    def rate(player: int) -> Fraction:
        return max(sum(earned[player], F(0)) / len(earned[player]), F(4))

    rows = []
    for p in people:
        played = [o for o in outcomes if p.number in o.players]
        averages = [
            sum((rate(q) for q in o.players if q != p.number), F(0)) / (len(o.players) - 1)
            for o in played
        ]
        taken = sum(penalties.get(p.number, []), F(0))
        rows.append(
            Row(
                rank=0,
                player=p.number,
                name=p.name,
                dropped=p.dropped,
                match_points=sum(earned[p.number], F(0)) + 6 * len(byes.get(p.number, [])) - taken,
                penalties=taken,
                opponents=sum(averages, F(0)) / len(averages) if averages else F(0),
                game_points=sum(o.scores[o.players.index(p.number)] for o in played),
                games=len(played),
                byes=len(byes.get(p.number, [])),
                corrections=sum(o.corrections for o in played) + len(penalties.get(p.number, [])),
            )
        )
    rows.sort(
        key=lambda r: (-r.match_points, -r.opponents, -r.game_points, rank_key(seed, r.player))
    )
    return [replace(row, rank=rank) for rank, row in enumerate(rows, start=1)]


@dataclass(frozen=True)
class StandingsCase:
    people: list[Entrant]
    outcomes: list[Outcome]
    byes: dict[int, list[int]]
    penalties: dict[int, list[Fraction]]
    seed: bytes

    def rows(self) -> list[Row]:
        return standings(self.people, self.outcomes, self.byes, self.penalties, self.seed)


keys_at_table = st.tuples(st.integers(0, 4), st.integers(0, 1), st.integers(0, 1))


@st.composite
def tournaments(draw: st.DrawFn) -> StandingsCase:
    count = draw(st.integers(3, 14))
    people = [Entrant(n, f"P{n}", draw(st.booleans())) for n in range(1, count + 1)]
    outcomes: list[Outcome] = []
    byes: dict[int, list[int]] = {}
    for round_ in range(1, draw(st.integers(1, 3)) + 1):
        order_ = draw(st.permutations(range(1, count + 1)))
        table = 0
        while len(order_) >= 3:
            size = min(draw(st.integers(3, 5)), len(order_))
            players, order_ = order_[:size], order_[size:]
            keys = draw(st.lists(keys_at_table, min_size=size, max_size=size))
            scores = draw(st.lists(st.integers(0, 40), min_size=size, max_size=size))
            table += 1
            outcomes.append(
                game(round_, table, players, places(keys), scores, draw(st.integers(0, 2)))
            )
        for player in order_:
            byes.setdefault(player, []).append(round_)
    halves = st.integers(1, 24).map(lambda n: F(n, 2))
    penalties = draw(
        st.dictionaries(st.integers(1, count), st.lists(halves, min_size=1, max_size=2))
    )
    seed = draw(st.binary(min_size=32, max_size=32))
    return StandingsCase(people, outcomes, byes, penalties, seed)


@given(tournaments())
def test_T6_1_standings_are_t6_1_written_plainly(t: StandingsCase) -> None:
    assert t.rows() == reference_standings(t.people, t.outcomes, t.byes, t.penalties, t.seed)


@given(tournaments(), st.randoms(use_true_random=False))
def test_T6_1_the_order_is_total_and_does_not_depend_on_input_order(
    t: StandingsCase, rng: random.Random
) -> None:
    rows = t.rows()
    assert [row.rank for row in rows] == list(range(1, len(t.people) + 1))
    assert sorted(order(rows)) == [e.number for e in t.people]
    people, outcomes = list(t.people), list(t.outcomes)
    rng.shuffle(people)
    rng.shuffle(outcomes)
    assert standings(people, outcomes, t.byes, t.penalties, t.seed) == rows
    assert digest(standings(people, outcomes, t.byes, t.penalties, t.seed)) == digest(rows)


@given(tournaments(), st.data())
def test_T7_2_a_penalty_changes_only_its_players_points_and_no_opponents_figure(
    t: StandingsCase, data: st.DataObject
) -> None:
    before = by_player(t.rows())
    player = data.draw(st.integers(1, len(t.people)))
    amount = data.draw(st.integers(1, 24).map(lambda n: F(n, 2)))
    penalties = {**t.penalties, player: [*t.penalties.get(player, []), amount]}
    after = by_player(replace(t, penalties=penalties).rows())
    for number, row in after.items():
        old = before[number]
        if number == player:
            assert row.match_points == old.match_points - amount
            assert row.penalties == old.penalties + amount
            assert row.corrections == old.corrections + 1
            row = replace(
                row,
                match_points=old.match_points,
                penalties=old.penalties,
                corrections=old.corrections,
            )
        assert replace(row, rank=0) == replace(old, rank=0)


@given(tournaments(), st.data())
def test_T7_1_a_correction_changes_only_its_players_and_their_opponents_rows(
    t: StandingsCase, data: st.DataObject
) -> None:
    if not t.outcomes:
        return
    before = by_player(t.rows())
    index = data.draw(st.integers(0, len(t.outcomes) - 1))
    corrected = t.outcomes[index]
    size = len(corrected.players)
    keys = data.draw(st.lists(keys_at_table, min_size=size, max_size=size))
    outcomes = list(t.outcomes)
    outcomes[index] = replace(
        corrected, places=tuple(places(keys)), corrections=corrected.corrections + 1
    )
    after = by_player(replace(t, outcomes=outcomes).rows())
    at_game = set(corrected.players)
    met = {q for o in outcomes if at_game & set(o.players) for q in o.players}
    for number, row in after.items():
        if number in at_game:
            continue
        assert row.match_points == before[number].match_points
        if number not in met:
            assert replace(row, rank=0) == replace(before[number], rank=0)

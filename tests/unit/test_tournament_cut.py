"""T12, the top cut (revision 4): who qualifies, the snake seeding, the seats
by seed, the final and who reaches it when winners drop, the ranking, and
that the cut's games stay out of the Swiss standings. Each expectation is
the oracle's (tests/tournament_oracle.py), reading the recorded events.

Tournaments here are synthetic: the decisions (domain/tournaments/decide.py)
are run on a ``TournamentState`` with random places, drops, corrections and
penalties in place of played games (the games themselves are the service's
tests' and verify's), so hypothesis can walk many of them.
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.chained import Fact
from domain.errors import CreationError, TournamentRuleError
from domain.ruleset import RuleSet
from domain.shuffle import commitment
from domain.tournaments import cut
from domain.tournaments.aggregate import created_fields
from domain.tournaments.decide import (
    decide_close,
    decide_constraint,
    decide_correction,
    decide_drop,
    decide_finish,
    decide_pairing,
    decide_penalty,
    decide_register,
    decide_result,
)
from domain.tournaments.standings import digest
from domain.tournaments.state import REGROUP_1, Round, Seat, TournamentState
from domain.tournaments.tables import TableSizes
from tests import tournament_oracle as oracle

TOURNAMENT = UUID("5e1f0c5e-7a11-4c0e-9d2a-3b4c5d6e7f80")
SECRET = bytes(range(32))
STAMP = datetime(2026, 1, 1, tzinfo=UTC)


class Synthetic:
    """A tournament decided by its rules on a state, with made-up results;
    ``events`` are its facts in order, as the oracle reads them."""

    def __init__(
        self,
        players: int,
        *,
        sizes: tuple[int, int, int] = (3, 4, 5),
        rounds: int | None = 2,
        cut_tables: int | None = None,
        procedure: str = REGROUP_1,
        teams: Sequence[str] = (),
        constraints: Sequence[tuple[int, int]] = (),
        weight: int = 6,
        late_until: int = 1,
    ) -> None:
        created = created_fields(
            "Synthetic",
            "0" * 64,
            commitment(SECRET),
            SECRET.hex(),
            RuleSet(),
            TableSizes(*sizes),
            weight=weight,
            late_until=late_until,
            time_limit=None,
            rounds=rounds,
            beacon="",
            unicode_version=unicodedata.unidata_version,
            procedure=procedure,
            cut=cut_tables,
        )
        self.events: list[tuple[str, dict[str, Any]]] = [("TournamentCreated", created)]
        self.state = TournamentState.from_created(created)
        for n in range(1, players + 1):
            team = teams[n - 1] if n <= len(teams) else ""
            self.apply(decide_register(self.state, f"P{n}", f"c{n}", f"{n:064x}", team))
        for pair in constraints:
            self.apply(decide_constraint(self.state, list(pair), "family", "Arbiter"))

    def apply(self, facts: list[Fact]) -> None:
        for cls, fields in facts:
            self.state.evolve(cls.__name__, {**fields, "timestamp": STAMP})
            self.events.append((cls.__name__, fields))

    def oracle(self) -> oracle.OracleTournament:
        return oracle.OracleTournament.of(self.events, SECRET)

    def pair(self) -> dict[str, Any]:
        facts, _ = decide_pairing(self.state, TOURNAMENT)
        self.apply(facts)
        return facts[0][1]

    def play(self, rng: random.Random) -> None:
        """Every game of the open round ends with random R7.3 keys (so ties
        share places) and scores; the round closes (T9.1)."""
        for seat in self.state.rounds[-1].tables:
            keys = [(rng.randrange(4), rng.randrange(2), 0) for _ in seat.players]
            scores = [key[0] for key in keys]
            head = hashlib.sha256(seat.game.bytes).hexdigest()
            self.apply(decide_result(self.state, seat.game, keys, scores, head))
        self.apply(decide_close(self.state))

    def drop(self, player: int) -> None:
        self.apply(decide_drop(self.state, player))

    def correct(self, round_: int, table: int, places: list[int]) -> None:
        game = self.state.rounds[round_ - 1].tables[table - 1].game
        self.apply(decide_correction(self.state, game, places, "slip", "Arbiter"))

    def penalise(self, player: int, points: Fraction) -> None:
        self.apply(decide_penalty(self.state, player, points, "late", "Arbiter"))


def checked_swiss_round(t: Synthetic) -> dict[str, Any]:
    """Pair the next Swiss round and hold it to the oracle: tables and byes
    (T3, T4.1/T4.2 with T4.2b and T11.2), seats (T4.3), game ids (T1.2),
    (c) and each table's shares (T11.2, T11.3)."""
    told = t.oracle()
    tables, byes = told.next_pairing()
    terms = told.terms()
    paired = t.pair()
    number = paired["round"]
    assert [sorted(x["players"]) for x in paired["tables"]] == [sorted(x) for x in tables]
    assert paired["byes"] == byes
    told = t.oracle()
    assert [x["players"] for x in paired["tables"]] == told.seats(number)
    held_to_terms(paired, terms, str(TOURNAMENT))
    return paired


def held_to_terms(paired: dict[str, Any], terms: oracle.Terms, tournament: str) -> None:
    """A RoundPaired's (c), shares, objective and game ids are the oracle's."""
    seated = [x["players"] for x in paired["tables"]]
    c, rest = terms.value(seated)
    assert Fraction(paired["objective"]) == rest
    if terms.conflicts is None:
        assert "objective_c" not in paired
    else:
        assert paired["objective_c"] == f"{c}/1"
    for x in paired["tables"]:
        a, b, conflicts = terms.shares(x["players"])
        assert x["shares"] == {
            "a": f"{a}/1",
            "b": f"{b.numerator}/{b.denominator}",
            "c": f"{conflicts}/1",
        }
        assert x["game"] == oracle.game_id(tournament, paired["round"], x["table"])


# ---- T12.1: a cut named at creation ---------------------------------------------------


@pytest.mark.parametrize(
    ("k", "sizes", "allowed"),
    [
        (1, (3, 4, 5), True),
        (2, (2, 2, 3), False),  # k ∈ {1, 3, 4, 5}
        (3, (3, 4, 5), True),
        (4, (3, 4, 5), True),
        (5, (3, 4, 5), True),
        (6, (3, 4, 5), False),
        (5, (3, 4, 4), False),  # k ≤ max when k > 1
        (3, (4, 4, 5), False),  # min ≤ k when k > 1
        (1, (4, 4, 5), True),  # k = 1: one final table, whatever the sizes
    ],
)
def test_T12_1_a_cut_has_1_3_4_or_5_tables_within_the_table_sizes(
    k: int, sizes: tuple[int, int, int], allowed: bool
) -> None:
    if allowed:
        cut.check_cut(k, TableSizes(*sizes))
        return
    with pytest.raises(CreationError) as refused:
        cut.check_cut(k, TableSizes(*sizes))
    assert refused.value.rule == "T12.1"


@pytest.mark.parametrize(
    ("k", "sizes", "active", "s"),
    [
        (3, (3, 4, 5), 12, 4),  # the preferred size fits
        (3, (3, 4, 5), 11, 3),  # else the largest that fits
        (3, (3, 4, 5), 9, 3),
        (3, (3, 4, 5), 8, None),  # none: refused
        (1, (3, 4, 5), 3, 3),
        (1, (3, 4, 5), 40, 4),
        (4, (2, 2, 5), 9, 2),  # the preferred size fits: not a larger one
        (5, (3, 3, 5), 14, None),
        (3, (3, 5, 5), 13, 4),  # the largest that fits, not the smallest (3)
        (3, (2, 5, 5), 11, 3),
    ],
)
def test_T12_1_the_cut_tables_size(
    k: int, sizes: tuple[int, int, int], active: int, s: int | None
) -> None:
    assert cut.cut_size(k, TableSizes(*sizes), active) == s
    assert oracle.cut_size(k, *sizes, active) == s


def test_T12_1_the_cut_tables_size_is_the_texts_for_every_setting() -> None:
    """Every k, every table-size setting T1.1 allows and every count of active
    players up to 30: the service's s is the oracle's (written from T12.1)."""
    for k in (1, 3, 4, 5):
        for low in range(2, 6):
            for preferred in range(low, 6):
                for high in range(preferred, 6):
                    for active in range(31):
                        assert cut.cut_size(k, TableSizes(low, preferred, high), active) == (
                            oracle.cut_size(k, low, preferred, high, active)
                        ), (k, low, preferred, high, active)


def test_T12_2_snake_seeding_of_three_tables_of_four() -> None:
    """Seeds 1…3 to tables 1…3, 4…6 to tables 3…1, 7…9 to 1…3, 10…12 to 3…1."""
    dealt = cut.deal(list(range(1, 13)), 3)
    assert dealt == [[1, 6, 7, 12], [2, 5, 8, 11], [3, 4, 9, 10]]
    assert dealt == oracle.snake(list(range(1, 13)), 3)


@given(st.sampled_from([1, 3, 4, 5]), st.integers(2, 5), st.randoms(use_true_random=False))
def test_T12_2_seats_follow_seeds_and_the_seeds_come_back_from_the_tables(
    k: int, s: int, rng: random.Random
) -> None:
    qualifiers = rng.sample(range(1, 200), k * s)
    dealt = cut.deal(qualifiers, k)
    assert dealt == oracle.snake(qualifiers, k)
    seeds = {player: seed for seed, player in enumerate(qualifiers, start=1)}
    for table in dealt:
        assert [seeds[p] for p in table] == sorted(seeds[p] for p in table)  # best at seat 0
    seats = [Seat(t, UUID(int=t), tuple(players)) for t, players in enumerate(dealt, start=1)]
    first = Round(2, seats, [], "", procedure="cut")
    assert cut.seeds_of(first, k) == seeds


# ---- T12 in whole synthetic tournaments ---------------------------------------------------


@st.composite
def cut_tournaments(draw: st.DrawFn) -> dict[str, Any]:
    sizes = draw(st.sampled_from([(3, 4, 5), (3, 3, 5), (2, 3, 4), (4, 4, 5)]))
    allowed = [k for k in (1, 3, 4, 5) if k == 1 or sizes[0] <= k <= sizes[2]]
    return {
        "players": draw(st.integers(sizes[0] + 1, 26)),
        "sizes": sizes,
        "rounds": draw(st.integers(1, 3)),
        "k": draw(st.sampled_from(allowed)),
        "teams": draw(st.booleans()),
        "seed": draw(st.integers(0, 10**6)),
    }


def run_cut(case: dict[str, Any]) -> Synthetic:
    """A synthetic tournament with a cut, held to the oracle at every step:
    Swiss rounds with drops, penalties and corrections; the cut's first
    round (T12.1, T12.2) or its refusal; drops among its players; the final
    (T12.3) or its refusal; the finish and its ranking (T12.4)."""
    rng = random.Random(case["seed"])
    n = case["players"]
    teams = [rng.choice(["Red", "red ", "Blue", ""]) for _ in range(n)] if case["teams"] else []
    t = Synthetic(n, sizes=case["sizes"], rounds=case["rounds"], cut_tables=case["k"], teams=teams)
    k = case["k"]
    for _ in range(case["rounds"]):
        if len(t.state.active) < t.state.sizes.min:
            with pytest.raises(TournamentRuleError) as refused:
                t.pair()
            assert refused.value.rule == "T2.4"
            return finished(t)
        checked_swiss_round(t)
        t.play(rng)
        for player in t.state.active:
            if rng.random() < 0.1 and len(t.state.active) > 1:
                t.drop(player)
        if rng.random() < 0.5:
            t.penalise(rng.choice(t.state.active), Fraction(rng.randrange(1, 4), 2))
        if rng.random() < 0.5:
            seat = rng.choice(t.state.rounds[-1].tables)
            t.correct(t.state.paired, seat.table, [1] * len(seat.players))
    # T12.1: the cut's first round, or its refusal
    told = t.oracle()
    qualifiers = told.qualifiers()
    terms = told.terms()
    if qualifiers is None or len(t.state.active) < t.state.sizes.min:
        with pytest.raises(TournamentRuleError) as refused:
            t.pair()
        assert refused.value.rule in ("T12.1", "T2.4")
        return finished(t)
    first = t.pair()
    assert first["procedure"] == "cut" and first["byes"] == []
    assert first["round"] == case["rounds"] + 1
    assert [x["players"] for x in first["tables"]] == oracle.snake(qualifiers, k)
    held_to_terms(first, terms, str(TOURNAMENT))
    swiss = digest(t.state.standings())
    t.play(rng)
    assert digest(t.state.standings()) == swiss  # T12.3: the cut's games count for nothing
    closed = t.events[-1][1]
    assert closed["standings"] == swiss  # T12.2: its seal is of the Swiss standings
    if k > 1:
        for player in [p for table in first["tables"] for p in table["players"]]:
            if rng.random() < 0.3:
                t.drop(player)  # winners too: T12.3 sends the next best
        if rng.random() < 0.5:
            seat = t.state.rounds[-1].tables[0]
            t.correct(t.state.paired, 1, list(range(len(seat.players), 0, -1)))
        told = t.oracle()
        finalists = told.finalists()
        terms = told.terms()
        if len(finalists) < t.state.sizes.min:
            with pytest.raises(TournamentRuleError) as refused:
                t.pair()
            assert refused.value.rule in ("T12.3", "T2.4")
            return finished(t)
        final = t.pair()
        assert final["round"] == case["rounds"] + 2 and final["procedure"] == "cut"
        assert [x["players"] for x in final["tables"]] == [finalists]
        held_to_terms(final, terms, str(TOURNAMENT))
        t.play(rng)
    with pytest.raises(TournamentRuleError) as over:
        t.pair()  # every round played
    assert over.value.rule == "T12.2"
    return finished(t)


def finished(t: Synthetic) -> Synthetic:
    t.apply(decide_finish(t.state))
    told = t.oracle()
    assert told.finished is not None
    assert told.finished["ranking"] == told.ranking()
    rows = told.finished["ranking"]
    assert [row["rank"] for row in rows] == list(range(1, len(t.state.registrations) + 1))
    assert sorted(row["player"] for row in rows) == list(range(1, len(rows) + 1))
    return t


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut_tournaments())
def test_T12_qualifiers_seeds_seats_dropped_winners_and_the_ranking_are_the_oracles(
    case: dict[str, Any],
) -> None:
    run_cut(case)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut_tournaments())
def test_T12_a_few_cut_tournaments_are_the_oracles(case: dict[str, Any]) -> None:
    run_cut(case)


def test_T12_3_a_dropped_winner_sends_the_tables_next_best_and_a_table_all_dropped_none() -> None:
    """Twelve players, one Swiss round, a cut of three tables of four. At the
    semifinals table 1's winner drops (its next best by place, then seed,
    goes), table 2 keeps its winner and all of table 3 drop: two reach the
    final, fewer than min = 3, so it is refused and only the finish is left;
    the ranking counts both winners as semifinalists (no final)."""
    t = Synthetic(12, rounds=1, cut_tables=3)
    rng = random.Random(4)
    t.pair()
    t.play(rng)
    first = t.pair()
    for seat in t.state.rounds[-1].tables:  # places 1, 2, 3, 4 by seat, seat 0 wins
        head = hashlib.sha256(seat.game.bytes).hexdigest()
        keys = [(10 - k, 0, 0) for k in range(len(seat.players))]
        t.apply(decide_result(t.state, seat.game, keys, [10, 9, 8, 7], head))
    t.apply(decide_close(t.state))
    tables = [x["players"] for x in first["tables"]]
    t.drop(tables[0][0])
    for player in tables[2]:
        t.drop(player)
    assert cut.winners(t.state) == [tables[1][0], tables[0][1]]  # seeds 2 and 6
    assert t.oracle().finalists() == [tables[1][0], tables[0][1]]
    with pytest.raises(TournamentRuleError) as refused:
        t.pair()
    assert refused.value.rule == "T12.3"
    t.apply(decide_finish(t.state))
    ranking = t.events[-1][1]["ranking"]
    assert ranking == t.oracle().ranking()
    assert [row["reached"] for row in ranking] == ["semifinal"] * 12
    assert [row["place"] for row in ranking] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]


def test_T12_3_shared_first_places_send_the_better_seed() -> None:
    t = Synthetic(9, rounds=1, cut_tables=3, sizes=(3, 3, 3))
    rng = random.Random(9)
    t.pair()
    t.play(rng)
    first = t.pair()
    for seat in t.state.rounds[-1].tables:
        head = hashlib.sha256(seat.game.bytes).hexdigest()
        keys = [(1, 0, 0), (5, 0, 0), (5, 0, 0)]  # seats 1 and 2 share place 1
        t.apply(decide_result(t.state, seat.game, keys, [1, 5, 5], head))
    t.apply(decide_close(t.state))
    final = t.pair()
    # seat 1 holds the better seed of the two at each table (seats follow seeds)
    assert final["tables"][0]["players"] == sorted(
        [x["players"][1] for x in first["tables"]], key=lambda p: t.oracle().seeds()[p]
    )


def test_T12_1_registration_closes_at_the_last_swiss_round_whatever_L_says() -> None:
    t = Synthetic(6, rounds=2, cut_tables=1, sizes=(3, 3, 3), late_until=5)
    t.pair()
    t.apply(decide_register(t.state, "Late", "", "a" * 64))  # L = 5: round 1 does not close it
    t.play(random.Random(1))
    t.pair()  # the last Swiss round
    with pytest.raises(TournamentRuleError) as refused:
        decide_register(t.state, "Later", "", "b" * 64)
    assert refused.value.rule == "T2.3"


def test_T12_1_teams_and_constraints_do_not_move_the_cut() -> None:
    """Players 1–6 all in one team and 1–2 constrained: the cut's tables are
    still the snake of the standings (our decision); (c) counts them."""
    teams = ["Same"] * 6
    t = Synthetic(6, rounds=1, cut_tables=1, sizes=(3, 3, 3), teams=teams, constraints=[(1, 2)])
    rng = random.Random(2)
    t.pair()
    t.play(rng)
    told = t.oracle()
    qualifiers = told.qualifiers()
    assert qualifiers is not None
    terms = told.terms()
    paired = t.pair()
    assert [x["players"] for x in paired["tables"]] == [qualifiers[:3]]
    held_to_terms(paired, terms, str(TOURNAMENT))
    assert paired["objective_c"] == "3/1"  # three teammates at the final table

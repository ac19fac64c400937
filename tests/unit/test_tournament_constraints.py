"""T11, pairing constraints (revision 4): teams at registration, constraints
by the organiser, (c) first in every comparison, round 1 improved where
there is a team or a constraint, each table's shares; through the decisions
on synthetic tournaments (held to the oracle, tests/tournament_oracle.py)
and through the service."""

from __future__ import annotations

import hashlib
import random
import unicodedata
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.application import Opus
from domain.errors import NotTournamentOrganiserError, RegistrationError, TournamentRuleError
from domain.pipeline import Caller
from domain.shuffle import commitment
from domain.tournaments.decide import decide_constraint, decide_register
from domain.tournaments.state import REGROUP_1, SWAP_1, TournamentState
from tests import tournament_oracle as oracle
from tests.unit.test_tournament_cut import Synthetic, checked_swiss_round

ORGANISER = hashlib.sha256(b"constraints organiser").hexdigest()


def token(n: int) -> str:
    return hashlib.sha256(f"constraints player {n}".encode()).hexdigest()


# ---- T11.1: teams -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "team",
    [
        "Tea\u0000m",  # control
        "\u202eTeam",  # format (a bidi override)
        "Team\ue000",  # private use
        "Team\U000e0000",  # unassigned
        " \u3000 ",  # a key that is empty: only White_Space
        "T" * 41,  # more than 40 code points
    ],
    ids=["control", "format", "private-use", "unassigned", "white-space", "41"],
)
def test_T11_1_a_team_is_refused_on_T2_1s_grounds(team: str) -> None:
    t = Synthetic(3)
    with pytest.raises(RegistrationError) as refused:
        decide_register(t.state, "Ada", "", "a" * 64, team)
    assert refused.value.rule == "T11.1"


def test_T11_1_teams_are_keyed_as_names_and_the_empty_text_is_no_team() -> None:
    """ "Red", "ＲＥＤ " (fullwidth, a trailing space) and "red" are one team;
    "Zoë" with a combining diaeresis and with a precomposed one too; 40
    code points and the joiner U+200D are allowed; "" is no team."""
    teams = ["Red", "\uff32\uff25\uff24 ", "red", "Zoe\u0308", "Zo\u00eb", "", "x" * 40, "a\u200db"]
    t = Synthetic(len(teams), teams=teams)
    assert [r.team for r in t.state.registrations] == teams
    assert t.state.conflicts() == {(1, 2), (1, 3), (2, 3), (4, 5)}
    assert frozenset(t.state.conflicts()) == t.oracle().conflicts()


def test_T11_1_a_constraint_names_two_different_registered_players_until_round_1() -> None:
    t = Synthetic(6)
    for players in ([1], [1, 1], [1, 7], [0, 2], [1, 2, 3]):
        with pytest.raises(TournamentRuleError) as refused:
            decide_constraint(t.state, players, "family", "Arbiter")
        assert refused.value.rule == "T11.1"
    t.drop(3)  # a dropped player is still registered: constraints stay
    t.apply(decide_constraint(t.state, [5, 3], "siblings", "Arbiter"))
    assert t.events[-1] == (
        "PairingConstraintAdded",
        {"players": [3, 5], "reason": "siblings", "by": "Arbiter"},
    )
    t.apply(decide_constraint(t.state, [3, 5], "again", "Arbiter"))  # twice: one pair
    assert t.state.conflicts() == {(3, 5)}
    t.pair()
    with pytest.raises(TournamentRuleError) as refused:
        decide_constraint(t.state, [1, 2], "too late", "Arbiter")
    assert refused.value.rule == "T11.1"


def test_T11_1_a_pair_constrained_and_sharing_a_team_is_one_pair() -> None:
    t = Synthetic(6, teams=["A", "A"], constraints=[(1, 2), (2, 1)], sizes=(3, 3, 3))
    assert t.state.conflicts() == {(1, 2)}
    assert t.oracle().conflicts() == frozenset({(1, 2)})


def test_T11_tournaments_created_before_revision_4_take_no_team_and_no_constraint() -> None:
    """A TournamentCreated without a procedure is revision 3's: pairs by
    swap-1, and its registrations keep their shape (no team field)."""
    created: dict[str, Any] = {
        "name": "Old",
        "organiser_hash": "0" * 64,
        "commitment": commitment(bytes(32)),
        "secret": bytes(32).hex(),
        "rules": {"draw": "five", "guild": True, "stage_points": [2, 2, 4, 4, 6, 8, 10]},
        "tables": {"min": 3, "preferred": 4, "max": 5},
        "weight": 6,
        "late_until": 1,
        "time_limit": None,
        "rounds": None,
        "beacon": "",
        "unicode_version": unicodedata.unidata_version,
    }
    state = TournamentState.from_created(created)
    assert (state.procedure, state.cut, state.revised) == (SWAP_1, None, False)
    [(_, fields)] = decide_register(state, "Ada", "", "a" * 64)
    assert "team" not in fields
    with pytest.raises(TournamentRuleError) as refused:
        decide_register(state, "Ada", "", "a" * 64, "Red")
    assert refused.value.rule == "T11.1"
    state.evolve("PlayerRegistered", fields)
    state.evolve("PlayerRegistered", {**fields, "player": 2, "name": "Bo", "token_hash": "b"})
    with pytest.raises(TournamentRuleError) as refused:
        decide_constraint(state, [1, 2], "family", "Arbiter")
    assert refused.value.rule == "T11.1"


# ---- T11.2, T11.3: pairings with teams and constraints, held to the oracle ---------------


@st.composite
def constrained(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(4, 22))
    return {
        "n": n,
        "sizes": draw(st.sampled_from([(3, 4, 5), (3, 3, 4), (2, 3, 5), (4, 4, 5)])),
        "procedure": draw(st.sampled_from([SWAP_1, REGROUP_1])),
        "teams": draw(st.lists(st.sampled_from(["A", "a", "B", "C", ""]), max_size=n)),
        "constraints": draw(
            st.lists(st.tuples(st.integers(1, n), st.integers(1, n)).filter(lambda p: p[0] != p[1]))
        ),
        "rounds": draw(st.integers(1, 4)),
        "seed": draw(st.integers(0, 10**6)),
    }


def run_constrained(case: dict[str, Any]) -> None:
    """Every round's tables and byes (T4.1 improved, T4.2, T4.2b, T11.2),
    seats (T4.3), (c) and shares (T11.3) are the oracle's."""
    rng = random.Random(case["seed"])
    t = Synthetic(
        case["n"],
        sizes=case["sizes"],
        rounds=case["rounds"],
        procedure=case["procedure"],
        teams=case["teams"],
        constraints=case["constraints"],
    )
    if case["n"] >= 3 and rng.random() < 0.5:
        t.penalise(rng.randint(1, case["n"]), Fraction(rng.choice([1, 3]), 2))
    for _ in range(case["rounds"]):
        if len(t.state.active) < t.state.sizes.min:
            return
        paired = checked_swiss_round(t)
        assert paired["procedure"] == case["procedure"]
        t.play(rng)
        if rng.random() < 0.3 and len(t.state.active) > 1:
            t.drop(rng.choice(t.state.active))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained())
def test_T11_2_pairings_with_teams_and_constraints_are_the_oracles(case: dict[str, Any]) -> None:
    run_constrained(case)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained())
def test_T11_2_a_few_pairings_with_teams_and_constraints_are_the_oracles(
    case: dict[str, Any],
) -> None:
    run_constrained(case)


def test_T11_2_a_team_of_dropped_players_still_makes_the_objective_a_pair() -> None:
    """Whether the tournament has a team is decided over every registration
    recorded before the pairing, dropped players included: RoundPaired
    records (c) though no one active has a team."""
    t = Synthetic(7, teams=["", "", "", "", "", "", "Gone"], sizes=(3, 3, 4))
    t.drop(7)
    paired = checked_swiss_round(t)
    assert paired["objective_c"] == "0/1"
    plain = Synthetic(6, sizes=(3, 3, 4))
    assert "objective_c" not in checked_swiss_round(plain)


def test_T11_2_round_1_splits_a_constrained_pair_the_cut_put_together() -> None:
    """Nine players in three tables of three: for every pair the cut would
    seat together, constraining it moves one of them away in round 1."""
    base = Synthetic(9, sizes=(3, 3, 3))
    cut_tables = base.oracle().next_pairing()[0]
    assert [len(x) for x in cut_tables] == [3, 3, 3]
    for table in cut_tables:
        pair = (min(table[:2]), max(table[:2]))
        t = Synthetic(9, sizes=(3, 3, 3), constraints=[pair])
        paired = checked_swiss_round(t)
        assert paired["objective_c"] == "0/1"
        assert not any(set(pair) <= set(x["players"]) for x in paired["tables"])


# ---- through the service -------------------------------------------------------------------


def test_T11_1_only_the_organiser_adds_a_constraint_and_a_refusal_changes_nothing() -> None:
    app = Opus({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    t = app.tournaments
    tournament = t.create("Families", caller=Caller(ORGANISER)).aggregate_id
    for n in (1, 2, 3):
        t.register(tournament, f"P{n}", caller=Caller(token(n)), team="Home" if n < 3 else "")
    version = t.get(tournament).version
    with pytest.raises(NotTournamentOrganiserError):
        t.constrain(tournament, [1, 3], "siblings", "P1", caller=Caller(token(1)))
    with pytest.raises(TournamentRuleError) as refused:
        t.constrain(tournament, [1, 1], "siblings", "Arbiter", caller=Caller(ORGANISER))
    assert refused.value.rule == "T11.1"
    assert t.get(tournament).version == version
    t.constrain(tournament, [3, 1], "siblings", "Arbiter", caller=Caller(ORGANISER))
    state = t.get(tournament).state
    assert state.constraints == [(1, 3)]
    assert state.conflicts() == {(1, 2), (1, 3)}
    assert [r.team for r in state.registrations] == ["Home", "Home", ""]
    t.pair(tournament, caller=Caller(ORGANISER))
    paired = t.get(tournament).state.rounds[0]
    assert paired.procedure == REGROUP_1
    events = [(type(e).__name__, e.__dict__) for e in app.events.get(tournament)]
    told = oracle.OracleTournament.of(events, b"")
    assert told.conflicts() == frozenset({(1, 2), (1, 3)})

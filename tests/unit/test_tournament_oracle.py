"""Tournaments run through the service, held to TOURNAMENT.md's text as
tests/tournament_oracle.py writes it again: seats (T4.3), the seed (T1.3),
the number of rounds (T1.1), penalties (T7.2) and corrections (T7.1); and
revision 4's game ids (T1.2), pairings by regroup-1 with teams and a
constraint (T4.2b, T11) and the top cut (T12).

``opus verify`` re-derives a tournament with the functions that decided it,
so a misreading of a rule passes both; each expectation here comes from the
oracle, which reads the recorded events and shares no code with
domain/tournaments/.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from fractions import Fraction
from itertools import product
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.audit import Record, group_by_game
from domain.bots import BOTS
from domain.errors import CorrectionError, PenaltyError
from domain.pipeline import Caller
from domain.simulation import play_out
from domain.tournaments.verify import TournamentVerdict, verify_tournament
from infra.eventlog import tournament_lines, tournament_records
from tests import tournament_oracle as oracle
from tests.forgery import rewritten

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
ORGANISER = hashlib.sha256(b"oracle organiser").hexdigest()


def token_hash(player: int) -> str:
    return hashlib.sha256(f"oracle player {player}".encode()).hexdigest()


class Run:
    """A tournament on an in-memory store, driven through ``Opus.tournaments``."""

    def __init__(
        self,
        players: int,
        *,
        secret: bytes,
        sizes: tuple[int, int, int] = (3, 4, 5),
        rounds: int | None = None,
        beacon: str = "",
    ) -> None:
        self.app = Opus(env=POPO)
        self.secret = secret
        self.t = self.app.tournaments
        created = self.t.create(
            "Oracle",
            caller=Caller(ORGANISER),
            sizes=sizes,
            rounds=rounds,
            beacon=beacon,
            secret=secret,
        )
        self.id: UUID = created.aggregate_id
        self.rng = random.Random(secret)
        for n in range(1, players + 1):
            contribution = f"c{n}:{self.rng.randrange(10**6)}"
            self.t.register(self.id, f"P{n}", contribution, caller=Caller(token_hash(n)))

    def events(self) -> list[tuple[str, dict[str, object]]]:
        records, _ = tournament_records(self.app, self.id)
        return [(r.type, dict(r.payload or {})) for r in records]

    def oracle(self) -> oracle.OracleTournament:
        return oracle.OracleTournament.of(self.events(), self.secret)

    def play_round(self) -> None:
        choose = BOTS["greedy"](self.rng)
        for seat in self.t.get(self.id).state.rounds[-1].tables:
            play_out(self.app, seat.game, [token_hash(p) for p in seat.players], choose)

    def export(self) -> tuple[list[Record], dict[str, list[Record]]]:
        """The tournament's export, read back as a file is."""
        lines = [json.loads(line) for line in tournament_lines(self.app, self.id)]
        groups = group_by_game(Record.from_line(line) for line in lines)
        return groups.pop(str(self.id)), groups


def secrets(count: int) -> Iterator[bytes]:
    for k in range(count):
        yield hashlib.sha256(f"oracle secret {k}".encode()).digest()


# ---- T4.3 ----------------------------------------------------------------------------


@pytest.mark.parametrize("secret", list(secrets(6)), ids=lambda s: s.hex()[:6])
def test_T4_3_seats_follow_the_shuffle_of_every_active_player_byes_included(
    secret: bytes,
) -> None:
    """Seven players at tables of 4–5: two byes a round (T3.2); then a drop
    leaves six, one bye. Every round's seats are the oracle's, whose last
    tie-break shuffles all the active players, those with a bye too."""
    run = Run(7, secret=secret, sizes=(4, 4, 5), rounds=4)
    for round_ in (1, 2, 3, 4):
        run.t.pair(run.id, caller=Caller(ORGANISER))
        run.play_round()
        if round_ == 1:
            run.t.drop(run.id, run.rng.randint(1, 7), caller=Caller(ORGANISER))
    told = run.oracle()
    assert [len(r.byes) for r in told.rounds] == [2, 1, 1, 1]
    for paired in told.rounds:
        seated = sorted([p for table in paired.tables for p in table] + paired.byes)
        assert seated == paired.active
        assert paired.tables == told.seats(paired.number), f"round {paired.number}"


# ---- T1.3 ----------------------------------------------------------------------------


@pytest.mark.parametrize("secret", list(secrets(3)), ids=lambda s: s.hex()[:6])
def test_T1_3_the_seed_takes_every_registration_before_round_1_dropped_or_not(
    secret: bytes,
) -> None:
    """Players registered and dropped before round 1 still count in the seed
    (in registration order, then the beacon): round 1's recorded seed, its
    seats (T4.3, from the seed alone in round 1) and, before round 1, the
    standings' last tie-break (T6.1 (4), the beacon as "") are the oracle's."""
    run = Run(8, secret=secret, beacon="a public value to come")
    for player in (2, 5, 6):
        run.t.drop(run.id, player, caller=Caller(ORGANISER))
    told = run.oracle()
    early = told.seed_with("")
    rows = run.t.get(run.id).state.standings()
    assert [row.player for row in rows] == sorted(
        range(1, 9), key=lambda n: oracle.rank_key(early, n)
    )
    run.t.pair(run.id, caller=Caller(ORGANISER), beacon="its value")
    told = run.oracle()
    assert told.seed == oracle.tournament_seed(
        secret, [told.contributions[n] for n in range(1, 9)], "its value"
    )
    paired = next(p for kind, p in run.events() if kind == "RoundPaired")
    assert paired["seed"] == told.seed.hex()
    assert told.rounds[0].active == [1, 3, 4, 7, 8]
    assert told.rounds[0].tables == told.seats(1)


# ---- T1.1 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sizes", "registered", "dropped"),
    [((2, 2, 3), 9, [4]), ((3, 4, 5), 66, [1, 40]), ((3, 3, 5), 28, [28])],
)
def test_T1_1_the_number_of_rounds_counts_the_active_players_at_round_1(
    sizes: tuple[int, int, int], registered: int, dropped: list[int]
) -> None:
    """Without a number of rounds, round 1 fixes it for the active players
    then (dropped players left out): each case sits where counting the
    registrations would give one round more."""
    run = Run(registered, secret=bytes(32), sizes=sizes)
    for player in dropped:
        run.t.drop(run.id, player, caller=Caller(ORGANISER))
    run.t.pair(run.id, caller=Caller(ORGANISER))
    active = registered - len(dropped)
    expected = oracle.rounds_for(active, sizes[1])
    assert oracle.rounds_for(registered, sizes[1]) == expected + 1  # the case is a boundary
    paired = next(p for kind, p in run.events() if kind == "RoundPaired")
    assert paired["rounds"] == expected
    assert run.t.get(run.id).state.planned_rounds == expected


# ---- T7.2 ----------------------------------------------------------------------------


def test_T7_2_a_penalty_is_a_positive_multiple_of_one_half() -> None:
    """Every p/q with q ≤ 8 and -2 ≤ p ≤ 12: accepted (and recorded as "p/q"
    in lowest terms) exactly when the oracle says it is a positive multiple
    of 1/2; refused with T7.2, recording nothing, otherwise."""
    run = Run(3, secret=bytes(range(32)))
    asked = sorted({Fraction(p, q) for p, q in product(range(-2, 13), range(1, 9))})
    assert Fraction(1, 4) in asked and Fraction(3, 4) in asked
    accepted = []
    for points in asked:
        before = run.t.get(run.id).version
        if oracle.is_penalty(points):
            run.t.penalise(run.id, 1, points, "late", "Arbiter", caller=Caller(ORGANISER))
            accepted.append(f"{points.numerator}/{points.denominator}")
        else:
            with pytest.raises(PenaltyError) as refused:
                run.t.penalise(run.id, 1, points, "late", "Arbiter", caller=Caller(ORGANISER))
            assert refused.value.rule == "T7.2"
            assert run.t.get(run.id).version == before
    recorded = [p["points"] for kind, p in run.events() if kind == "PenaltyGiven"]
    assert recorded == accepted
    assert len(accepted) == 18  # 1/2, 1, 3/2, …, 6 (12/2 is q = 2's last), then 7, …, 12


@pytest.mark.parametrize("points", ["1/4", "3/4", "5/4", "1/8", "0/1", "-1/2"])
def test_T7_2_verify_refuses_a_penalty_that_is_not_a_positive_multiple_of_one_half(
    points: str,
) -> None:
    run = Run(3, secret=bytes(range(32)))
    run.t.penalise(run.id, 2, Fraction(1, 2), "late", "Arbiter", caller=Caller(ORGANISER))
    run.t.finish(run.id, caller=Caller(ORGANISER))
    records, games = run.export()
    assert verify_tournament(records, games).ok
    given = next(r for r in records if r.type == "PenaltyGiven")
    forged = rewritten(records, given.version, lambda p: p.update(points=points))
    verdict = verify_tournament(forged, games)
    assert not verdict.ok and verdict.rule == "T7.2", verdict.reason


# ---- T7.1 ----------------------------------------------------------------------------


def corrected_points(run: Run, game: UUID, places: list[int]) -> dict[int, Fraction]:
    """T5.2 by the oracle: each player's match points from ``places``."""
    players = run.t.get(run.id).state.games[game][1].players
    return dict(zip(players, oracle.match_points(places), strict=True))


def test_T7_1_a_correction_gives_a_place_to_every_seat_as_a_competition_ranking() -> None:
    """Every list of 0 to 4 places from 1 to 4 for a game of three: accepted
    exactly when the oracle says it is a competition ranking of its three
    seats; refused with T7.1, recording nothing, otherwise. After each, the
    standings are computed, with the latest accepted places counting."""
    run = Run(3, secret=bytes(range(3, 35)))
    run.t.pair(run.id, caller=Caller(ORGANISER))
    run.play_round()
    state = run.t.get(run.id).state
    game = state.rounds[0].tables[0].game
    counted = list(state.results[game].places)
    for places in (list(p) for n in range(5) for p in product(range(1, 5), repeat=n)):
        before = run.t.get(run.id).version
        if oracle.is_correction(places, 3):
            run.t.correct(run.id, game, places, "slip", "Arbiter", caller=Caller(ORGANISER))
            counted = places
        else:
            with pytest.raises(CorrectionError) as refused:
                run.t.correct(run.id, game, places, "slip", "Arbiter", caller=Caller(ORGANISER))
            assert refused.value.rule == "T7.1"
            assert run.t.get(run.id).version == before, places
        rows = run.t.get(run.id).state.standings()
        assert {row.player: row.match_points for row in rows} == corrected_points(
            run, game, counted
        )
    kept = [p["places"] for kind, p in run.events() if kind == "ResultCorrected"]
    assert len(kept) == 13  # the competition rankings of three seats


@pytest.mark.parametrize("places", [[1, 2], [1], [], [1, 2, 3, 4], [1, 1, 1, 1]])
def test_T7_1_verify_refuses_a_correction_without_a_place_for_each_seat(
    places: list[int],
) -> None:
    run = Run(3, secret=bytes(range(5, 37)))
    run.t.pair(run.id, caller=Caller(ORGANISER))
    run.play_round()
    game = run.t.get(run.id).state.rounds[0].tables[0].game
    run.t.correct(run.id, game, [1, 1, 3], "slip", "Arbiter", caller=Caller(ORGANISER))
    run.t.finish(run.id, caller=Caller(ORGANISER))
    records, games = run.export()
    assert verify_tournament(records, games).ok
    correction = next(r for r in records if r.type == "ResultCorrected")
    forged = rewritten(records, correction.version, lambda p: p.update(places=places))
    verdict: TournamentVerdict = verify_tournament(forged, games)
    assert not verdict.ok and verdict.rule == "T7.1", verdict.reason


# ---- revision 4: T1.2, T4.1/T4.2 with T4.2b and T11, T12, through the service ----------------


def held_to_the_oracle(
    tournament: str, events: list[tuple[str, dict[str, Any]]], secret: bytes
) -> int:
    """Walk a tournament's events as the oracle reads them; before each
    RoundPaired, ask the oracle for that round (Swiss: tables, byes, then
    seats, T3, T4, T4.2b, T11.2; the cut: qualifiers dealt snake-wise, or
    the final, T12.1–T12.3), and hold the record to it, with its game ids
    (T1.2), (c) and shares (T11.2, T11.3); at the finish, the ranking
    (T12.4). Returns the rounds checked."""
    told = oracle.OracleTournament(secret=secret)
    checked = 0
    for kind, p in events:
        if kind == "RoundPaired":
            number = p["round"]
            terms = told.terms()
            recorded = [list(t["players"]) for t in p["tables"]]
            if told.swiss_rounds is None or number <= told.swiss_rounds:
                tables, byes = told.next_pairing(p["beacon"] or "")
                assert [sorted(t) for t in recorded] == [sorted(t) for t in tables], number
                assert p["byes"] == byes
            elif number == told.swiss_rounds + 1:
                qualifiers = told.qualifiers()
                assert qualifiers is not None and told.cut is not None
                assert recorded == oracle.snake(qualifiers, told.cut)
            else:
                assert recorded == [told.finalists()]
            c, rest = terms.value(recorded)
            assert Fraction(p["objective"]) == rest
            assert p.get("objective_c") == (None if terms.conflicts is None else f"{c}/1")
            for table in p["tables"]:
                a, b, conflicts = terms.shares(table["players"])
                assert [Fraction(table["shares"][x]) for x in "abc"] == [a, b, conflicts]
                assert table["game"] == oracle.game_id(tournament, number, table["table"])
            checked += 1
        told.add(kind, p)
        if kind == "RoundPaired" and (told.swiss_rounds is None or p["round"] <= told.swiss_rounds):
            assert [list(t["players"]) for t in p["tables"]] == told.seats(p["round"])
    if told.finished is not None and told.cut is not None:
        assert told.finished["ranking"] == told.ranking()
    return checked


def test_T1_2_T4_T11_T12_a_tournament_with_teams_a_drop_and_a_cut_is_the_oracles() -> None:
    from tests.unit.test_tournament_verify_revision4 import cut_export, cut_lines

    tournament, _ = cut_lines()
    log = cut_export()
    events = [(r.type, dict(r.payload or {})) for r in log.records]
    secret = bytes.fromhex(events[0][1]["secret"])
    assert held_to_the_oracle(str(tournament), events, secret) == 4


@pytest.mark.parametrize("secret", list(secrets(3)), ids=lambda s: s.hex()[:6])
def test_T11_2_a_constrained_pair_and_teams_through_the_service_are_the_oracles(
    secret: bytes,
) -> None:
    """Thirteen players, two teams, a constraint, three rounds of greedy
    bots by regroup-1: every pairing is the oracle's."""
    run = Run(13, secret=secret, rounds=3)
    created = run.t.create(
        "Teams", caller=Caller(ORGANISER), rounds=3, secret=secret, procedure="regroup-1"
    )
    run.id = created.aggregate_id
    for n in range(1, 14):
        team = ("North", "South", "")[n % 3]
        run.t.register(run.id, f"T{n}", f"t{n}", caller=Caller(token_hash(n)), team=team)
    run.t.constrain(run.id, [1, 2], "household", "Arbiter", caller=Caller(ORGANISER))
    for _ in range(3):
        run.t.pair(run.id, caller=Caller(ORGANISER))
        run.play_round()
    assert held_to_the_oracle(str(run.id), run.events(), secret) == 3


# ---- every procedure, every table-size setting ---------------------------------------

SETTINGS = [
    (low, preferred, high)
    for low in range(2, 6)
    for preferred in range(low, 6)
    for high in range(preferred, 6)
]  # T1.1: 2 ≤ min ≤ preferred ≤ max ≤ 5


@pytest.mark.slow
@pytest.mark.parametrize("procedure", ["swap-1", "regroup-1"])
@pytest.mark.parametrize("sizes", SETTINGS, ids=lambda s: "/".join(map(str, s)))
def test_T4_T11_T12_every_procedure_and_table_size_setting_is_the_oracles(
    procedure: str, sizes: tuple[int, int, int]
) -> None:
    """`opus tournament simulate --procedure --tables --weight`'s tournament
    (domain/simulation.py): eleven random bots in two teams, a constraint,
    two Swiss rounds and a cut of one table, under each procedure and each
    table-size setting T1.1 allows; every pairing, share and the ranking
    are the oracle's, and the export verifies."""
    from domain.simulation import simulate_tournament

    app = Opus(env=POPO)
    seed = sum(sizes) * 2 + (procedure == "swap-1")
    run = simulate_tournament(
        app, 11, 2, "random", seed, teams=2, constraints=1, cut=1,
        sizes=sizes, weight=3, procedure=procedure,
    )  # fmt: skip
    records, games = tournament_records(app, run.tournament)
    created = records[0].payload or {}
    assert (created["procedure"], created["weight"]) == (procedure, 3)
    assert [created["tables"][k] for k in ("min", "preferred", "max")] == list(sizes)
    events = [(r.type, dict(r.payload or {})) for r in records]
    secret = bytes.fromhex(str(events[0][1]["secret"]))
    assert held_to_the_oracle(str(run.tournament), events, secret) >= 2
    verdict = verify_tournament(records, games)
    assert verdict.ok and verdict.judged, verdict.reason

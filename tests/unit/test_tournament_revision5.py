"""TOURNAMENT.md revision 5's points on the record, each a forgery made as a
lying server would make it (tests/forgery.py: the chain recomputed, the
tournament's heads and seals of a game made to match), failing verify with
its rule: T10.2 (a game's records re-timed after its result, before its
pairing, after the next round's pairing), T11.1's order (a constraint's two
numbers descending); and the planted bugs no test caught before: a pairing
of a tournament with teams that leaves out (c) or a table's shares is named
by T11.2 / T11.3, not T4.1; the cut's table size (T12.1) is the largest that
fits, and verify derives it from the text, not from the code that decided
it (a test plants the smallest-size bug in that code and verify still
refuses the cut)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from uuid import UUID

import pytest

from domain.application import Opus
from domain.errors import TournamentRuleError
from domain.pipeline import Caller
from domain.tournaments import cut
from domain.tournaments.tables import TableSizes
from infra.eventlog import tournament_lines
from tests.forgery import retimed
from tests.unit.test_tournament_verify import (
    POPO,
    TournamentExport,
    organised_export,
    player_hash,
    read_back,
    simulated_export,
)
from tests.unit.test_tournament_verify_revision4 import (
    constrained_export,
    cut_export,
    failure,
    play_to_end,
)


def later(timestamp: str, seconds: float) -> str:
    return (datetime.fromisoformat(timestamp) + timedelta(seconds=seconds)).isoformat()


def retime_game(log: TournamentExport, game: str, version: int, timestamp: str) -> None:
    """A game's record given another time, its chain and the tournament's
    heads of it (result, seal) made to match."""
    log.games[game] = retimed(log.games[game], version, timestamp)
    log.rehead(game, log.games[game][-1].chain)


# ---- T10.2: a result is recorded after its game -----------------------------------------


def test_T10_2_a_game_record_retimed_after_its_result_fails() -> None:
    log = simulated_export()
    game = log.game(1, 1)
    result = log.first("GameResultRecorded", game=game)
    last = log.games[game][-1]
    retime_game(log, game, last.version, later(result.timestamp, 1))
    verdict = failure(log)
    assert verdict.rule == "T10.2", verdict.reason
    assert "after its result" in verdict.reason and game in verdict.reason


def test_T10_2_a_game_record_retimed_after_the_next_rounds_pairing_fails() -> None:
    """Past its result's seal and the next pairing too; the result moved with
    it, so only the pairing's time tells."""
    log = simulated_export()
    game = log.game(1, 1)
    second = log.first("RoundPaired", round=2)
    moved = later(second.timestamp, 1)
    retime_game(log, game, log.games[game][-1].version, moved)
    verdict = failure(log)
    assert verdict.rule == "T10.2", verdict.reason


def test_T10_2_a_game_record_stamped_before_its_rounds_pairing_fails() -> None:
    log = simulated_export()
    game = log.game(2, 1)
    paired = log.first("RoundPaired", round=2)
    retime_game(log, game, 2, later(paired.timestamp, -1))
    verdict = failure(log)
    assert verdict.rule == "T10.2", verdict.reason
    assert "before its round's pairing" in verdict.reason


def test_T10_2_the_service_records_every_result_after_its_game() -> None:
    """The honest exports keep it, in every shape we record (a call, drops,
    a cut)."""
    for log in (simulated_export(), cut_export(), constrained_export()):
        verdict = log.verify()
        assert verdict.ok, verdict.reason


# ---- T11: the rules named, and the order -------------------------------------------------


def test_T11_1_a_constraint_recorded_descending_fails() -> None:
    log = constrained_export()
    log.rewrite("PairingConstraintAdded", lambda p: p["players"].reverse())
    verdict = failure(log)
    assert verdict.rule == "T11.1", verdict.reason


def test_T11_2_a_pairing_of_a_tournament_with_teams_that_leaves_out_c_fails_naming_T11_2() -> None:
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p.pop("objective_c"), round=2)
    verdict = failure(log)
    assert verdict.rule == "T11.2", verdict.reason


def test_T11_3_a_table_without_its_shares_in_a_tournament_with_teams_fails_naming_T11_3() -> None:
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p["tables"][0].pop("shares"), round=1)
    verdict = failure(log)
    assert verdict.rule == "T11.3", verdict.reason


def test_T11_3_no_table_of_a_tournament_without_teams_lacks_its_shares() -> None:
    log = simulated_export()
    log.rewrite("RoundPaired", lambda p: p["tables"][-1].pop("shares"), round=3)
    assert failure(log).rule == "T11.3"


# ---- T12.1: the cut's table size ----------------------------------------------------------


def smallest_that_fits(k: int, sizes: TableSizes, active: int) -> int | None:
    """The planted bug: the smallest size in [min, max] that fits."""
    if k * sizes.preferred <= active:
        return sizes.preferred
    fitting = [s for s in range(sizes.min, sizes.max + 1) if k * s <= active]
    return min(fitting) if fitting else None


def cut_of_thirteen() -> TournamentExport:
    """Thirteen players at tables of 3 to 5 (preferred 5), one Swiss round
    and a cut of three tables: 3·5 > 13, so T12.1's s is 4 (twelve play)."""
    app = Opus(env=POPO)
    t = app.tournaments
    organiser = Caller(player_hash(0))
    tournament: UUID = t.create(
        "Thirteen", caller=organiser, rounds=1, cut=3, sizes=(3, 5, 5), secret=bytes(range(32))
    ).aggregate_id
    for n in range(1, 14):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    t.pair(tournament, caller=organiser)
    play_to_end(app, tournament, random.Random(5))
    t.pair(tournament, caller=organiser)  # the cut
    return read_back(tournament, tuple(tournament_lines(app, tournament)))


def cut_players(log: TournamentExport) -> list[int]:
    paired = log.first("RoundPaired", round=2).payload or {}
    return sorted(q for table in paired["tables"] for q in table["players"])


def test_T12_1_a_cut_of_thirteen_seats_twelve_and_verifies() -> None:
    log = cut_of_thirteen()
    assert len(cut_players(log)) == 12
    verdict = log.verify()
    assert verdict.ok, verdict.reason


def test_T12_1_verify_derives_the_cut_size_from_the_text_not_from_the_code_that_decided_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the smallest-size bug planted in the service's cut, the service
    seats nine; verify, with the same bug still planted, refuses it."""
    monkeypatch.setattr(cut, "cut_size", smallest_that_fits)
    log = cut_of_thirteen()
    assert len(cut_players(log)) == 9
    verdict = failure(log)
    assert verdict.rule == "T12.1", verdict.reason
    assert "seats 9 players" in verdict.reason and "give 12" in verdict.reason


# ---- T10.3: when two rules refuse, the lowest-numbered is named ---------------------------


def organiser() -> Caller:
    return Caller(player_hash(0))


def entered(app: Opus, players: int, **options: object) -> UUID:
    tournament: UUID = app.tournaments.create(
        "Cup", caller=organiser(), secret=bytes(32), **options
    ).aggregate_id  # type: ignore[arg-type]
    for n in range(1, players + 1):
        app.tournaments.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    return tournament


def refusal(command: Callable[[], object]) -> TournamentRuleError:
    with pytest.raises(TournamentRuleError) as refused:
        command()
    return refused.value


def test_T10_3_a_late_registration_under_a_name_taken_names_T2_1_before_T2_3() -> None:
    app = Opus(env=POPO)
    tournament = entered(app, 6, late_until=1)
    app.tournaments.pair(tournament, caller=organiser())
    late = refusal(
        lambda: app.tournaments.register(tournament, "Late", "", caller=Caller(player_hash(7)))
    )
    assert late.rule == "T2.3"  # alone, it is named
    both = refusal(
        lambda: app.tournaments.register(tournament, "P1", "", caller=Caller(player_hash(7)))
    )
    assert both.rule == "T2.1", str(both)


def test_T10_3_pairing_an_open_round_with_too_few_players_names_T2_4_before_T9_1() -> None:
    app = Opus(env=POPO)
    tournament = entered(app, 6, sizes=(3, 3, 3))
    app.tournaments.pair(tournament, caller=organiser())
    first, second = app.tournaments.get(tournament).state.rounds[0].tables
    for player in (*first.players, second.players[0]):
        app.tournaments.drop(tournament, player, caller=organiser())
    state = app.tournaments.get(tournament).state
    assert len(state.active) == 2 and not state.rounds[0].closed
    both = refusal(lambda: app.tournaments.pair(tournament, caller=organiser()))
    assert both.rule == "T2.4", str(both)


def test_T10_3_the_cut_with_too_few_players_names_T2_4_before_T12_1() -> None:
    app = Opus(env=POPO)
    tournament = entered(app, 6, sizes=(3, 3, 3), rounds=1, cut=1)
    app.tournaments.pair(tournament, caller=organiser())
    play_to_end(app, tournament, random.Random(1))
    for player in range(1, 5):
        app.tournaments.drop(tournament, player, caller=organiser())
    both = refusal(lambda: app.tournaments.pair(tournament, caller=organiser()))
    assert both.rule == "T2.4", str(both)


def test_T10_3_registering_after_the_last_swiss_round_of_a_cut_names_T2_3() -> None:
    app = Opus(env=POPO)
    tournament = entered(app, 6, sizes=(3, 3, 3), rounds=1, cut=1, late_until=3)
    app.tournaments.pair(tournament, caller=organiser())
    late = refusal(
        lambda: app.tournaments.register(tournament, "Late", "", caller=Caller(player_hash(7)))
    )
    assert late.rule == "T2.3", str(late)


def test_T11_3_the_shares_are_recorded_under_the_field_named_shares() -> None:
    log = cut_export()
    log.rewrite("RoundPaired", lambda p: p["tables"][0].update(share=p["tables"][0].pop("shares")))
    verdict = failure(log)
    assert verdict.rule == "T11.3", verdict.reason
    assert "table 1's shares are recorded None" in verdict.reason


# ---- a correction's reason is in the chain -------------------------------------------------


def test_T1_2_a_corrections_reason_changed_breaks_the_chain() -> None:
    """The reason is chained as every field is: changed in place, the chain
    names the record. (Rechained from there on, only a statement signed
    before the change can tell: the receipts' tests.)"""
    log = organised_export()
    corrected = log.first("ResultCorrected")
    payload = dict(corrected.payload or {}, reason="no slip at all")
    log.records[corrected.version - 1] = replace(corrected, payload=payload)
    verdict = failure(log)
    assert verdict.rule == "T1.2", verdict.reason
    assert verdict.version == corrected.version

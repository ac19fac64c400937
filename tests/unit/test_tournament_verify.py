"""T10.1: a tournament verified from its export alone; each forgery, its
chain recomputed so that only the rule can catch it, is named by its T… rule."""

from __future__ import annotations

import copy
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import cache
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.application import Opus
from domain.audit import Record, group_by_game, verify_game
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.shuffle import commitment
from domain.simulation import simulate, simulate_tournament, token_hash
from domain.tournaments.seeds import merkle_root
from domain.tournaments.verify import TournamentVerdict, named_games, verify_tournament
from infra.eventlog import read_records, tournament_lines, tournament_records
from tests.forgery import rechain, rewritten

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@dataclass
class TournamentExport:
    """A tournament's export: its records and every game's, by id."""

    tournament: str
    records: list[Record]
    games: dict[str, list[Record]]

    def verify(self) -> TournamentVerdict:
        return verify_tournament(self.records, self.games)

    def first(self, type_: str, **fields: Any) -> Record:
        return next(
            r
            for r in self.records
            if r.type == type_ and all((r.payload or {}).get(k) == v for k, v in fields.items())
        )

    def rewrite(self, type_: str, change: Callable[[dict[str, Any]], Any], **fields: Any) -> None:
        self.records = rewritten(self.records, self.first(type_, **fields).version, change)

    def game(self, round_: int, table: int) -> str:
        return next(g for r, t, g in named_games(self.records) if (r, t) == (round_, table))

    def rewrite_game(
        self, game: str, version: int, change: Callable[[dict[str, Any]], Any]
    ) -> None:
        """A game's record changed and rechained, and the tournament's heads
        of it (its result, its round's seal and root) made to match: only
        the rule the change breaks can catch it."""
        self.games[game] = rewritten(self.games[game], version, change)
        self.rehead(game, self.games[game][-1].chain)

    def rehead(self, game: str, head: str) -> None:
        out = []
        for r in self.records:
            p = copy.deepcopy(r.payload) or {}
            if r.type == "GameResultRecorded" and p["game"] == game:
                p["head"] = head
            if r.type == "RoundClosed" and any(h["game"] == game for h in p["heads"]):
                for h in p["heads"]:
                    h["head"] = head if h["game"] == game else h["head"]
                p["root"] = merkle_root([(UUID(h["game"]), h["head"]) for h in p["heads"]])
            out.append(replace(r, payload=p))
        self.records = rechain(out)


def export_of(app: Opus, tournament: UUID) -> TournamentExport:
    """The tournament's export (``tournament_lines``), read back as a file is."""
    return read_back(tournament, tuple(tournament_lines(app, tournament)))


# ---- tournaments ------------------------------------------------------------------


@cache
def simulated() -> tuple[Opus, UUID]:
    """Nine random bots, three rounds, four drops between rounds."""
    app = Opus(env=POPO)
    run = simulate_tournament(app, 9, 3, "random", seed=3, drop_rate=0.15)
    assert run.dropped
    return app, run.tournament


def player_hash(n: int) -> str:
    return token_hash(f"organised player {n}")


def play(
    app: Opus, game: UUID, players: tuple[int, ...], rng: random.Random, moves: int = 10**6
) -> None:
    choose = BOTS["random"](rng)
    state = app.state(game)
    while state.status == "running" and moves > 0:
        seat = state.turn
        app.play(game, choose(state, seat), caller=Caller(player_hash(players[seat])))
        moves -= 1
        state = app.state(game)


@cache
def organised() -> tuple[Opus, UUID]:
    """Seven players at tables of 4–5 (so two byes, then one), a beacon, a
    round time limit: round 1's game called for time, a player dropped in
    the middle of round 2's game (SeatWithdrawn), which is then called; a
    correction and a penalty; round 3 played out."""
    app = Opus(env=POPO)
    t = app.tournaments
    tournament = t.create(
        "Organised",
        caller=Caller(player_hash(0)),
        sizes=(4, 4, 5),
        time_limit=1,  # T1.1's shortest: the call below waits it out, as a real one would
        rounds=3,
        beacon="drand round 1",
        secret=bytes(range(32)),
    ).aggregate_id
    for n in range(1, 8):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    rng = random.Random(5)
    t.pair(tournament, beacon="the beacon's value")
    round_ = t.get(tournament).state.rounds[-1]
    game = round_.tables[0]
    play(app, game.game, game.players, rng, 10)
    due = datetime.fromisoformat(round_.paired_at) + timedelta(seconds=1.05)
    time.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()))
    t.call(tournament, game.game, "Arbiter")  # on the clock: T10.2 holds
    play(app, game.game, game.players, rng)
    t.pair(tournament)
    game = t.get(tournament).state.rounds[-1].tables[0]
    play(app, game.game, game.players, rng, 7)
    t.drop(tournament, game.players[1])
    t.call(tournament, game.game, "Arbiter")
    play(app, game.game, game.players, rng)
    first = t.get(tournament).state.rounds[0].tables[0].game
    t.correct(tournament, first, [1, 2, 2, 4, 5], "scoring slip", "Arbiter")
    t.penalise(tournament, 3, Fraction(1, 2), "late", "Arbiter")
    t.pair(tournament)
    for game in t.get(tournament).state.rounds[-1].tables:
        play(app, game.game, game.players, rng)
    t.finish(tournament)
    return app, tournament


@cache
def lines_of(build: Callable[[], tuple[Opus, UUID]]) -> tuple[UUID, tuple[str, ...]]:
    app, tournament = build()
    return tournament, tuple(tournament_lines(app, tournament))


def read_back(tournament: UUID, lines: tuple[str, ...]) -> TournamentExport:
    groups = group_by_game(Record.from_line(json.loads(line)) for line in lines)
    records = groups.pop(str(tournament))
    return TournamentExport(str(tournament), records, groups)


def simulated_export() -> TournamentExport:
    """A fresh copy of the simulated tournament's export, to forge."""
    return read_back(*lines_of(simulated))


def organised_export() -> TournamentExport:
    return read_back(*lines_of(organised))


# ---- clean tournaments ----------------------------------------------------------


def test_T10_1_a_finished_tournament_verifies_from_its_export_and_from_the_store() -> None:
    app, tournament = simulated()
    log = export_of(app, tournament)
    verdict = log.verify()
    assert verdict.ok, verdict.reason
    assert verdict.judged and verdict.status == "finished" and verdict.rounds == 3
    assert verdict.line().startswith(f"ok   tournament {tournament} finished")
    assert [v.aggregate_id for v in verdict.games] == [g for _, _, g in named_games(log.records)]
    assert all(v.ok and v.judged and v.status == "ended" for v in verdict.games)
    for game in verdict.games:  # each game's verdict is audit's own
        assert game == verify_game(log.games[game.aggregate_id])
    records, games = tournament_records(app, tournament)
    assert verify_tournament(records, games).ok
    # The export is whole once the tournament has finished: the same records.
    assert [r.to_line() for r in records] == [r.to_line() for r in log.records]


def test_a_tournament_in_a_whole_log_uses_its_own_games_only() -> None:
    app, tournament = simulated()
    groups = group_by_game(read_records(app))
    other = Opus(env=POPO)
    simulate(other, 1, 3, "random", seed=8)
    groups |= group_by_game(read_records(other))
    verdict = verify_tournament(groups[str(tournament)], groups)
    assert verdict.ok, verdict.reason
    assert len(verdict.games) == len(named_games(groups[str(tournament)]))


def test_byes_a_drop_in_a_running_game_calls_corrections_and_penalties_verify() -> None:
    log = organised_export()
    verdict = log.verify()
    assert verdict.ok, verdict.reason
    types = {r.type for r in log.records} | {r.type for g in log.games.values() for r in g}
    assert {"SeatWithdrawn", "GameCalled", "ResultCorrected", "PenaltyGiven"} <= types
    assert [len((log.first("RoundPaired", round=r).payload or {})["byes"]) for r in (1, 2, 3)] == [
        2,
        2,
        1,
    ]
    ended = [r.payload for g in log.games.values() for r in g if r.type == "GameEnded"]
    assert [p["reason"] for p in ended if p] == ["called", "called", "R7.1"]


def running(app: Opus) -> UUID:
    """Seven players: round 1 played, round 2 paired, one game of it ended,
    the other under way."""
    t = app.tournaments
    created = t.create("Running", caller=Caller(player_hash(0)), secret=bytes(range(1, 33)))
    tournament = created.aggregate_id
    for n in range(1, 8):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    rng = random.Random(2)
    t.pair(tournament)
    for game in t.get(tournament).state.rounds[-1].tables:
        play(app, game.game, game.players, rng)
    t.pair(tournament)
    first, second = t.get(tournament).state.rounds[-1].tables
    play(app, first.game, first.players, rng)
    play(app, second.game, second.players, rng, 12)
    return tournament


def test_a_running_tournaments_export_is_checked_as_far_as_no_secret_is_needed() -> None:
    app = Opus(env=POPO)
    tournament = running(app)
    log = export_of(app, tournament)
    assert log.records[0].redacted and log.first("RoundPaired", round=1).redacted
    verdict = log.verify()
    assert verdict.ok, verdict.reason
    assert not verdict.judged and verdict.status == "playing"
    assert "secret and seed sealed" in verdict.line()
    assert [(v.status, v.judged) for v in verdict.games] == [
        ("ended", True),
        ("ended", True),
        ("ended", True),
        ("running", False),
    ]
    # What needs no secret is still checked: the objective of the tables.
    log.rewrite("RoundPaired", lambda p: p.update(objective="1/1"), round=2)
    assert log.verify().reason.startswith("T4.2: round 2's objective is recorded '1/1'")
    # The store holds it all in clear: judged as it runs.
    live = verify_tournament(*tournament_records(app, tournament))
    assert live.ok and live.judged, live.reason


# ---- forgeries, each named by its rule -----------------------------------------


def failure(log: TournamentExport) -> TournamentVerdict:
    verdict = log.verify()
    assert not verdict.ok
    return verdict


def test_a_game_cut_short_of_its_recorded_head_fails_T9_2() -> None:
    log = simulated_export()
    game = log.game(2, 1)
    kept = log.games[game][:-2]
    log.games[game] = kept
    verdict = failure(log)
    result = log.first("GameResultRecorded", game=game)
    assert verdict.reason.startswith(
        f"T9.2: game {game} stops at version {kept[-1].version}, short of its recorded head"
    )
    assert verdict.rule == "T9.2"
    assert (verdict.aggregate_id, verdict.version) == (log.tournament, result.version)
    assert verdict.position == result.position


def test_a_game_going_on_past_its_recorded_head_fails_T9_2() -> None:
    log = simulated_export()
    game = log.game(1, 2)
    log.rehead(game, log.games[game][-3].chain)
    assert failure(log).reason.startswith(
        f"T9.2: game {game} goes on past its recorded head: the head is version "
        f"{len(log.games[game]) - 2}'s chain value"
    )


def swap_between_tables(p: dict[str, Any]) -> None:
    one, two = p["tables"][0]["players"], p["tables"][1]["players"]
    one[0], two[0] = two[0], one[0]


@pytest.mark.parametrize(("round_", "rule"), [(1, "T4.1"), (2, "T4.2")])
def test_players_swapped_between_tables_fail_T4(round_: int, rule: str) -> None:
    log = simulated_export()
    log.rewrite("RoundPaired", swap_between_tables, round=round_)
    assert failure(log).reason.startswith(f"{rule}: round {round_} table 1 seats")


def test_players_swapped_in_the_pairing_and_in_their_games_fail_T4_2() -> None:
    """A forger who rewrites the games too is caught by the pairing itself."""
    log = simulated_export()
    log.rewrite("RoundPaired", swap_between_tables, round=2)
    paired = log.first("RoundPaired", round=2).payload or {}
    for table in paired["tables"][:2]:  # each game seats its new first player
        game, first = table["game"], table["players"][0]
        registered = log.first("PlayerRegistered", player=first).payload or {}

        def seat(p: dict[str, Any], r: dict[str, Any] = registered) -> None:
            p.update(name=r["name"], contribution=r["contribution"], token_hash=r["token_hash"])

        log.rewrite_game(game, 2, seat)
    assert failure(log).reason.startswith("T4.2: round 2 table 1 seats")


def test_seats_in_another_order_fail_T4_3() -> None:
    log = simulated_export()

    def turn(p: dict[str, Any]) -> None:
        players = p["tables"][0]["players"]
        players[0], players[1] = players[1], players[0]

    log.rewrite("RoundPaired", turn, round=3)
    assert failure(log).reason.startswith("T4.3: round 3 table 1's seats are")


def test_a_changed_objective_and_an_unknown_procedure_fail_T4_2() -> None:
    log = simulated_export()
    log.rewrite("RoundPaired", lambda p: p.update(objective="7/2"), round=2)
    assert failure(log).reason.startswith("T4.2: round 2's objective is recorded '7/2'")
    log = simulated_export()
    log.rewrite("RoundPaired", lambda p: p.update(procedure="swap-2"), round=2)
    assert failure(log).reason == (
        "T4.2: the pairing procedure 'swap-2' is unknown "
        "(this tournament's round 2 is paired by 'regroup-1')"
    )
    log = simulated_export()  # T4.2b: the procedure is the tournament's, named at its creation
    log.rewrite("RoundPaired", lambda p: p.update(procedure="swap-1"), round=2)
    assert failure(log).reason == (
        "T4.2: the pairing procedure 'swap-1' is not this round's "
        "(this tournament's round 2 is paired by 'regroup-1')"
    )


def test_another_player_given_the_bye_fails_T3_2() -> None:
    log = organised_export()

    def trade(p: dict[str, Any]) -> None:
        seated = p["tables"][0]["players"]
        p["byes"][0], seated[0] = seated[0], p["byes"][0]
        p["byes"].sort()

    log.rewrite("RoundPaired", trade, round=2)
    assert failure(log).reason.startswith("T3.2: round 2's byes are")


def test_a_changed_standings_digest_fails_T9_1_and_T9_3() -> None:
    log = simulated_export()
    log.rewrite("RoundClosed", lambda p: p.update(standings="0" * 64), round=2)
    verdict = failure(log)
    assert verdict.reason.startswith("T9.1: round 2's standings digest is recorded 000")
    assert "(T6, T7)" in verdict.reason
    assert verdict.version == log.first("RoundClosed", round=2).version
    log = simulated_export()
    log.rewrite("TournamentFinished", lambda p: p.update(standings="0" * 64))
    assert failure(log).reason.startswith("T9.3: the final standings digest is recorded 000")


def test_a_changed_place_fails_T5_1_and_a_changed_score_T5_3() -> None:
    log = simulated_export()
    game = log.game(2, 2)

    def places(p: dict[str, Any]) -> None:
        first = p["places"].index(1)
        last = p["places"].index(max(p["places"]))
        p["places"][first], p["places"][last] = p["places"][last], p["places"][first]

    log.rewrite("GameResultRecorded", places, game=game)
    assert failure(log).reason.startswith(f"T5.1: game {game}'s places are recorded")
    log = simulated_export()
    log.rewrite("GameResultRecorded", lambda p: p["scores"].__setitem__(0, 99), game=game)
    assert failure(log).reason.startswith(f"T5.3: game {game}'s scores are recorded [99")


def test_a_changed_merkle_root_fails_T9_1() -> None:
    log = simulated_export()
    log.rewrite("RoundClosed", lambda p: p.update(root="ab" * 32), round=1)
    assert failure(log).reason.startswith("T9.1: RoundClosed differs: root recorded 'abab")


def test_a_wrong_revealed_secret_fails_T1_3() -> None:
    log = simulated_export()
    log.rewrite("TournamentFinished", lambda p: p.update(secret="11" * 32))
    verdict = failure(log)
    assert verdict.reason == "T1.3: the revealed secret is not the one committed at creation"
    assert verdict.version == len(log.records)
    # Another secret throughout (every seal made with it): the commitment
    # it was drawn against catches it, at the tournament's first event.
    log = simulated_export()
    log.records[0] = replace(
        log.records[0], payload={**(log.records[0].payload or {}), "secret": "22" * 32}
    )
    log.rewrite("TournamentFinished", lambda p: p.update(secret="22" * 32))
    verdict = failure(log)
    assert verdict.reason == "T1.3: the secret does not match its commitment"
    assert verdict.version == 1


def test_another_seed_for_round_1_fails_T1_3() -> None:
    log = simulated_export()
    log.rewrite("RoundPaired", lambda p: p.update(seed="33" * 32), round=1)
    assert failure(log).reason.startswith("T1.3: RoundPaired differs: seed recorded '3333")


def test_a_malformed_penalty_fails_T7_2_and_a_correction_not_a_ranking_T7_1() -> None:
    log = organised_export()
    log.rewrite("PenaltyGiven", lambda p: p.update(points="1/3"))
    assert failure(log).reason.startswith("T7.2: a penalty is a positive multiple of 1/2")
    log = organised_export()
    log.rewrite("ResultCorrected", lambda p: p.update(places=[1, 1, 2, 3, 4]))
    assert failure(log).reason.startswith("T7.1: places must be a competition ranking")


def test_a_seat_withdrawn_without_its_players_drop_fails_T2_2() -> None:
    log = organised_export()
    dropped = log.first("PlayerDropped")
    log.records = rechain([r for r in log.records if r is not dropped])
    game = log.game(2, 1)
    verdict = failure(log)
    player = (dropped.payload or {})["player"]
    assert verdict.reason.startswith(
        f"T2.2: seat index 1 of game {game} (player {player}) is withdrawn"
    )
    assert verdict.aggregate_id == game
    withdrawn = next(r for r in log.games[game] if r.type == "SeatWithdrawn")
    assert (verdict.version, verdict.position) == (withdrawn.version, withdrawn.position)


def test_a_game_called_before_the_round_time_is_up_fails_T8_1() -> None:
    log = organised_export()
    game = log.game(1, 1)
    paired = datetime.fromisoformat(log.first("RoundPaired", round=1).timestamp)
    called = next(r for r in log.games[game] if r.type == "GameCalled")
    early = (paired + timedelta(seconds=0.5)).isoformat()  # the round's limit is 1 s
    log.rewrite_game(game, called.version, lambda p: p.update(time=early))
    assert failure(log).reason.startswith("T8.1: the call names the time")
    # the forger moves the record's own timestamp too: the time limit catches it
    records = log.games[game]
    i = called.version - 1
    records[i] = replace(records[i], timestamp=early)
    log.games[game] = rechain(records)
    log.rehead(game, log.games[game][-1].chain)
    assert failure(log).reason.startswith("T8.1: round 1's time is up at")


def test_a_games_secret_not_the_tournaments_for_its_table_fails_T1_4() -> None:
    log = organised_export()
    game = log.game(3, 1)
    other = bytes(range(2, 34))
    log.rewrite_game(game, 1, lambda p: p.update(secret=other.hex(), commitment=commitment(other)))
    assert failure(log).reason == (
        f"T1.4: game {game}'s secret is not HMAC-SHA256 of the tournament's secret and \"game:3:1\""
    )


def test_a_game_seated_otherwise_than_paired_fails_T1_4() -> None:
    log = simulated_export()
    game = log.game(2, 1)
    log.rewrite_game(game, 2, lambda p: p.update(name="Somebody"))
    assert failure(log).reason.startswith(f"T1.4: seat index 0 of game {game} (round 2, table 1)")


def test_a_missing_game_and_a_stray_one_fail_T1_4() -> None:
    log = simulated_export()
    game = log.game(1, 1)
    del log.games[game]
    assert failure(log).reason == f"T1.4: game {game} is not in the log"
    log = simulated_export()
    stray = str(uuid4())
    log.games[stray] = rechain([replace(r, aggregate_id=stray) for r in log.games[game]])
    verdict = failure(log)
    assert verdict.reason == (
        f"T1.4: game {stray} names this tournament (round 1, table 1), but no pairing names it"
    )


def test_an_altered_record_without_its_chain_fails_on_the_chain() -> None:
    log = simulated_export()
    game = log.game(1, 2)
    records = log.games[game]
    records[5] = replace(records[5], timestamp=records[6].timestamp)
    verdict = failure(log)
    assert verdict.reason.startswith(f"T10.1: game {game} fails: the chain value does not match")
    assert (verdict.aggregate_id, verdict.version) == (game, 6)
    log = simulated_export()
    log.records[3] = replace(
        log.records[3], payload={**(log.records[3].payload or {}), "name": "X"}
    )
    verdict = failure(log)
    assert verdict.reason.startswith("T1.2: the chain value does not match")
    assert verdict.version == 4


def test_a_round_left_open_after_its_last_result_fails_T9_1() -> None:
    log = simulated_export()
    closed = log.first("RoundClosed", round=1)
    log.records = rechain([r for r in log.records if r is not closed])
    verdict = failure(log)
    assert verdict.reason.startswith(
        "T9.1: every game of round 1 has its result, so the round closes by itself"
    )
    assert verdict.version == closed.version  # the event recorded in its place


def test_a_drop_that_leaves_its_players_running_seat_in_play_fails_T2_2() -> None:
    log = organised_export()
    game = log.game(2, 1)
    log.games[game] = rechain([r for r in log.games[game] if r.type != "SeatWithdrawn"])
    log.rehead(game, log.games[game][-1].chain)
    dropped = log.first("PlayerDropped")
    player = (dropped.payload or {})["player"]
    verdict = failure(log)
    assert verdict.reason == (
        f"T2.2: player {player} dropped while their game {game} was running, "
        "but that game records no SeatWithdrawn of their seat index 1"
    )
    assert verdict.version == dropped.version

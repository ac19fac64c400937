"""The tournament's rules through the application service, in memory
(TOURNAMENT.md T1–T9; the pure parts have their own tests: tables,
pairing, seating, standings, seeds). Each test names its rule."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter
from datetime import datetime, timedelta
from fractions import Fraction
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import (
    CallError,
    CorrectionError,
    FinishError,
    LateRegistrationError,
    NotTournamentOrganiserError,
    PairingError,
    PenaltyError,
    RegistrationError,
    TooFewPlayersError,
    WithdrawalError,
)
from domain.pipeline import Caller
from domain.simulation import play_out, simulate_tournament
from domain.tournaments.decide import rounds_for
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from domain.tournaments.seeds import game_secret, tournament_seed
from domain.tournaments.standings import digest
from domain.tournaments.state import TournamentState

ORGANISER = hashlib.sha256(b"organiser").hexdigest()
SECRET = bytes(range(32))


def token(n: int) -> str:
    return hashlib.sha256(f"player {n}".encode()).hexdigest()


@pytest.fixture
def app() -> Opus:
    return Opus({"PERSISTENCE_MODULE": "eventsourcing.popo"})


def entered(app: Opus, players: int, **options: object) -> UUID:
    tournament = app.tournaments.create(
        "Cup", caller=Caller(ORGANISER), secret=SECRET, **options
    ).aggregate_id  # type: ignore[arg-type]
    for n in range(1, players + 1):
        app.tournaments.register(tournament, f"P{n}", f"c{n}", caller=Caller(token(n)))
    return tournament


def play_round(app: Opus, tournament: UUID, seed: int = 1) -> None:
    choose = BOTS["random"](random.Random(seed))
    state = app.tournaments.get(tournament).state
    for seat in state.rounds[-1].tables:
        if seat.game not in state.results:
            play_out(app, seat.game, [token(p) for p in seat.players], choose)


def log_of(app: Opus, aggregate: UUID) -> list[str]:
    return [type(e).__name__ for e in app.events.get(aggregate)]


# ---- T1 --------------------------------------------------------------------


def test_T1_1_the_number_of_rounds_is_fixed_at_round_one_when_not_given(app: Opus) -> None:
    assert [rounds_for(n, 4) for n in (3, 13, 64, 65, 300)] == [3, 3, 3, 4, 5]
    tournament = entered(app, 9)
    assert app.tournaments.get(tournament).state.planned_rounds is None
    app.tournaments.pair(tournament)
    assert app.tournaments.get(tournament).state.planned_rounds == 3


def test_T1_1_table_sizes_out_of_bounds_are_refused(app: Opus) -> None:
    from domain.errors import CreationError

    with pytest.raises(CreationError, match=r"T1.1"):
        app.tournaments.create("Cup", caller=Caller(ORGANISER), sizes=(4, 3, 5))
    with pytest.raises(CreationError, match=r"T1.1"):
        app.tournaments.create("Cup", caller=Caller(ORGANISER), weight=0)


def test_T1_2_events_are_chained_like_a_games(app: Opus) -> None:
    from domain.chain import GENESIS, event_record, next_chain, sealed_payload
    from domain.disclosure import own_fields

    tournament = entered(app, 4)
    previous = GENESIS
    for event in app.events.get(tournament):
        kind = type(event).__name__
        assert kind in TOURNAMENT_EVENT_TYPES
        payload = sealed_payload(
            SECRET.hex(), tournament, event.originator_version, kind, own_fields(vars(event))
        )
        record = event_record(tournament, event.originator_version, kind, event.timestamp, payload)
        assert next_chain(previous, record) == event.chain
        previous = event.chain


def test_T1_3_seed_is_committed_and_the_secret_revealed_at_the_finish(app: Opus) -> None:
    tournament = entered(app, 4, beacon="drand round 1000")
    state = app.tournaments.get(tournament).state
    assert state.commitment == hashlib.sha256(SECRET).hexdigest()
    with pytest.raises(PairingError, match=r"T1.3"):
        app.tournaments.pair(tournament)  # the beacon's value is needed
    app.tournaments.pair(tournament, beacon="b7f3")
    state = app.tournaments.get(tournament).state
    assert state.seed == tournament_seed(SECRET, ["c1", "c2", "c3", "c4"], "b7f3")
    play_round(app, tournament)
    app.tournaments.finish(tournament)
    finished = list(app.events.get(tournament))[-1]
    assert type(finished).__name__ == "TournamentFinished"
    assert finished.secret == SECRET.hex()


def test_T1_4_each_game_secret_is_the_hmac_of_its_round_and_table(app: Opus) -> None:
    tournament = entered(app, 8)
    app.tournaments.pair(tournament)
    for seat in app.tournaments.get(tournament).state.rounds[0].tables:
        game = app.game(seat.game)
        expected = hmac.new(SECRET, f"game:1:{seat.table}".encode(), hashlib.sha256).digest()
        assert game.state.secret == expected.hex() == game_secret(SECRET, 1, seat.table).hex()
        assert game.state.contributions == [f"c{p}" for p in seat.players]
        assert (game.tournament, game.round, game.table) == (str(tournament), 1, seat.table)


# ---- T2 --------------------------------------------------------------------


def test_T2_1_names_are_unique_by_key_and_tokens_by_player(app: Opus) -> None:
    tournament = entered(app, 2)
    with pytest.raises(RegistrationError, match=r"T2.1"):
        app.tournaments.register(tournament, " p1\u00a0", "", caller=Caller(token(9)))
    with pytest.raises(RegistrationError, match=r"T2.1"):
        app.tournaments.register(tournament, "Zed", "", caller=Caller(token(1)))
    number = app.tournaments.register(tournament, "Zed", "", caller=Caller(token(3))).value
    assert number == 3


def test_T2_2_a_drop_withdraws_running_seats_in_the_same_transaction(app: Opus) -> None:
    tournament = entered(app, 6)
    app.tournaments.pair(tournament)
    seat = app.tournaments.get(tournament).state.rounds[0].tables[0]
    player = seat.players[1]
    before = app.recorder.max_notification_id() or 0
    app.tournaments.drop(tournament, player)
    saved = app.recorder.select_notifications(before + 1, 100)
    kinds = {(n.originator_id, n.topic.rsplit(":", 1)[-1]) for n in saved}
    assert (tournament, "PlayerDropped") in kinds and (seat.game, "SeatWithdrawn") in kinds
    assert app.state(seat.game).withdrawn == [1]
    # and the organiser's own way out is closed to a tournament's game
    with pytest.raises(WithdrawalError, match=r"T2.2"):
        app.withdraw(seat.game, 0)


def test_T2_2_a_player_drops_only_themselves(app: Opus) -> None:
    tournament = entered(app, 4)
    with pytest.raises(NotTournamentOrganiserError):
        app.tournaments.drop(
            tournament, 2, caller=Caller(hashlib.sha256(token(1).encode()).hexdigest())
        )
    app.tournaments.drop(tournament, 1, caller=Caller(token(1)))
    app.tournaments.drop(tournament, 2, caller=Caller(ORGANISER))
    assert app.tournaments.get(tournament).state.active == [3, 4]


def test_T2_2_the_last_seat_to_withdraw_ends_the_game_and_records_its_result(app: Opus) -> None:
    tournament = entered(app, 3)
    app.tournaments.pair(tournament)
    seat = app.tournaments.get(tournament).state.rounds[0].tables[0]
    for player in seat.players:
        app.tournaments.drop(tournament, player)
    assert log_of(app, seat.game)[-2:] == ["SeatWithdrawn", "GameEnded"]
    state = app.tournaments.get(tournament).state
    assert seat.game in state.results and state.rounds[0].closed  # T9.1 too


def test_T2_3_registration_closes_when_round_L_is_paired(app: Opus) -> None:
    tournament = entered(app, 6, late_until=2)
    app.tournaments.pair(tournament)
    number = app.tournaments.register(tournament, "Late", "late", caller=Caller(token(7))).value
    play_round(app, tournament)
    app.tournaments.pair(tournament)
    with pytest.raises(LateRegistrationError, match=r"T2.3"):
        app.tournaments.register(tournament, "Later", "", caller=Caller(token(8)))
    state = app.tournaments.get(tournament).state
    rows = {row.player: row for row in state.standings()}
    assert rows[number].games == 0 and number in {
        p for s in state.rounds[1].tables for p in s.players
    }


def test_T2_4_with_fewer_than_min_active_players_only_finishing_is_left(app: Opus) -> None:
    tournament = entered(app, 4)
    app.tournaments.drop(tournament, 1)
    app.tournaments.drop(tournament, 2)
    with pytest.raises(TooFewPlayersError, match=r"T2.4"):
        app.tournaments.pair(tournament)
    app.tournaments.finish(tournament)  # T9.3: before round 1 too
    assert app.tournaments.get(tournament).state.status == "finished"


# ---- T4.3 over whole tournaments ----------------------------------------------


def test_T4_3_no_player_sits_first_twice_while_a_tablemate_never_has(app: Opus) -> None:
    for seed in range(3):
        run = simulate_tournament(app, 13 + seed, 6, "random", seed, drop_rate=0.05)
        state = app.tournaments.get(run.tournament).state
        firsts: Counter[int] = Counter()
        for round_ in state.rounds:
            for seat in round_.tables:
                first = seat.players[0]
                if firsts[first] >= 1:
                    assert all(firsts[p] >= 1 for p in seat.players), (round_.number, seat)
                firsts[first] += 1


# ---- T5, T7 ----------------------------------------------------------------------


def test_T5_1_results_hold_places_scores_and_the_games_head(app: Opus) -> None:
    tournament = entered(app, 5)
    app.tournaments.pair(tournament)
    play_round(app, tournament)
    state = app.tournaments.get(tournament).state
    for seat in state.rounds[0].tables:
        game = app.game(seat.game)
        result = state.results[seat.game]
        assert result.head == game.chain
        assert list(result.scores) == game.state.scores  # T5.3
        ranked = sorted(range(len(seat.players)), key=lambda k: result.places[k])
        assert set(game.state.winners) == {k for k in ranked if result.places[k] == 1}
        keys = [
            (game.state.scores[k], game.state.completed_stages(k), len(game.state.tables[k]))
            for k in range(len(seat.players))
        ]
        for k, place in enumerate(result.places):
            assert place == 1 + sum(other > keys[k] for other in keys)


def test_T7_1_to_T7_3_corrections_and_penalties_add_never_rewrite_and_are_counted(
    app: Opus,
) -> None:
    tournament = entered(app, 4)
    app.tournaments.pair(tournament)
    with pytest.raises(CorrectionError, match=r"T7.1"):
        app.tournaments.correct(
            tournament,
            app.tournaments.get(tournament).state.rounds[0].tables[0].game,
            [1, 2, 3, 4],
            "early",
            "arbiter",
        )
    play_round(app, tournament)
    state = app.tournaments.get(tournament).state
    game = state.rounds[0].tables[0].game
    sealed = next(e for e in app.events.get(tournament) if type(e).__name__ == "RoundClosed")
    with pytest.raises(CorrectionError, match=r"T7.1"):
        app.tournaments.correct(tournament, game, [1, 2, 2, 3], "not a ranking", "arbiter")
    app.tournaments.correct(tournament, game, [4, 3, 2, 1], "scoring slip", "arbiter")
    app.tournaments.correct(tournament, game, [2, 2, 1, 4], "second look", "arbiter")
    with pytest.raises(PenaltyError, match=r"T7.2"):
        app.tournaments.penalise(tournament, 1, Fraction(1, 3), "slow play", "arbiter")
    app.tournaments.penalise(tournament, 1, Fraction(3, 2), "slow play", "arbiter")
    state = app.tournaments.get(tournament).state
    rows = {row.player: row for row in state.standings()}
    players = state.rounds[0].tables[0].players
    points = {p: rows[p].match_points + rows[p].penalties for p in players}
    # the latest correction counts: places 2, 2, 1, 4 of four → (8 + 4) / 2 twice, 12, 0
    assert [points[p] for p in players] == [6, 6, 12, 0]
    assert rows[1].penalties == Fraction(3, 2)
    assert all(rows[p].corrections == 2 + (p == 1) for p in players)  # T7.3
    assert state.results[game].scores == tuple(app.state(game).scores)  # scores never change
    after = next(e for e in app.events.get(tournament) if type(e).__name__ == "RoundClosed")
    assert after.standings == sealed.standings  # the seal is never changed


# ---- T8 ------------------------------------------------------------------------------


def test_T8_1_a_game_is_called_after_the_time_limit_and_ends_after_the_last_seat(app: Opus) -> None:
    tournament = entered(app, 3, time_limit=600)
    app.tournaments.pair(tournament)
    seat = app.tournaments.get(tournament).state.rounds[0].tables[0]
    paired = datetime.fromisoformat(app.tournaments.get(tournament).state.rounds[0].paired_at)
    with pytest.raises(CallError, match=r"T8.1"):
        app.tournaments.call(tournament, seat.game, "arbiter", now=paired + timedelta(seconds=599))
    app.tournaments.call(tournament, seat.game, "arbiter", now=paired + timedelta(seconds=600))
    with pytest.raises(CallError, match=r"T8.1"):
        app.tournaments.call(tournament, seat.game, "arbiter", now=paired + timedelta(seconds=700))
    state = app.state(seat.game)
    assert state.status == "running" and state.called
    choose = BOTS["random"](random.Random(1))
    while app.state(seat.game).status == "running":
        state = app.state(seat.game)
        app.play(seat.game, choose(state, state.turn))
    kinds = log_of(app, seat.game)
    ended = list(app.events.get(seat.game))[-1]
    assert ended.reason in ("called", "R7.1", "R7.2")
    turns = [e for e in app.events.get(seat.game) if type(e).__name__ == "TurnEnded"]
    called_at = kinds.index("GameCalled")
    after_call = [t for t in turns if t.originator_version > called_at + 1]
    assert after_call[-1].player == 2 and [t.player for t in after_call].count(2) == 1
    assert seat.game in app.tournaments.get(tournament).state.results


def test_T8_1_a_game_with_a_withdrawn_seat_may_be_called_at_once(app: Opus) -> None:
    tournament = entered(app, 4)
    app.tournaments.pair(tournament)
    seat = app.tournaments.get(tournament).state.rounds[0].tables[0]
    with pytest.raises(CallError, match=r"T8.1"):
        app.tournaments.call(tournament, seat.game, "arbiter")
    app.tournaments.drop(tournament, seat.players[2])
    app.tournaments.call(tournament, seat.game, "arbiter")
    assert app.state(seat.game).called


# ---- T9 ------------------------------------------------------------------------------


def test_T9_1_a_round_closes_by_itself_and_the_next_is_paired_only_then(app: Opus) -> None:
    tournament = entered(app, 7)
    app.tournaments.pair(tournament)
    with pytest.raises(PairingError, match=r"T9.1"):
        app.tournaments.pair(tournament)
    with pytest.raises(FinishError, match=r"T9.3"):
        app.tournaments.finish(tournament)
    play_round(app, tournament)
    state = app.tournaments.get(tournament).state
    assert state.rounds[0].closed
    closed = next(e for e in app.events.get(tournament) if type(e).__name__ == "RoundClosed")
    assert closed.heads == [
        {"game": str(s.game), "head": app.game(s.game).chain} for s in state.rounds[0].tables
    ]
    assert closed.standings == digest(state.standings(1))
    app.tournaments.pair(tournament)


def test_T9_3_only_the_organiser_finishes(app: Opus) -> None:
    tournament = entered(app, 3)
    with pytest.raises(NotTournamentOrganiserError):
        app.tournaments.finish(tournament, caller=Caller(token(1)))
    app.tournaments.finish(tournament, caller=Caller(ORGANISER))


# ---- properties --------------------------------------------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(3, 16),
    rounds=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    drop_rate=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_tournaments_seat_every_active_player_once_and_replay_to_the_same_standings(
    players: int, rounds: int, seed: int, drop_rate: float
) -> None:
    app = Opus({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    run = simulate_tournament(app, players, rounds, "random", seed, drop_rate=drop_rate)
    tournament = app.tournaments.get(run.tournament)
    state = tournament.state
    sizes = state.sizes
    events = list(app.events.get(run.tournament))
    dropped_by: dict[int, int] = {}  # player -> rounds paired when dropped
    paired = 0
    for event in events:
        kind = type(event).__name__
        if kind == "PlayerDropped":
            dropped_by[event.player] = paired
        if kind == "RoundPaired":
            paired += 1
            seated = [p for t in event.tables for p in t["players"]] + list(event.byes)
            active = [n for n in range(1, players + 1) if n not in dropped_by]
            assert sorted(seated) == active  # every active player exactly once
            assert all(sizes.min <= len(t["players"]) <= sizes.max for t in event.tables)
    # replaying the tournament's events gives the same standings
    replayed = TournamentState.from_created(vars(events[0]))
    for event in events[1:]:
        replayed.evolve(type(event).__name__, vars(event))
    assert replayed.standings() == state.standings()
    ranks = [row.rank for row in state.standings()]
    assert ranks == list(range(1, players + 1))


def test_a_refused_command_changes_nothing(app: Opus) -> None:
    tournament = entered(app, 4)
    version = app.tournaments.get(tournament).version
    for refused in (
        lambda: app.tournaments.pair(tournament, beacon="x"),
        lambda: app.tournaments.penalise(tournament, 9, Fraction(1), "r", "a"),
        lambda: app.tournaments.drop(tournament, 5),
    ):
        with pytest.raises(Exception, match=r"T"):
            refused()
    assert app.tournaments.get(tournament).version == version


# ---- found in review ---------------------------------------------------------------


def test_T2_1_a_name_is_seated_as_registered_so_white_space_may_not_pad_it(app: Opus) -> None:
    tournament = entered(app, 0)
    for padded in (" Ada", "Ada ", "Ada\u00a0", "\u3000Ada"):
        with pytest.raises(RegistrationError, match=r"T2\.1"):
            app.tournaments.register(tournament, padded, "", caller=Caller(token(1)))
    with pytest.raises(RegistrationError, match=r"T2\.1"):  # it would seed every game (R9.1)
        app.tournaments.register(tournament, "Ada", "x" * 257, caller=Caller(token(1)))
    assert app.tournaments.get(tournament).version == 1


def test_T8_1_a_retried_call_is_answered_and_its_key_is_for_that_call_only(app: Opus) -> None:
    from domain.errors import IdempotencyConflictError

    tournament = entered(app, 8)
    app.tournaments.pair(tournament)
    first, second = app.tournaments.get(tournament).state.rounds[0].tables
    app.tournaments.drop(tournament, first.players[0])
    app.tournaments.drop(tournament, second.players[0])
    called = app.tournaments.call(tournament, first.game, "arbiter", caller=Caller(command="k:1"))
    again = app.tournaments.call(tournament, first.game, "arbiter", caller=Caller(command="k:1"))
    assert not called.replayed and again.replayed
    assert log_of(app, first.game).count("GameCalled") == 1
    with pytest.raises(IdempotencyConflictError):
        app.tournaments.call(tournament, first.game, "someone else", caller=Caller(command="k:2"))


def test_a_retried_create_is_answered_after_round_one_fixed_the_rounds(app: Opus) -> None:
    tournament = app.tournaments.create(
        "Cup", caller=Caller(ORGANISER, command="key:a")
    ).aggregate_id
    for n in range(1, 5):
        app.tournaments.register(tournament, f"P{n}", "", caller=Caller(token(n)))
    app.tournaments.pair(tournament)
    again = app.tournaments.create("Cup", caller=Caller(ORGANISER, command="key:a"))
    assert again.aggregate_id == tournament and again.replayed

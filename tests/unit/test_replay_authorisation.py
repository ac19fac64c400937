"""A retried command is authorised before it is answered (domain/pipeline.py,
``Runner``: authorise, then answer a replay), for every aggregate: a command
id is public (the export records it), a token is not. So a caller who may
not make a command, sending the id of one its organiser (or seat) made, is
refused as a new command of theirs would be, and learns nothing of it;
the organiser's own retry is answered.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from fractions import Fraction
from uuid import UUID

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import NotAuthorisedError, NotOrganiserError, NotTournamentOrganiserError
from domain.pipeline import Caller, CommandOutcome
from domain.ruleset import RuleSet
from domain.simulation import play_out

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


ORGANISER = digest("replay organiser")
STRANGER = digest("replay stranger")


def player(n: int) -> str:
    return digest(f"replay player {n}")


# ---- tournaments --------------------------------------------------------------------

# A tournament command made by the organiser under a command id: (tournament
# app, tournament, caller) -> its outcome.
Made = Callable[[Opus, UUID, Caller], CommandOutcome]


def game_of(app: Opus, tournament: UUID) -> UUID:
    return app.tournaments.get(tournament).state.rounds[-1].tables[0].game


def play_round(app: Opus, tournament: UUID) -> None:
    choose = BOTS["greedy"](random.Random(4))
    for seat in app.tournaments.get(tournament).state.rounds[-1].tables:
        play_out(app, seat.game, [player(p) for p in seat.players], choose)


def played(app: Opus, tournament: UUID) -> None:
    """Round 1 paired and played (its round closed)."""
    app.tournaments.pair(tournament)
    play_round(app, tournament)


def call_due(app: Opus, tournament: UUID, caller: Caller) -> CommandOutcome:
    paired = datetime.fromisoformat(app.tournaments.get(tournament).state.rounds[-1].paired_at)
    due = paired + timedelta(seconds=61)
    return app.tournaments.call(
        tournament, game_of(app, tournament), "Arbiter", caller=caller, now=due
    )


def correct(app: Opus, tournament: UUID, caller: Caller) -> CommandOutcome:
    game = game_of(app, tournament)
    return app.tournaments.correct(tournament, game, [1, 1, 3], "slip", "Arbiter", caller=caller)


COMMANDS: dict[str, tuple[Callable[[Opus, UUID], object], Made]] = {
    # rule id and command: (what comes before it, the command)
    "T2.2-drop": (
        lambda app, t: None,
        lambda app, t, caller: app.tournaments.drop(t, 2, caller=caller),
    ),
    "T4.1-pair": (
        lambda app, t: None,
        lambda app, t, caller: app.tournaments.pair(t, caller=caller),
    ),
    "T8.1-call": (lambda app, t: app.tournaments.pair(t), call_due),
    "T7.1-correct": (played, correct),
    "T7.2-penalise": (
        lambda app, t: None,
        lambda app, t, caller: app.tournaments.penalise(
            t, 1, Fraction(1, 2), "late", "Arbiter", caller=caller
        ),
    ),
    "T9.3-finish": (
        played,
        lambda app, t, caller: app.tournaments.finish(t, caller=caller),
    ),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("who", ["a registered player", "a stranger"])
def test_T_organiser_commands_replayed_by_another_caller_are_refused_not_answered(
    command: str, who: str
) -> None:
    """The organiser makes the command under id K; then another caller (a
    player of the tournament, or a token of no one's) sends K: refused as
    not the organiser's, nothing recorded; the organiser's retry of K is
    answered as a replay."""
    app = Opus(env=POPO)
    t = app.tournaments
    tournament = t.create(
        "Replays", caller=Caller(ORGANISER), time_limit=60, secret=bytes(32)
    ).aggregate_id
    for n in range(1, 4):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player(n)))
    before, make = COMMANDS[command]
    before(app, tournament)
    key = f"k-{command}:0123456789abcdef"
    made = make(app, tournament, Caller(ORGANISER, key))
    assert not made.replayed
    version = t.get(tournament).version
    position = app.recorder.max_notification_id()
    other = player(3) if who == "a registered player" else STRANGER
    with pytest.raises(NotTournamentOrganiserError):
        make(app, tournament, Caller(other, key))
    assert t.get(tournament).version == version
    assert app.recorder.max_notification_id() == position
    again = make(app, tournament, Caller(ORGANISER, key))
    assert again.replayed and again.version == made.version
    assert app.recorder.max_notification_id() == position


# ---- games ----------------------------------------------------------------------------


def open_game(app: Opus) -> UUID:
    game = app.create_game(RuleSet(), caller=Caller(ORGANISER), secret=bytes(range(32)))
    for n in range(1, 4):
        app.join(game, f"P{n}", f"c{n}", caller=Caller(player(n)))
    return game


def test_R2_2_R3_5_a_replayed_organiser_game_command_from_another_caller_is_refused() -> None:
    """The game's organiser starts it, then withdraws a seat, each under an
    id; a seat's holder and a stranger sending those ids are refused (not
    the organiser), nothing recorded; the organiser's retries are answered."""
    app = Opus(env=POPO)
    game = open_game(app)
    started = app.start(game, caller=Caller(ORGANISER, "k-start:0123456789abcdef"))
    withdrawn = app.withdraw(game, 2, caller=Caller(ORGANISER, "k-withdraw:0123456789abcdef"))
    position = app.recorder.max_notification_id()
    version = app.version(game)
    retries: list[tuple[str, Callable[[Caller], CommandOutcome]]] = [
        ("k-start:0123456789abcdef", lambda caller: app.start(game, caller=caller)),
        ("k-withdraw:0123456789abcdef", lambda caller: app.withdraw(game, 2, caller=caller)),
    ]
    for key, again in retries:
        for other in (player(1), STRANGER):
            with pytest.raises(NotOrganiserError):
                again(Caller(other, key))
        assert app.version(game) == version
        assert app.recorder.max_notification_id() == position
    assert app.start(game, caller=Caller(ORGANISER, "k-start:0123456789abcdef")).replayed
    retried = app.withdraw(game, 2, caller=Caller(ORGANISER, "k-withdraw:0123456789abcdef"))
    assert retried.replayed and retried.version == withdrawn.version
    assert started.version < withdrawn.version


def test_R3_4_a_replayed_move_from_a_token_of_no_seat_is_refused() -> None:
    """A seat's move under an id: a token holding no seat of the game sends
    the id and is refused (not seated), not answered."""
    app = Opus(env=POPO)
    game = open_game(app)
    app.start(game, caller=Caller(ORGANISER))
    state = app.state(game)
    move = BOTS["greedy"](random.Random(1))(state, state.turn)
    key = "k-move:0123456789abcdef"
    moved = app.play(game, move, caller=Caller(player(state.turn + 1), key))
    position = app.recorder.max_notification_id()
    with pytest.raises(NotAuthorisedError):
        app.play(game, move, caller=Caller(STRANGER, key))
    assert app.recorder.max_notification_id() == position
    again = app.play(game, move, caller=Caller(player(state.turn + 1), key))
    assert again.replayed and again.version == moved.version

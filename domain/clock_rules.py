"""What a timed game's clocks allow (RULES.md R11.3–R11.6): decided on the
game's state and a command's time, in whole microseconds, by the Game
aggregate for a new command and by the audit (domain/audit.py) for a
recorded one, so that both refuse the same things with the same rule ids.
The arithmetic is domain/clock.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import engine
from domain.chained import Fact
from domain.clock import moment
from domain.errors import RuleError
from domain.events import ClocksPaused, ClocksResumed, TimeAdded, TimeExpired
from domain.moves import Withdraw
from domain.names import MAX_NAME
from domain.state import GameState


def deadline_passed(state: GameState, at: int) -> int | None:
    """The turn in progress's deadline when ``at`` is at or after it and its
    TimeExpired is not recorded yet (R11.3, R11.4); None otherwise."""
    clocks = state.clocks
    if clocks is None or state.status != "running" or state.expired is not None:
        return None
    deadline = clocks.deadline()
    return deadline if deadline is not None and at >= deadline else None


def check_on_time(state: GameState, player: int, at: int) -> None:
    """R11.3: a command of the seat's player in its turn at or after the
    deadline is refused, whether or not TimeExpired is recorded yet."""
    clocks = state.clocks
    if clocks is None or state.status != "running" or player != state.turn:
        return
    deadline = clocks.deadline()
    if state.expired == player or (deadline is not None and at >= deadline):
        raise RuleError("time is up", "R11.3")


def run_expiry(game: engine.Playing, at: int, apply: Callable[[list[Fact]], None]) -> bool:
    """R11.4, R11.5: what the game owes once a deadline has passed: the
    seat's TimeExpired {player, at: the deadline, grace}, then (``withdraw``)
    its withdrawal for the clock, the turn's pass as R3.5 gives it. False
    when nothing is owed at ``at``."""
    state = game.state
    deadline = deadline_passed(state, at)
    if deadline is None:
        return False
    assert state.rules is not None and state.rules.clock is not None
    seat = state.turn
    at_text = moment(deadline).isoformat()
    apply([(TimeExpired, {"player": seat, "at": at_text, "grace": state.rules.clock.grace})])
    engine.run_move(game, Withdraw(seat, "clock"), apply)
    return True


def _check_words(what: str, text: Any) -> None:
    if not isinstance(text, str) or not engine.is_text(text) or not 1 <= len(text) <= MAX_NAME:
        raise RuleError(f"{what} is 1 to {MAX_NAME} characters of text", "R11.6")


def _running_clocks(state: GameState) -> None:
    if state.clocks is None:
        raise RuleError("this game has no clock", "R11.6")
    if state.status != "running":
        raise RuleError("the clocks have stopped: the game is not running", "R11.6")


def decide_add_time(
    state: GameState, player: int, seconds: Any, reason: str, by: str, at: int
) -> list[Fact]:
    """R11.6: TimeAdded: a positive whole number of seconds for a seat still
    in play, refused in the rest of a turn whose deadline was reached."""
    _running_clocks(state)
    if type(seconds) is not int or seconds < 1:
        raise RuleError(f"time is added in whole seconds, 1 or more, not {seconds!r}", "R11.6")
    if type(player) is not int or not 0 <= player < state.players:
        raise RuleError(f"there is no seat index {player} in this game", "R11.6")
    if player in state.withdrawn:
        raise RuleError(f"{state.names[player]} has withdrawn: no time is added", "R11.6")
    if player == state.turn and (state.expired == player or deadline_passed(state, at)):
        raise RuleError(f"{state.names[player]}'s deadline in this turn was reached", "R11.6")
    _check_words("the reason", reason)
    _check_words("who adds it", by)
    return [(TimeAdded, {"player": player, "seconds": seconds, "reason": reason, "by": by})]


def decide_pause(state: GameState, reason: str, by: str) -> list[Fact]:
    """R11.6: ClocksPaused, refused while paused and once the clocks stopped."""
    _running_clocks(state)
    assert state.clocks is not None
    if state.clocks.paused_since is not None:
        raise RuleError("the clocks are paused already", "R11.6")
    _check_words("the reason", reason)
    _check_words("who pauses them", by)
    return [(ClocksPaused, {"reason": reason, "by": by})]


def decide_resume(state: GameState, reason: str, by: str) -> list[Fact]:
    """R11.6: ClocksResumed, refused while running and once they stopped."""
    _running_clocks(state)
    assert state.clocks is not None
    if state.clocks.paused_since is None:
        raise RuleError("the clocks are running", "R11.6")
    _check_words("the reason", reason)
    _check_words("who resumes them", by)
    return [(ClocksResumed, {"reason": reason, "by": by})]

"""The preconditions of a tournament's commands, each raising its T… rule's
error: checked where a command is decided (domain/tournaments/decide.py) and
where a recorded pairing is verified (domain/tournaments/verify.py), so both
refuse the same pairings with the same rule ids.
"""

from __future__ import annotations

from collections.abc import Callable

from domain import errors as E
from domain.tournaments.state import TournamentState


def rule_order(rule: str) -> tuple[int, ...]:
    """A T… id as numbers, so that T2.4 comes before T12.1."""
    return tuple(int(part) for part in rule.removeprefix("T").split(".") if part.isdigit())


def lowest_refusal(*checks: Callable[[], object]) -> None:
    """T10.3 (revision 5): every check is asked; when several refuse, the
    refusal of the lowest-numbered rule is raised (T2.3 before T12.1, T2.4
    before T12.1: our decision)."""
    refusals: list[E.TournamentRuleError] = []
    for check in checks:
        try:
            check()
        except E.TournamentRuleError as refusal:
            refusals.append(refusal)
    if refusals:
        raise min(refusals, key=lambda refusal: rule_order(refusal.rule))


def check_pairing(state: TournamentState, beacon: str) -> int:
    """The number of the round to pair next, when this pairing (with the
    beacon's value ``beacon``, "" for none) may be made now: the guards
    below, the lowest-numbered rule named when several refuse (T10.3)."""
    number = state.paired + 1
    lowest_refusal(lambda: check_pairable(state), lambda: check_beacon(state, number, beacon))
    return number


def check_open(state: TournamentState) -> None:
    """T9.3: nothing changes a finished tournament."""
    if state.finished:
        raise E.FinishError("the tournament has finished")


def check_pairable(state: TournamentState) -> int:
    """The number of the round to pair next, when it may be paired now: the
    tournament is open (T9.3), the last round is closed (T9.1), not every
    planned round has been played (T9.1; after the Swiss rounds, the cut's
    rounds when one is named, T12.1), and the active players fill at least
    one table (T2.4). Who plays in a cut round is the cut's to say
    (domain/tournaments/cut.py: T12.1, T12.3)."""
    number = state.paired + 1

    def closed() -> None:
        if state.rounds and not state.rounds[-1].closed:
            raise E.PairingError(f"round {state.paired} is not closed: every game needs a result")

    def rounds_left() -> None:
        planned = state.planned_rounds
        if planned is not None and number > planned:
            if state.cut is None:
                raise E.PairingError(
                    f"all {planned} rounds have been played: finish the tournament"
                )
            last = planned + (1 if state.cut == 1 else 2)
            if number > last:
                raise E.PairingError(
                    f"all {planned} Swiss rounds and the cut have been played: "
                    "finish the tournament",
                    "T12.2",
                )

    def enough_players() -> None:
        active = len(state.active)
        if active < state.sizes.min:
            raise E.TooFewPlayersError(
                f"{active} active players, fewer than a table's {state.sizes.min}: "
                "the tournament can only be finished"
            )

    lowest_refusal(lambda: check_open(state), closed, rounds_left, enough_players)
    return number


def check_beacon(state: TournamentState, number: int, beacon: str) -> None:
    """T1.3: round 1 is paired with the beacon's value exactly when the
    tournament named a beacon (``beacon`` is "" without one); no later round
    takes one."""
    if number != 1:
        if beacon:
            raise E.PairingError("only round 1 takes the beacon's value", "T1.3")
        return
    if state.beacon and not beacon:
        raise E.PairingError(f"round 1 needs the beacon's value ({state.beacon})", "T1.3")
    if beacon and not state.beacon:
        raise E.PairingError("this tournament named no beacon", "T1.3")

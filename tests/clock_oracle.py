"""RULES.md §11's clocks written again from the text, for the tests: each
seat's time and the deadline of the turn in progress, from a list of what
was recorded with its command time in whole microseconds. It imports nothing
of the domain, and counts differently: each turn is cut out of the list
(from its start to its end), and the time paused within it is the overlap of
the pause intervals with it.

Events: ("start", {"seats": n}), ("turn_ended", {"player", "next_player"}),
("withdrawn", {"player"}), ("paused", {}), ("resumed", {}),
("added", {"player", "seconds"}), ("ended", {}).
"""

from __future__ import annotations

from typing import Any

SECOND = 1_000_000

Event = tuple[str, dict[str, Any], int]


def pauses(events: list[Event]) -> list[tuple[int, int | None]]:
    """R11.6: the intervals the clocks were paused, [ClocksPaused,
    ClocksResumed), the last open (None) while still paused."""
    out: list[tuple[int, int | None]] = []
    for kind, _, at in events:
        if kind == "paused":
            out.append((at, None))
        elif kind == "resumed" and out and out[-1][1] is None:
            out[-1] = (out[-1][0], at)
    return out


def paused_within(events: list[Event], start: int, end: int) -> int:
    """Microseconds of [start, end) the clocks were paused."""
    total = 0
    for begin, stop in pauses(events):
        stop_at = end if stop is None else min(stop, end)
        total += max(0, stop_at - max(begin, start))
    return total


def derive(clock: dict[str, Any], events: list[Event], now: int) -> dict[str, Any]:
    """Every seat's remaining time after its last finished turn, the seat
    whose turn is in progress, its time left at ``now`` and its deadline
    (R11.2, R11.3, R11.6). A turn runs no clock for a withdrawn seat."""
    initial = clock["initial"] * SECOND
    increment = clock["increment"] * SECOND
    limit = clock.get("move_limit")
    remaining: list[int] = []
    withdrawn: set[int] = set()
    turn: dict[str, Any] | None = None  # {"seat", "start", "budget"}
    ended = False

    def used(t: dict[str, Any], at: int) -> int:
        return at - t["start"] - paused_within(events, t["start"], at)

    for kind, p, at in events:
        if kind == "start":
            remaining = [initial] * p["seats"]
            turn = {"seat": 0, "start": at, "budget": initial}
        elif kind == "turn_ended":
            assert turn is not None
            seat = p["player"]
            if seat == turn["seat"] and seat not in withdrawn:
                remaining[seat] = min(initial, turn["budget"] - used(turn, at) + increment)
            nxt = p["next_player"]
            turn = {"seat": nxt, "start": at, "budget": remaining[nxt]}
        elif kind == "withdrawn":
            withdrawn.add(p["player"])
        elif kind == "added":
            seat = p["player"]
            extra = p["seconds"] * SECOND
            if turn is not None and turn["seat"] == seat and seat not in withdrawn:
                # what it has left at that instant, plus the seconds, capped
                left_now = turn["budget"] - used(turn, at)
                turn["budget"] = used(turn, at) + min(initial, left_now + extra)
            else:
                remaining[seat] = min(initial, remaining[seat] + extra)
        elif kind == "ended":
            ended = True
    out: dict[str, Any] = {"remaining": remaining, "turn": None, "left": None, "deadline": None}
    if turn is None or ended or turn["seat"] in withdrawn:
        return out
    out["turn"] = turn["seat"]
    out["left"] = max(0, turn["budget"] - used(turn, now))
    still_paused = any(stop is None for _, stop in pauses(events))
    if not still_paused:
        allowed = turn["budget"] if limit is None else min(turn["budget"], limit * SECOND)
        out["deadline"] = turn["start"] + paused_within(events, turn["start"], now) + allowed
    return out

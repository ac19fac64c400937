"""A finished game stepped through from its export: the table and the scores
as they stood after each event (README: the scores are rebuilt from the
history, here made visible).

The input is the game's export (``infra.eventlog.game_export``, or an NDJSON
file downloaded from ``GET /games/{id}/export``), so a stored game and its
downloaded export replay alike. Step n is the table after the game's first n
events: ``domain.table.PublicTable`` evolved with each event's public form
(``domain.disclosure.disclose(…, PUBLIC, ended=True)``: the game is over,
R9.3, so its hands are shown too, from ``domain.hands.evolve_hands``).
The scores at step n are the PointsAwarded among those events, each with
the step of the event that earned it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.audit import CREATED, Record, Verdict, verify_game
from domain.disclosure import PUBLIC, disclose
from domain.events import EVENT_TYPES
from domain.hands import evolve_hands
from domain.table import PublicTable

WINDOW = 6  # log lines shown on each side of the step


class ReplayError(ValueError):
    """An export that cannot be replayed, and why."""


def parse_export(lines: Iterable[str]) -> list[Record]:
    """One game's records from its exported NDJSON lines; ReplayError for
    anything that is not one whole, finished game's export."""
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise TypeError("not an object")
            records.append(Record.from_line(raw))
        except (ValueError, TypeError, KeyError) as e:
            raise ReplayError(f"line {number} is not an exported event ({e})") from None
    return check_records(records)


def check_records(records: list[Record]) -> list[Record]:
    if not records:
        raise ReplayError("the export holds no event")
    game = records[0].aggregate_id
    for expected, record in enumerate(records, start=1):
        if record.aggregate_id != game:
            raise ReplayError("the export holds more than one game: export a single game")
        if record.version != expected:
            raise ReplayError(f"version {expected} is missing (found {record.version})")
        if record.type not in EVENT_TYPES or not isinstance(record.payload, dict):
            raise ReplayError(f"version {record.version} is not a game's event ({record.type})")
    if records[0].type not in CREATED:
        raise ReplayError("the export does not begin with the game's creation")
    # R9.3: a game's hidden cards are revealed by its end, and not before
    if any(r.redacted for r in records) or records[-1].type != "GameEnded":
        raise ReplayError(
            "the game has not ended: its hidden cards are sealed in its export; "
            "a replay needs the whole log, which the export holds once the game is over"
        )
    return records


@dataclass
class Step:
    """The game after its first ``n`` events."""

    game: str
    n: int
    total: int
    table: dict[str, Any]  # PublicTable.to_doc(), the table view's shape
    stacks: dict[str, list[int]]
    hands: list[list[int]]
    awards: list[dict[str, Any]]  # the scoreboard's shape, up to step n
    entries: list[dict[str, Any]]  # the log around step n, the move log's shape
    rules: dict[str, Any]


class Hands:
    """The hands as the whole (revealed) events move them (a HandZone)."""

    def __init__(self) -> None:
        self.cards: list[list[int]] = []

    def add_to_hand(self, seat: int, cards: Sequence[int]) -> None:
        self.cards[seat].extend(cards)

    def remove_from_hand(self, seat: int, card: int) -> None:
        self.cards[seat].remove(card)


def entry_of(record: Record) -> dict[str, Any]:
    """A record as the move log keeps its entry: the event's public form
    (whole, the game being over), its version and type."""
    assert record.payload is not None
    shown = disclose(record.type, record.payload, PUBLIC, ended=True)
    return {"version": record.version, "event": record.type, **shown}


def step(records: Sequence[Record], n: int) -> Step:
    """The table, hands and scores after the first ``n`` events (clamped to
    the game's length; step 1 is its creation)."""
    total = len(records)
    n = max(1, min(n, total))
    created = entry_of(records[0])
    table = PublicTable(commitment=created["commitment"])
    hands = Hands()
    awards: list[dict[str, Any]] = []
    for record in records[1:n]:
        entry = entry_of(record)
        table.evolve(record.type, entry)
        if record.type == "GameStarted":
            hands.cards = [[] for _ in table.names]
        evolve_hands(hands, record.type, entry)
        if record.type == "PointsAwarded":
            awards.append(
                {
                    "seat": entry["player"],
                    "points": entry["points"],
                    "rule": entry["rule"],
                    "cause": entry["cause"],
                    "cause_version": entry["cause_version"],
                    "version": record.version,
                }
            )
    window = range(max(0, n - 1 - WINDOW), min(total, n + WINDOW))
    return Step(
        game=records[0].aggregate_id,
        n=n,
        total=total,
        table=table.to_doc(),
        stacks={stack: list(cards) for stack, cards in table.cabinet.items()},
        hands=hands.cards,
        awards=awards,
        entries=[entry_of(records[i]) for i in window],
        rules={k: created[k] for k in ("draw", "guild", "stage_points")},
    )


def verdict(records: Sequence[Record]) -> Verdict:
    """``opus verify``'s verdict on the export (chain, every move re-judged)."""
    return verify_game(records)

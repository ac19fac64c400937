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

A ``Replay`` walks the game once when it is made and keeps a copy of the
table and hands every ``SNAPSHOT_EVERY`` steps: a step is the nearest copy
before it, copied again and evolved by fewer than ``SNAPSHOT_EVERY`` events,
whatever the game's length. ``ReplayCache`` keeps the last replays made (a
stored game's by its id, an upload's by the digest of its bytes), so that
stepping through a game makes its replay once.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.audit import CREATED, Record, Verdict, verify_game
from domain.disclosure import PUBLIC, disclose
from domain.events import EVENT_TYPES
from domain.hands import evolve_hands
from domain.table import PublicTable

WINDOW = 6  # log lines shown on each side of the step
SNAPSHOT_EVERY = 16  # steps between the copies a replay keeps
REPLAYS = 32  # replays kept per process (ReplayCache)
UPLOADED_REPLAYS = 4  # uploads' replays kept per process, apart from the stored games'


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


class RevealedHands:
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


def award_of(entry: dict[str, Any], version: int) -> dict[str, Any]:
    """A PointsAwarded entry as the scoreboard keeps it."""
    return {
        "seat": entry["player"],
        "points": entry["points"],
        "rule": entry["rule"],
        "cause": entry["cause"],
        "cause_version": entry["cause_version"],
        "version": version,
    }


class Replay:
    """A finished game's steps (its records, as ``check_records`` passes
    them). Made in one walk through the game, keeping the table and the
    hands after step 1, 1 + k, 1 + 2k… (k = ``every``); read-only after,
    so threads may step through it together."""

    def __init__(self, records: Sequence[Record], every: int = SNAPSHOT_EVERY) -> None:
        if every < 1:
            raise ValueError("a replay keeps a copy every step at most")
        self.records = records
        self.every = every
        self.total = len(records)
        self.game = records[0].aggregate_id
        self.entries = [entry_of(record) for record in records]  # the move log's, by step - 1
        created = self.entries[0]
        self.rules = {k: created[k] for k in ("draw", "guild", "stage_points")}
        # the scores' awards in order, and the version of each
        self.awards: list[dict[str, Any]] = []
        self.award_versions: list[int] = []
        table, hands = PublicTable(commitment=created["commitment"]), RevealedHands()
        # the table and hands after step 1, 1 + k…, pickled: made in this
        # process, never read from outside it; unpickling copies them about
        # seven times as fast as copy.deepcopy
        self.snapshots: list[bytes] = []
        for i in range(1, self.total):
            if (i - 1) % every == 0:  # the game after its first i events
                self.snapshots.append(pickle.dumps((table, hands), pickle.HIGHEST_PROTOCOL))
            self._apply(table, hands, i)
            if records[i].type == "PointsAwarded":
                self.awards.append(award_of(self.entries[i], records[i].version))
                self.award_versions.append(records[i].version)
        if (self.total - 1) % every == 0:
            self.snapshots.append(pickle.dumps((table, hands), pickle.HIGHEST_PROTOCOL))
        self._verdict: Verdict | None = None

    def _apply(self, table: PublicTable, hands: RevealedHands, i: int) -> None:
        """Evolve the table and the hands by the game's event ``i`` (0-based)."""
        record, entry = self.records[i], self.entries[i]
        table.evolve(record.type, entry)
        if record.type == "GameStarted":
            hands.cards = [[] for _ in table.names]
        evolve_hands(hands, record.type, entry)

    def step(self, n: int) -> Step:
        """The table, hands and scores after the first ``n`` events (clamped
        to the game's length; step 1 is its creation)."""
        total = self.total
        n = max(1, min(n, total))
        kept = (n - 1) // self.every
        table, hands = pickle.loads(self.snapshots[kept])
        for i in range(1 + kept * self.every, n):
            self._apply(table, hands, i)
        window = range(max(0, n - 1 - WINDOW), min(total, n + WINDOW))
        return Step(
            game=self.game,
            n=n,
            total=total,
            table=table.to_doc(),
            stacks={stack: list(cards) for stack, cards in table.cabinet.items()},
            hands=hands.cards,
            awards=self.awards[: bisect.bisect_right(self.award_versions, n)],
            entries=[self.entries[i] for i in window],
            rules=self.rules,
        )

    def verdict(self) -> Verdict:
        """``opus verify``'s verdict on the records (made once)."""
        if self._verdict is None:
            self._verdict = verify_game(self.records)
        return self._verdict


class ReplayCache:
    """The last ``size`` replays made, by key (least recently used out)."""

    def __init__(self, size: int = REPLAYS) -> None:
        self.size = size
        self._replays: OrderedDict[Hashable, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Replay]) -> Replay:
        """The replay under ``key``, made by ``make`` (outside the lock) if
        it is not kept."""
        with self._lock:
            replay = self._replays.get(key)
            if replay is not None:
                self._replays.move_to_end(key)
                return replay
        replay = make()
        with self._lock:
            self._replays[key] = replay
            while len(self._replays) > self.size:
                self._replays.popitem(last=False)
        return replay

    def uploaded(self, content: bytes) -> Replay:
        """The replay of an uploaded export, by the digest of its bytes;
        ReplayError (or UnicodeDecodeError) if it is not one finished game's."""
        digest = hashlib.sha256(content).hexdigest()
        return self.get(
            ("upload", digest), lambda: Replay(parse_export(content.decode("utf-8").splitlines()))
        )

"""What a stream writes first, its game's log, kept by the process.

Every stream opens by writing its game's log in the auditor's form
(domain/disclosure.py) from its client's version on. Read from the store
for each stream, the whole log decoded and sealed again, that was most of
the stream service's CPU while streams opened by the thousand
(bench/streams.py's profile: 58 %). A process keeps each game's log here
as its streams write it, each record's message made once, and reads from
the store only what was saved since it last looked (``game_records_after``:
one indexed read, usually of nothing).

What is kept never turns wrong: the log is append-only, and its auditor's
form changes only when the game ends (R9.3: from then on everything is
shown). So a game is kept in one form at a time: sealed while it runs,
whole once ended. When the read of what is new finds the end, the whole
log is read again, revealed; an ended game's log is final and read no
more. The streams opening on one game together wait for one read of the
store and take what it kept. The games opened least recently are dropped
past ``capacity`` messages in all.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import NamedTuple
from uuid import UUID

from domain.application import Opus
from domain.audit import REVEALING, Record, secret_in
from infra.eventlog import auditor_form, game_records, game_records_after

CAPACITY = 200_000  # messages kept in all (about 0.3 kB each: tens of MB)
READING_STRIPES = 64  # locks for the reads of the store, a game's always the same


class Message(NamedTuple):
    """One record of the log as a stream writes it."""

    version: int
    type: str
    text: str  # the server-sent event: id, event, the exported line


def sse(line: str, version: int, type_: str) -> str:
    """An event of the log as a server-sent event: its version is its id."""
    return f"id: {version}\nevent: {type_}\ndata: {line}\n\n"


def message(record: Record) -> Message:
    return Message(record.version, record.type, sse(record.line(), record.version, record.type))


@dataclass(frozen=True)
class GameLog:
    """A game's log as it stood when last read: its messages, version 1 first."""

    messages: tuple[Message, ...]
    ended: bool  # its GameEnded (or TournamentFinished) is in: everything shown
    secret: str

    @property
    def version(self) -> int:
        return len(self.messages)

    def after(self, version: int) -> tuple[Message, ...]:
        """The messages after ``version`` (versions run 1, 2, 3, …)."""
        return self.messages[max(version, 0) :]


class Backlogs:
    """The logs of the games this process streams, each up to date when read."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._logs: OrderedDict[UUID, GameLog] = OrderedDict()
        self._size = 0  # messages kept
        self._lock = threading.Lock()  # never held over a read of the store
        # One read of the store at a time for a game: the streams opening on
        # it together wait for the first one's read and take what it kept.
        self._reading = [threading.Lock() for _ in range(READING_STRIPES)]

    def log(self, app: Opus, game_id: UUID) -> GameLog | None:
        """The game's log as the store holds it now; None for no such game."""
        with self._reading[hash(game_id) % READING_STRIPES]:
            return self._read(app, game_id)

    def _read(self, app: Opus, game_id: UUID) -> GameLog | None:
        with self._lock:
            kept = self._logs.get(game_id)
            if kept is not None:
                self._logs.move_to_end(game_id)
        if kept is not None and kept.ended:
            return kept
        if kept is None:
            made = _whole(app, game_id)
        else:
            newer = game_records_after(app, game_id, kept.version, known_public=True)
            if not newer:
                return kept
            if any(r.type in REVEALING for r in newer):
                made = _whole(app, game_id)
            else:
                sealed = auditor_form(newer, False, kept.secret)
                made = GameLog(kept.messages + tuple(map(message, sealed)), False, kept.secret)
        if made is not None:
            self._keep(game_id, made)
        return made

    def _keep(self, game_id: UUID, made: GameLog) -> None:
        with self._lock:
            kept = self._logs.get(game_id)
            if kept is not None and (kept.ended or kept.version >= made.version):
                return  # another stream read it meanwhile, as far or further
            self._size += made.version - (0 if kept is None else kept.version)
            self._logs[game_id] = made
            self._logs.move_to_end(game_id)
            while self._size > self.capacity and len(self._logs) > 1:
                _, dropped = self._logs.popitem(last=False)
                self._size -= dropped.version

    def __len__(self) -> int:
        return len(self._logs)


def _whole(app: Opus, game_id: UUID) -> GameLog | None:
    records = game_records(app, game_id)
    if not records:
        return None
    ended = records[-1].type in REVEALING
    secret = secret_in(records)
    return GameLog(tuple(map(message, auditor_form(records, ended, secret))), ended, secret)

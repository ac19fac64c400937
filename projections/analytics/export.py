"""The incremental Parquet export of the log (``opus analytics export``).

A directory of Parquet files, one folder per table (``tables.SCHEMAS``), and
``manifest.json``: the log position exported up to and, per table, the files
that hold the rows. Readers (``engines``) read the files the manifest lists,
never a folder's listing.

Each run reads the log after the manifest's position up to the head as the
run starts (``stop``), only the event types the tables need (the store skips
the rest), and writes the rows of every game whose GameEnded lies in that
range — a game's rows are written once, by the run that reads its end, so
no row is missing or written twice across runs:

- a game still running at ``stop`` writes nothing yet; the run that reads
  its GameEnded writes all of it, reading the game's earlier events (from
  before that run's range) back from the store by its id;
- so hidden information never enters a row of a running game: the log is
  read by the tables' event types only, and the events that deal or draw
  cards are never decoded (those of a game read back by its id come with
  the rest of an ended game's log, where nothing is hidden any more, R9.3,
  and are dropped unread);
- tournaments' results and corrections (``result``) are rows of their own
  events, each written by the run whose range holds it.

With shards (each with its own log, infra/shards.py) the export is given
every shard's application, shard 0 first, and reads each shard's log in
turn; the manifest keeps how far each shard was read (``positions``, each
the position a client sees, which names its shard: domain/sharding.py) and
the rows' positions name their shard too. A game, its end and a
tournament's results all live on one shard, so what is said above holds
shard by shard. One shard: the manifest and the rows as before.

Crash safety: data files are written under temporary names, synced and
renamed into place; then the manifest is replaced atomically (written aside,
synced, renamed). A run killed at any point leaves the manifest as the last
finished run left it; the next run first deletes every file the manifest
does not list, then starts from the manifest's position. A lock file keeps
two runs from writing the same directory at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pyarrow.parquet as pq  # type: ignore[import-untyped]
from eventsourcing.utils import get_topic

from domain.application import Opus
from domain.events import EVENT_TYPES
from domain.sharding import position_of, shard_position
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from projections.analytics.tables import (
    GAME_TYPES,
    RESULT_TYPES,
    TABLES,
    PendingRows,
    game_rows,
    result_rows,
)
from projections.base import EventDecoder, no_cyclic_gc, read_rows

MANIFEST = "manifest.json"
LOCK = ".lock"
PAGE = 2000  # notifications per read
CHUNK_ROWS = 500_000  # rows held in memory before they are written out
FORMAT = 1  # the manifest's format

GAME_TOPICS = {get_topic(EVENT_TYPES[t]): t for t in GAME_TYPES}
RESULT_TOPICS = {get_topic(TOURNAMENT_EVENT_TYPES[t]): t for t in RESULT_TYPES}
TOPICS = sorted({*GAME_TOPICS, *RESULT_TOPICS})

Progress = Callable[[int], None]
Event = tuple[str, Mapping[str, Any]]


@dataclass
class Manifest:
    """What has been exported: up to ``position``, in ``files`` (per table,
    paths relative to the export directory). With shards, up to each of
    ``positions`` (one a shard, each naming its shard), ``position`` the
    largest of them."""

    position: int = 0
    positions: list[int] = field(default_factory=list)  # with shards: each shard's
    files: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TABLES})
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    games: int = 0
    runs: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, out: Path) -> Manifest:
        path = out / MANIFEST
        if not path.exists():
            return cls()
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT:
            raise ValueError(f"{path}: manifest format {doc.get('format')!r}, not {FORMAT}")
        manifest = cls(
            position=int(doc["position"]),
            positions=[int(p) for p in doc.get("positions", [])],
            games=int(doc["games"]),
            runs=list(doc["runs"]),
        )
        for table in TABLES:
            manifest.files[table] = list(doc["files"].get(table, []))
            manifest.rows[table] = int(doc["rows"].get(table, 0))
        return manifest

    def save(self, out: Path) -> None:
        """Replace the manifest atomically: written aside, synced, renamed."""
        doc = {
            "format": FORMAT,
            "position": self.position,
            **({"positions": self.positions} if self.positions else {}),
            "games": self.games,
            "rows": self.rows,
            "files": self.files,
            "runs": self.runs,
        }
        aside = out / f"{MANIFEST}.{uuid.uuid4().hex[:8]}.tmp"
        with open(aside, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(aside, out / MANIFEST)
        _sync_dir(out)

    def reached(self, shards: int) -> list[int]:
        """Each shard's notification exported up to (its own numbering)."""
        if shards == 1:
            if self.positions:
                raise ValueError("this export was made of a split store; the store is one")
            return [self.position]
        if not self.positions:
            if self.position:
                raise ValueError(
                    f"this export was made of one store; the store has {shards} shards"
                )
            return [0] * shards
        if len(self.positions) != shards:
            raise ValueError(
                f"this export was made of {len(self.positions)} shards; the store has {shards}"
            )
        return [shard_position(p, shards)[1] for p in self.positions]

    def reach(self, locals_: Sequence[int]) -> None:
        """Exported up to each shard's notification ``locals_[k]``."""
        shards = len(locals_)
        if shards == 1:
            self.position = locals_[0]
            return
        self.positions = [position_of(k, n, shards) for k, n in enumerate(locals_)]
        self.position = max(self.positions)


@dataclass
class ExportRun:
    """What one run did: from ``after`` to ``stop`` (with shards, the
    largest of each shard's, ``ranges`` each shard's own numbering)."""

    after: int
    stop: int
    ranges: list[tuple[int, int]] = field(default_factory=list)
    games: int = 0
    results: int = 0
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    files: int = 0
    seconds: float = 0.0

    @property
    def positions(self) -> int:
        if len(self.ranges) > 1:
            return sum(stop - after for after, stop in self.ranges)
        return self.stop - self.after

    def lines(self) -> list[str]:
        rate = self.positions / self.seconds if self.seconds else 0.0
        rows = ", ".join(f"{t} {n:,}" for t, n in self.rows.items())
        read = f"log positions {self.after:,} -> {self.stop:,} ({self.positions:,} events)"
        if len(self.ranges) > 1:
            read = f"{len(self.ranges)} shards' logs ({self.positions:,} events): " + ", ".join(
                f"shard {k} {after:,} -> {stop:,}" for k, (after, stop) in enumerate(self.ranges)
            )
        return [
            read,
            f"games ended and exported: {self.games:,}; tournament results: {self.results:,}",
            f"rows: {rows}",
            f"files written: {self.files}; time {self.seconds:.2f} s ({rate:,.0f} events/s)",
        ]


def data_files(out: Path) -> dict[str, list[Path]]:
    """The files of each table, as the manifest lists them (what readers read)."""
    manifest = Manifest.load(out)
    if not manifest.runs:
        raise FileNotFoundError(f"no export in {out}: run `opus analytics export` first")
    return {t: [out / name for name in manifest.files[t]] for t in TABLES}


def export(
    app: Opus | Sequence[Opus],
    out: Path,
    *,
    progress: Progress | None = None,
    chunk_rows: int = CHUNK_ROWS,
    stop: int | None = None,
) -> ExportRun:
    """Export what the log holds after the last run, up to its head now (or
    ``stop``, one store's); ``progress`` is told how many log positions each
    page covered. ``app``: the application, or every shard's (shard 0 first)."""
    apps = [app] if isinstance(app, Opus) else list(app)
    shards = len(apps)
    if stop is not None and shards > 1:
        raise ValueError("stop is a position of one log: a split store is exported to its heads")
    out.mkdir(parents=True, exist_ok=True)
    with _locked(out), no_cyclic_gc():
        manifest = Manifest.load(out)
        _remove_unlisted(out, manifest)
        afters = manifest.reached(shards)
        heads = [shard.recorder.max_notification_id() or 0 for shard in apps]
        if stop is not None:
            heads = [min(stop, heads[0])]
        stops = [max(head, after) for head, after in zip(heads, afters, strict=True)]
        run = ExportRun(
            after=max(position_of(k, n, shards) for k, n in enumerate(afters)),
            stop=max(position_of(k, n, shards) for k, n in enumerate(stops)),
            ranges=list(zip(afters, stops, strict=True)),
        )
        started = time.perf_counter()
        name = f"{run.stop:012d}-{uuid.uuid4().hex[:6]}"
        writer = _Writer(out, name, manifest)
        batch = PendingRows()
        for k, shard in enumerate(apps):
            log = _Log(shard, k, shards)
            for games, results in _read(log, afters[k], stops[k], batch, progress):
                run.games += games
                run.results += results
                if len(batch) >= chunk_rows:
                    writer.write(batch, run)
        writer.write(batch, run)
        writer.write_empty(run)
        manifest.reach(stops)
        manifest.games += run.games
        for table, count in run.rows.items():
            manifest.rows[table] += count
        manifest.runs.append(
            {
                "run": name,
                "after": run.after,
                "position": run.stop,
                "games": run.games,
                "results": run.results,
                "rows": run.rows,
                "files": run.files,
                "at": datetime.now(UTC).isoformat(),
            }
        )
        manifest.save(out)
        run.seconds = time.perf_counter() - started
        return run


@dataclass(frozen=True)
class _Log:
    """One shard's log (the whole log, with one shard): where its rows'
    positions are numbered from."""

    app: Opus
    shard: int
    shards: int

    def position(self, local: int) -> int:
        return position_of(self.shard, local, self.shards)


def _read(
    log: _Log, after: int, stop: int, batch: PendingRows, progress: Progress | None
) -> Iterator[tuple[int, int]]:
    """Read (after, stop] page by page into ``batch``; yields, per page, the
    games ended and the tournament results read. Events are read as the
    projections read them: rows (``select_rows``) parsed straight into
    records (``EventDecoder``)."""
    app = log.app
    decoder = EventDecoder(app.mapper)
    running: dict[str, list[Event]] = {}  # by the game's key
    position = after
    while position < stop:
        rows, text_ids = read_rows(app, position, PAGE, stop, TOPICS)
        records, error = decoder.decode(rows, text_ids=text_ids)
        if error is not None:
            raise error
        games = results = 0
        for row, (_, _, key, fields) in zip(rows, records, strict=True):
            topic = row[3]
            game_type = GAME_TOPICS.get(topic)
            if game_type is None:
                result_rows(key, RESULT_TOPICS[topic], fields, log.position(row[0]), batch)
                results += 1
                continue
            events = running.get(key)
            if events is None:
                events = running[key] = []
            events.append((game_type, fields))
            if game_type == "GameEnded":
                del running[key]
                if events[0][1]["originator_version"] != 1:
                    events[:0] = _earlier(app, decoder, fields["originator_id"], events[0][1])
                game_rows(key, events, log.position(row[0]), batch)
                games += 1
        done = rows[-1][0] if len(rows) == PAGE else stop
        if progress is not None:
            progress(done - position)
        position = done
        yield games, results


def _earlier(app: Opus, decoder: EventDecoder, game: UUID, first: Mapping[str, Any]) -> list[Event]:
    """A game's events before the range this run reads, from the store."""
    stored = app.recorder.select_events(game, lte=first["originator_version"] - 1)
    rows = [
        (0, s.originator_id, s.originator_version, s.topic, s.state)
        for s in stored
        if s.topic in GAME_TOPICS
    ]
    records, error = decoder.decode(rows, text_ids=False)
    if error is not None:
        raise error
    return [(GAME_TOPICS[row[3]], record[3]) for row, record in zip(rows, records, strict=True)]


class _Writer:
    """Part files of one run: written aside, synced, renamed into place."""

    def __init__(self, out: Path, run: str, manifest: Manifest) -> None:
        self.out, self.run, self.manifest = out, run, manifest
        self.parts = 0

    def write(self, batch: PendingRows, run: ExportRun) -> None:
        for table in TABLES:
            if batch.rows[table]:
                self._part(table, batch, run)
        batch.clear()

    def write_empty(self, run: ExportRun) -> None:
        """A table with no file yet gets an empty one: readers need its schema."""
        empty = PendingRows()
        for table in TABLES:
            if not self.manifest.files[table]:
                self._part(table, empty, run)

    def _part(self, table: str, batch: PendingRows, run: ExportRun) -> None:
        folder = self.out / table
        folder.mkdir(exist_ok=True)
        name = f"part-{self.run}-{self.parts:05d}.parquet"
        self.parts += 1
        aside = folder / f".{name}.tmp"
        data = batch.arrow(table)
        pq.write_table(data, aside)
        with open(aside, "rb") as f:
            os.fsync(f.fileno())
        os.replace(aside, folder / name)
        _sync_dir(folder)
        self.manifest.files[table].append(f"{table}/{name}")
        run.rows[table] += data.num_rows
        run.files += 1


def _remove_unlisted(out: Path, manifest: Manifest) -> None:
    """Files a killed run left behind: none is listed, so none was ever read."""
    listed = {name for names in manifest.files.values() for name in names}
    for table in TABLES:
        folder = out / table
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if f"{table}/{path.name}" not in listed:
                path.unlink()
    for path in out.glob(f"{MANIFEST}.*.tmp"):
        path.unlink()


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    with open(out / LOCK, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another export is writing {out}") from None
        yield


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

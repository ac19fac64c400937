"""Reading the application's event log as audit records, in log order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from domain.application import Opus
from domain.audit import Record
from domain.events import EVENT_TYPES, GameEnded

PAGE = 1000


def read_records(app: Opus, after: int = 0, stop: int | None = None) -> Iterator[Record]:
    """Every Game event after ``after`` (up to ``stop``), as records; a stored
    event that cannot be decoded becomes a record carrying the error."""
    position = after
    while True:
        page = app.recorder.select_notifications(
            start=position, limit=PAGE, stop=stop, inclusive_of_start=False
        )
        for notification in page:
            yield to_record(app, notification)
        if len(page) < PAGE:
            return
        position = page[-1].id


def to_record(app: Opus, n: Notification) -> Record:
    type_ = n.topic.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    try:
        return Record.of_event(app.mapper.to_domain_event(n), n.id)
    except Exception as e:  # a damaged row must become a verdict, not a crash
        return Record(
            position=n.id,
            aggregate_id=str(n.originator_id),
            version=n.originator_version,
            type=type_ if type_ in EVENT_TYPES else n.topic,
            timestamp="",
            payload=None,
            chain="",
            error=f"{type(e).__name__}: {e}",
        )


def finished_games(app: Opus) -> set[str]:
    """Ids of the games whose GameEnded is in the log now."""
    topic = get_topic(GameEnded)
    ended: set[str] = set()
    position = 0
    while True:
        page = app.recorder.select_notifications(
            start=position, limit=PAGE, topics=[topic], inclusive_of_start=False
        )
        ended.update(str(n.originator_id) for n in page)
        if len(page) < PAGE:
            return ended
        position = page[-1].id


def game_records(app: Opus, game_id: UUID) -> list[Record]:
    """One game's records in version order, each with its log position."""
    positions = game_positions(app, game_id)
    return [
        Record.of_event(event, positions.get(event.originator_version))
        for event in app.events.get(game_id)
    ]


def game_positions(app: Opus, game_id: UUID) -> dict[int, int]:
    """Version -> position of one game's events, by an indexed lookup."""
    recorder: Any = app.recorder
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None:  # in memory: a scan is cheap enough
        return {
            r.version: r.position
            for r in read_records(app)
            if r.aggregate_id == str(game_id) and r.position is not None
        }
    if app.env.get("PERSISTENCE_MODULE", "").endswith("postgres"):
        from psycopg import sql

        query = sql.SQL(
            "SELECT originator_version, notification_id FROM {}.{} WHERE originator_id = %s"
        ).format(sql.Identifier(datastore.schema), sql.Identifier(table))
        with datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (game_id,))
            return {row["originator_version"]: row["notification_id"] for row in cursor}
    with datastore.transaction(commit=False) as cursor:
        cursor.execute(
            f"SELECT originator_version, rowid FROM {table} WHERE originator_id = ?",
            (game_id.hex,),  # the SQLite recorder keeps ids as hex
        )
        return {row[0]: row[1] for row in cursor.fetchall()}


def public_line(record: Record, ended: bool, secret: str) -> str:
    """One exported line: whole for an ended game, else with its hidden
    fields sealed (domain/chain.py)."""
    shown = record if ended else record.redact(secret)
    return json.dumps(shown.to_line(), ensure_ascii=False, separators=(",", ":"))


def secret_of(app: Opus, game_id: str) -> str:
    """A game's secret, from its GameCreated: to seal its hidden fields."""
    created = next(iter(app.events.get(UUID(game_id), lte=1)))
    return str(created.secret)  # type: ignore[attr-defined]

"""Tampering with the real stores: one byte changed, an event deleted, two
events swapped, each straight in SQLite or PostgreSQL. Verify fails and names
the first bad position every time."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from domain.application import Opus
from domain.audit import verify_game
from domain.simulation import play_game
from infra.eventlog import read_records

Tamper = Callable[[str, list[int]], int]  # (kind, positions of the game) -> first bad position


def game_records(app: Opus, game_id: str, span: tuple[int, int] = (0, 0)) -> list[Any]:
    """The game's records; ``span`` (after, stop) narrows the read of a shared store."""
    after, stop = span
    return [r for r in read_records(app, after, stop or None) if r.aggregate_id == game_id]


def sqlite_rows(env: dict[str, str]) -> tuple[Callable[..., Any], Callable[[], None]]:
    db = sqlite3.connect(env["SQLITE_DBNAME"])

    def run(sql: str, *args: Any) -> Any:
        sql = sql.replace("{table}", "stored_events").replace("{id}", "rowid")
        rows = db.execute(sql.replace("%s", "?"), args).fetchall()
        db.commit()
        return rows

    return run, db.close


def postgres_rows(env: dict[str, str]) -> tuple[Callable[..., Any], Callable[[], None]]:
    db = psycopg.connect(
        dbname=env["POSTGRES_DBNAME"],
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"],
        autocommit=True,
    )

    def run(sql: str, *args: Any) -> Any:
        sql = sql.replace("{table}", "opus_events").replace("{id}", "notification_id")
        cursor = db.execute(sql, args)
        return cursor.fetchall() if cursor.description else []

    return run, db.close


@pytest.mark.parametrize("kind", ["byte", "delete", "swap"])
def test_tampering_in_the_store_is_found_at_its_position(env: dict[str, str], kind: str) -> None:
    app = Opus(env=env)
    rng = random.Random(kind)
    start = app.recorder.max_notification_id() or 0
    game_id, _ = play_game(app, 3, "greedy", rng)
    span = (start, app.recorder.max_notification_id() or 0)
    records = game_records(app, str(game_id), span)
    assert verify_game(records).ok
    positions = [r.position for r in records]
    on_sqlite = env["PERSISTENCE_MODULE"].endswith("sqlite")
    run, close = (sqlite_rows if on_sqlite else postgres_rows)(env)
    try:
        for _ in range(3):  # three places in the same game, one at a time
            i = rng.randrange(1, len(positions) - 2)
            p = positions[i]
            saved = run("SELECT topic, state FROM {table} WHERE {id} = %s", p)[0]
            if kind == "byte":
                state = bytearray(saved[1])
                state[rng.randrange(len(state))] ^= 0x01
                run("UPDATE {table} SET state = %s WHERE {id} = %s", bytes(state), p)
                expected = p
            elif kind == "delete":
                run("DELETE FROM {table} WHERE {id} = %s", p)
                expected = positions[i + 1]
            else:
                q = positions[i + 1]
                other = run("SELECT topic, state FROM {table} WHERE {id} = %s", q)[0]
                run("UPDATE {table} SET topic = %s, state = %s WHERE {id} = %s", *other, p)
                run("UPDATE {table} SET topic = %s, state = %s WHERE {id} = %s", *saved, q)
                expected = p
            verdict = verify_game(game_records(Opus(env=env), str(game_id), span))
            assert not verdict.ok, kind
            assert verdict.position == expected, verdict.reason
            if kind == "delete":
                break  # a deleted row can't be put back under its old position
            if kind == "swap":
                run("UPDATE {table} SET topic = %s, state = %s WHERE {id} = %s", *other, q)
            run("UPDATE {table} SET topic = %s, state = %s WHERE {id} = %s", *saved, p)
            assert verify_game(game_records(Opus(env=env), str(game_id), span)).ok
    finally:
        close()
        app.close()


def test_a_timestamp_rewritten_with_another_separator_is_found(tmp_path: Any) -> None:
    """Python reads "2026-11-30U16:48:28" as it reads "...T16:48:28": the
    chain, over the datetime, cannot tell; the stored text must be its own."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    app = Opus(env=env)
    game_id, _ = play_game(app, 2, "greedy", random.Random(5))
    run, close = sqlite_rows(env)
    try:
        (state,) = run("SELECT state FROM {table} WHERE {id} = %s", 3)[0]
        marker = bytes(state).index(b'"_data_":"') + len(b'"_data_":"') + 10
        forged = bytes(state[:marker]) + b"U" + bytes(state[marker + 1 :])
        assert state[marker : marker + 1] == b"T"
        run("UPDATE {table} SET state = %s WHERE {id} = %s", forged, 3)
    finally:
        close()
    verdict = verify_game(game_records(Opus(env=env), str(game_id)))
    assert not verdict.ok and verdict.position == 3
    assert "timestamp" in verdict.reason

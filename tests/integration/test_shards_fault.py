"""A shard's PostgreSQL crashes while games are played on every shard.

Three private PostgreSQL servers (tests/private_servers.py) are the shards
of one HTTP service (the Flask app, from settings alone). Threads play
games on every shard through the API, each move with its Idempotency-Key,
retried with the same key until it is answered. One shard's server is
killed (SIGKILL to every process of it) mid-play and started again on the same folder and port:

- the other shards' games keep being answered (the share is measured and
  must be 99 % or more);
- the killed shard's games answer 503 with Retry-After while it is down,
  and an id no shard that answers holds is a 503 too, never a 404;
- /readyz names the shard that is down (and stays ready for the others);
- once it is back its games are answered again, the service not restarted;
- afterwards every acknowledged move is in the store exactly once: each
  game's moves carry as many command ids as moves were acknowledged, each
  command's events one run of versions, the last answer's version the
  store's.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.errors import AccountNotFoundError
from domain.sharding import position_of, shard_of
from infra.shards import ShardedOpus, ShardedRecorder, ShardUnreachableError, shard_apps
from tests.apps import sharded_app
from tests.moves_http import move_request
from tests.private_servers import START_SECONDS, PostgresServer, private_postgres

pytestmark = pytest.mark.postgres
SHARDS = 3
VICTIM = 2  # not the home shard: accounts stay reachable
GAMES_PER_SHARD = 2
BEFORE_SECONDS = 2.0  # play before the kill
DOWN_SECONDS = 4.0  # play while the shard is down
RETRY_SECONDS = 60.0  # a move retried this long unanswered fails the test
BACK_TIMEOUT = 60.0  # for every game of the shard to be answered again
STOP_TIMEOUT = 60.0  # for a thread to finish its move and stop


@pytest.fixture
def servers() -> Iterator[list[PostgresServer]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(private_postgres()) for _ in range(SHARDS)]


@pytest.fixture
def service(servers: list[PostgresServer], tmp_path: Path) -> Iterator[Flask]:
    shards = ",".join(f"127.0.0.1:{server.port}/postgres" for server in servers)
    app = sharded_app(
        tmp_path,
        {
            "OPUS_SHARDS": shards,
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "",
            "OPUS_RECEIPTS": None,
        },
    )
    yield app
    app.extensions["opus"].close()


def kill_9(server: PostgresServer) -> None:
    """SIGKILL to the server's every process at once (the postmaster and its
    children: backends, checkpointer, writer), as a crash of the machine's
    PostgreSQL would; its next start recovers from its write-ahead log."""
    postmaster = server.pid
    assert postmaster is not None
    family = [postmaster, *children_of(postmaster)]
    for pid in family:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + START_SECONDS
    while any(Path(f"/proc/{pid}").exists() and alive(pid) for pid in family):
        assert time.monotonic() < deadline, "the killed server's processes did not exit"
        time.sleep(0.02)
    (server.data / "postmaster.pid").unlink(missing_ok=True)


def children_of(parent: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent:
                found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Runs (a zombie, exited and not yet reaped, does not)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Table:
    """A game one thread plays, its tokens by seat, what it was told."""

    game: str
    shard: int
    tokens: list[str]
    acknowledged: int = 0  # moves answered 2xx
    last_version: int = 0  # the version the last 2xx answer named


@dataclass
class Answer:
    shard: int
    status: int
    retry_after: str | None
    started: float
    ended: float


@dataclass
class Book:
    """Every answer, by the thread that had it, and what failed a thread."""

    answers: list[Answer] = field(default_factory=list)
    failures: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, shard: int, response: Any, started: float) -> None:
        answer = Answer(
            shard, response.status_code, response.headers.get("Retry-After"), started, time.time()
        )
        with self.lock:
            self.answers.append(answer)


def new_table(client: FlaskClient, shard: int) -> Table:
    """A started two-seat lobby game whose id places it on ``shard`` (a
    creation placed on a shard that is down is answered 503: another id)."""
    deadline = time.monotonic() + RETRY_SECONDS
    while True:
        assert time.monotonic() < deadline, f"no game could be created on shard {shard}"
        created = client.post("/games", json={})
        if created.status_code == 201 and shard_of(UUID(created.json["game_id"]), SHARDS) == shard:
            break
        assert created.status_code in (201, 503), created.json
    game, organiser = created.json["game_id"], created.json["organiser_token"]
    tokens = []
    for seat in range(2):
        joined = client.post(f"/games/{game}/players", json={"name": f"P{seat}"})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["token"])
    started = client.post(f"/games/{game}/start", headers=bearer(organiser))
    assert started.status_code == 200, started.json
    return Table(game, shard, tokens, last_version=started.json["version"])


def player(
    app: Flask, tables: list[Table], book: Book, stop: threading.Event, rng: random.Random
) -> None:
    try:
        play(app, tables, book, stop, rng)
    except BaseException as e:  # the test reads it: a thread's failure is not lost
        book.failures.append(e)
        raise


def play(
    app: Flask, tables: list[Table], book: Book, stop: threading.Event, rng: random.Random
) -> None:
    """Move at the last of ``tables`` until told to stop (a new table on
    the same shard when its game ends): ask the seats' legal moves, post one
    with a new key and retry it with that key until it is answered (never
    leaving a move unanswered when stopping)."""
    client = app.test_client()
    seat = 0
    while not stop.is_set():
        table = tables[-1]
        started = time.time()
        legal = client.get(f"/games/{table.game}/legal-moves", headers=bearer(table.tokens[seat]))
        book.note(table.shard, legal, started)
        if legal.status_code != 200:
            assert legal.status_code == 503, (legal.status_code, legal.json)
            time.sleep(0.05)
            continue
        if not legal.json["moves"]:
            if "R7.1" in (legal.json["reason"] or ""):  # over: a new game
                tables.append(new_table(client, table.shard))
            seat = 1 - seat
            continue
        kind, body = move_request(rng.choice(legal.json["moves"]))
        key = str(uuid.uuid4())
        first_try = time.monotonic()
        while True:
            # a fault found must fail the test, never keep it retrying for ever
            assert time.monotonic() - first_try < RETRY_SECONDS, f"a move unanswered: {kind}"
            started = time.time()
            moved = client.post(
                f"/games/{table.game}/{kind}",
                json=body,
                headers={**bearer(table.tokens[seat]), "Idempotency-Key": key},
            )
            book.note(table.shard, moved, started)
            if moved.status_code in (200, 201):
                table.acknowledged += 1
                table.last_version = moved.json["version"]
                break
            assert moved.status_code == 503, (moved.status_code, moved.json)
            time.sleep(0.05)


def test_a_killed_shard_answers_503_the_others_keep_answering_and_nothing_is_lost(
    service: Flask, servers: list[PostgresServer]
) -> None:
    client = service.test_client()
    opus = service.extensions["opus"].opus
    accounts = [opus.accounts.open(f"Witness {n}").account for n in range(12)]
    played = [[new_table(client, k)] for k in range(SHARDS) for _ in range(GAMES_PER_SHARD)]
    book, stop = Book(), threading.Event()
    threads = [
        threading.Thread(
            target=player, args=(service, tables, book, stop, random.Random(n)), daemon=True
        )  # daemons: a thread that never returns cannot keep pytest from exiting
        for n, tables in enumerate(played)
    ]
    for thread in threads:
        thread.start()
    try:
        time.sleep(BEFORE_SECONDS)
        kill_9(servers[VICTIM])
        killed = time.time()
        time.sleep(DOWN_SECONDS)
        # while it is down: an id the answering shards do not hold is not "not found"
        unknown = client.get(f"/games/{uuid.uuid4()}/legal-moves", headers=bearer("x" * 43))
        assert unknown.status_code == 503 and unknown.headers.get("Retry-After")
        # a process that never saw them finds accounts whose id's own shard is down
        fresh = ShardedRecorder([s.recorder for s in shard_apps(opus)], ["0", "1", "2"])
        for account in accounts:
            assert fresh.locate(account) == 0
        with pytest.raises(ShardUnreachableError, match="shard 2"):
            fresh.locate(uuid.uuid4())
        # ... and what can live on the home shard alone, or with its game, is
        # asked of that shard alone: an account, a fresh name, an admission
        newcomer = ShardedOpus(shard_apps(opus), ["0", "1", "2"])
        with pytest.raises(AccountNotFoundError):
            newcomer.accounts.view(uuid.uuid4())
        newcomer.accounts.rename(accounts[0], "A name no one has had")
        assert newcomer.accounts.view(accounts[0]).name == "A name no one has had"
        healthy = next(t for tables in played for t in tables if t.shard != VICTIM)
        assert newcomer.accounts.admission(UUID(healthy.game)) == "open"
        # ?after= is checked against its own shard's log alone: a position
        # past shard 0's log is a 404 naming it, not a 503 for shard 2
        past = position_of(0, 10**9, SHARDS)
        beyond = client.get(f"/games/{healthy.game}/scoreboard?after={past}")
        assert beyond.status_code == 404, beyond.json
        ready = client.get("/readyz").json["checks"]
        assert ready["shard:0"] == ready["shard:1"] == "ok"
        assert ready["shard:2"].startswith("unreachable") and ready["event_store"] == "ok"
        restarting = time.time()
        servers[VICTIM].start()
        back = time.time()
        victims = [tables for tables in played if tables[0].shard == VICTIM]
        before = [sum(t.acknowledged for t in tables) for tables in victims]
        deadline = time.monotonic() + BACK_TIMEOUT
        while any(
            sum(t.acknowledged for t in tables) == was
            for tables, was in zip(victims, before, strict=True)
        ):
            assert not book.failures, book.failures
            assert time.monotonic() < deadline, "the restarted shard's games were not answered"
            time.sleep(0.1)
        recovered = time.time()
        gone = client.get(f"/games/{uuid.uuid4()}/legal-moves", headers=bearer("x" * 43))
        assert gone.status_code == 404
        assert client.get("/readyz").json["checks"]["shard:2"] == "ok"
    finally:
        stop.set()
        for thread in threads:
            thread.join(STOP_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads)
    assert not book.failures, book.failures

    down = [a for a in book.answers if killed <= a.started and a.ended <= restarting]
    others = [a for a in down if a.shard != VICTIM]
    answered = sum(a.status in (200, 201) for a in others)
    share = answered / len(others)
    victim = [a for a in down if a.shard == VICTIM]
    print(
        f"\nwhile shard {VICTIM} was down ({restarting - killed:.1f} s): the other shards "
        f"answered {answered} of {len(others)} requests ({share:.2%}); shard {VICTIM} "
        f"answered {Counter(a.status for a in victim)}; its games answered again "
        f"{recovered - back:.1f} s after it was back"
    )
    assert len(others) >= 50, "too few requests to measure the share"
    assert share >= 0.99
    assert victim and all(a.status == 503 and a.retry_after for a in victim)

    for table in (table for tables in played for table in tables):
        events = list(opus.events.get(UUID(table.game)))
        commands = [getattr(event, "command", "") for event in events]
        runs = [c for n, c in enumerate(commands) if c and (n == 0 or commands[n - 1] != c)]
        started_at = next(n for n, e in enumerate(events) if type(e).__name__ == "GameStarted")
        moves = {c for c in commands[started_at + 1 :] if c}
        assert len(runs) == len(set(runs)), f"{table.game}: a command's events are doubled"
        assert len(moves) == table.acknowledged, f"{table.game}: moves lost or doubled"
        assert events[-1].originator_version == table.last_version

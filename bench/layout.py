"""The production layout on 127.0.0.1, as the benchmarks start it.

``production(sizes)`` starts, on a PostgreSQL schema and a Redis prefix of
its own (both dropped afterwards): the API under gunicorn with gthread
workers (``api.app:create_app()``, as docker-compose.yml), the stream service
under gunicorn with gevent workers (``api.stream:create_stream_app()``) and
an ``opus project`` process, waits until both services answer ``/readyz``,
and stops them all on the way out. ``sizes`` names ``api_workers``,
``api_threads``, ``stream_workers`` and ``worker_connections``
(``add_arguments`` adds them to a parser). The smaller pieces
(``api_command``, ``wait_ready``, ``stop``…) serve benchmarks that start only
part of it (bench/http_moves.py).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.redis_keys import drop_prefix  # noqa: E402
from tests.settings import connect_test_postgres, test_postgres_env  # noqa: E402

POSTGRES = test_postgres_env()
REDIS_URL = os.environ.get("OPUS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
OPUS = str(Path(sys.executable).parent / "opus")


def percentile(values: list[float], p: float) -> float:
    """The sorted values at ``floor(p · n)``, as the peer's client takes it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Layout:
    api: str  # base URL of the API
    streams: str  # base URL of the stream service
    stream_port: int
    # "api", "streams", "project": the processes started (gunicorn masters for the services)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)


def gunicorn(app: str, port: int, *worker: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        *worker,
        "-b",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
        app,
    ]


def api_command(port: int, workers: int, threads: int) -> list[str]:
    worker = ["-c", "infra/gunicorn_api.py", "-w", str(workers), "--threads", str(threads)]
    return gunicorn("api.app:create_app()", port, *worker)


def stream_command(port: int, workers: int, connections: int) -> list[str]:
    worker = ["-w", str(workers), "-k", "gevent", "--worker-connections", str(connections)]
    return gunicorn("api.stream:create_stream_app()", port, *worker)


def wait_ready(
    base: str,
    processes: list[subprocess.Popen[bytes]],
    path: str = "/readyz",
    timeout: float = 60.0,
) -> None:
    """Until ``base + path`` answers 2xx; exits if a process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            raise SystemExit("a server exited while starting")
        try:
            if requests.get(f"{base}{path}", timeout=2).ok:
                return
        except requests.RequestException:  # not listening yet
            pass
        time.sleep(0.1)
    raise SystemExit(f"{base} did not come up")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema in the test database, dropped afterwards."""
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with connect_test_postgres() as db:
        db.execute(f"CREATE SCHEMA {name}")
    try:
        yield name
    finally:
        with connect_test_postgres() as db:
            db.execute(f"DROP SCHEMA {name} CASCADE")


def add_arguments(
    parser: argparse.ArgumentParser,
    api_workers: int = os.cpu_count() or 1,
    api_threads: int = 4,
    stream_workers: int = 2,
    worker_connections: int = 2000,
) -> None:
    """The layout's sizes as options (defaults: docker-compose.yml's; the
    API's as infra/gunicorn_api.py sizes it on this host)."""
    parser.add_argument("--api-workers", type=int, default=api_workers)
    parser.add_argument("--api-threads", type=int, default=api_threads)
    parser.add_argument("--stream-workers", type=int, default=stream_workers)
    parser.add_argument("--worker-connections", type=int, default=worker_connections)


@contextmanager
def production(sizes: argparse.Namespace) -> Iterator[Layout]:
    """API, stream service and projector on a fresh schema and Redis prefix."""
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    with postgres_schema() as schema:
        env = {
            **os.environ,
            **POSTGRES,
            "POSTGRES_SCHEMA": schema,
            "REDIS_URL": REDIS_URL,
            "OPUS_REDIS_PREFIX": prefix,
            "OPUS_RUN_PROJECTIONS": "0",
        }
        api_port, stream_port = free_port(), free_port()
        processes: dict[str, subprocess.Popen[bytes]] = {}
        try:
            for name, command in (
                ("api", api_command(api_port, sizes.api_workers, sizes.api_threads)),
                (
                    "streams",
                    stream_command(stream_port, sizes.stream_workers, sizes.worker_connections),
                ),
                ("project", [OPUS, "project"]),
            ):
                processes[name] = subprocess.Popen(command, cwd=ROOT, env=env)
            layout = Layout(
                f"http://127.0.0.1:{api_port}",
                f"http://127.0.0.1:{stream_port}",
                stream_port,
                processes,
            )
            wait_ready(layout.api, list(processes.values()))
            wait_ready(layout.streams, list(processes.values()))
            yield layout
        finally:
            stop(list(processes.values()))
            drop_prefix(REDIS_URL, prefix)

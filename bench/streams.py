"""Open event streams against /healthz and moves, on the production layout.

The bench starts the production layout on 127.0.0.1 itself (bench/layout.py): the API under
gunicorn (gthread, as docker-compose.yml), the stream service under gunicorn
with gevent workers (``api.stream:create_stream_app()``) and an ``opus
project`` process, on PostgreSQL (a schema of its own) and Redis (a prefix of
its own). It measures the p50/p99 of /healthz (the API's and the stream
service's) and of move POSTs for ``--seconds`` with no stream open (the
baseline), then again with ``--streams`` server-sent-event streams open
(default 1,000, spread over ``--watched`` games that are being played, so
every move is fanned out to a hundred streams or so), at each move rate of
``--rates`` (moves a second in the watched games, paced on a schedule by
``--players`` clients; default 30 and 60), prints each and its ratio to the
baseline, and stops everything it started. Run: ``python bench/streams.py
[--streams 1000] [--seconds 20] [--rates 30,60]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import selectors
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.layout import Layout, add_arguments, production  # noqa: E402
from bench.live import cpu_by_part  # noqa: E402
from tests.moves_http import move_request  # noqa: E402

__all__ = ["HttpGame", "Layout", "Streams", "production"]

PROBE_TIMEOUT = 5.0  # a /healthz or a move slower than this counts as failed


# what else the streams' opening costs: the store's reads of the games' logs
OPENING_SHARED = {"PostgreSQL (all)": "postgres"}


# ---- streams held open on raw sockets -----------------------------------------------------


ID_LINE = b"\nid: "  # what starts an event's id line: one per event


def count_ids(tail: bytes, data: bytes) -> tuple[int, bytes]:
    """The id lines that end in ``data`` (``tail``: what the last chunk left,
    always shorter than an id line's start, so none is counted twice), and
    the tail to keep for the next chunk."""
    text = tail + data
    return text.count(ID_LINE), text[-(len(ID_LINE) - 1) :]


@dataclass
class _Stream:
    sock: socket.socket
    head: bytes = b""
    status: int | None = None
    tail: bytes = b""


@dataclass
class Streams:
    """Server-sent-event streams on non-blocking sockets, read by ``pump``:
    a thousand cost a thousand sockets, not a thousand threads."""

    host: str
    port: int
    selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    open_: dict[int, _Stream] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)  # status code -> streams
    events: int = 0  # "id:" lines received, over every stream
    closed: int = 0  # streams the server ended

    def open(self, path: str, headers: dict[str, str] | None = None) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=10)
        lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += ["Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        sock.setblocking(False)
        stream = _Stream(sock)
        self.open_[sock.fileno()] = stream
        self.selector.register(sock, selectors.EVENT_READ, stream)

    @property
    def answered(self) -> int:
        return sum(self.statuses.values())

    def pump(self, seconds: float) -> None:
        """Read what has arrived, for up to ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            for key, _ in self.selector.select(left):
                self._read(key.data)

    def wait_answered(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.answered < count and time.monotonic() < deadline:
            self.pump(0.05)
        return self.answered >= count

    def _read(self, stream: _Stream) -> None:
        try:
            data = stream.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(stream)
            self.closed += 1
            return
        if stream.status is None:
            stream.head += data
            if b"\r\n\r\n" not in stream.head:
                return
            head, _, data = stream.head.partition(b"\r\n\r\n")
            stream.status = int(head.split(b" ", 2)[1])
            self.statuses[stream.status] = self.statuses.get(stream.status, 0) + 1
            data = b"\n" + data
        counted, stream.tail = count_ids(stream.tail, data)
        self.events += counted

    def _drop(self, stream: _Stream) -> None:
        self.selector.unregister(stream.sock)
        self.open_.pop(stream.sock.fileno(), None)
        stream.sock.close()

    def close(self) -> None:
        for stream in list(self.open_.values()):
            self._drop(stream)
        self.selector.close()


def hold(host: str, port: int, paths: list[str], conn: Connection, max_seconds: float) -> None:
    """A process holding ``paths`` open until told to stop (or ``max_seconds``):
    answers "stats" with (answered, statuses, events, closed)."""
    resource.setrlimit(resource.RLIMIT_NOFILE, _nofile(len(paths) + 256))
    streams = Streams(host, port)
    deadline = time.monotonic() + max_seconds
    try:
        for path in paths:
            streams.open(path)
            streams.pump(0)
        while time.monotonic() < deadline:
            streams.pump(0.1)
            if conn.poll():
                command = conn.recv()
                conn.send(
                    (streams.answered, dict(streams.statuses), streams.events, streams.closed)
                )
                if command == "stop":
                    return
    finally:
        streams.close()


def _nofile(needed: int) -> tuple[int, int]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"the open-file limit ({hard}) is below the {needed} needed")
    return max(soft, needed), hard


# ---- the load: moves and health probes --------------------------------------------------


class HttpGame:
    """A two-player game played over HTTP, whoever's turn it is."""

    def __init__(self, http: requests.Session, base: str) -> None:
        self.http, self.base = http, base
        created = http.post(f"{base}/games", json={}, timeout=PROBE_TIMEOUT).json()
        self.id = created["game_id"]
        self.tokens = [
            http.post(
                f"{base}/games/{self.id}/players", json={"name": n}, timeout=PROBE_TIMEOUT
            ).json()["token"]
            for n in ("Ada", "Boris")
        ]
        http.post(
            f"{base}/games/{self.id}/start",
            headers={"Authorization": f"Bearer {created['organiser_token']}"},
            timeout=PROBE_TIMEOUT,
        ).raise_for_status()
        self.seat = 0
        self.over = False

    def move(self, rng: random.Random, latencies: list[float], failures: list[str]) -> None:
        """One legal move (its POST timed); ``over`` once nobody has one."""
        for seat in (self.seat, 1 - self.seat):
            auth = {"Authorization": f"Bearer {self.tokens[seat]}"}
            legal = self.http.get(
                f"{self.base}/games/{self.id}/legal-moves", headers=auth, timeout=PROBE_TIMEOUT
            ).json()["moves"]
            if legal:
                break
        else:
            self.over = True
            return
        self.seat = seat
        kind, body = move_request(rng.choice(legal))
        started = time.perf_counter()
        try:
            r = self.http.post(
                f"{self.base}/games/{self.id}/{kind}",
                json=body,
                headers=auth,
                timeout=PROBE_TIMEOUT,
            )
            latencies.append(time.perf_counter() - started)
            if not r.ok:
                failures.append(f"move {r.status_code}")
        except requests.RequestException as e:
            latencies.append(PROBE_TIMEOUT)
            failures.append(type(e).__name__)


@dataclass
class Sample:
    moves: list[float] = field(default_factory=list)
    api_health: list[float] = field(default_factory=list)
    stream_health: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def move_rate(self) -> float:
        return len(self.moves) / self.seconds if self.seconds else 0.0


def probe_health(
    url: str, until: float, pause: float, into: list[float], failures: list[str]
) -> None:
    http = requests.Session()
    while time.monotonic() < until:
        started = time.perf_counter()
        try:
            http.get(url, timeout=PROBE_TIMEOUT).raise_for_status()
            into.append(time.perf_counter() - started)
        except requests.RequestException as e:
            into.append(PROBE_TIMEOUT)
            failures.append(f"healthz {type(e).__name__}")
        time.sleep(pause)


def paced_moves(
    games: list[HttpGame], seed: int, until: float, rate: float, sample: Sample
) -> None:
    """Moves in ``games`` in turn at ``rate`` a second, on a schedule (a move
    late for its slot is made at once, never twice): each is fanned out to
    the streams of its game (an ended game is skipped: its streams have
    closed). The games are this client's alone, on a session of its own."""
    rng = random.Random(seed)
    http = requests.Session()
    for game in games:
        game.http = http
    interval = 1.0 / rate
    due = time.monotonic()
    k = 0
    while (now := time.monotonic()) < until:
        if now < due:
            time.sleep(due - now)
        due = max(due + interval, time.monotonic() - interval)
        game = games[k % len(games)]
        k += 1
        if game.over:
            continue
        game.move(rng, sample.moves, sample.failures)


def measure(
    layout: Layout, watched: list[HttpGame], rate: float, args: argparse.Namespace
) -> Sample:
    sample = Sample()
    started = time.monotonic()
    until = started + args.seconds
    players = max(1, min(args.players, len(watched)))
    threads = [
        threading.Thread(
            target=probe_health,
            args=(f"{layout.api}/healthz", until, 0.02, sample.api_health, sample.failures),
        ),
        threading.Thread(
            target=probe_health,
            args=(f"{layout.streams}/healthz", until, 0.02, sample.stream_health, sample.failures),
        ),
        *(
            threading.Thread(
                target=paced_moves,
                args=(watched[k::players], k, until, rate / players, sample),
            )
            for k in range(players)
        ),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sample.seconds = time.monotonic() - started
    return sample


def quantiles(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return (xs[0] if xs else float("nan"),) * 2
    q = statistics.quantiles(xs, n=100, method="inclusive")
    return q[49] * 1000, q[98] * 1000


def report(base: Sample, loaded: list[tuple[float, Sample]]) -> None:
    """Each row: the no-stream baseline, then each rate with the streams open
    (the rate asked and the rate made), with its p99 over the baseline's."""
    print(f"{'':24}{'no streams':>24}" + "".join(f"{f'{r:g}/s, streams':>34}" for r, _ in loaded))
    samples = [base, *(s for _, s in loaded)]
    print(
        f"{'moves/s made':24}"
        + "".join(
            f"{s.move_rate:>24.1f}" if k == 0 else f"{s.move_rate:>34.1f}"
            for k, s in enumerate(samples)
        )
    )
    for label, name in (
        ("GET /healthz (API)", "api_health"),
        ("GET /healthz (streams)", "stream_health"),
        ("POST move", "moves"),
    ):
        a50, a99 = quantiles(getattr(base, name))
        row = f"{label:24}    p50 {a50:5.1f} p99 {a99:6.1f} ms"
        for _, sample in loaded:
            b50, b99 = quantiles(getattr(sample, name))
            row += f"    p50 {b50:5.1f} p99 {b99:6.1f} ms {b99 / a99:5.2f}x"
        print(row)
    print(
        f"{'failures':24}"
        + "".join(
            f"{len(s.failures):>24}" if k == 0 else f"{len(s.failures):>34}"
            for k, s in enumerate(samples)
        )
    )
    for sample in samples:
        if sample.failures:
            print(f"failures: {dict(Counter(sample.failures))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0, help="of each measurement")
    parser.add_argument("--watched", type=int, default=20, help="games the streams watch")
    parser.add_argument(
        "--rates", default="30,60", help="moves a second in the watched games, comma-separated"
    )
    parser.add_argument("--players", type=int, default=8, help="clients making the moves")
    add_arguments(parser)
    args = parser.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    # The servers inherit the limit: each stream is a socket in the stream service.
    resource.setrlimit(resource.RLIMIT_NOFILE, _nofile(args.streams + 1024))

    with production(args) as layout:
        http = requests.Session()
        # The baseline plays games of its own: the watched games start fresh
        # when their streams open, so that none ends while measured.
        alone = [HttpGame(http, layout.api) for _ in range(args.watched)]
        baseline = measure(layout, alone, rates[0], args)
        watched = [HttpGame(http, layout.api) for _ in range(args.watched)]

        paths = [f"/games/{watched[k % len(watched)].id}/events" for k in range(args.streams)]
        ours, theirs = multiprocessing.get_context("spawn").Pipe()
        holder = multiprocessing.get_context("spawn").Process(
            target=hold,
            args=(
                "127.0.0.1",
                layout.stream_port,
                paths,
                theirs,
                args.seconds * (len(rates) + 2) + 120,
            ),
            daemon=True,
        )
        streams_root = {"streams": layout.processes["streams"].pid}
        opening_cpu = cpu_by_part(streams_root, OPENING_SHARED)
        opened = time.monotonic()
        holder.start()
        try:
            answered = 0
            while time.monotonic() - opened < 120:
                ours.send("stats")
                answered, statuses, events, closed = ours.recv()
                if answered >= args.streams:
                    break
                time.sleep(0.05)
            open_seconds = time.monotonic() - opened
            after_opening = cpu_by_part(streams_root, OPENING_SHARED)
            opening_cpu = {k: after_opening[k] - v for k, v in opening_cpu.items()}
            events_before = events
            loaded = [(rate, measure(layout, watched, rate, args)) for rate in rates]
            ours.send("stop")
            answered, statuses, events, closed = ours.recv()
        finally:
            holder.join(10)
            if holder.is_alive():
                holder.kill()

    print(
        f"production layout on 127.0.0.1: API gunicorn {args.api_workers} x gthread "
        f"{args.api_threads}; streams gunicorn {args.stream_workers} x gevent; opus project; "
        f"PostgreSQL + Redis; moves in {args.watched} watched games by {args.players} clients "
        f"at {', '.join(f'{r:g}' for r in rates)} moves/s; {args.seconds:.0f} s each"
    )
    print(
        f"streams: {args.streams} asked, answered {statuses} in {open_seconds:.1f} s; "
        f"{events - events_before} events delivered to them while measured; "
        f"{closed} closed by the server (their game ended)"
    )
    print(
        "CPU while they opened: "
        + ", ".join(f"{part} {seconds * 1000:.0f} ms" for part, seconds in opening_cpu.items())
        + f" ({opening_cpu['streams'] / args.streams * 1e6:.0f} µs of the stream service a stream)"
    )
    report(baseline, loaded)


if __name__ == "__main__":
    main()

"""Live moves, side by side with a peer: concurrent two-player games, where a
move counts once the *other* seat's event stream has delivered it.

Opus runs on the production layout (bench/layout.py: gunicorn gthread API
workers, the gevent stream service, ``opus project``, PostgreSQL with durable
commits on a schema of its own, Redis under a prefix of its own). With
``--peer`` the same run also measures boardgame.io 0.50.2 with its FlatFile
store (../shared/peers/boardgameio: copied to a temporary directory and
``npm install``-ed there, or ``--peer-dir`` for a copy already installed;
koa-compose is checked to be 4.1.0), served by its ``server.js`` and played by
its own ``client.js`` with the same number of matches and moves, and prints
both rates, both p50/p99 and the ratios Opus/peer.

The shape is the peer's (client.js), on both sides:

- ``--games`` slots play concurrently, each ``--moves`` moves in all. Each
  seat is a client of its own: its own connection and its own view. A move
  is made only once the mover's own view says it is its turn; its latency
  runs from just before the move is sent to the moment the *other* seat's
  view has it (for Opus: the other seat's event stream has delivered the
  move's last event, whose version the POST answers). The rate is the moves
  of every slot over the wall time of the whole run, setup (creating,
  joining, connecting) included, as client.js counts it. p50/p99 are taken
  as client.js takes them: the sorted latencies at ``floor(q · n)``.
- Per move, boardgame.io: the mover's client sends one socket.io ``update``
  action; the server fetches the match's state and metadata from FlatFile
  (node-persist files, no fsync), runs the move (it appends to a list),
  writes the state and the log back, and pushes each of the match's two
  clients its player view of the new state. That push is each client's whole
  knowledge of the game: it knows its moves without asking.
- Per move, Opus: each seat follows its game's stream (``GET
  /games/{id}/events``, sent with its token) on a connection of its own and
  keeps its view from it (version, ended, its turn offer). The token makes
  the stream that seat's: when its turn comes, the stream carries the
  seat's turn offer (``event: turn``: its hand and every move it may make,
  api/turn_offers.py), the counterpart of the peer's push of a player's
  view. Once its view holds an offer newer than the one it last moved on
  (and no older than its own last move), the mover picks one of the
  offer's moves at random and POSTs it (``/discard``, ``/assemble``,
  ``/place``, ``/cast`` or ``/pass``) on a keep-alive connection of its
  own; the clock starts just before the POST. The API decides and saves the
  move (durable commit), publishes its events and then the offer of the
  seat whose turn it now is through Redis; the stream service writes the
  events to both seats' streams and the offer to that seat's; ``opus
  project`` updates the views meanwhile. One request per move, as the peer.
  (Before the offers, the mover sent ``GET /games/{id}/legal-moves`` before
  each move; ``--ask`` does so again, the offer unread, to compare.)
  A game that ends before its slot's ``--moves`` are made is followed by a
  new one (create, two joins, start, two streams), as part of the run.
- Both sides warm up first (2 games of 20 moves, not counted). ``--rounds``
  repeats Opus then the peer, and prints each round and the medians. After
  each round the layout is checked: every process still up and the
  projector caught up with the log (lag 0 on /readyz), else the figures are
  void.

The client is one asyncio thread speaking HTTP/1.1 on raw sockets (one
keep-alive connection per seat for requests, one per stream), so that it
costs little CPU; the CPU it took is printed (as a share of one core), next
to what each part of the layout took per move (read from /proc; PostgreSQL
and Redis are counted whole, other users of the machine included). The
layout's rate limit on creates and joins is turned off: every client here
comes from one address. ``--profile DIR`` records the API workers, the stream
service and the projector with py-spy (``--py-spy``; collapsed stacks of
the thread holding the GIL, meant as CPU, not waits; py-spy still charges
some of psycopg's waits for the server to ``_communicate_gen``) while Opus
plays.

``--busy N`` keeps N more processes spinning on the CPU through every round,
Opus's and the peer's alike: how each degrades when a core is taken.

Run: ``python bench/live.py [--games 16] [--moves 100] [--peer] [--rounds 2]
[--busy 1] [--ask]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.layout import Layout, add_arguments, free_port, percentile, production  # noqa: E402

PEER_SOURCE = ROOT.parent / "shared" / "peers" / "boardgameio"
TIMEOUT = 30.0  # seconds: a wait longer than this fails the run
IDLE_RECONNECT = 1.0  # seconds: gunicorn closes keep-alive connections idle for 2
WARMUP_GAMES, WARMUP_MOVES = 2, 20


# ---- a small HTTP/1.1 client on asyncio streams ------------------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection, one request at a time."""

    def __init__(self, host: str, port: int, token: str = "") -> None:
        self.host, self.port, self.token = host, port, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """(status, decoded JSON body or None)."""
        if self.writer is not None and time.monotonic() - self.used > IDLE_RECONNECT:
            await self.close()
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        token = self.token if token is None else token
        if token:
            head.append(f"Authorization: Bearer {token}")
        if body is not None or method == "POST":
            head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(payload)}")
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        for attempt in (0, 1):
            reused = self.writer is not None
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(message)
                status, headers, data = await read_response(self.reader)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if reused and attempt == 0:  # the server closed it while idle: once more
                    continue
                raise
            self.used = time.monotonic()
            if headers.get("connection", "").lower() == "close":
                await self.close()
            return status, (json.loads(data) if data else None)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return int(lines[0].split(" ", 2)[1]), headers


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    status, headers = await read_head(reader)
    if "content-length" in headers:
        return status, headers, await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while (chunk := await read_chunk(reader)) is not None:
            parts.append(chunk)
        return status, headers, b"".join(parts)
    if status in (204, 304):
        return status, headers, b""
    headers["connection"] = "close"
    return status, headers, await reader.read()


async def read_chunk(reader: asyncio.StreamReader) -> bytes | None:
    """The next chunk of a chunked body; None after the last."""
    size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
    data = await reader.readexactly(size + 2)
    return data[:-2] if size else None


# ---- Opus: a seat's view from its stream --------------------------------------------------


@dataclass
class SeatView:
    """What one seat knows of its game: what its stream has delivered."""

    version: int = 0
    ended: bool = False
    offer: dict[str, Any] | None = None  # its latest turn offer (event: turn)
    arrived: dict[int, float] = field(default_factory=dict)  # version -> when delivered
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def see(self, version: int, kind: str) -> None:
        self.arrived[version] = time.perf_counter()
        self.version = version
        if kind == "GameEnded":
            self.ended = True
        self.changed.set()

    def see_offer(self, data: bytes) -> None:
        self.offer = json.loads(data)
        self.changed.set()

    async def until(self, ready: Callable[[], bool]) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not ready():
                self.changed.clear()
                await self.changed.wait()


async def follow(host: str, port: int, game_id: str, token: str, view: SeatView) -> None:
    """Read the game's event stream into ``view`` until the game ends."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            (
                f"GET /games/{game_id}/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        status, headers = await read_head(reader)
        if status != 200:
            raise RuntimeError(f"stream answered {status}")
        chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        buffer = b""
        while not view.ended:
            data = await read_chunk(reader) if chunked else await reader.read(65536)
            if not data:
                return
            buffer += data
            *messages, buffer = buffer.split(b"\n\n")
            for message in messages:
                version, kind, payload = 0, "", b""
                for line in message.split(b"\n"):
                    if line.startswith(b"id: "):
                        version = int(line[4:])
                    elif line.startswith(b"event: "):
                        kind = line[7:].decode()
                    elif line.startswith(b"data: "):
                        payload = line[6:]
                if version:
                    view.see(version, kind)
                elif kind == "turn":
                    view.see_offer(payload)
    finally:
        writer.close()
        with suppress(Exception):
            await writer.wait_closed()


# ---- Opus: the slots, the games, the seats ------------------------------------------------


@dataclass
class Slot:
    """One of the concurrent matches: ``target`` moves over as many games as it takes."""

    target: int
    done: int = 0
    moves: list[tuple[SeatView, float, int]] = field(default_factory=list)  # other's view, t0, v
    games: int = 0
    failures: list[str] = field(default_factory=list)


async def seat_plays(
    api: Connection,
    game_id: str,
    me: int,
    views: tuple[SeatView, SeatView],
    slot: Slot,
    rng: random.Random,
    ask: bool,
) -> None:
    """A seat's client: move whenever its own view (``views[me]``) holds a
    turn offer it has not moved on. The other seat's view only times the
    move (its arrival there). ``ask``: the moves are asked for (GET
    legal-moves) once the offer says it is the seat's turn, as before the
    offers."""
    view, other = views[me], views[1 - me]
    used = 0  # the version of the offer it last moved on
    seen = 0  # the version its last move made: the next offer is no older
    legal_path = f"/games/{game_id}/legal-moves"
    while True:

        def ready(used: int = used, seen: int = seen) -> bool:
            offer = view.offer
            fresh = offer is not None and offer["version"] > used and offer["version"] >= seen
            return view.ended or slot.done >= slot.target or fresh

        await view.until(ready)
        if view.ended or slot.done >= slot.target:
            return
        assert view.offer is not None
        offer = view.offer
        used = offer["version"]
        if ask:
            status, offer = await api.request("GET", legal_path)
            if status != 200:
                slot.failures.append(f"legal-moves {status} {offer}")
                return
        if not offer["moves"]:
            continue  # (an offer is made at a seat's turn: it has a move, R3.3)
        move = rng.choice(offer["moves"])
        slot.done += 1  # taken before sending: the other seat sees the count at once
        started = time.perf_counter()
        status, answer = await api.request("POST", move["path"], move["body"])
        if status not in (200, 201):
            slot.failures.append(f"move {status} {answer}")
            slot.done -= 1
            return
        seen = int(answer["version"])
        slot.moves.append((other, started, seen))
        if slot.done >= slot.target:
            other.changed.set()  # the other seat stops waiting for its turn


async def play_game(layout: Layout, slot: Slot, rng: random.Random, ask: bool) -> None:
    api_host, api_port = host_port(layout.api)
    stream_host, stream_port = host_port(layout.streams)
    organiser = Connection(api_host, api_port)
    try:
        status, created = await organiser.request("POST", "/games", {})
        if status != 201:
            raise RuntimeError(f"create {status} {created}")
        game_id = created["game_id"]
        tokens = []
        for name in ("Ada", "Boris"):
            status, joined = await organiser.request(
                "POST", f"/games/{game_id}/players", {"name": name}, token=""
            )
            if status != 201:
                raise RuntimeError(f"join {status} {joined}")
            tokens.append(joined["token"])
        status, started = await organiser.request(
            "POST", f"/games/{game_id}/start", token=created["organiser_token"]
        )
        if status not in (200, 201):
            raise RuntimeError(f"start {status} {started}")
    finally:
        await organiser.close()
    slot.games += 1
    views = (SeatView(), SeatView())
    streams = [
        asyncio.create_task(follow(stream_host, stream_port, game_id, tokens[k], views[k]))
        for k in (0, 1)
    ]
    seats = [Connection(api_host, api_port, tokens[k]) for k in (0, 1)]
    try:
        first = len(slot.moves)
        await asyncio.gather(
            *(seat_plays(seats[k], game_id, k, views, slot, rng, ask) for k in (0, 1))
        )
        # Every move counts once the other seat has it: wait for the last ones.
        for other, _, version in slot.moves[first:]:

            def arrived(o: SeatView = other, v: int = version) -> bool:
                return v in o.arrived

            await other.until(arrived)
    finally:
        for task in streams:
            task.cancel()
        for task in streams:
            with suppress(asyncio.CancelledError):
                await task
        for seat in seats:
            await seat.close()


async def play_slot(layout: Layout, slot: Slot, seed: int, ask: bool) -> None:
    rng = random.Random(seed)
    while slot.done < slot.target and not slot.failures:
        try:
            await play_game(layout, slot, rng, ask)
        except (OSError, RuntimeError, TimeoutError, asyncio.IncompleteReadError) as e:
            slot.failures.append(repr(e))


def host_port(base: str) -> tuple[str, int]:
    parts = urlsplit(base)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


@dataclass
class OpusResult:
    moves: int
    seconds: float
    latencies: list[float]  # ms
    failures: list[str] = field(default_factory=list)
    client_cpu: float = 0.0  # seconds
    games: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # part -> CPU seconds

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def quantile(self, q: float) -> float:
        """As client.js: the sorted latencies at floor(q · n)."""
        return percentile(self.latencies, q) if self.latencies else float("nan")


async def opus_run(
    layout: Layout, games: int, moves: int, seed: int, ask: bool = False
) -> OpusResult:
    slots = [Slot(moves) for _ in range(games)]
    cpu_before = os.times()
    started = time.perf_counter()
    await asyncio.gather(
        *(play_slot(layout, slot, seed * 1000 + k, ask) for k, slot in enumerate(slots))
    )
    seconds = time.perf_counter() - started
    cpu_after = os.times()
    latencies = [
        (other.arrived[version] - t0) * 1000
        for s in slots
        for other, t0, version in s.moves
        if version in other.arrived  # else the slot has a failure
    ]
    return OpusResult(
        moves=sum(s.done for s in slots),
        seconds=seconds,
        latencies=latencies,
        failures=[f for s in slots for f in s.failures],
        client_cpu=(cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system),
        games=sum(s.games for s in slots),
    )


# ---- CPU by part, from /proc -----------------------------------------------------------


TICK = os.sysconf("SC_CLK_TCK")


def process_table() -> dict[int, tuple[int, str, float]]:
    """pid -> (parent pid, command name, CPU seconds so far)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / TICK)
    return table


def descendants(table: dict[int, tuple[int, str, float]], root: int) -> list[int]:
    found, frontier = [root], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _, _) in table.items() if ppid == parent]
        found += children
        frontier += children
    return [pid for pid in found if pid in table]


def cpu_by_part(roots: dict[str, int], shared: dict[str, str]) -> dict[str, float]:
    """CPU seconds so far of each process tree in ``roots`` and of every
    process whose name starts with one in ``shared`` (part -> prefix)."""
    table = process_table()
    parts = {name: sum(table[p][2] for p in descendants(table, pid)) for name, pid in roots.items()}
    for name, prefix in shared.items():
        parts[name] = sum(cpu for _, comm, cpu in table.values() if comm.startswith(prefix))
    return parts


SHARED = {"PostgreSQL (all)": "postgres", "Redis (all)": "redis-server"}


@contextmanager
def cpu_counted(roots: dict[str, int], into: dict[str, float]) -> Iterator[None]:
    before = cpu_by_part(roots, SHARED)
    yield
    after = cpu_by_part(roots, SHARED)
    into.update({name: after[name] - before.get(name, 0.0) for name in after})


# ---- py-spy on the layout ----------------------------------------------------------------


@contextmanager
def profiled(layout: Layout, directory: Path | None, py_spy: str | None) -> Iterator[None]:
    if directory is None:
        yield
        return
    if py_spy is None:
        raise SystemExit("--profile needs py-spy (--py-spy PATH)")
    directory.mkdir(parents=True, exist_ok=True)
    recorders = [
        subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(process.pid),
                "--subprocesses",
                "--nonblocking",
                "--gil",  # the thread holding the GIL: Python on the CPU, not waits
                "--rate",
                "200",
                "--format",
                "raw",
                "--output",
                str(directory / f"{name}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, process in layout.processes.items()
    ]
    time.sleep(1.0)  # py-spy attaches
    try:
        yield
    finally:
        for recorder in recorders:
            recorder.send_signal(signal.SIGINT)
        for recorder in recorders:
            try:
                recorder.wait(30)
            except subprocess.TimeoutExpired:
                recorder.kill()


# ---- the peer: boardgame.io ------------------------------------------------------------


@contextmanager
def peer_installed(source: Path, installed: Path | None) -> Iterator[Path]:
    """The peer's directory with its node_modules: ``installed``, or a copy
    of ``source`` installed with npm into a temporary directory."""
    if installed is not None:
        check_koa_compose(installed)
        yield installed
        return
    with tempfile.TemporaryDirectory(prefix="opus-live-peer-") as tmp:
        target = Path(tmp) / "boardgameio"
        shutil.copytree(source, target)
        for path in [target, *target.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
        print(f"npm install in {target} …", flush=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund"],
            cwd=target,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        check_koa_compose(target)
        yield target


def check_koa_compose(directory: Path) -> None:
    """The peer's README: with koa-compose 4.2 the lobby routes return 404."""
    manifest = directory / "node_modules" / "koa-compose" / "package.json"
    version = json.loads(manifest.read_text())["version"]
    if version != "4.1.0":
        raise SystemExit(f"{directory}: koa-compose is {version}, the peer needs 4.1.0")


PEER_LINE = re.compile(
    r"(?P<matches>\d+) concurrent matches x (?P<moves>\d+) moves: (?P<rate>[\d.]+) moves/s, "
    r"p50 (?P<p50>[\d.]+) ms, p99 (?P<p99>[\d.]+) ms"
)


@dataclass
class PeerResult:
    moves: int
    rate: float
    p50: float
    p99: float
    line: str
    server_cpu: float
    client_cpu: float
    seconds: float


def peer_run(directory: Path, matches: int, moves: int) -> PeerResult:
    """server.js with FlatFile (a fresh ./db), then client.js: one run."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "BGIO_DB": "flat"}
    with tempfile.TemporaryDirectory(prefix="opus-live-flatfile-") as db_dir:
        server = subprocess.Popen(
            ["node", str(directory / "server.js")],
            cwd=db_dir,  # FlatFile keeps ./db
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            wait_listening(port, server)
            cpu_before = cpu_by_part({"server": server.pid}, {})["server"]
            started = time.perf_counter()
            client = subprocess.Popen(
                ["node", str(directory / "client.js"), str(matches), str(moves)],
                cwd=directory,
                env=env,
                stdout=subprocess.PIPE,
            )
            assert client.stdout is not None
            output = client.stdout.read().decode()
            _, status, usage = os.wait4(client.pid, 0)
            client.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.perf_counter() - started
            server_cpu = cpu_by_part({"server": server.pid}, {})["server"] - cpu_before
        finally:
            server.terminate()
            server.wait(10)
    found = PEER_LINE.search(output)
    if client.returncode != 0 or found is None:
        raise SystemExit(f"the peer's client failed ({client.returncode}): {output!r}")
    return PeerResult(
        moves=int(found["matches"]) * int(found["moves"]),
        rate=float(found["rate"]),
        p50=float(found["p50"]),
        p99=float(found["p99"]),
        line=output.strip(),
        server_cpu=server_cpu,
        client_cpu=usage.ru_utime + usage.ru_stime,
        seconds=seconds,
    )


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("the peer's server exited while starting")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit("the peer's server did not come up")


# ---- the report ------------------------------------------------------------------------


def report_round(k: int, opus: OpusResult, peer: PeerResult | None) -> None:
    p50, p99 = opus.quantile(0.5), opus.quantile(0.99)
    print(f"--- round {k}")
    print(
        f"opus          {opus.moves:>6} moves in {opus.games} games, {opus.seconds:6.1f} s: "
        f"{opus.rate:7.0f} moves/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms"
        + (f"  FAILURES {len(opus.failures)}: {opus.failures[:3]}" if opus.failures else "")
    )
    if peer is not None:
        print(
            f"boardgame.io  {peer.moves:>6} moves, {'':12}{peer.seconds:6.1f} s: "
            f"{peer.rate:7.0f} moves/s  p50 {peer.p50:7.2f} ms  p99 {peer.p99:7.2f} ms"
        )
        print(
            f"opus/peer     rate {opus.rate / peer.rate:5.2f}x   p50 {p50 / peer.p50:5.2f}x   "
            f"p99 {p99 / peer.p99:5.2f}x  (rate: higher is better; latency: lower)"
        )
    per_move = {name: cpu / opus.moves * 1000 for name, cpu in opus.cpu.items()}
    print(
        "opus CPU per move (ms): "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in per_move.items())
        + f", client {opus.client_cpu / opus.moves * 1000:.2f} "
        f"(client busy {opus.client_cpu / opus.seconds:.0%} of one core)"
    )
    if peer is not None:
        print(
            f"peer CPU per move (ms): server {peer.server_cpu / peer.moves * 1000:.2f}, "
            f"client {peer.client_cpu / peer.moves * 1000:.2f} "
            f"(client busy {peer.client_cpu / peer.seconds:.0%} of one core)"
        )


def report_summary(opus: list[OpusResult], peers: list[PeerResult]) -> None:
    if len(opus) < 2:
        return
    print("--- median over rounds")
    rate = statistics.median(r.rate for r in opus)
    p50 = statistics.median(r.quantile(0.5) for r in opus)
    p99 = statistics.median(r.quantile(0.99) for r in opus)
    print(f"opus          {rate:7.0f} moves/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms")
    if peers:
        prate = statistics.median(r.rate for r in peers)
        pp50 = statistics.median(r.p50 for r in peers)
        pp99 = statistics.median(r.p99 for r in peers)
        print(f"boardgame.io  {prate:7.0f} moves/s  p50 {pp50:7.2f} ms  p99 {pp99:7.2f} ms")
        ratios = [o.rate / p.rate for o, p in zip(opus, peers, strict=True)]
        print(f"opus/peer rate, each round: {', '.join(f'{x:.2f}x' for x in ratios)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="concurrent 2-player games")
    parser.add_argument("--moves", type=int, default=100, help="moves per game slot")
    parser.add_argument("--rounds", type=int, default=1, help="Opus then the peer, this often")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peer", action="store_true", help="measure boardgame.io too")
    parser.add_argument("--peer-source", type=Path, default=PEER_SOURCE)
    parser.add_argument("--peer-dir", type=Path, help="a copy of the peer already installed")
    parser.add_argument("--profile", type=Path, help="py-spy records into this directory")
    parser.add_argument("--py-spy", default=shutil.which("py-spy"))
    parser.add_argument(
        "--busy", type=int, default=0, help="processes spinning on the CPU through each round"
    )
    parser.add_argument(
        "--ask", action="store_true", help="GET the legal moves before each move (the offer unread)"
    )
    add_arguments(parser)
    args = parser.parse_args()
    os.environ["OPUS_RATE_LIMIT"] = "0"  # every client of the bench has one address

    with production(args) as layout, peer_context(args) as peer_dir:
        print(
            f"production layout on 127.0.0.1: API gunicorn {args.api_workers} x gthread "
            f"{args.api_threads}; streams gunicorn {args.stream_workers} x gevent; "
            f"opus project; PostgreSQL (synchronous_commit {synchronous_commit()}) + Redis; "
            f"{args.games} concurrent 2-player games x {args.moves} moves"
            + (f"; {args.busy} busy process(es) spinning" if args.busy else "")
            + ("; the moves asked for (GET legal-moves)" if args.ask else ""),
            flush=True,
        )
        asyncio.run(opus_run(layout, WARMUP_GAMES, WARMUP_MOVES, seed=0, ask=args.ask))
        if peer_dir is not None:
            peer_run(peer_dir, WARMUP_GAMES, WARMUP_MOVES)
        roots = {name: p.pid for name, p in layout.processes.items()}
        opus_results: list[OpusResult] = []
        peer_results: list[PeerResult] = []
        for k in range(1, args.rounds + 1):
            cpu: dict[str, float] = {}
            profile = args.profile if k == 1 else None
            with spinning(args.busy):
                with profiled(layout, profile, args.py_spy), cpu_counted(roots, cpu):
                    result = asyncio.run(
                        opus_run(layout, args.games, args.moves, args.seed + k, args.ask)
                    )
                result.cpu = cpu
                opus_results.append(result)
                peer = peer_run(peer_dir, args.games, args.moves) if peer_dir is not None else None
            if peer is not None:
                peer_results.append(peer)
            report_round(k, result, peer)
            check_layout(layout)
        report_summary(opus_results, peer_results)
        if any(r.failures for r in opus_results):
            raise SystemExit(1)


@contextmanager
def spinning(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPU meanwhile (a busy machine)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def check_layout(layout: Layout, timeout: float = 30.0) -> None:
    """Every process still up and the projector caught up with the log (its
    views' lag 0 on /readyz): else the run was not the production layout's."""
    exited = [name for name, p in layout.processes.items() if p.poll() is not None]
    if exited:
        raise SystemExit(f"{', '.join(exited)} exited during the run: figures void")
    deadline = time.monotonic() + timeout
    lag: dict[str, int] = {}
    while time.monotonic() < deadline:
        lag = requests.get(f"{layout.api}/readyz", timeout=5).json().get("lag", {})
        if not any(lag.values()):
            return
        time.sleep(0.5)
    raise SystemExit(f"the projector did not catch up ({lag}): figures void")


@contextmanager
def peer_context(args: argparse.Namespace) -> Iterator[Path | None]:
    if not args.peer:
        yield None
        return
    with peer_installed(args.peer_source, args.peer_dir) as directory:
        yield directory


def synchronous_commit() -> str:
    from tests.settings import connect_test_postgres

    with connect_test_postgres() as db:
        row = db.execute("SHOW synchronous_commit").fetchone()
    return str(row[0]) if row else "?"


if __name__ == "__main__":
    main()

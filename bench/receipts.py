"""What receipts cost, and whether a witness keeps up (issue 23).

1. Live moves, receipts off against on, in the same run: bench/live.py's
   client on the production layout (bench/layout.py: gunicorn gthread API,
   the gevent stream service, ``opus project``, PostgreSQL, Redis), once
   with ``OPUS_RECEIPTS=0`` and once with ``1``, ``--rounds`` times
   interleaved; each round's moves/s and p99 (a move counts once the other
   seat's stream has it), then the medians, the rate on/off and the p99
   on - off. With receipts on, every command's answer carries its signed
   receipt, its game's stream its checkpoint, and the API's publisher
   appends the global log and signs a checkpoint every 0.5 s.
2. The witness at 1,000 commands/s: ``opus witness`` as its own process
   (its own key and store), and the receipts' publisher on PostgreSQL in
   this process asking it to cosign, while the log grows at ``--rate``
   commands/s for ``--seconds``: recorded games' events written into the log
   a transaction every 20 ms (``--feed log``, the default: this 2-core
   machine cannot also decide 1,000 commands/s in one process), or the games
   replayed as commands through ``Opus`` with receipts by ``--threads``
   threads (``--feed commands``: as fast as they go). Every 50 ms the latest checkpoint kept is
   read: its size, and whether the witness's cosignature on it verifies.
   Printed: the commands/s reached, the checkpoints cosigned (and refused),
   and the staleness, at each sample, of the cosigned checkpoint (how long
   the oldest event it does not cover has waited): p50, p99, max.

3. The signer's guard (issue 35): commands/s in this process, recorded
   games replayed as commands one after another (bench/commands.py's
   ``replay``), on SQLite and on PostgreSQL, with receipts off, on without
   the signer's guard (its state replaced here by one that admits
   everything: what the service did before) and on with it (as shipped: a
   SQLite transaction beside the key for every checkpoint signed, WAL and
   synchronous=NORMAL) and with each of its commits fsynced (FULL),
   ``--rounds`` times interleaved, each run on a fresh store; the medians
   and the rates against off; first the guard alone: the time of one
   admission (synchronous NORMAL and FULL). And a receipt's size in bytes
   over a game.

Run: ``python bench/receipts.py [--games 16] [--moves 60] [--rounds 2]
[--rate 1000] [--seconds 10] [--threads 8] [--signer-games 30] [--skip-live]
[--skip-witness] [--skip-signer]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.commands import Script, record, replay  # noqa: E402
from bench.layout import OPUS, add_arguments, free_port, percentile, production  # noqa: E402
from bench.live import (  # noqa: E402
    WARMUP_GAMES,
    WARMUP_MOVES,
    check_layout,
    cpu_counted,
    opus_run,
)
from domain.application import Opus  # noqa: E402
from domain.simulation import NAMES  # noqa: E402
from domain.transparency.formats import Checkpoint, SignedCheckpoint  # noqa: E402
from domain.transparency.history import Signed  # noqa: E402
from domain.transparency.merkle import Frontier, leaf_hash  # noqa: E402
from domain.transparency.note import COSIGNATURE_V1, Signer, open_note  # noqa: E402
from infra.receipts.aggregates import collecting  # noqa: E402
from infra.receipts.service import Receipts, open_receipts  # noqa: E402
from infra.receipts.settings import ReceiptsSettings, Witness  # noqa: E402
from infra.receipts.signed import SignerState  # noqa: E402
from tests.settings import connect_test_postgres, test_postgres_env  # noqa: E402

TICK = 0.02  # seconds: the log fed in one transaction this often


def live(args: argparse.Namespace, key_file: Path) -> None:
    os.environ["OPUS_RATE_LIMIT"] = "0"
    os.environ["OPUS_RECEIPTS_KEY_FILE"] = str(key_file)
    results: dict[str, list[tuple[float, float, float]]] = {"off": [], "on": []}
    cpus: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    for k in range(1, args.rounds + 1):
        for mode in ("off", "on"):
            os.environ["OPUS_RECEIPTS"] = "1" if mode == "on" else "0"
            with production(args) as layout:
                asyncio.run(opus_run(layout, WARMUP_GAMES, WARMUP_MOVES, seed=0))
                roots = {name: p.pid for name, p in layout.processes.items()}
                cpu: dict[str, float] = {}
                with cpu_counted(roots, cpu):
                    run = asyncio.run(opus_run(layout, args.games, args.moves, args.seed + k))
                check_layout(layout)
            if run.failures:
                raise SystemExit(f"failures with receipts {mode}: {run.failures[:3]}")
            p50, p99 = run.quantile(0.5), run.quantile(0.99)
            results[mode].append((run.rate, p50, p99))
            per_move = {name: cpu[name] / run.moves * 1000 for name in roots}
            cpus[mode].append(per_move)
            print(
                f"round {k} receipts {mode:3}: {run.moves} moves, {run.rate:6.0f} moves/s  "
                f"p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  CPU ms/move "
                + ", ".join(f"{name} {ms:.2f}" for name, ms in per_move.items()),
                flush=True,
            )
    off = [statistics.median(x[i] for x in results["off"]) for i in range(3)]
    on = [statistics.median(x[i] for x in results["on"]) for i in range(3)]
    print(
        f"median off {off[0]:.0f} moves/s p99 {off[2]:.2f} ms; on {on[0]:.0f} moves/s "
        f"p99 {on[2]:.2f} ms; rate on/off {on[0] / off[0]:.3f} (aim >= 0.95); "
        f"p99 on - off {on[2] - off[2]:+.2f} ms (aim <= 1 ms)"
    )
    for name in cpus["off"][0]:
        off_ms = statistics.median(c[name] for c in cpus["off"])
        on_ms = statistics.median(c[name] for c in cpus["on"])
        print(
            f"  CPU per move, {name}: off {off_ms:.2f} ms, on {on_ms:.2f} ms "
            f"({on_ms - off_ms:+.2f})"
        )
    for (r_off, _, p_off), (r_on, _, p_on) in zip(results["off"], results["on"], strict=True):
        print(f"  round: rate on/off {r_on / r_off:.3f}, p99 on - off {p_on - p_off:+.2f} ms")


def witness_bench(args: argparse.Namespace, folder: Path) -> None:
    schema = f"bench_receipts_{uuid.uuid4().hex[:8]}"
    with connect_test_postgres() as db:
        db.execute(f"CREATE SCHEMA {schema}")
    service = Signer.generate("opus.bench")
    (folder / "service.key").write_text(service.to_text())
    port = free_port()
    witness = subprocess.Popen(
        [
            OPUS,
            "witness",
            "--store",
            str(folder / "witness"),
            "--key",
            str(folder / "witness.key"),
            "--name",
            "witness.bench",
            "--log",
            service.vkey(),
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert witness.stdout is not None
    line = witness.stdout.readline()  # "witness <vkey> on <url>"
    cosigner_vkey = line.split()[1]
    cosigner = Signer.from_text((folder / "witness.key").read_text()).as_type(COSIGNATURE_V1)
    assert cosigner.vkey() == cosigner_vkey
    app = Opus(env={**test_postgres_env(), "POSTGRES_SCHEMA": schema})
    settings = ReceiptsSettings(
        key_file=str(folder / "service.key"),
        witnesses=(Witness(f"http://127.0.0.1:{port}", cosigner_vkey),),
    )
    receipts = open_receipts(settings, app, run_publisher=True)
    assert receipts is not None and receipts.publisher is not None
    try:
        # the same game's secret gives the same deal: the recorded moves stay legal
        scripts = record(args.games_recorded, 2, seed=5)
        samples: list[tuple[float, int, bool]] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                note = receipts.store.checkpoint()
                if note is not None:
                    size = SignedCheckpoint.parse(note).checkpoint.size
                    try:
                        open_note(note, [cosigner.verifier])
                        cosigned = True
                    except ValueError:
                        cosigned = False
                    samples.append((time.perf_counter(), size, cosigned))
                stop.wait(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        if args.feed == "commands":
            made, seconds, progress = replay_scripts(app, scripts, args)
        else:
            made, seconds, progress = feed_log(app, scripts, args)
        time.sleep(1.5)  # the last checkpoint
        stop.set()
        sampler.join()
        stale = []
        cosigned_sizes = {size for _, size, ok in samples if ok}
        refused = {size for _, size, ok in samples if not ok}
        for at, size, ok in samples:
            if not ok or at > progress[-1][0]:
                continue
            waiting = [t for t, events in progress if events > size and t <= at]
            stale.append((at - waiting[0]) * 1000 if waiting else 0.0)
        print(
            f"witness: {made} commands in {seconds:.1f} s = {made / seconds:.0f} commands/s "
            f"(asked {args.rate:.0f}); {len(cosigned_sizes)} checkpoints cosigned, "
            f"{len(refused)} kept without the witness's cosignature; "
            f"publisher: {receipts.publisher.published} published"
        )
        if stale:
            print(
                f"staleness of the cosigned checkpoint: p50 {percentile(stale, 0.5):.0f} ms, "
                f"p99 {percentile(stale, 0.99):.0f} ms, max {max(stale):.0f} ms "
                f"(over {len(stale)} samples, every 50 ms)"
            )
    finally:
        receipts.close()
        app.close()
        witness.terminate()
        witness.wait(10)
        with connect_test_postgres() as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")


def replay_scripts(
    app: Opus, scripts: list[Script], args: argparse.Namespace
) -> tuple[int, float, list[tuple[float, int]]]:
    lock = threading.Lock()
    progress: list[tuple[float, int]] = []
    counted = [0]

    def listener(records: list[object]) -> None:
        with lock:
            counted[0] += len(records)
            progress.append((time.perf_counter(), counted[0]))

    app.listeners.append(listener)  # type: ignore[arg-type]
    made = [0]
    started = time.perf_counter()
    deadline = started + float(args.seconds)
    queue = list(scripts)

    def pace() -> bool:
        with lock:
            made[0] += 1
            due = started + made[0] / args.rate
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        return time.perf_counter() < deadline

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                script = queue.pop()
            if not pace():
                return
            game = app.create_game(secret=script.secret)
            for name in NAMES[: script.players]:
                if not pace():
                    return
                app.join(game, name)
            if not pace():
                return
            app.start(game)
            for move in script.moves:
                if not pace():
                    return
                app.play(game, move)

    pool = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return len(progress), time.perf_counter() - started, progress


def feed_log(
    app: Opus, scripts: list[Script], args: argparse.Namespace
) -> tuple[int, float, list[tuple[float, int]]]:
    """The recorded games' events written into the store's log, ``--rate``
    commands' worth a second, in a transaction every ``TICK`` s (durable
    commits here take 3 ms and more: one a command would cap the rate near
    300/s): the log grows as a service's at that rate would, without this
    process's CPU going to deciding the commands."""
    source = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    sizes: list[int] = []
    source.listeners.append(lambda records: sizes.append(len(records)))
    for script in scripts:
        game = source.create_game(secret=script.secret)
        for name in NAMES[: script.players]:
            source.join(game, name)
        source.start(game)
        for move in script.moves:
            source.play(game, move)
    notifications = list(source.recorder.select_notifications(0, 10**7))
    progress: list[tuple[float, int]] = []
    started = time.perf_counter()
    at = made = 0
    per_tick = max(1, round(args.rate * TICK))
    for first in range(0, len(sizes), per_tick):
        due = started + made / args.rate
        if due > time.perf_counter():
            time.sleep(due - time.perf_counter())
        if time.perf_counter() - started >= args.seconds:
            break
        events = sum(sizes[first : first + per_tick])
        app.recorder.insert_events(notifications[at : at + events])
        at += events
        made += len(sizes[first : first + per_tick])
        progress.append((time.perf_counter(), at))
    source.close()
    return made, time.perf_counter() - started, progress


class Unguarded(SignerState):
    """The signer's state as the service had none: every checkpoint admitted."""

    def __init__(self, state: SignerState) -> None:
        self.real = state

    def latest(self, origin: str) -> Signed | None:
        return None

    def admit(self, point: object, **_: object) -> None:
        return None

    def close(self) -> None:
        self.real.close()


class FullySynced(SignerState):
    """The signer's state with every commit fsynced (``synchronous=FULL``)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self._db.execute("PRAGMA synchronous=FULL")


def fully_synced(receipts: Receipts, path: str) -> None:
    shipped, receipts.trees.state = receipts.trees.state, FullySynced(path)
    for log in receipts.logs:
        if log.publisher is not None:
            log.publisher.state = receipts.trees.state
    shipped.close()


def guard_cost(folder: Path, admits: int = 2000) -> None:
    """The guard alone: the time of one admission (a game's next checkpoint,
    appending to the one signed before: the commands' path), NORMAL and FULL."""
    for label, make in (("NORMAL", SignerState), ("FULL", FullySynced)):
        state = make(folder / f"guard-{label}.sqlite")
        frontier = Frontier()
        times = []
        try:
            for i in range(admits):
                before = Signed(frontier.size, frontier.root())
                frontier.append(leaf_hash(i.to_bytes(8, "big")))
                point = Checkpoint("opus.bench/guard", frontier.size, frontier.root())
                started = time.perf_counter()
                state.admit(point, extends=before)
                times.append((time.perf_counter() - started) * 1e6)
        finally:
            state.close()
        print(
            f"guard, synchronous={label}: one admission p50 {percentile(times, 0.5):.0f} us, "
            f"p99 {percentile(times, 0.99):.0f} us, mean {statistics.mean(times):.0f} us "
            f"({admits} admissions)",
            flush=True,
        )


def unguard(receipts: Receipts) -> None:
    receipts.trees.state = Unguarded(receipts.trees.state)
    for log in receipts.logs:
        if log.publisher is not None:
            log.publisher.state = receipts.trees.state


def signer_bench(args: argparse.Namespace, folder: Path) -> None:
    guard_cost(folder)
    scripts = record(args.signer_games, 2, seed=7)
    modes = ("off", "unguarded", "guarded", "guarded-full")
    for kind in ("sqlite", "postgres"):
        rates: dict[str, list[float]] = {mode: [] for mode in modes}
        for k in range(1, args.rounds + 1):
            for mode in modes:
                run = f"{kind}-{k}-{mode}"
                schema = f"bench_signer_{uuid.uuid4().hex[:8]}"
                if kind == "sqlite":
                    env = {
                        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                        "SQLITE_DBNAME": str(folder / f"{run}.db"),
                    }
                else:
                    with connect_test_postgres() as db:
                        db.execute(f"CREATE SCHEMA {schema}")
                    env = {**test_postgres_env(), "POSTGRES_SCHEMA": schema}
                app = Opus(env=env)
                receipts = None
                if mode != "off":
                    settings = ReceiptsSettings(
                        key_file=str(folder / "signer.key"),
                        signer_state_file=str(folder / f"{run}.signed.sqlite"),
                    )
                    receipts = open_receipts(settings, app, run_publisher=True)
                    assert receipts is not None
                    if mode == "unguarded":
                        unguard(receipts)
                    elif mode == "guarded-full":
                        fully_synced(receipts, settings.signer_state_file)
                try:
                    commands, seconds, _ = replay(app, scripts)
                finally:
                    if receipts is not None:
                        receipts.close()
                    app.close()
                    if kind == "postgres":
                        with connect_test_postgres() as db:
                            db.execute(f"DROP SCHEMA {schema} CASCADE")
                rates[mode].append(commands / seconds)
                print(
                    f"signer {kind} round {k} {mode:9}: {commands} commands, "
                    f"{commands / seconds:6.0f} commands/s",
                    flush=True,
                )
        median = {mode: statistics.median(rates[mode]) for mode in modes}
        print(
            f"signer {kind}: median commands/s off {median['off']:.0f}, receipts on without "
            f"the guard {median['unguarded']:.0f} ({median['unguarded'] / median['off']:.3f} of "
            f"off), with the guard {median['guarded']:.0f} ({median['guarded'] / median['off']:.3f}"
            f" of off, {median['guarded'] / median['unguarded']:.3f} of unguarded); with "
            f"every guard commit fsynced {median['guarded-full']:.0f} "
            f"({median['guarded-full'] / median['off']:.3f} of off)"
        )
    receipt_sizes(folder, scripts[0])


def receipt_sizes(folder: Path, script: Script) -> None:
    """Each command's receipt's size over one recorded game."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "s.db")}
    app = Opus(env=env)
    settings = ReceiptsSettings(
        key_file=str(folder / "signer.key"), signer_state_file=str(folder / "s.signed.sqlite")
    )
    receipts = open_receipts(settings, app)
    sizes: list[int] = []
    try:
        game = app.create_game(secret=script.secret)

        def measured(command: Callable[[], object]) -> None:
            with collecting() as made:
                command()
            sizes.append(len(made[game].encode().encode()))

        for name in NAMES[: script.players]:
            measured(partial(app.join, game, name))
        measured(partial(app.start, game))
        for move in script.moves:
            measured(partial(app.play, game, move))
    finally:
        if receipts is not None:
            receipts.close()
        app.close()
    print(
        f"receipt size over a game of {len(sizes)} commands: min {min(sizes)} B, median "
        f"{statistics.median(sizes):.0f} B, max {max(sizes)} B (the last: {sizes[-1]} B)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="live: concurrent 2-player games")
    parser.add_argument("--moves", type=int, default=60, help="live: moves per game slot")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=1000.0, help="witness: commands/s asked")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--games-recorded", type=int, default=400)
    parser.add_argument(
        "--feed",
        choices=("log", "commands"),
        default="log",
        help="witness: the log written at --rate commands/s (log), or commands run "
        "through Opus in this process (commands: as fast as it goes on this machine)",
    )
    parser.add_argument("--skip-live", action="store_true")
    parser.add_argument("--skip-witness", action="store_true")
    parser.add_argument("--skip-signer", action="store_true")
    parser.add_argument("--signer-games", type=int, default=30, help="signer: games replayed")
    add_arguments(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opus-receipts-bench-") as tmp:
        folder = Path(tmp)
        if not args.skip_signer:
            signer_bench(args, folder)
        if not args.skip_witness:
            witness_bench(args, folder)
        if not args.skip_live:
            live(args, folder / "live.key")


if __name__ == "__main__":
    main()

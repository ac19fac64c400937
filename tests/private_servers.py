"""Private servers for tests that kill them: never the shared ones.

``RedisServer``: a redis-server on a free port, in memory only (no snapshot,
no append-only file), so a restart comes back empty. ``PostgresServer``: a
PostgreSQL cluster made with initdb in a temporary folder, on a free port,
run as the ``postgres`` user when the tests run as root (initdb refuses
root). Each is killed by its own process id, and its folder removed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

START_SECONDS = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = START_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port}")


class RedisServer:
    """A private redis-server: in memory (a restart brings it back empty), or
    with ``durable_in`` a folder, its append-only file fsynced on every write
    (it survives SIGKILL)."""

    def __init__(self, durable_in: Path | None = None) -> None:
        self.port = free_port()
        self.durable_in = durable_in
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.durable_in is None:
            command += ["--appendonly", "no"]
        else:
            command += ["--dir", str(self.durable_in), "--appendonly", "yes"]
            command += ["--appendfsync", "always"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        wait_for_port(self.port)
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@contextlib.contextmanager
def private_postgres() -> Iterator[PostgresServer]:
    """A ``PostgresServer`` started, removed after; the test is skipped where
    PostgreSQL's server binaries are not installed."""
    import pytest

    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        yield server.start()
    finally:
        server.remove()


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server binaries (initdb, pg_ctl), if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresServer:
    """A private PostgreSQL cluster (trust authentication, user ``postgres``,
    database ``postgres``) in a temporary folder."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="opus-pg-"))
        self.data = self.folder / "data"
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
        )

    @property
    def env(self) -> dict[str, str]:
        """eventsourcing's variables for this server."""
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": "postgres",
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "",
            # a receipts key of this server's own: the signer's record of
            # what it signed is the key's, and this store is a fresh one
            "OPUS_RECEIPTS_KEY_FILE": str(self.folder / "receipts.key"),
        }

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        subprocess.run(
            [*prefix, *command],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )

    def start(self) -> PostgresServer:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        wait_for_port(self.port)
        return self

    @property
    def pid(self) -> int | None:
        """The postmaster's process id, while it runs."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """Stop at once, as a crash does (SIGQUIT to the postmaster: every
        backend exits, every client's connection is closed), and wait."""
        pid = self.pid
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGQUIT)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.02)
        else:
            os.kill(pid, signal.SIGKILL)
        (self.data / "postmaster.pid").unlink(missing_ok=True)

    def remove(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Runs (a zombie, exited but not yet reaped by its parent, does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status

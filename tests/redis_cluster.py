"""A private Redis Cluster for tests: masters and their replicas on 127.0.0.1.

Each node is a ``redis-server --cluster-enabled yes`` in memory (no
snapshot, no append-only file) on a free port, its cluster bus on another;
``redis-cli --cluster create`` joins them, a replica for each master. A
node is killed by its own process id (``kill``), as a crash does, and the
failover waited for (``wait_for_failover``). ``stop`` kills every node and
removes the folder.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.private_servers import free_port, wait_for_port

NODE_TIMEOUT_MS = 1000  # a master unanswered this long is failed over
START_SECONDS = 30.0
FAILOVER_SECONDS = 30.0


@dataclass
class Node:
    port: int
    bus: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class RedisCluster:
    masters: int = 3
    replicas: int = 1
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="opus-rc-")))
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """``REDIS_URL`` of the cluster: every node is a place to start looking."""
        return "redis+cluster://" + ",".join(node.address for node in self.nodes)

    def start(self) -> RedisCluster:
        """Every node started and joined; on a failure, every node stopped."""
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> RedisCluster:
        used: set[int] = set()
        for _ in range(self.masters * (1 + self.replicas)):
            port, bus = _free(used), _free(used)
            node = Node(port, bus)
            folder = self.folder / str(port)
            folder.mkdir()
            command = [
                "redis-server",
                "--port",
                str(port),
                "--cluster-port",
                str(bus),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                str(folder / "nodes.conf"),
                "--cluster-node-timeout",
                str(NODE_TIMEOUT_MS),
                "--cluster-replica-validity-factor",
                "0",
                "--cluster-require-full-coverage",
                "no",
                "--cluster-allow-reads-when-down",
                "no",
                "--dir",
                str(folder),
                "--save",
                "",
                "--appendonly",
                "no",
            ]
            node.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
            self.nodes.append(node)
        for node in self.nodes:
            wait_for_port(node.port)
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(node.address for node in self.nodes),
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=START_SECONDS,
        )
        self.wait_until_ok()
        return self

    def wait_until_ok(self, timeout: float = START_SECONDS) -> None:
        """Until every living node says the cluster is ok and every slot is served."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(_state_ok(node) for node in self.nodes if node.alive()):
                return
            time.sleep(0.1)
        raise RuntimeError("the Redis Cluster did not become ok")

    def master_of(self, key: str) -> Node:
        """The node now serving ``key``'s slot as its master."""
        living = next(node for node in self.nodes if node.alive())
        with living.client() as client:
            slot = int(client.execute_command("CLUSTER KEYSLOT", key))
            for start, end, master, *_ in client.execute_command("CLUSTER SLOTS"):
                if start <= slot <= end:
                    port = int(master[1])
                    return next(node for node in self.nodes if node.port == port)
        raise RuntimeError(f"no master serves the slot of {key!r}")

    def kill(self, node: Node) -> None:
        if node.process is not None and node.process.poll() is None:
            node.process.send_signal(signal.SIGKILL)
            node.process.wait()

    def wait_for_failover(self, key: str, dead: Node, timeout: float = FAILOVER_SECONDS) -> Node:
        """Until a living node (the dead master's replica) serves ``key``'s slot."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                master = self.master_of(key)
            except (redis.RedisError, StopIteration):
                master = dead
            if master is not dead and master.alive():
                self.wait_until_ok(max(0.1, deadline - time.monotonic()))
                return master
            time.sleep(0.1)
        raise RuntimeError(f"no replica took over the slot of {key!r}")

    def wait_for_failover_of(self, dead: Node, timeout: float = FAILOVER_SECONDS) -> None:
        """Until no slot is served by ``dead`` and the cluster is ok again."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                living = next(node for node in self.nodes if node.alive())
                with living.client() as client:
                    slots = client.execute_command("CLUSTER SLOTS")
                if all(int(entry[2][1]) != dead.port for entry in slots):
                    self.wait_until_ok(max(0.1, deadline - time.monotonic()))
                    return
            except redis.RedisError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"no replica took over from {dead.address}")

    def stop(self) -> None:
        for node in self.nodes:
            self.kill(node)
        shutil.rmtree(self.folder, ignore_errors=True)


def _free(used: set[int]) -> int:
    while True:
        port = free_port()
        if port not in used:
            used.add(port)
            return port


def _state_ok(node: Node) -> bool:
    try:
        with node.client() as client:
            info = client.execute_command("CLUSTER INFO")
    except redis.RedisError:
        return False
    # redis-py parses CLUSTER INFO into a dict of its fields
    return info.get("cluster_state") == "ok" and int(info.get("cluster_slots_ok", 0)) == 16384

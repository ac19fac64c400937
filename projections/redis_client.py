"""One Redis or a Redis Cluster, chosen by the URL.

``REDIS_URL=redis://host:port/db`` is one server (the client as before);
``REDIS_URL=redis+cluster://host:port[,host:port…]`` is a Redis Cluster,
the listed nodes only where the client starts looking (it learns the rest,
and which master holds which slot, from them).

A cluster runs a transaction (WATCH, MULTI/EXEC) only on keys of one hash
slot, on the master that holds it: ``for_key`` gives that master's own
client (a standalone Redis: the client itself), and ``refresh`` makes the
cluster client learn the slots again after a failover moved them.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import unquote

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ClusterError, RedisClusterException, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CLUSTER_SCHEME = "redis+cluster"
# A cluster's master gone (its replica not yet promoted), a slot moved, a
# read-only replica answering: the view store is away for now, as a
# standalone Redis that does not answer.
CLUSTER_UNAVAILABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterError,
    RedisClusterException,
)
_MOVING = ("MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN", "READONLY")


def is_cluster(url: str) -> bool:
    return url.startswith(f"{CLUSTER_SCHEME}://")


def cluster_nodes(url: str) -> tuple[list[tuple[str, int]], str | None, str | None]:
    """The ``host:port`` pairs of a cluster URL, and its user and password."""
    rest = url.removeprefix(f"{CLUSTER_SCHEME}://").split("/", 1)[0].split("?", 1)[0]
    user: str | None = None
    password: str | None = None
    if "@" in rest:
        credentials, rest = rest.rsplit("@", 1)
        name, _, secret = credentials.partition(":")
        user, password = unquote(name) or None, unquote(secret) or None
    nodes: list[tuple[str, int]] = []
    for item in rest.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"REDIS_URL: {item!r} of {CLUSTER_SCHEME}:// is not host:port")
        nodes.append((host, int(port)))
    return nodes, user, password


def connect(url: str, **options: Any) -> Any:
    """A client of ``url``: ``redis.Redis`` for one server, ``RedisCluster``
    for a cluster URL. ``options`` are the client's (timeouts, decoding)."""
    if not is_cluster(url):
        return redis.Redis.from_url(url, **options)
    nodes, user, password = cluster_nodes(url)
    node: Any = ClusterNode  # redis-py leaves it unannotated
    return RedisCluster(
        startup_nodes=[node(host, port) for host, port in nodes],
        username=user,
        password=password,
        **options,
    )


def cluster_of(client: Any) -> Any:
    """``client`` if it is a cluster's (Any: redis-py leaves it unannotated), else None."""
    return client if isinstance(client, RedisCluster) else None


def for_key(client: Any, key: str) -> Any:
    """The client that runs a transaction on ``key``: a cluster's master of
    its slot, or the standalone client itself."""
    cluster = cluster_of(client)
    if cluster is None:
        return client
    node = cluster.get_node_from_key(key)
    if node is None or node.redis_connection is None:
        raise ClusterError(f"no master holds the slot of {key!r}")
    return node.redis_connection


def moving(error: BaseException) -> bool:
    """A reply saying the slot is elsewhere or the cluster is failing over."""
    return isinstance(error, ResponseError) and str(error).startswith(_MOVING)


def refresh(client: Any) -> None:
    """Learn the cluster's slots again (a standalone client: nothing)."""
    cluster = cluster_of(client)
    if cluster is None:
        return
    with contextlib.suppress(Exception):  # every node away: the next attempt tries again
        cluster.nodes_manager.initialize()


def hash_tag(text: str) -> str:
    """``text`` as a hash tag: keys holding it map to one slot."""
    if "{" in text or "}" in text:
        raise ValueError(f"{text!r}: a Redis Cluster key part cannot hold braces")
    return "{" + text + "}"

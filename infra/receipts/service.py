"""The receipts' parts for one process: opened from the settings, closed
with the service.

With the event store split over shards (infra/shards.py) the games' and
tournaments' trees go through the router like every command; the global
log is one per shard (``GlobalLog``), over that shard's own notification
log (``shard_apps``), stored in its database, published by a thread of its
own under the shard's origin."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from uuid import UUID

from domain.application import Opus
from domain.transparency.history import admit
from domain.transparency.logs import aggregate_origin, global_signer
from domain.transparency.merkle import from_nodes, inclusion_path, nodes_needed
from domain.transparency.note import Signer
from infra.receipts.aggregates import AggregateTrees
from infra.receipts.globallog import GlobalStore, Sequencer, open_global_store
from infra.receipts.keys import (
    RetiredKey,
    check_keys,
    load_retired,
    load_signer,
    load_transitions,
    transition_retirements,
)
from infra.receipts.publisher import Publisher, stored_consistency, stored_root
from infra.receipts.settings import ReceiptsSettings
from infra.receipts.signed import SignerState
from infra.shards import home_shard, shard_apps

WELL_KNOWN = "/.well-known/opus-receipts"


@dataclass
class GlobalLog:
    """One shard's global log (the one store's: shard 0): its tree in that
    shard's own database, appended from that shard's notification log, signed
    under the shard's origin (domain/transparency/logs.py), published by a
    publisher of its own (a shard down stops its publisher alone)."""

    shard: int
    signer: Signer
    store: GlobalStore
    sequencer: Sequencer
    publisher: Publisher | None = None

    @property
    def origin(self) -> str:
        return str(self.signer.name)


@dataclass
class Receipts:
    settings: ReceiptsSettings
    trees: AggregateTrees
    logs: list[GlobalLog]  # one per shard, shard 0 first
    retired: list[RetiredKey] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)  # key transitions, oldest first

    @property
    def signer(self) -> Any:
        return self.trees.signer

    @property
    def name(self) -> str:
        return str(self.trees.signer.name)

    # the one store's global log is shard 0's
    @property
    def store(self) -> GlobalStore:
        return self.logs[0].store

    @property
    def sequencer(self) -> Sequencer:
        return self.logs[0].sequencer

    @property
    def publisher(self) -> Publisher | None:
        return self.logs[0].publisher

    def log(self, shard: int) -> GlobalLog:
        """Shard ``shard``'s global log; LookupError naming a shard that does
        not exist."""
        if not 0 <= shard < len(self.logs):
            count = len(self.logs)
            raise LookupError(
                f"no shard {shard}: the event store has {count} shard{'s' if count > 1 else ''}"
                f" (0 to {count - 1})"
            )
        return self.logs[shard]

    def shard_of(self, aggregate_id: UUID) -> int | None:
        """The shard whose global log holds the aggregate's heads (0 with one
        store); None if no shard holds it; ``ShardUnreachableError`` while a
        shard that might is down."""
        return home_shard(self.trees.app, aggregate_id)

    def wake(self, aggregate_id: UUID) -> None:
        """A command saved ``aggregate_id`` (and what it saved with it, on
        its shard): that shard's publisher appends without waiting. Where it
        lives is known (this process saved it), so no store is asked."""
        log = self.log(self.shard_of(aggregate_id) or 0)
        if log.publisher is not None:
            log.publisher.wake()

    def keys(self) -> dict[str, Any]:
        """What ``WELL_KNOWN`` serves: the key checkpoints are signed with,
        the keys retired, the key transitions (oldest first: a client follows
        them from the key it pinned), the logs' origins (each shard's global
        log with its key's vkey) and the witnesses."""
        signer = self.trees.signer
        return {
            "name": signer.name,
            "vkey": signer.vkey(),
            "key_id": signer.key_id.hex(),
            "signature_type": "ed25519 (0x01), C2SP signed-note",
            "global_origin": signer.name,
            "global_origins": [
                {"shard": log.shard, "origin": log.origin, "vkey": log.signer.vkey()}
                for log in self.logs
            ],
            "aggregate_origin": aggregate_origin(signer.name, "<game or tournament id>"),
            "retired": [
                {
                    "vkey": key.verifier.vkey(),
                    "key_id": key.verifier.key_id.hex(),
                    "retired_at": key.retired_at,
                }
                for key in self.retired
            ],
            "key_transitions": list(self.transitions),
            "witnesses": [{"url": w.url, "vkey": w.vkey} for w in self.settings.witnesses],
        }

    def check_signable(self, log: GlobalLog) -> None:
        """That the signer would sign the global log's tree as its store holds
        it now (nothing recorded, nothing signed); ``TwoHistories`` if not."""
        signed = self.trees.state.latest(log.origin)
        if signed is None:
            return
        size, _ = log.store.state()
        root = stored_root(log.store, size)
        admit(log.origin, signed, size, root, proof=partial(stored_consistency, log.store))

    def global_consistency(self, old: int, size: int, shard: int = 0) -> list[bytes]:
        return stored_consistency(self.log(shard).store, old, size)

    def global_inclusion(
        self, aggregate_id: UUID, version: int, size: int, shard: int = 0
    ) -> tuple[int, list[bytes]]:
        """The index of the aggregate's head at ``version`` in shard
        ``shard``'s global log, and its inclusion proof in the tree of
        ``size``; LookupError if that tree does not hold it."""
        store = self.log(shard).store
        index = store.index_of(aggregate_id, version)
        if index is None or index >= size:
            raise LookupError(f"{aggregate_id} at version {version} is not in the first {size}")
        wanted = nodes_needed(lambda read: inclusion_path(index, size, read))
        return index, inclusion_path(index, size, from_nodes(store.nodes(wanted)))

    def close(self) -> None:
        for log in self.logs:
            if log.publisher is not None:
                log.publisher.stop()
        self.trees.state.close()


def retired_keys(listed: list[RetiredKey], transitions: list[str]) -> list[RetiredKey]:
    """The keys retired: those the retired keys' file lists (with its time),
    then every other transition's old key (retired at the transition's time)."""
    known = {key.verifier for key in listed}
    return [*listed, *(k for k in transition_retirements(transitions) if k.verifier not in known)]


def open_global_logs(app: Opus, signer: Signer) -> list[GlobalLog]:
    """Each shard's global log, shard 0 first (one with one store), each in
    its shard's database, signed under its origin."""
    logs = []
    for shard, shard_app in enumerate(shard_apps(app)):
        store = open_global_store(shard_app)
        logs.append(
            GlobalLog(shard, global_signer(signer, shard), store, Sequencer(shard_app, store))
        )
    return logs


def open_receipts(
    settings: ReceiptsSettings,
    app: Opus,
    *,
    publish: Callable[[str, str], None] | None = None,
    run_publisher: bool = False,
    on_published: Callable[[str], None] | None = None,
    listen: bool = True,
) -> Receipts | None:
    """The receipts of ``app``'s commands (None when ``OPUS_RECEIPTS=0``):
    with ``listen``, its listener registered (else the caller makes them,
    ``trees.receipts``), and with ``run_publisher`` (and
    ``OPUS_RECEIPTS_PUBLISH``) each shard's global log's publisher started."""
    if not settings.enabled:
        return None
    signer = load_signer(settings.key_file, settings.name)
    transitions = load_transitions(settings.transitions_path)
    retired = load_retired(settings.retired_keys_file)
    check_keys(signer, transitions, retired)
    state = SignerState(settings.signer_state_path)
    try:
        state.check_key(signer.verifier, transitions)
    except ValueError:
        state.close()
        raise
    trees = AggregateTrees(app, signer, state, publish)
    logs = open_global_logs(app, signer)
    retired = retired_keys(retired, transitions)
    receipts = Receipts(settings, trees, logs, retired, transitions)
    if listen:
        app.listeners.append(trees.saved)
    if run_publisher and settings.publish:
        for log in logs:
            publisher = Publisher(
                log.sequencer,
                log.signer,
                trees.state,
                settings.witnesses,
                settings.interval,
                on_published,
            )
            log.publisher = publisher.start()
    return receipts

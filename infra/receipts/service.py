"""The receipts' parts for one process: opened from the settings, closed
with the service."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.application import Opus
from domain.transparency.logs import aggregate_origin
from domain.transparency.merkle import from_nodes, inclusion_path, nodes_needed
from infra.receipts.aggregates import AggregateTrees
from infra.receipts.globallog import GlobalStore, Sequencer, open_global_store
from infra.receipts.keys import RetiredKey, load_retired, load_signer
from infra.receipts.publisher import Publisher, stored_consistency
from infra.receipts.settings import ReceiptsSettings

WELL_KNOWN = "/.well-known/opus-receipts"


@dataclass
class Receipts:
    settings: ReceiptsSettings
    trees: AggregateTrees
    store: GlobalStore
    sequencer: Sequencer
    retired: list[RetiredKey] = field(default_factory=list)
    publisher: Publisher | None = None

    @property
    def signer(self) -> Any:
        return self.trees.signer

    @property
    def name(self) -> str:
        return str(self.trees.signer.name)

    def keys(self) -> dict[str, Any]:
        """What ``WELL_KNOWN`` serves: the key checkpoints are signed with,
        the keys retired, the logs' origins and the witnesses."""
        signer = self.trees.signer
        return {
            "name": signer.name,
            "vkey": signer.vkey(),
            "key_id": signer.key_id.hex(),
            "signature_type": "ed25519 (0x01), C2SP signed-note",
            "global_origin": signer.name,
            "aggregate_origin": aggregate_origin(signer.name, "<game or tournament id>"),
            "retired": [
                {
                    "vkey": key.verifier.vkey(),
                    "key_id": key.verifier.key_id.hex(),
                    "retired_at": key.retired_at,
                }
                for key in self.retired
            ],
            "witnesses": [{"url": w.url, "vkey": w.vkey} for w in self.settings.witnesses],
        }

    def global_checkpoint(self) -> str | None:
        return self.store.checkpoint()

    def global_consistency(self, old: int, size: int) -> list[bytes]:
        return stored_consistency(self.store, old, size)

    def global_inclusion(
        self, aggregate_id: UUID, version: int, size: int
    ) -> tuple[int, list[bytes]]:
        """The index of the aggregate's head at ``version`` in the global log,
        and its inclusion proof in the tree of ``size``; LookupError if that
        tree does not hold it."""
        index = self.store.index_of(aggregate_id, version)
        if index is None or index >= size:
            raise LookupError(f"{aggregate_id} at version {version} is not in the first {size}")
        wanted = nodes_needed(lambda read: inclusion_path(index, size, read))
        return index, inclusion_path(index, size, from_nodes(self.store.nodes(wanted)))

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()


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
    ``OPUS_RECEIPTS_PUBLISH``) the global log's publisher started."""
    if not settings.enabled:
        return None
    signer = load_signer(settings.key_file, settings.name)
    trees = AggregateTrees(app, signer, publish)
    store = open_global_store(app)
    sequencer = Sequencer(app, store)
    receipts = Receipts(settings, trees, store, sequencer, load_retired(settings.retired_keys_file))
    if listen:
        app.listeners.append(trees.saved)
    if run_publisher and settings.publish:
        publisher = Publisher(
            sequencer, signer, settings.witnesses, settings.interval, on_published
        )
        receipts.publisher = publisher.start()
    return receipts

"""Each game's and tournament's log as a Merkle tree, and the receipt of
what a command appended to it.

A command's receipt is made after its save, by the application's listener
(``AggregateTrees.saved``), from the records the save wrote: the tree's
frontier before the command (kept per aggregate in this process, read from
the log when it is not kept or another process has appended since), the
command's events appended to it, the checkpoint of the tree they make
signed, and the inclusion proof of the command's last event in it. A
checkpoint is signed only once the signer's state beside the key admits it
(infra/receipts/signed.py): the tree it extends is the one signed last, or
a consistency proof from the log proves it; else no receipt is made. It is
told to the request that ran the command (``collecting``) and to the live
stream of the game (``publish``). It never fails a command: the command is
saved before, and the listener's failure is logged, the answer given
without a receipt.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any
from uuid import UUID

import orjson

from domain.application import Opus
from domain.audit import Record
from domain.transparency.formats import Checkpoint, SignedCheckpoint, TlogProof
from domain.transparency.history import ProofSource, Signed
from domain.transparency.logs import aggregate_origin, aggregate_signer, chain_leaf
from domain.transparency.merkle import Frontier, Tree, leaf_hash
from domain.transparency.note import Signer
from infra.eventlog import game_records
from infra.receipts.signed import SignerState

CAPACITY = 10_000  # frontiers kept: a few hundred bytes each

_collected: ContextVar[dict[UUID, TlogProof] | None] = ContextVar("receipts", default=None)


@contextlib.contextmanager
def collecting() -> Iterator[dict[UUID, TlogProof]]:
    """The receipts of the commands run within, by aggregate (its last one)."""
    box: dict[UUID, TlogProof] = {}
    token = _collected.set(box)
    try:
        yield box
    finally:
        _collected.reset(token)


def start_collecting() -> object:
    """``collecting`` for a request whose start and end are two hooks: the
    token to give ``stop_collecting``."""
    return _collected.set({})


def stop_collecting(token: object) -> None:
    _collected.reset(token)  # type: ignore[arg-type]


def collected(aggregate_id: UUID) -> TlogProof | None:
    box = _collected.get()
    return None if box is None else box.get(aggregate_id)


def checkpoint_message(receipt: TlogProof) -> str:
    """A receipt's checkpoint as its game's live stream carries it."""
    point = receipt.checkpoint.checkpoint
    return orjson.dumps(
        {
            "checkpoint": receipt.checkpoint.encode(),
            "aggregate_id": point.origin.rpartition("/")[2],
            "version": point.size,
        }
    ).decode()


class ChainTree(Tree):
    """An aggregate's tree with its chain values (each leaf's data)."""

    def __init__(self, chains: list[bytes]) -> None:
        super().__init__(leaf_hash(chain) for chain in chains)
        self.chains = chains


class AggregateTrees:
    def __init__(
        self,
        app: Opus,
        signer: Signer,
        state: SignerState,
        publish: Callable[[str, str], None] | None = None,
        capacity: int = CAPACITY,
    ) -> None:
        self.app = app
        self.signer = signer
        self.state = state
        self.publish = publish  # (aggregate id, message): the live streams
        self.capacity = capacity
        self._frontiers: OrderedDict[UUID, Frontier] = OrderedDict()
        self._lock = threading.Lock()

    def origin(self, aggregate_id: UUID) -> str:
        return aggregate_origin(self.signer.name, aggregate_id)

    def sign(
        self, checkpoint: Checkpoint, *, extends: Signed | None = None, proof: ProofSource
    ) -> SignedCheckpoint:
        """``checkpoint`` signed by the key under its log's origin, once the
        signer's state admits it: the tree is the one signed before with
        leaves appended (``extends``) or ``proof`` proves it consistent with
        it; else ``TwoHistories``, and nothing is signed."""
        self.state.admit(checkpoint, extends=extends, proof=proof)
        signer = aggregate_signer(self.signer, checkpoint.origin)
        return SignedCheckpoint(checkpoint, signer.sign_note(checkpoint.text()))

    def sign_tree(
        self, aggregate_id: UUID, tree: Tree, size: int | None = None
    ) -> SignedCheckpoint:
        """The checkpoint of ``tree`` (the aggregate's, as read from its log)
        at ``size`` (its whole size by default), signed."""
        size = tree.size if size is None else size
        point = Checkpoint(self.origin(aggregate_id), size, tree.root(size))
        stored = self.stored_proof(aggregate_id)

        def proof(old: int, new: int) -> list[bytes]:
            # a tree read before another request's larger checkpoint was
            # signed cannot reach it: the store's tree as it is now proves it
            return list(tree.consistency(old, new) if new <= tree.size else stored(old, new))

        return self.sign(point, proof=proof)

    def stored_proof(self, aggregate_id: UUID) -> ProofSource:
        """The consistency proofs of the aggregate's tree as its log holds it
        now (read when first asked)."""

        def proof(old: int, new: int) -> list[bytes]:
            tree = self.tree(aggregate_id)
            if tree is None:
                raise LookupError(f"no game or tournament {aggregate_id} in the log")
            return tree.consistency(old, new)

        return proof

    # ---- the listener ------------------------------------------------------------------

    def saved(self, records: list[Record]) -> None:
        """A command's saved records (the application's listener): each
        aggregate's receipt for its last event, its checkpoint to ``publish``."""
        for aggregate_id, receipt in self.receipts(records).items():
            if self.publish is not None:
                self.publish(str(aggregate_id), checkpoint_message(receipt))

    def receipts(self, records: list[Record]) -> dict[UUID, TlogProof]:
        """Each aggregate's receipt for its last event of ``records``, told to
        the request collecting them."""
        by_aggregate: dict[str, list[Record]] = {}
        for record in records:
            by_aggregate.setdefault(record.aggregate_id, []).append(record)
        box = _collected.get()
        made = {}
        for key, saved in by_aggregate.items():
            aggregate_id = UUID(key)
            made[aggregate_id] = receipt = self._append(aggregate_id, saved)
            if box is not None:
                box[aggregate_id] = receipt
        return made

    def _append(self, aggregate_id: UUID, saved: list[Record]) -> TlogProof:
        first = saved[0].version
        with self._lock:
            frontier = self._frontiers.pop(aggregate_id, None)
        if frontier is None or frontier.size != first - 1:
            frontier = self.frontier_at(aggregate_id, first - 1, frontier)
        before = Signed(frontier.size, frontier.root())
        for record in saved[:-1]:
            frontier.append(chain_leaf(record.chain))
        last = saved[-1]
        path = frontier.next_path()
        frontier.append(chain_leaf(last.chain))
        with self._lock:
            self._frontiers[aggregate_id] = frontier
            while len(self._frontiers) > self.capacity:
                self._frontiers.popitem(last=False)
        point = Checkpoint(self.origin(aggregate_id), frontier.size, frontier.root())
        signed = self.sign(point, extends=before, proof=self.stored_proof(aggregate_id))
        return TlogProof(last.version - 1, tuple(path), signed, bytes.fromhex(last.chain))

    def frontier_at(self, aggregate_id: UUID, size: int, known: Frontier | None = None) -> Frontier:
        """The frontier of the aggregate's first ``size`` events: ``known``
        (a frontier kept here, behind: another process appended since)
        brought up with the events it lacks, read from the log; else all of
        them."""
        frontier = known if known is not None and known.size <= size else Frontier()
        if frontier.size < size:
            stored = self.app.recorder.select_events(aggregate_id, gt=frontier.size, lte=size)
            for event in stored:
                frontier.append(chain_leaf(self._chain(event)))
        if frontier.size != size:
            raise LookupError(f"{aggregate_id} has {frontier.size} events, not {size}")
        return frontier

    def _chain(self, stored: Any) -> str:
        """A stored event's chain value: read from its JSON when the store
        writes it plain, else through the application's mapper."""
        mapper = self.app.mapper
        if mapper.cipher is None and mapper.compressor is None:
            return str(orjson.loads(stored.state)["chain"])
        return str(mapper.to_domain_event(stored).chain)  # type: ignore[attr-defined]

    # ---- reads -----------------------------------------------------------------------------

    def tree(self, aggregate_id: UUID) -> ChainTree | None:
        """The aggregate's whole tree as the log holds it now (None: no such
        game or tournament; an account's id reads as none)."""
        records = game_records(self.app, aggregate_id)
        if not records:
            return None
        return ChainTree([bytes.fromhex(r.chain) for r in records])

"""The global log's publisher: a thread of the HTTP service.

Every ``interval`` (0.5 s; woken sooner by a command saved here) it appends
the log's new events to the global tree (``Sequencer``) and, when the tree
has grown since the last checkpoint, signs a checkpoint of it, asks each
witness to cosign it (C2SP tlog-witness add-checkpoint, with the
consistency proof from the size the witness last cosigned) and keeps it
with the cosignatures it got. So a checkpoint is published at least every
second while moves are made. A witness that cannot be reached or refuses
is logged (throttled) and asked again at the next checkpoint; the
checkpoint is kept with the cosignatures it has.

Only one process publishes a size: the store's lock (PostgreSQL: an
advisory lock; SQLite: a lock file) is held from reading the last
checkpoint to keeping the new one. And a checkpoint is signed only once
the signer's state beside the key admits it (infra/receipts/signed.py):
consistent, by the stored tree's consistency proof, with the largest one
signed before; a tree rebuilt from an edited store is refused, logged, and
nothing is published.

A witness's answer is taken as signed-note takes a note: if any line of
its key fails, none of its cosignatures is kept.

With shards each shard's global log has a publisher of its own (its
sequencer reads that shard's log, its signer signs under that shard's
origin): a shard that cannot be reached fails its own rounds, logged under
its origin and tried again, while the others' go on.
"""

from __future__ import annotations

import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial

from domain.transparency.formats import Checkpoint, SignedCheckpoint
from domain.transparency.merkle import (
    consistency_path,
    from_nodes,
    nodes_needed,
    subtree_hash,
)
from domain.transparency.note import (
    Note,
    NoteError,
    Signature,
    Signer,
    Verifier,
    b64,
    open_note,
    parse_note,
)
from infra.logthrottle import LogThrottle
from infra.receipts.globallog import GlobalStore, Sequencer
from infra.receipts.settings import Witness
from infra.receipts.signed import SignerState

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
WITNESS_TIMEOUT = 2.0  # seconds a witness may take to cosign


def stored_root(store: GlobalStore, size: int) -> bytes:
    wanted = nodes_needed(lambda read: subtree_hash(0, size, read))
    return subtree_hash(0, size, from_nodes(store.nodes(wanted)))


def stored_consistency(store: GlobalStore, old: int, size: int) -> list[bytes]:
    wanted = nodes_needed(lambda read: consistency_path(old, size, read))
    return consistency_path(old, size, from_nodes(store.nodes(wanted)))


class WitnessRefused(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"{status}: {body.strip()[:200]}")
        self.status = status
        self.body = body


def add_checkpoint(url: str, old: int, proof: list[bytes], checkpoint: str) -> str:
    """POST <url>/add-checkpoint; the signature lines of a 200, else WitnessRefused."""
    body = f"old {old}\n" + "".join(b64(h) + "\n" for h in proof) + "\n" + checkpoint
    request = urllib.request.Request(f"{url}/add-checkpoint", data=body.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=WITNESS_TIMEOUT) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as e:
        raise WitnessRefused(e.code, e.read().decode(errors="replace")) from None


class Publisher:
    def __init__(
        self,
        sequencer: Sequencer,
        signer: Signer,
        state: SignerState,
        witnesses: tuple[Witness, ...] = (),
        interval: float = 0.5,
        on_published: Callable[[str], None] | None = None,
    ) -> None:
        self.sequencer = sequencer
        self.store = sequencer.store
        self.signer = signer
        self.state = state
        self.witnesses = [(w.url, Verifier.from_vkey(w.vkey)) for w in witnesses]
        self.interval = interval
        self.on_published = on_published
        self.witness_sizes: dict[str, int] = {}  # the size each witness last cosigned
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.published = 0  # checkpoints published by this process

    def start(self) -> Publisher:
        name = f"opus-receipts {self.signer.name}"  # the log's origin
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step()
            except Exception as e:  # the store away: the next round tries again
                _failures.failed(
                    f"receipts: appending or publishing the global log {self.signer.name} failed",
                    e,
                )
            self._wake.wait(max(0.0, self.interval - (time.monotonic() - started)))
            self._wake.clear()
            if not self._stop.is_set():
                self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))

    def step(self) -> str | None:
        """Append, then publish if the tree grew: the checkpoint published, if any."""
        self.sequencer.catch_up()
        return self.publish()

    def publish(self) -> str | None:
        with self.store.publishing() as held:
            if not held:
                return None
            size, _ = self.store.state()
            latest = self.store.checkpoint()
            if latest is not None and SignedCheckpoint.parse(latest).checkpoint.size >= size:
                return None
            signed = self.state.latest(self.signer.name)
            if signed is not None and size < signed.size:
                return None  # behind what was signed (being rebuilt): never a smaller latest
            point = Checkpoint(self.signer.name, size, stored_root(self.store, size))
            self.state.admit(point, proof=partial(stored_consistency, self.store))
            note = self.signer.sign_note(point.text())
            note = note.with_signatures(self._cosign(note))
            text = note.encode()
            self.store.keep_checkpoint(size, text)
        self.published += 1
        if self.on_published is not None:
            self.on_published(text)
        return text

    def _cosign(self, note: Note) -> list[Signature]:
        size = SignedCheckpoint(Checkpoint.parse(note.text), note).checkpoint.size
        cosignatures: list[Signature] = []
        for url, verifier in self.witnesses:
            try:
                cosignatures.extend(self._ask(url, verifier, note, size))
            except (OSError, WitnessRefused, NoteError) as e:
                _failures.failed(f"receipts: witness {url} did not cosign size {size}", e)
        return cosignatures

    def _ask(self, url: str, verifier: Verifier, note: Note, size: int) -> list[Signature]:
        old = self.witness_sizes.get(url, 0)
        for _ in range(2):
            old = min(old, size)
            proof = stored_consistency(self.store, old, size)
            try:
                lines = add_checkpoint(url, old, proof, note.encode())
            except WitnessRefused as e:
                if e.status == 409 and e.body.strip().isdigit():
                    old = int(e.body.strip())  # its latest: prove from there
                    continue
                raise
            given = note.text + "\n" + lines
            try:
                open_note(given, [verifier])  # one of its lines failing rejects them all
            except NoteError as e:
                raise NoteError(f"witness {url} answered no valid cosignature: {e}") from None
            good = [s for s in parse_note(given).signatures if verifier.matches(s)]
            self.witness_sizes[url] = size
            return list(good)
        raise WitnessRefused(409, f"its size kept changing (last {old})")

"""The signer's memory of what it signed, kept beside its key and outside
the event store, consulted before every checkpoint is signed (the rule:
domain/transparency/history.py; the signers: infra/receipts/aggregates.py
for games and tournaments, infra/receipts/publisher.py for the global log).

A small SQLite file (``OPUS_RECEIPTS_SIGNER_STATE``; by default
``receipts-signed.sqlite`` beside the key file) holds, per log, the size
and root of the largest checkpoint signed. Every process signing with the
key opens the same file (WAL: readers never wait; ``BEGIN IMMEDIATE``: one
writer at a time), so a checkpoint is checked and remembered in one
transaction, committed before the signature exists. ``synchronous=NORMAL``
(WAL): a commit survives the process killed at any point; a power cut may
lose the last commits' records, never the events they follow (the event
store's commits are durable), so what is signed after still has to be
consistent with the history the store holds. FULL (a second fsync for every
command) costs a third of the commands/s on a disk whose fsync takes
milliseconds (bench/receipts.py, README). Editing the event store, then
rebuilding a tree from it, cannot make the signer sign a second root for a
size it signed: it refuses (``TwoHistories``), and the refusal is logged.
The file also remembers the key that signs: another key in the key file is
taken only when the key transitions lead to it from that one
(``check_key``), so no key changes in silence either.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from domain.transparency.formats import Checkpoint
from domain.transparency.history import ProofSource, Signed, TwoHistories, admit
from domain.transparency.note import NoteError, Verifier
from domain.transparency.transitions import follow_transitions
from infra.logthrottle import LogThrottle

log = logging.getLogger(__name__)
_refusals = LogThrottle(log)
BUSY_TIMEOUT = 10.0  # seconds a process waits for another's transaction


class SignerState:
    """The largest checkpoint signed of each log, in the file at ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS signed (origin TEXT PRIMARY KEY, "
                "size INTEGER NOT NULL, root BLOB NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS signing_key (id INTEGER PRIMARY KEY CHECK (id = 1), "
                "vkey TEXT NOT NULL)"
            )
        except (OSError, sqlite3.Error) as e:
            raise ValueError(
                f"the signer's record of what it signed ({self.path}, OPUS_RECEIPTS_SIGNER_STATE) "
                f"cannot be opened: {e}. Nothing is signed without it; restore it from a backup "
                "(starting afresh forgets what was signed)"
            ) from None

    def check_key(self, key: Verifier, transitions: list[str]) -> None:
        """That ``key`` is the key that signed before, or one the key
        transitions lead to from it (then remembered as the key that signs);
        ValueError, saying what to do, for a key changed in silence."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT vkey FROM signing_key WHERE id = 1").fetchone()
                before = None if row is None else Verifier.from_vkey(str(row[0]))
                if before is not None and before != key:
                    try:
                        reached = follow_transitions(before, transitions)
                    except NoteError as e:
                        raise ValueError(f"the key transitions: {e}") from None
                    if reached[-1] != key:
                        raise ValueError(
                            f"the key file's key {key.vkey()} is not the key that signed before "
                            f"({before.vkey()}) and no key transition leads from that one to it: "
                            "a key changed in silence. Sign the transition with both keys "
                            "(opus receipts rotate --old OLD.key --new NEW.key)"
                        )
                if before != key:
                    self._db.execute(
                        "INSERT INTO signing_key (id, vkey) VALUES (1, ?) ON CONFLICT (id) "
                        "DO UPDATE SET vkey = excluded.vkey",
                        (key.vkey(),),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def latest(self, origin: str) -> Signed | None:
        """The largest checkpoint of ``origin`` signed, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT size, root FROM signed WHERE origin = ?", (origin,)
            ).fetchone()
        return None if row is None else Signed(int(row[0]), bytes(row[1]))

    def admit(
        self,
        point: Checkpoint,
        *,
        extends: Signed | None = None,
        proof: ProofSource | None = None,
    ) -> None:
        """That ``point`` may be signed (remembered when it is the largest);
        TwoHistories, logged, when it contradicts what was signed."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT size, root FROM signed WHERE origin = ?", (point.origin,)
                ).fetchone()
                signed = None if row is None else Signed(int(row[0]), bytes(row[1]))
                grows = admit(
                    point.origin, signed, point.size, point.root, extends=extends, proof=proof
                )
                if grows:
                    self._db.execute(
                        "INSERT INTO signed (origin, size, root) VALUES (?, ?, ?) ON CONFLICT "
                        "(origin) DO UPDATE SET size = excluded.size, root = excluded.root",
                        (point.origin, point.size, point.root),
                    )
                self._db.execute("COMMIT")
            except BaseException as e:
                self._db.execute("ROLLBACK")
                if isinstance(e, TwoHistories):
                    _refusals.failed(
                        f"receipts: the signer refused {point.origin}", e, logging.ERROR
                    )
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

"""A client's store of receipts: ``opus receipts keep|check``.

The store is a folder: ``server.json`` (the server's URL and the keys it
was first seen with: the current vkey and those retired), ``logs/`` (per
log, the latest checkpoint the client checked, ``<sha256(origin)>.checkpoint``)
and ``receipts/`` (the receipts kept, ``<sha256(origin)>-<index>.tlog-proof``),
``evidence/`` (what proved misbehaviour). Every file is written whole or not
at all (a temporary file, fsynced, renamed over the old one), so a crash
never leaves a half-written checkpoint that would look like a lie.

A checkpoint is taken only signed by the server's current key (one signed
by a retired key is refused). A new one is checked against the one kept:
the same size must have the same root; a larger one must come with a
consistency proof from the kept one (asked of the server). A kept file that
cannot be read, or whose signature does not verify under the server's keys,
is the store's corruption, never the server's lie: it is moved aside
(``.corrupt``) and said so, with its own exit status.

A server whose event store is split over shards has a global log per shard
(its well-known document lists them): shard k's checkpoints are signed by
the server's key under that log's origin (domain/transparency/logs.py), so
the keys kept are the same and each shard's log is kept as a log of its own.
"""

from __future__ import annotations

import hashlib
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.logs import global_shard, log_verifiers
from domain.transparency.merkle import ProofError, leaf_hash, verify_consistency
from domain.transparency.note import NoteError, Verifier, b64decode, open_note
from infra.receipts.witness import write_atomically

TIMEOUT = 10.0


class Misbehaviour(Exception):
    """Two signed statements of the server that cannot both be true."""

    def __init__(self, message: str, statements: list[str]) -> None:
        super().__init__(message)
        self.message = message
        self.statements = statements

    def report(self) -> str:
        lines = [f"MISBEHAVIOUR: {self.message}"]
        for number, statement in enumerate(self.statements, start=1):
            lines.append(f"--- signed statement {number}:")
            lines.append(statement.rstrip("\n"))
        return "\n".join(lines)


class Refused(Exception):
    """A checkpoint not taken: not signed by the server's current key."""


class Corrupted(Exception):
    """The client's own store cannot be read: no statement of the server."""


def get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return bytes(response.read())
    except urllib.error.HTTPError as e:
        raise OSError(f"{url}: {e.code} {e.read().decode(errors='replace')[:200]}") from None


@dataclass
class Keys:
    current: list[Verifier]
    retired: dict[str, str]  # vkey -> retired at
    shards: int = 1  # the server's global logs, one per shard

    def every(self) -> list[Verifier]:
        return self.current + [Verifier.from_vkey(v) for v in self.retired]

    def shard_of(self, origin: str) -> int | None:
        """The shard whose global log ``origin`` is; None for a game's or
        a tournament's."""
        for key in self.every():
            shard = global_shard(key.name, origin)
            if shard is not None:
                return shard
        return None


class Keeper:
    def __init__(self, directory: str | Path, server: str) -> None:
        self.directory = Path(directory)
        self.server = server.rstrip("/")
        for sub in ("logs", "receipts", "evidence"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)

    # ---- the server's keys ------------------------------------------------------------

    def keys(self, pinned_vkey: str | None = None) -> Keys:
        """The keys pinned in ``server.json`` (first use: the well-known
        document, or ``pinned_vkey``); the server's retired list is read
        again each time (a rotation retires a key for new checkpoints)."""
        path = self.directory / "server.json"
        document = json.loads(get(f"{self.server}/.well-known/opus-receipts"))
        retired = {k["vkey"]: k["retired_at"] for k in document.get("retired", [])}
        if path.exists():
            try:
                pinned = json.loads(path.read_text())
                current = [Verifier.from_vkey(v) for v in pinned["vkeys"]]
            except (ValueError, KeyError, NoteError) as e:
                raise Corrupted(f"{path} cannot be read ({e})") from None
        else:
            first = pinned_vkey or document["vkey"]
            current = [Verifier.from_vkey(first)]
        # a key the server now serves as current joins (a rotation); a retired one leaves
        served = document["vkey"]
        if served not in retired and all(k.vkey() != served for k in current):
            current.append(Verifier.from_vkey(served))
        current = [k for k in current if k.vkey() not in retired]
        record = {"server": self.server, "vkeys": [k.vkey() for k in current], "retired": retired}
        write_atomically(path, json.dumps(record, indent=1))
        return Keys(current, retired, max(1, len(document.get("global_origins", []))))

    # ---- kept checkpoints --------------------------------------------------------------

    def path_of(self, origin: str) -> Path:
        return self.directory / "logs" / f"{hashlib.sha256(origin.encode()).hexdigest()}.checkpoint"

    def kept(self, origin: str, keys: Keys) -> SignedCheckpoint | None:
        path = self.path_of(origin)
        if not path.exists():
            return None
        try:
            text = path.read_text(encoding="utf-8")
            open_note(text, log_verifiers(keys.every(), origin))
            signed = SignedCheckpoint.parse(text)
            if signed.checkpoint.origin != origin:
                raise NoteError("it is another log's checkpoint")
        except (OSError, UnicodeDecodeError, NoteError) as e:
            raise _set_aside(path, str(e)) from None
        return signed

    def take(self, text: str, keys: Keys) -> SignedCheckpoint:
        """A checkpoint signed by the server's current key (under its log's
        origin, for a shard's global log), or Refused."""
        try:
            origin = SignedCheckpoint.parse(text).checkpoint.origin
        except NoteError:
            origin = ""  # refused below: no key signs what is not a checkpoint
        try:
            open_note(text, log_verifiers(keys.current, origin))
        except NoteError as e:
            for vkey, retired_at in keys.retired.items():
                try:
                    open_note(text, log_verifiers([Verifier.from_vkey(vkey)], origin))
                except NoteError:
                    continue
                raise Refused(
                    f"signed with a key the server retired at {retired_at} ({vkey})"
                ) from None
            raise Refused(f"not signed by the server's key: {e}") from None
        return SignedCheckpoint.parse(text)

    def check(self, new: SignedCheckpoint, keys: Keys) -> SignedCheckpoint | None:
        """``new`` against the kept one of its log: the one to keep now;
        Misbehaviour if they contradict."""
        origin = new.checkpoint.origin
        kept = self.kept(origin, keys)
        if kept is None:
            return new
        old, cur = kept.checkpoint, new.checkpoint
        if cur.size == old.size:
            if cur.root != old.root:
                raise self._evidence(f"{origin}: two roots signed for size {cur.size}", [kept, new])
            return None
        small, large = (kept, new) if old.size < cur.size else (new, kept)
        proof, answered = self._consistency(
            origin, small.checkpoint.size, large.checkpoint.size, keys
        )
        if answered is not None and answered.checkpoint.root != large.checkpoint.root:
            raise self._evidence(
                f"{origin}: two roots signed for size {large.checkpoint.size}", [large, answered]
            )
        try:
            verify_consistency(
                small.checkpoint.size,
                large.checkpoint.size,
                small.checkpoint.root,
                large.checkpoint.root,
                proof,
            )
        except ProofError as e:
            raise self._evidence(
                f"{origin}: no consistency from size {small.checkpoint.size} to "
                f"{large.checkpoint.size} ({e}): the log was rewritten or forked",
                [small, large],
            ) from None
        return new if cur.size > old.size else None

    def _consistency(
        self, origin: str, old: int, size: int, keys: Keys
    ) -> tuple[list[bytes], SignedCheckpoint | None]:
        aggregate = _aggregate(origin)
        base = f"{self.server}/receipts" + (f"/logs/{aggregate}" if aggregate else "")
        shard = None if aggregate else keys.shard_of(origin)
        which = f"&shard={shard}" if shard else ""
        answer = json.loads(get(f"{base}/consistency?old={old}&size={size}{which}"))
        proof = [b64decode(h) for h in answer["proof"]]
        return proof, SignedCheckpoint.parse(answer["checkpoint"])

    def _evidence(self, message: str, statements: list[SignedCheckpoint]) -> Misbehaviour:
        texts = [s.encode() for s in statements]
        report = Misbehaviour(message, texts)
        write_atomically(self.directory / "evidence" / f"{time.time_ns()}.txt", report.report())
        return report

    def keep(self, signed: SignedCheckpoint, receipt: TlogProof | None = None) -> None:
        write_atomically(self.path_of(signed.checkpoint.origin), signed.encode())
        if receipt is not None:
            name = self.path_of(signed.checkpoint.origin).stem + f"-{receipt.index}.tlog-proof"
            write_atomically(self.directory / "receipts" / name, receipt.encode())

    def origins(self) -> list[str]:
        found = []
        for path in sorted((self.directory / "logs").glob("*.checkpoint")):
            try:
                found.append(SignedCheckpoint.parse(path.read_text()).checkpoint.origin)
            except (OSError, UnicodeDecodeError, NoteError):
                found.append(f"?{path.stem}")  # checked (and set aside) by ``kept``
        return found

    # ---- the two commands --------------------------------------------------------------

    def keep_latest(
        self, log: str, keys: Keys, receipt_text: str | None = None, shard: int = 0
    ) -> str:
        """``opus receipts keep``: the log's checkpoint now (or a receipt's),
        checked against the kept one, kept; ``global``: shard ``shard``'s
        global log."""
        receipt = None
        if receipt_text is not None:
            receipt = TlogProof.parse(receipt_text)
            if receipt.extra is not None:
                receipt.verify_leaf(leaf_hash(receipt.extra))
            text = receipt.checkpoint.encode()
        else:
            text = get(self._checkpoint_url(log, shard)).decode()
        new = self.take(text, keys)
        taken = self.check(new, keys)
        if taken is not None or receipt is not None:
            self.keep(taken or self.kept(new.checkpoint.origin, keys) or new, receipt)
        point = new.checkpoint
        return f"ok   {point.origin} size {point.size}: consistent with what was kept"

    def check_all(self, keys: Keys) -> list[str]:
        """``opus receipts check``: every kept log against its checkpoint now."""
        lines = []
        for origin in self.origins():
            if origin.startswith("?"):
                path = self.directory / "logs" / f"{origin[1:]}.checkpoint"
                raise _set_aside(path, "it is not a checkpoint")
            kept = self.kept(origin, keys)
            assert kept is not None
            url = self._checkpoint_url(_aggregate(origin) or "global", keys.shard_of(origin) or 0)
            new = self.take(get(url).decode(), keys)
            taken = self.check(new, keys)
            if taken is not None:
                self.keep(taken)
            sizes = f"size {new.checkpoint.size} (kept {kept.checkpoint.size})"
            lines.append(f"ok   {origin} {sizes}: consistent")
        return lines

    def _checkpoint_url(self, log: str, shard: int = 0) -> str:
        if log == "global":
            return f"{self.server}/receipts/checkpoint" + (f"?shard={shard}" if shard else "")
        return f"{self.server}/receipts/logs/{UUID(log)}/checkpoint"


def _set_aside(path: Path, reason: str) -> Corrupted:
    aside = path.with_suffix(".corrupt")
    path.replace(aside)
    return Corrupted(
        f"the kept checkpoint {path} cannot be read or does not verify ({reason}); it is "
        f"moved to {aside.name}: this store's corruption, no statement of the server"
    )


def _aggregate(origin: str) -> str | None:
    _, _, tail = origin.rpartition("/")
    try:
        return str(UUID(tail))
    except ValueError:
        return None

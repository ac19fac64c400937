"""A client's store of receipts: ``opus receipts keep|check``.

The store is a folder:

- ``trust.json``: what the client trusts (domain/transparency/trust.py): the
  log's key, the keys it replaced with their transition statements, the
  witnesses, the quorum, the freshness bound; pinned at first use (from the
  server's well-known document, or the flags) and shown to the person;
- ``logs/``: per log, the latest checkpoint checked (``log-<id>.checkpoint``
  for a game's or a tournament's, ``global-<shard>.checkpoint`` for a global
  log's, with the witnesses' cosignatures);
- ``receipts/``: receipts kept (``*.tlog-proof``): a command's, and for each
  game head checked, its inclusion in a witnessed global checkpoint; and
  the event lines a player kept of their own moves (``*.event.json``);
- ``evidence/``: every detection, the signed statements that prove it and
  the server's answers beside them, one file each (named by its content,
  so a detection seen again is the same file).

Every file is written whole or not at all (a temporary file, fsynced,
renamed over the old one), so a crash never leaves a half-written
checkpoint that would look like a lie; a kept file that cannot be read is
the store's own corruption, never the server's lie (set aside, exit 4).

What is accepted (``Keeper.keep_log``, ``keep_receipt``, ``keep_global``):
a game's checkpoint signed by the pinned key, consistent with the one kept
(the same size the same root; larger, proven by a consistency proof;
smaller, from the server now, is a rollback), whose head (the game's last
event's chain value, proven in the game's tree) is included in a global
checkpoint cosigned by a quorum of the trusted witnesses no longer ago than
the freshness bound. The client gets those cosignatures by gossip: it hands
each witness the global checkpoint the server showed (and first the one it
kept, if the witness is behind it: a witness whose state was deleted is
anchored again), with the proof from the witness's size; it checks the
witness's own checkpoint and the ones it refused against its own. A new
server key is taken only through transition statements from the pinned
one. Everything else is ``Misbehaviour`` (two signed statements that cannot
both be true, or a signed statement and what the server now says), kept in
``evidence/``; or ``NotProven`` (what the client demands is missing).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.transparency.formats import PROOF_HEADER, SignedCheckpoint, TlogProof
from domain.transparency.logs import aggregate_of, global_shard, head_data, log_verifiers
from domain.transparency.merkle import ProofError, leaf_hash, verify_consistency, verify_inclusion
from domain.transparency.note import (
    Note,
    NoteError,
    Signature,
    Verifier,
    b64decode,
    open_note,
    parse_note,
)
from domain.transparency.transitions import follow_transitions
from domain.transparency.trust import (
    DEFAULT_MAX_AGE,
    NotWitnessed,
    Trust,
    TrustedWitness,
    TrustError,
    witnessed,
)
from infra.receipts.files import write_atomically
from infra.receipts.gossip import Answer, ask, submit, witness_latest, witness_refused

WELL_KNOWN_KEPT = "well-known.json"  # a key change's evidence: what the server served
INCLUDED_WAIT = 10.0  # seconds a game's last event may take to reach a witnessed checkpoint
ROUNDS = 3  # times a witness's size is asked again while the server publishes


class Misbehaviour(Exception):
    """What the server signed contradicts what it signed or says elsewhere."""

    def __init__(
        self, kind: str, message: str, statements: Sequence[str], answers: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.statements = list(statements)
        self.answers = list(answers)  # what the server (or a witness) answered, unsigned
        self.kept: Path | None = None

    def report(self) -> str:
        lines = [f"MISBEHAVIOUR ({self.kind}): {self.message}"]
        for number, statement in enumerate(self.statements, start=1):
            lines.append(f"--- signed statement {number}:")
            lines.append(statement.rstrip("\n"))
        for answer in self.answers:
            lines.append("--- answered (not signed):")
            lines.append(answer.rstrip("\n"))
        if self.kept is not None:
            lines.append(f"--- evidence kept in {self.kept}")
        return "\n".join(lines)


class NotProven(Exception):
    """What the client demands is missing (a witness quorum, a fresh
    cosignature, the game's head in a witnessed checkpoint, an answer)."""


class Refused(Exception):
    """A checkpoint not signed by the log's pinned key."""


class Corrupted(Exception):
    """The client's own store cannot be read: no statement of the server."""


@dataclass(frozen=True)
class Given:
    """What the person said on the command line about trust."""

    key: str | None = None
    witnesses: tuple[str, ...] = ()
    quorum: int | None = None
    max_age: int | None = None


@dataclass
class Keys:
    """The keys checkpoints are checked with, from the trust file."""

    trust: Trust
    shards: int = 1  # the server's global logs, one per shard
    said: list[str] = field(default_factory=list)  # what to tell the person

    @property
    def current(self) -> Verifier:
        return self.trust.verifier

    def every(self) -> list[Verifier]:
        return self.trust.log_keys()


@dataclass(frozen=True)
class LogId:
    """Which log a checkpoint is of, whatever the key's name: a game's or a
    tournament's (``aggregate``), or shard ``shard``'s global log."""

    aggregate: UUID | None = None
    shard: int = 0

    @property
    def stem(self) -> str:
        return f"log-{self.aggregate}" if self.aggregate else f"global-{self.shard}"

    def what(self) -> str:
        if self.aggregate:
            return f"the log of game (or tournament) {self.aggregate}"
        return f"shard {self.shard}'s global log" if self.shard else "the global log"


class Keeper:
    def __init__(
        self,
        directory: str | Path,
        server: str,
        clock: Callable[[], float] = time.time,
        included_wait: float = INCLUDED_WAIT,
    ) -> None:
        self.directory = Path(directory)
        self.server = server.rstrip("/")
        self.clock = clock
        self.included_wait = included_wait
        self._witnessed: dict[int, SignedCheckpoint] = {}  # by shard, in this run
        for sub in ("logs", "receipts", "evidence"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)

    # ---- the server's answers ---------------------------------------------------------

    def _get(self, path: str) -> Answer:
        return ask(f"{self.server}{path}")

    def _json(self, answer: Answer, what: str) -> dict[str, Any]:
        try:
            value = json.loads(answer.text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise NotProven(f"the server's {what} is not what it should be: {answer.said()}")
        return value

    def document(self) -> dict[str, Any]:
        answer = self._get("/.well-known/opus-receipts")
        if not answer.ok:
            raise NotProven(f"the server's receipts document could not be read: {answer.said()}")
        return self._json(answer, "receipts document")

    # ---- trust ------------------------------------------------------------------------

    @property
    def trust_path(self) -> Path:
        return self.directory / "trust.json"

    def keys(self, given: Given = Given()) -> Keys:
        """The trust pinned in ``trust.json`` (first use: the well-known
        document and the flags, shown to the person), the flags given now
        applied, and the server's key now followed from the pinned one."""
        document = self.document()
        said: list[str] = []
        if self.trust_path.exists():
            trust = self._read_trust()
            trust, changed = _apply(trust, given)
            if changed:
                said.append("the trust file now reads (as you said):")
                said += trust.describe()
        else:
            trust = _first_trust(self.server, document, given, self.clock())
            said.append(
                f"trust pinned at first use in {self.trust_path}: compare it with what the "
                "service's operator publishes"
            )
            said += trust.describe()
        trust = self._follow_key(trust, document, said)
        write_atomically(self.trust_path, trust.to_json())
        if trust.quorum == 0:
            said.append(
                "WARNING: quorum 0: no witness stands behind what is kept; a fork shown to "
                "you and to another player would not be seen"
            )
        shards = max(1, len(document.get("global_origins") or []))
        return Keys(trust, shards, said)

    def _read_trust(self) -> Trust:
        try:
            return Trust.from_json(self.trust_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, TrustError) as e:
            aside = self.trust_path.with_suffix(".corrupt")
            self.trust_path.replace(aside)
            raise Corrupted(
                f"the trust file {self.trust_path} cannot be read ({e}); it is moved to "
                f"{aside.name}: pin the log's key and the witnesses again with --key and "
                "--witness, as the operator published them"
            ) from None

    def _follow_key(self, trust: Trust, document: dict[str, Any], said: list[str]) -> Trust:
        """``trust`` with the server's key now, if the key pinned hands over
        to it by transition statements; Misbehaviour otherwise, kept with the
        trust pinned, the document served and a checkpoint the new key signed."""
        served = str(document.get("vkey", ""))
        if served == trust.log:
            return trust
        notes = [str(n) for n in document.get("key_transitions") or []]
        problem = None
        if served in {old.vkey for old in trust.previous}:
            problem = (
                f"the server signs again with {served}, a key it handed over before: the "
                "handed-over key's holder may be anyone now"
            )
        else:
            try:
                keys = follow_transitions(trust.verifier, notes)
            except NoteError as e:
                problem = (
                    f"the server changed its key from {trust.log} to {served}, and the "
                    f"statements that should hand it over do not hold: {e}"
                )
            else:
                if keys[-1].vkey() != served:
                    problem = (
                        f"the server now signs with {served}, but no statement signed by the key "
                        f"you pinned ({trust.log}) hands over to it: its key changed in silence, "
                        "so what it signs now may be another history"
                    )
        if problem is not None:
            signed = self._get("/receipts/checkpoint")
            statements = [signed.text] if signed.ok else []
            found = Misbehaviour("key-change", problem, statements, [trust.to_json()])
            raise self._evidence(found, document)
        used = notes[len(notes) - (len(keys) - 1) :]
        said.append(
            f"the log's key changed from {trust.log} to {served}, handed over by "
            f"{len(used)} statement(s) signed by the old key and the new (kept in the trust file)"
        )
        return trust.handed_over(keys, used)

    # ---- checkpoints: signed by the pinned key --------------------------------------------

    def log_of(self, origin: str, keys: Keys) -> LogId:
        for key in keys.every():
            aggregate = aggregate_of(key.name, origin)
            if aggregate is not None:
                return LogId(aggregate=aggregate)
            shard = global_shard(key.name, origin)
            if shard is not None:
                return LogId(shard=shard)
        raise Refused(f"{origin!r} is no log of the key you pinned ({keys.current.vkey()})")

    def take(self, text: str, keys: Keys) -> SignedCheckpoint:
        """A checkpoint signed by the log's key now; Refused if not, or
        Misbehaviour when a key never pinned signs under the log's name."""
        try:
            signed = SignedCheckpoint.parse(text)
        except NoteError as e:
            raise Refused(f"the server's answer is not a signed checkpoint: {e}") from None
        origin = signed.checkpoint.origin
        try:
            open_note(text, log_verifiers([keys.current], origin))
            return signed
        except NoteError as e:
            reason = str(e)
        for old in keys.trust.previous:
            try:
                open_note(text, log_verifiers([Verifier.from_vkey(old.vkey)], origin))
            except NoteError:
                continue
            raise Refused(f"signed with a key the server handed over before ({old.vkey})")
        names = {key.name for key in log_verifiers(keys.every(), origin)}
        if any(s.name in names for s in signed.note.signatures):
            raise self._evidence(
                Misbehaviour(
                    "key-change",
                    f"a checkpoint of {origin} is signed under the log's name by a key you "
                    f"never pinned and no transition statement names ({reason}): a new key "
                    "in silence",
                    [text],
                )
            )
        raise Refused(f"not signed by the log's key: {reason}")

    # ---- kept checkpoints ------------------------------------------------------------

    def path_of(self, log: LogId) -> Path:
        return self.directory / "logs" / f"{log.stem}.checkpoint"

    def kept(self, log: LogId, keys: Keys) -> SignedCheckpoint | None:
        path = self.path_of(log)
        if not path.exists():
            return None
        try:
            text = path.read_text(encoding="utf-8")
            signed = SignedCheckpoint.parse(text)
            open_note(text, log_verifiers(keys.every(), signed.checkpoint.origin))
            if self.log_of(signed.checkpoint.origin, keys) != log:
                raise NoteError("it is another log's checkpoint")
        except (OSError, UnicodeDecodeError, NoteError, Refused) as e:
            raise _set_aside(path, str(e)) from None
        return signed

    def kept_logs(self) -> list[Path]:
        return sorted((self.directory / "logs").glob("*.checkpoint"))

    def _keep(self, log: LogId, signed: SignedCheckpoint) -> None:
        write_atomically(self.path_of(log), signed.encode())

    def _evidence(
        self, found: Misbehaviour, document: dict[str, Any] | None = None
    ) -> Misbehaviour:
        """``found`` kept in ``evidence/`` (once: named by its content): the
        report, and beside it in a folder of its own each signed statement
        as a file ``opus verify --receipts`` reads (and the server's
        well-known document, for a key change)."""
        body = found.report()
        stem = f"{found.kind}-{hashlib.sha256(body.encode()).hexdigest()[:20]}"
        path = self.directory / "evidence" / f"{stem}.txt"
        if not path.exists():
            folder = self.directory / "evidence" / stem
            folder.mkdir(exist_ok=True)
            for number, statement in enumerate(found.statements, start=1):
                suffix = ".tlog-proof" if statement.startswith(PROOF_HEADER) else ".checkpoint"
                write_atomically(folder / f"statement-{number}{suffix}", statement)
            if document is not None:
                write_atomically(folder / WELL_KNOWN_KEPT, json.dumps(document, indent=1))
            stamp = datetime.fromtimestamp(self.clock(), UTC).isoformat(timespec="seconds")
            write_atomically(path, f"# seen {stamp} asking {self.server}\n{body}\n")
        found.kept = path
        return found

    # ---- consistency ---------------------------------------------------------------------

    def _consistency_path(self, log: LogId, old: int, size: int) -> str:
        if log.aggregate:
            return f"/receipts/logs/{log.aggregate}/consistency?old={old}&size={size}"
        shard = f"&shard={log.shard}" if log.shard else ""
        return f"/receipts/consistency?old={old}&size={size}{shard}"

    def extends(
        self, log: LogId, small: SignedCheckpoint, large: SignedCheckpoint, keys: Keys
    ) -> list[bytes]:
        """The proof that ``large`` extends ``small`` (both signed by the
        log's keys), asked of the server; Misbehaviour when it cannot be."""
        a, b = small.checkpoint, large.checkpoint
        both = [small.encode(), large.encode()]
        if a.size == b.size:
            if a.root != b.root:
                raise self._evidence(
                    Misbehaviour(
                        "fork",
                        f"{log.what()}: two different histories of the same {a.size} entries, "
                        "both signed with the server's key: someone was shown the other one",
                        both,
                    )
                )
            return []
        answer = self._get(self._consistency_path(log, a.size, b.size))
        if answer.status == 404:
            raise self._evidence(
                Misbehaviour(
                    "truncated" if log.aggregate else "rewritten",
                    f"{log.what()}: the server signed {b.size} entries and cannot now prove "
                    f"they extend the {a.size} it signed before: it no longer holds that "
                    "history (cut or rolled back)",
                    both,
                    [answer.said()],
                )
            )
        if not answer.ok:
            raise NotProven(f"the server could not be asked for a proof: {answer.said()}")
        body = self._json(answer, "consistency proof")
        try:
            proof = [b64decode(h) for h in body["proof"]]
            answered = SignedCheckpoint.parse(str(body["checkpoint"]))
        except (KeyError, TypeError, NoteError) as e:
            raise NotProven(f"the server's consistency proof is not one: {e}") from None
        if answered.checkpoint.root != b.root and self._signed(answered, keys):
            raise self._evidence(
                Misbehaviour(
                    "fork",
                    f"{log.what()}: two different histories of the same {b.size} entries, "
                    "both signed with the server's key",
                    [large.encode(), answered.encode()],
                )
            )
        try:
            verify_consistency(a.size, b.size, a.root, b.root, proof)
        except ProofError as e:
            raise self._evidence(
                Misbehaviour(
                    "rewritten",
                    f"{log.what()}: the history the server signed at {b.size} entries does "
                    f"not continue the {a.size} it signed before ({e}): it was rewritten, "
                    "or another server with its key shows another history to someone else",
                    both,
                )
            ) from None
        return proof

    def _signed(self, signed: SignedCheckpoint, keys: Keys) -> bool:
        try:
            open_note(signed.encode(), log_verifiers(keys.every(), signed.checkpoint.origin))
        except NoteError:
            return False
        return True

    def check(self, log: LogId, new: SignedCheckpoint, keys: Keys, now: bool) -> SignedCheckpoint:
        """``new`` against the kept checkpoint of its log: the one to keep
        (the larger). ``now``: ``new`` is the server's latest, so a smaller
        one than kept is a rollback (a receipt's may be older)."""
        kept = self.kept(log, keys)
        if kept is None:
            return new
        if new.checkpoint.size < kept.checkpoint.size:
            if now:
                raise self._evidence(
                    Misbehaviour(
                        "rollback",
                        f"{log.what()}: the server now shows {new.checkpoint.size} entries; "
                        f"it signed {kept.checkpoint.size} before: it hides the later ones, "
                        "or shows you an old state",
                        [kept.encode(), new.encode()],
                    )
                )
            self.extends(log, new, kept, keys)
            return kept
        self.extends(log, kept, new, keys)
        return new

    # ---- the witnesses ---------------------------------------------------------------

    def global_checkpoint(self, shard: int, keys: Keys) -> SignedCheckpoint:
        log = LogId(shard=shard)
        answer = self._get("/receipts/checkpoint" + (f"?shard={shard}" if shard else ""))
        if answer.status == 404:
            kept = self.kept(log, keys)
            if kept is not None:
                raise self._evidence(
                    Misbehaviour(
                        "truncated",
                        f"{log.what()}: the server says it has no checkpoint; it signed "
                        f"{kept.checkpoint.size} entries before",
                        [kept.encode()],
                        [answer.said()],
                    )
                )
        if not answer.ok:
            raise NotProven(f"{log.what()}: no checkpoint from the server: {answer.said()}")
        return self.take(answer.text, keys)

    def witness(
        self, shard: int, keys: Keys, shown: SignedCheckpoint | None = None
    ) -> SignedCheckpoint:
        """The server's latest global checkpoint of ``shard`` (or ``shown``),
        with fresh cosignatures of a quorum of the trusted witnesses, got by
        gossip, checked against what each witness cosigned and refused."""
        trust = keys.trust
        log = LogId(shard=shard)
        for _ in range(ROUNDS):
            signed = shown or self.global_checkpoint(shard, keys)
            shown = None
            kept = self.kept(log, keys)
            if kept is not None:
                for witness in trust.witnesses:
                    self._anchor(witness, log, kept, keys)
                signed = self.check(log, signed, keys, now=True)
            note, troubles, behind = signed.note, [], None
            for witness in trust.witnesses:
                try:
                    note = note.with_signatures(self._gossip(witness, log, signed, keys))
                except _Behind as e:
                    behind = e.latest
                except (OSError, _WitnessTrouble) as e:
                    troubles.append(f"{witness.url}: {e}")
            if behind is not None:
                latest = self.global_checkpoint(shard, keys)
                if latest.checkpoint.size >= behind.checkpoint.size:
                    continue  # the server published meanwhile: ask again
                raise self._evidence(
                    Misbehaviour(
                        "rollback",
                        f"{log.what()}: a witness cosigned {behind.checkpoint.size} entries "
                        f"signed with the server's key; the server shows only "
                        f"{latest.checkpoint.size}: it hides the later ones from you, or "
                        "another server with its key shows someone else another history",
                        [behind.encode(), latest.encode()],
                    )
                )
            cosigned = SignedCheckpoint(signed.checkpoint, note)
            try:
                witnessed(
                    cosigned.encode(),
                    log_verifiers(keys.every(), signed.checkpoint.origin),
                    trust,
                    self.clock(),
                )
            except NotWitnessed as e:
                said = "".join(f"\n  {t}" for t in troubles)
                raise NotProven(
                    f"{log.what()} at {signed.checkpoint.size} entries is not witnessed as "
                    f"your trust file demands: {e}{said}"
                ) from None
            for witness in trust.witnesses:
                self._refusals_against(witness, log, cosigned, keys)
            return cosigned
        raise NotProven(f"{log.what()}: the witnesses' size kept changing; try again")

    def _anchor(
        self, witness: TrustedWitness, log: LogId, kept: SignedCheckpoint, keys: Keys
    ) -> None:
        """``kept`` handed to ``witness`` if it is behind it (its state deleted
        or rewound), before anything the server shows now: so the witness
        refuses a rewritten log whoever submits it. Misbehaviour if what the
        witness cosigned and what this client kept cannot both be true."""
        try:
            text = witness_latest(witness.url, kept.checkpoint.origin)
        except OSError:
            return  # counted when it is asked to cosign
        latest = None if text is None else self._cosigned_by(witness, text, keys)
        if latest is not None and latest.checkpoint.size >= kept.checkpoint.size:
            self.extends(log, kept, latest, keys)  # it is not behind: only held against it
            return
        size = 0 if latest is None else latest.checkpoint.size
        proof = [] if latest is None else self.extends(log, latest, kept, keys)
        try:
            submit(witness.url, size, proof, kept.encode())
        except OSError:
            return  # counted when it is asked to cosign

    def _gossip(
        self,
        witness: TrustedWitness,
        log: LogId,
        signed: SignedCheckpoint,
        keys: Keys,
    ) -> list[Signature]:
        """``signed`` handed to ``witness`` with the proof from the size it
        cosigned last; its fresh cosignature, or Misbehaviour if what it
        cosigned and what the server shows cannot both be true."""
        origin = signed.checkpoint.origin
        for _ in range(ROUNDS):
            text = witness_latest(witness.url, origin)
            latest = None if text is None else self._cosigned_by(witness, text, keys)
            if latest is not None and latest.checkpoint.size > signed.checkpoint.size:
                raise _Behind(latest)
            size = 0 if latest is None else latest.checkpoint.size
            proof = [] if latest is None else self.extends(log, latest, signed, keys)
            answer = submit(witness.url, size, proof, signed.encode())
            if answer.status == 409:
                continue  # it cosigned meanwhile: ask its size again
            if not answer.ok:
                raise _WitnessTrouble(f"refused: {answer.said()}")
            try:
                given = parse_note(Note(signed.note.text, ()).encode() + answer.text)
            except NoteError as e:
                raise _WitnessTrouble(f"its answer is no cosignature: {e}") from None
            lines = [s for s in given.signatures if witness.verifier.verifies(signed.note.text, s)]
            if not lines:
                raise _WitnessTrouble("its answer holds no cosignature of its key")
            return lines
        raise _WitnessTrouble("its size kept changing")

    def _cosigned_by(
        self, witness: TrustedWitness, text: str, keys: Keys
    ) -> SignedCheckpoint | None:
        """The witness's latest checkpoint, if signed by the log's keys and
        cosigned by the witness (else it is not taken as its statement)."""
        try:
            signed = SignedCheckpoint.parse(text)
            _, verified = open_note(
                text, [*log_verifiers(keys.every(), signed.checkpoint.origin), witness.verifier]
            )
        except NoteError:
            return None
        if witness.verifier not in verified or len(verified) < 2:
            return None
        return signed

    def _refusals_against(
        self, witness: TrustedWitness, log: LogId, cosigned: SignedCheckpoint, keys: Keys
    ) -> None:
        """Each checkpoint ``witness`` refused, signed with the server's key,
        held against ``cosigned``: one it does not extend was shown to
        someone else (a fork)."""
        try:
            refused = witness_refused(witness.url, cosigned.checkpoint.origin)
        except OSError:
            return  # checked again at the next check
        for text in refused:
            try:
                other = SignedCheckpoint.parse(text)
            except NoteError:
                continue
            if (
                not self._signed(other, keys)
                or other.checkpoint.origin != cosigned.checkpoint.origin
            ):
                continue
            if other.checkpoint.size > cosigned.checkpoint.size:
                continue  # checked once the log here is that large
            try:
                self.extends(log, other, cosigned, keys)
            except Misbehaviour as found:
                found.message += (
                    f" (the witness {witness.name} refused the other one: another server "
                    "with the same key showed it to someone)"
                )
                raise self._evidence(found) from None

    # ---- a game's head in a witnessed global checkpoint -------------------------------------

    def head_witnessed(
        self, aggregate: UUID, version: int, chain: bytes, keys: Keys
    ) -> tuple[SignedCheckpoint, TlogProof]:
        """A witnessed global checkpoint holding the aggregate's head at
        ``version`` (its event's chain value ``chain``), and the inclusion
        proof: waits up to ``included_wait`` for the server to publish it.
        A global checkpoint witnessed in this run serves every game after
        (one gossip a shard per ``check``, not one a game)."""
        leaf = head_data(aggregate, version, chain.hex())
        deadline = time.monotonic() + self.included_wait
        query = f"/receipts/inclusion?aggregate_id={aggregate}&version={version}"
        while True:
            answer = self._get(query)
            if answer.ok:
                body = self._json(answer, "inclusion proof")
                try:
                    shard = int(body["shard"])
                except (KeyError, TypeError, ValueError):
                    raise NotProven(
                        f"the server's inclusion proof names no shard: {answer.said()}"
                    ) from None
                cached = self._witnessed.get(shard)
                found = None if cached is None else self._included(query, leaf, cached)
                if cached is not None and found is not None:
                    return cached, found
                shown = self.take(str(body.get("checkpoint", "")), keys)
                cosigned = self.witness(shard, keys, shown)
                log = LogId(shard=shard)
                self._keep(log, self.check(log, cosigned, keys, now=False))
                self._witnessed[shard] = cosigned
                found = self._included(query, leaf, cosigned)
                if found is not None:
                    return cosigned, found
            elif answer.status != 404 or time.monotonic() > deadline:
                raise NotProven(
                    f"version {version} of {aggregate} is not in a global checkpoint the "
                    f"witnesses cosigned (the server answered {answer.said()}): the server "
                    "publishes at least every second, so try again; if it stays so, the "
                    "server keeps this move from the witnesses"
                )
            if time.monotonic() > deadline:
                raise NotProven(
                    f"version {version} of {aggregate} is not yet in a global checkpoint the "
                    "witnesses cosigned: try again; if it stays so, the server keeps this "
                    "move from the witnesses"
                )
            time.sleep(0.25)

    def _included(self, query: str, leaf: bytes, cosigned: SignedCheckpoint) -> TlogProof | None:
        """The proof that ``leaf`` is in ``cosigned``'s tree, asked of the
        server; None if that tree does not hold it yet."""
        size = cosigned.checkpoint.size
        answer = self._get(f"{query}&size={size}")
        if answer.status == 404:
            return None
        if not answer.ok:
            raise NotProven(f"the server's inclusion proof: {answer.said()}")
        body = self._json(answer, "inclusion proof")
        try:
            index = int(body["index"])
            proof = tuple(b64decode(h) for h in body["proof"])
            origin = str(body["origin"])
        except (KeyError, TypeError, ValueError, NoteError) as e:
            raise NotProven(f"the server's inclusion proof is not one: {e}") from None
        if origin != cosigned.checkpoint.origin:
            return None  # another shard's log: not the one witnessed
        try:
            verify_inclusion(index, size, leaf_hash(leaf), proof, cosigned.checkpoint.root)
        except ProofError as e:
            raise NotProven(
                f"the server's proof that {query.partition('?')[2]} is in the witnessed "
                f"global log does not verify ({e})"
            ) from None
        return TlogProof(index, proof, cosigned, leaf)

    # ---- the commands ----------------------------------------------------------------

    def keep_log(self, aggregate: UUID, keys: Keys) -> str:
        """``opus receipts keep --log ID`` and each game ``check`` looks at:
        its checkpoint now, checked against the kept one, its head proven in
        a witnessed global checkpoint; kept."""
        log = LogId(aggregate=aggregate)
        answer = self._get(f"/receipts/logs/{aggregate}/checkpoint")
        kept = self.kept(log, keys)
        if answer.status == 404 and kept is not None:
            raise self._evidence(
                Misbehaviour(
                    "truncated",
                    f"{log.what()}: the server now says it does not exist; it signed "
                    f"{kept.checkpoint.size} of its events before: it deleted them",
                    [kept.encode()],
                    [answer.said()],
                )
            )
        if not answer.ok:
            raise NotProven(f"{log.what()}: no checkpoint from the server: {answer.said()}")
        new = self.take(answer.text, keys)
        if self.log_of(new.checkpoint.origin, keys) != log:
            raise Refused(f"the server answered another log's checkpoint ({new.checkpoint.origin})")
        taken = self.check(log, new, keys, now=True)
        size = new.checkpoint.size
        head = self._receipt_at(aggregate, size, keys)
        if head.checkpoint.checkpoint.root != new.checkpoint.root:
            self.extends(log, new, head.checkpoint, keys)  # the same size: a fork
        cosigned, included = self.head_witnessed(aggregate, size, head.extra or b"", keys)
        self._keep(log, taken)
        self._keep_receipt(f"{log.stem}-{size}-in-global", included)
        return self._ok(log, new, kept, cosigned, keys)

    def _receipt_at(self, aggregate: UUID, version: int, keys: Keys) -> TlogProof:
        answer = self._get(f"/receipts/logs/{aggregate}/receipt?version={version}&size={version}")
        if not answer.ok:
            raise NotProven(f"the receipt of version {version} of {aggregate}: {answer.said()}")
        try:
            receipt = TlogProof.parse(answer.text)
        except NoteError as e:
            raise NotProven(f"the server's receipt of version {version} is not one: {e}") from None
        self.take(receipt.checkpoint.encode(), keys)
        self._check_receipt(receipt)
        return receipt

    def _check_receipt(self, receipt: TlogProof) -> None:
        if receipt.extra is None:
            raise NotProven("the receipt carries no chain value (extra): nothing to prove")
        try:
            receipt.verify_leaf(leaf_hash(receipt.extra))
        except ProofError as e:
            raise self._evidence(
                Misbehaviour(
                    "bad-receipt",
                    f"the receipt's proof does not verify ({e}): the server signed a tree "
                    "that does not hold what it said it appended",
                    [receipt.encode()],
                )
            ) from None

    def keep_receipt(self, text: str, keys: Keys, event: str | None = None) -> list[str]:
        """``opus receipts keep --receipt FILE [--event LINE]``: a command's
        receipt checked (its proof, against the kept checkpoint, its head in
        a witnessed global checkpoint) and kept, with the event line of the
        player's move bound to it if given."""
        try:
            receipt = TlogProof.parse(text)
        except NoteError as e:
            raise BadInput(f"the file is not a receipt (C2SP tlog-proof): {e}") from None
        signed = self.take(receipt.checkpoint.encode(), keys)
        log = self.log_of(signed.checkpoint.origin, keys)
        if log.aggregate is None:
            raise BadInput("a command's receipt is of a game's or a tournament's log")
        self._check_receipt(receipt)
        kept = self.kept(log, keys)
        taken = self.check(log, signed, keys, now=False)
        version = receipt.index + 1
        cosigned, included = self.head_witnessed(log.aggregate, version, receipt.extra or b"", keys)
        lines = []
        if event is not None:
            lines.append(self._bind_event(log, receipt, event))
        self._keep(log, taken)
        self._keep_receipt(f"{log.stem}-{version}", receipt)
        self._keep_receipt(f"{log.stem}-{version}-in-global", included)
        lines.insert(0, self._ok(log, signed, kept, cosigned, keys))
        return lines

    def _bind_event(self, log: LogId, receipt: TlogProof, line: str) -> str:
        """The event line of the receipt's event, checked to be it (its
        chain value is the receipt's extra), kept beside it."""
        try:
            event = json.loads(line)
            chain, version = str(event["chain"]), int(event["version"])
            aggregate = UUID(str(event["aggregate_id"]))
        except (ValueError, KeyError, TypeError):
            raise BadInput(
                "the event line is not one of the log's (NDJSON with aggregate_id, version "
                "and chain: a line of GET /games/{id}/export or opus export)"
            ) from None
        if aggregate != log.aggregate or version != receipt.index + 1:
            raise BadInput(
                f"the event line is version {version} of {aggregate}; the receipt is of "
                f"version {receipt.index + 1} of {log.aggregate}"
            )
        if receipt.extra is None or chain != receipt.extra.hex():
            raise BadInput(
                f"the event line's chain value {chain[:16]}… is not the receipt's: it is not "
                "the event the server acknowledged"
            )
        name = f"{log.stem}-{version}.event.json"
        write_atomically(self.directory / "receipts" / name, line.strip() + "\n")
        return f"kept  your event at version {version} ({event.get('type')}): bound to the receipt"

    def _keep_receipt(self, name: str, receipt: TlogProof) -> None:
        write_atomically(self.directory / "receipts" / f"{name}.tlog-proof", receipt.encode())

    def keep_global(self, shard: int, keys: Keys) -> str:
        """``opus receipts keep --log global``: shard ``shard``'s global
        checkpoint now, witnessed, checked against the kept one, kept."""
        log = LogId(shard=shard)
        kept = self.kept(log, keys)
        cosigned = self.witness(shard, keys)
        self._keep(log, self.check(log, cosigned, keys, now=True))
        return self._ok(log, cosigned, kept, cosigned, keys)

    def _ok(
        self,
        log: LogId,
        new: SignedCheckpoint,
        kept: SignedCheckpoint | None,
        cosigned: SignedCheckpoint,
        keys: Keys,
    ) -> str:
        before = f" (kept {kept.checkpoint.size})" if kept is not None else ""
        fresh = witnessed(
            cosigned.encode(),
            log_verifiers(keys.every(), cosigned.checkpoint.origin),
            keys.trust,
            self.clock(),
        )
        by = ", ".join(f"{c.witness.name} {int(self.clock()) - c.time} s ago" for c in fresh)
        witnessed_by = f"witnessed by {by}" if fresh else "witnessed by no one (quorum 0)"
        return (
            f"ok   {new.checkpoint.origin} size {new.checkpoint.size}{before}: consistent; "
            f"{witnessed_by}"
        )

    def check_all(self, keys: Keys) -> list[tuple[int, str]]:
        """``opus receipts check``: every kept log against the server now,
        each an (exit status, what to say): 0 ok, 1 misbehaviour (its
        evidence kept), 3 not proven."""
        results: list[tuple[int, str]] = []
        for path in self.kept_logs():
            stem = path.stem
            try:
                if stem.startswith("log-"):
                    results.append((0, self.keep_log(UUID(stem[4:]), keys)))
                elif stem.startswith("global-") and stem[7:].isdigit():
                    results.append((0, self.keep_global(int(stem[7:]), keys)))
                else:
                    raise _set_aside(path, "it is not named as a kept log's checkpoint")
            except Misbehaviour as found:
                results.append((1, found.report()))
            except (NotProven, OSError) as e:
                results.append((3, f"NOT PROVEN: {e}"))
        return results


class BadInput(Exception):
    """A file or line the person gave that is not what it should be."""


class _Behind(Exception):
    def __init__(self, latest: SignedCheckpoint) -> None:
        super().__init__("the witness cosigned a larger tree than the server shows")
        self.latest = latest


class _WitnessTrouble(Exception):
    """A witness that could not cosign (refused, or answered nonsense)."""


def _first_trust(server: str, document: dict[str, Any], given: Given, now: float) -> Trust:
    listed = [f"{w.get('url')} {w.get('vkey')}" for w in document.get("witnesses") or []]
    witnesses = tuple(TrustedWitness.parse(w) for w in (given.witnesses or listed))
    if given.quorum is None and not witnesses:
        raise TrustError(
            "no witness to trust: the server lists none. Give --witness '<URL> <vkey>' (an "
            "independent witness the operator or others run), or --quorum 0 to take the "
            "server's word alone"
        )
    log = given.key or str(document.get("vkey", ""))
    stamp = datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds")
    return Trust(
        server=server,
        log=log,
        witnesses=witnesses,
        quorum=1 if given.quorum is None else given.quorum,
        max_age=given.max_age or DEFAULT_MAX_AGE,
        pinned_at=stamp,
    )


def _apply(trust: Trust, given: Given) -> tuple[Trust, bool]:
    """``trust`` with what the person said now; whether it changed."""
    if given.key is not None and given.key not in {trust.log, *(p.vkey for p in trust.previous)}:
        raise TrustError(
            f"this store pinned the log's key {trust.log}; --key names another. A key "
            "changes only by a transition statement the server serves; or use a new store"
        )
    witnesses = (
        tuple(TrustedWitness.parse(w) for w in given.witnesses)
        if given.witnesses
        else trust.witnesses
    )
    quorum = trust.quorum if given.quorum is None else given.quorum
    if given.witnesses and given.quorum is None:
        quorum = min(max(quorum, 1), len(witnesses))
    changed = Trust(
        trust.server,
        trust.log,
        witnesses,
        quorum,
        given.max_age or trust.max_age,
        trust.previous,
        trust.pinned_at,
    )
    return changed, changed != trust


def _set_aside(path: Path, reason: str) -> Corrupted:
    aside = path.with_suffix(".corrupt")
    path.replace(aside)
    return Corrupted(
        f"the kept checkpoint {path} cannot be read or does not verify ({reason}); it is "
        f"moved to {aside.name}: this store's corruption, no statement of the server"
    )

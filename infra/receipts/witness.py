"""``opus witness``: a witness of the service's global log (C2SP
tlog-witness, cosigning per C2SP tlog-cosignature), a process of its own
with its own key and its own store.

``POST <prefix>/add-checkpoint`` takes ``old <size>``, the consistency
proof's hashes one a line, a blank line and a signed checkpoint. It answers
as the spec says: 404 an origin it does not follow; 403 no signature of a
trusted key, or a trusted key's that fails; 400 a body it cannot read, or
old past the checkpoint's size; 409 an old size that is not the size it
last cosigned (its body that size, ``text/x.tlog.size``); 422 a size-0
checkpoint whose root is not the empty tree's, a proof from 0 that is not
empty, a proof that does not verify, or the same size with another root.
Otherwise it persists the checkpoint (with its own cosignature) and then
answers 200 with its cosignature line. The check and the write are one
step under a lock (two requests cannot roll its size back), and the write
is atomic (a new file renamed over the old, fsynced). A signed checkpoint
it refuses for inconsistency is kept in ``evidence/``: it is the log's own
signature on a tree that contradicts what it cosigned.

``GET <prefix>/<sha256(origin) hex>/checkpoint``: the latest checkpoint it
cosigned for that log, with the log's signature and its cosignature.
``GET <prefix>/<sha256(origin) hex>/refused``: the signed checkpoints it
refused as inconsistent with what it cosigned (JSON, the latest
``REFUSED_SERVED``), so every client can hold them against its own: a
fork shown to another player is seen by each.

Every answer allows any origin (``Access-Control-Allow-Origin: *``), and
``OPTIONS`` answers the preflight of a POST with ``Content-Type``, so a web
page can read what the witness cosigned and gossip to it: the witness
holds no secret and no session, so nothing is exposed by it.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, request

from domain.transparency.formats import Checkpoint, SignedCheckpoint
from domain.transparency.merkle import EMPTY_ROOT, HASH_SIZE, ProofError, verify_consistency
from domain.transparency.note import NoteError, Signer, Verifier, b64decode, open_note, parse_note
from infra.receipts.files import write_atomically

MAX_BODY = 64 * 1024
MAX_PROOF = 63
REFUSED_SERVED = 100  # the latest refused checkpoints served per log
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "600",
}


class Refusal(Exception):
    def __init__(self, status: int, message: str, content_type: str = "text/plain") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.content_type = content_type


@dataclass(frozen=True)
class Latest:
    size: int
    root: bytes
    note: str  # the checkpoint as cosigned: the log's signatures and ours


def origin_hash(origin: str) -> str:
    return hashlib.sha256(origin.encode()).hexdigest()


class WitnessStore:
    """One file per log, ``<sha256(origin)>.json``; refused checkpoints in
    ``evidence/``."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "evidence").mkdir(exist_ok=True)

    def latest(self, origin: str) -> Latest | None:
        path = self.directory / f"{origin_hash(origin)}.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["origin"] != origin:
            raise ValueError(f"{path} holds another origin's checkpoint")
        return Latest(int(data["size"]), b64decode(data["root"]), str(data["checkpoint"]))

    def keep(self, origin: str, latest: Latest) -> None:
        point = SignedCheckpoint.parse(latest.note).checkpoint
        record = {
            "origin": origin,
            "size": latest.size,
            "root": point.text().split("\n")[2],
            "checkpoint": latest.note,
        }
        write_atomically(self.directory / f"{origin_hash(origin)}.json", json.dumps(record))

    def evidence(self, origin: str, body: str, reason: str) -> Path:
        """The refused request kept, once per signed checkpoint (a client
        sending the same one again adds nothing: the files stay bounded by
        what the log signed)."""
        checkpoint = body.partition("\n\n")[2]
        digest = hashlib.sha256(checkpoint.encode()).hexdigest()[:24]
        path = self.directory / "evidence" / f"{origin_hash(origin)[:16]}-{digest}.txt"
        if not path.exists():
            write_atomically(path, f"# refused: {reason}\n{body}")
        return path

    def refused(self, origin: str) -> list[dict[str, str]]:
        """The latest checkpoints of ``origin`` refused as inconsistent,
        newest last: each the signed checkpoint and why."""
        found = []
        paths = (self.directory / "evidence").glob(f"{origin_hash(origin)[:16]}-*.txt")
        for path in sorted(paths, key=lambda p: p.stat().st_mtime_ns)[-REFUSED_SERVED:]:
            text = path.read_text(encoding="utf-8")
            head, _, body = text.partition("\n")
            _, _, checkpoint = body.partition("\n\n")
            found.append({"reason": head.removeprefix("# refused: "), "checkpoint": checkpoint})
        return found


def parse_request(body: str) -> tuple[int, list[bytes], str]:
    """(old size, proof, checkpoint note) of an add-checkpoint body."""
    head, sep, checkpoint = body.partition("\n\n")
    if not sep:
        raise Refusal(400, "the proof and the checkpoint are parted by a blank line")
    lines = head.split("\n")
    first = lines[0]
    if not first.startswith("old "):
        raise Refusal(400, "the body starts with 'old <size>'")
    number = first[4:]
    if not number.isdigit() or (number != "0" and number.startswith("0")):
        raise Refusal(400, "the old size is a decimal with no leading zero")
    if len(lines) - 1 > MAX_PROOF:
        raise Refusal(400, f"at most {MAX_PROOF} proof lines")
    proof = []
    for line in lines[1:]:
        try:
            digest = b64decode(line)
        except NoteError:
            raise Refusal(400, "a proof line is not base64") from None
        if len(digest) != HASH_SIZE:
            raise Refusal(400, f"a proof hash is {HASH_SIZE} bytes")
        proof.append(digest)
    return int(number), proof, checkpoint


class Witness:
    def __init__(
        self,
        cosigner: Signer,
        logs: Iterable[Verifier],
        store: WitnessStore,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.cosigner = cosigner
        self.logs: dict[str, list[Verifier]] = {}
        for key in logs:
            self.logs.setdefault(key.name, []).append(key)  # the origin is the key's name
        self.store = store
        self.clock = clock
        self._lock = threading.Lock()

    def add_checkpoint(self, body: str) -> str:
        """The cosignature line, or a Refusal with its status."""
        old, proof, note_text = parse_request(body)
        try:
            note = parse_note(note_text)
            point = Checkpoint.parse(note.text)
        except NoteError as e:
            raise Refusal(400, f"not a checkpoint: {e}") from None
        keys = self.logs.get(point.origin)
        if keys is None:
            raise Refusal(404, f"this witness does not follow {point.origin}")
        try:
            open_note(note_text, keys)
        except NoteError as e:
            raise Refusal(403, str(e)) from None
        if old > point.size:
            raise Refusal(400, f"old size {old} is past the checkpoint's {point.size}")
        if point.size == 0 and point.root != EMPTY_ROOT:
            raise Refusal(422, "a checkpoint of size 0 has the empty tree's root")
        with self._lock:
            latest = self.store.latest(point.origin)
            size = latest.size if latest is not None else 0
            if old != size:
                raise Refusal(409, f"{size}\n", "text/x.tlog.size")
            try:
                if old == 0:
                    if proof:
                        raise ProofError("a proof from size 0 is empty")
                else:
                    assert latest is not None
                    verify_consistency(old, point.size, latest.root, point.root, proof)
            except ProofError as e:
                self.store.evidence(point.origin, body, str(e))
                reason = f"inconsistent with the checkpoint cosigned at {old}: {e}"
                raise Refusal(422, reason) from None
            signature = self.cosigner.cosign(note.text, int(self.clock()))
            cosigned = note.with_signatures([signature]).encode()
            self.store.keep(point.origin, Latest(point.size, point.root, cosigned))
        return signature.line()

    def origin_of(self, hashed: str) -> str | None:
        """The followed log whose origin hashes to ``hashed``."""
        return next((o for o in self.logs if origin_hash(o) == hashed), None)

    def checkpoint(self, hashed: str) -> str | None:
        origin = self.origin_of(hashed)
        latest = None if origin is None else self.store.latest(origin)
        return None if latest is None else latest.note


def create_witness_app(witness: Witness) -> Flask:
    app = Flask("opus-witness")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY

    @app.after_request
    def cors(response: Response) -> Response:
        response.headers.update(CORS)
        return response

    @app.route("/add-checkpoint", methods=["OPTIONS"])
    def preflight() -> Response:
        return Response(status=204)

    @app.post("/add-checkpoint")
    def add() -> Response:
        try:
            body = request.get_data().decode("utf-8")
        except UnicodeDecodeError:
            return Response("the body is not UTF-8\n", 400, mimetype="text/plain")
        try:
            line = witness.add_checkpoint(body)
        except Refusal as e:
            text = e.message if e.message.endswith("\n") else e.message + "\n"
            return Response(text, e.status, content_type=e.content_type)
        return Response(line, 200, mimetype="text/plain")

    @app.get("/<hashed>/checkpoint")
    def latest(hashed: str) -> Response:
        note = witness.checkpoint(hashed)
        if note is None:
            return Response("no checkpoint cosigned for that log\n", 404, mimetype="text/plain")
        return Response(note, 200, mimetype="text/plain")

    @app.get("/<hashed>/refused")
    def refused(hashed: str) -> Response:
        origin = witness.origin_of(hashed)
        if origin is None:
            return Response("this witness does not follow that log\n", 404, mimetype="text/plain")
        body = json.dumps({"origin": origin, "refused": witness.store.refused(origin)})
        return Response(body, 200, mimetype="application/json")

    @app.get("/")
    def about() -> Response:
        lines = [f"witness {witness.cosigner.vkey()}"]
        lines += [f"log {key.vkey()}" for keys in witness.logs.values() for key in keys]
        return Response("\n".join(lines) + "\n", 200, mimetype="text/plain")

    return app

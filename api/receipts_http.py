"""Receipts over HTTP (README, Receipts).

- every command's answer carries ``receipt``: the C2SP tlog-proof of its
  last event in its game's (or tournament's) log, made after the save
  (``receipt_of``; a retried command's is made from the log as it is);
- ``GET /.well-known/opus-receipts``: the service's key (vkey, key id), the
  keys it retired, the key transitions (oldest first), the logs' origins
  and its witnesses;
- ``GET /receipts/checkpoint``: the global log's latest checkpoint with
  its witnesses' cosignatures; ``/receipts/consistency`` and
  ``/receipts/inclusion``: its proofs (a game's head in the global log).
  With shards each shard has its global log: ``?shard=K`` (0 by default)
  names it, and an inclusion proof is in the aggregate's own shard's log,
  which the answer names (``shard``, ``origin``);
- ``GET /receipts/logs/{id}/checkpoint``, ``/consistency``, ``/receipt``:
  a game's or tournament's log: its checkpoint signed now, the proof from a
  size a client kept, the receipt of any of its events.

Proof hashes are base64, as in the C2SP formats. A checkpoint the signer
refuses to sign (it contradicts one signed before: the store no longer
holds the history that was signed, infra/receipts/signed.py) is answered
500 with the refusal's words (the log, both sizes, both roots), never a
signature.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from flask import Flask, Response, g
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from api.errors import ApiError
from api.runtime import Services, services
from api.schemas import ErrorSchema
from domain.audit import Record
from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.history import TwoHistories
from domain.transparency.note import b64
from infra.logthrottle import LogThrottle
from infra.receipts import aggregates
from infra.receipts.service import WELL_KNOWN, GlobalLog, Receipts, open_receipts
from infra.settings import Settings

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
blp = Blueprint("receipts", __name__, description="Signed receipts: checkpoints and proofs")
TEXT = "text/plain; charset=utf-8"
MAX_SIZE = 2**62


class SizesSchema(Schema):
    old = fields.Integer(required=True, validate=validate.Range(0, MAX_SIZE))
    size = fields.Integer(load_default=None, validate=validate.Range(0, MAX_SIZE))


class ShardArgsSchema(Schema):
    shard = fields.Integer(
        load_default=0,
        validate=validate.Range(0, MAX_SIZE),
        metadata={"description": "Whose global log, with shards (OPUS_SHARDS): 0 by default"},
    )


class GlobalSizesSchema(SizesSchema, ShardArgsSchema):
    pass


class InclusionArgsSchema(Schema):
    aggregate_id = fields.UUID(required=True)
    version = fields.Integer(required=True, validate=validate.Range(1, MAX_SIZE))
    size = fields.Integer(load_default=None, validate=validate.Range(1, MAX_SIZE))


class ReceiptArgsSchema(Schema):
    version = fields.Integer(required=True, validate=validate.Range(1, MAX_SIZE))
    size = fields.Integer(load_default=None, validate=validate.Range(1, MAX_SIZE))


class ConsistencySchema(Schema):
    old = fields.Integer(required=True)
    size = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True, metadata={"description": "base64"})
    checkpoint = fields.String(
        required=True, metadata={"description": "The signed checkpoint at size."}
    )


class InclusionSchema(Schema):
    shard = fields.Integer(required=True, metadata={"description": "Whose global log"})
    origin = fields.String(required=True, metadata={"description": "That log's origin"})
    index = fields.Integer(required=True)
    size = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True, metadata={"description": "base64"})
    checkpoint = fields.String(required=True)


class KeySchema(Schema):
    vkey = fields.String(required=True)
    key_id = fields.String(required=True)
    retired_at = fields.String(required=True)


class WitnessSchema(Schema):
    url = fields.String(required=True)
    vkey = fields.String(required=True)


class GlobalOriginSchema(Schema):
    shard = fields.Integer(required=True)
    origin = fields.String(required=True)
    vkey = fields.String(
        required=True, metadata={"description": "The key its checkpoints are signed with"}
    )


class KeysSchema(Schema):
    name = fields.String(required=True)
    vkey = fields.String(required=True, metadata={"description": "C2SP signed-note vkey"})
    key_id = fields.String(required=True, metadata={"description": "hex, 4 bytes"})
    signature_type = fields.String(required=True)
    global_origin = fields.String(required=True, metadata={"description": "Shard 0's"})
    global_origins = fields.List(fields.Nested(GlobalOriginSchema), required=True)
    aggregate_origin = fields.String(required=True)
    retired = fields.List(fields.Nested(KeySchema), required=True)
    key_transitions = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "Key transitions, oldest first: each a signed note 'opus key "
            "transition', old vkey, new vkey, RFC 3339 time, signed by both keys"
        },
    )
    witnesses = fields.List(fields.Nested(WitnessSchema), required=True)


# ---- wiring -------------------------------------------------------------------------------


def attach(svc: Services, settings: Settings) -> bool:
    """The receipts of ``svc.opus``'s commands, the global log's publisher
    started in this process; and the live streams' publisher: each save's
    events of a game, then its signed checkpoint, in one ``publish`` (one
    round trip to Redis, as without receipts). False when receipts are off
    (the streams' own publisher is then the caller's to add)."""
    receipts = open_receipts(settings.receipts, svc.opus, run_publisher=True, listen=False)
    svc.receipts = receipts
    if receipts is None:
        return False
    svc.closers.append(receipts.close)
    trees = receipts.trees

    def publish(records: list[Record]) -> None:
        try:
            made = trees.receipts(records)
        except Exception as e:  # saved already: the events go out, the answer has no receipt
            _failures.failed("receipts: a command's receipt could not be made", e)
            made = {}
        lines: dict[str, list[str]] = {}
        for record in records:
            lines.setdefault(record.aggregate_id, []).append(record.line())
        for aggregate_id, messages in lines.items():
            receipt = made.get(UUID(aggregate_id))
            if receipt is not None:
                messages.append(aggregates.checkpoint_message(receipt))
            try:
                svc.broker.publish(aggregate_id, *messages)
            except Exception as e:  # saved already: the command's answer stands
                _failures.failed("live events not published", e)
        if records:  # one command's: on one shard
            receipts.wake(UUID(records[0].aggregate_id))

    svc.opus.listeners.append(publish)
    return True


def register(app: Flask) -> None:
    """Collect the receipts of the commands each request runs."""

    @app.before_request
    def collect() -> None:
        g.receipts_token = aggregates.start_collecting()

    @app.teardown_request
    def done(error: BaseException | None) -> None:
        token = g.pop("receipts_token", None)
        if token is not None:
            aggregates.stop_collecting(token)


def receipts_or_404() -> Receipts:
    receipts: Receipts | None = services().receipts
    if receipts is None:
        raise ApiError(404, "this service keeps no receipts (OPUS_RECEIPTS=0)")
    return receipts


def receipt_of(aggregate_id: UUID, version: int) -> str | None:
    """The receipt of the command just run on the aggregate (its last event
    at ``version``): the one its save made, or for a command answered again,
    one made from the log now. None when receipts are off, or when it cannot
    be made (never an error: the command is saved)."""
    receipts: Receipts | None = services().receipts
    if receipts is None or version < 1:
        return None
    made = aggregates.collected(aggregate_id)
    if made is not None and made.index == version - 1:
        return made.encode()
    try:
        return receipt_in_log(receipts, aggregate_id, version, None).encode()
    except Exception as e:
        _failures.failed("receipts: a replayed command's receipt could not be made", e)
        return None


def receipt_in_log(
    receipts: Receipts, aggregate_id: UUID, version: int, size: int | None
) -> TlogProof:
    tree = receipts.trees.tree(aggregate_id)
    if tree is None:
        raise ApiError(404, f"no game or tournament {aggregate_id}")
    size = tree.size if size is None else size
    if not version <= size <= tree.size:
        raise ApiError(404, f"no version {version} in a tree of {size}: the log has {tree.size}")
    with refusals():
        signed = receipts.trees.sign_tree(aggregate_id, tree, size)
    return TlogProof(
        version - 1, tuple(tree.inclusion(version - 1, size)), signed, tree.chains[version - 1]
    )


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """The signer's refusal (``TwoHistories``) as a 500 saying it."""
    try:
        yield
    except TwoHistories as e:
        raise ApiError(500, f"the service's signer refused: {e}") from None


def text(body: str) -> Response:
    return Response(body, mimetype=TEXT)


# ---- routes ------------------------------------------------------------------------------


@blp.route(WELL_KNOWN)
class Keys(MethodView):
    @blp.response(200, KeysSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="Receipts are off")
    def get(self) -> dict[str, Any]:
        """The key checkpoints are signed with (C2SP vkey and key id), the keys
        retired, the logs' origins and the witnesses."""
        return receipts_or_404().keys()


def global_log(receipts: Receipts, shard: int) -> GlobalLog:
    try:
        return receipts.log(shard)
    except LookupError as e:
        raise ApiError(404, str(e)) from None


@blp.route("/receipts/checkpoint")
class GlobalCheckpoint(MethodView):
    @blp.arguments(ShardArgsSchema, location="query")
    @blp.response(200, content_type="text/plain")
    @blp.alt_response(404, schema=ErrorSchema, description="None published yet, or no such shard")
    def get(self, args: dict[str, Any]) -> Response:
        """The global log's latest checkpoint (C2SP tlog-checkpoint) with its
        witnesses' cosignatures (C2SP tlog-cosignature); with shards, shard
        ``shard``'s."""
        receipts = receipts_or_404()
        return text(_latest(receipts, global_log(receipts, args["shard"])))


def _latest(receipts: Receipts, log: GlobalLog) -> str:
    """The global log's latest checkpoint kept; 404 when none is published
    yet, 500 when none is because the signer refuses its tree."""
    note = log.store.checkpoint()
    if note is None:
        with refusals():
            receipts.check_signable(log)
        raise ApiError(404, f"no global checkpoint of {log.origin} published yet")
    return note


def _global_size(receipts: Receipts, log: GlobalLog, size: int | None) -> tuple[int, str]:
    note = _latest(receipts, log)
    latest = SignedCheckpoint.parse(note)
    if size is None or size == latest.checkpoint.size:
        return latest.checkpoint.size, note
    kept = log.store.checkpoint(size)
    if kept is None:
        raise ApiError(404, f"no global checkpoint of {log.origin} was published at size {size}")
    return size, kept


@blp.route("/receipts/consistency")
class GlobalConsistency(MethodView):
    @blp.arguments(GlobalSizesSchema, location="query")
    @blp.response(200, ConsistencySchema)
    @blp.alt_response(
        404, schema=ErrorSchema, description="No checkpoint at size, old past it, or no such shard"
    )
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """The consistency proof (RFC 6962) of the global log (shard
        ``shard``'s) from ``old`` to ``size`` (a published checkpoint's; the
        latest by default)."""
        receipts = receipts_or_404()
        log = global_log(receipts, args["shard"])
        size, note = _global_size(receipts, log, args["size"])
        old = args["old"]
        if old > size:
            raise ApiError(404, f"no proof from {old}: past size {size}")
        proof = receipts.global_consistency(old, size, log.shard)
        return {"old": old, "size": size, "proof": [b64(h) for h in proof], "checkpoint": note}


@blp.route("/receipts/inclusion")
class GlobalInclusion(MethodView):
    @blp.arguments(InclusionArgsSchema, location="query")
    @blp.response(200, InclusionSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="Not in that tree")
    @blp.alt_response(503, schema=ErrorSchema, description="A shard that may hold it is down")
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """Where a game's (or tournament's) head at ``version`` is in the
        global log of its shard (named in the answer), and its inclusion
        proof in a published checkpoint's tree."""
        receipts = receipts_or_404()
        aggregate_id = args["aggregate_id"]
        shard = receipts.shard_of(aggregate_id)
        if shard is None:
            raise ApiError(404, f"no game or tournament {aggregate_id}")
        log = global_log(receipts, shard)
        size, note = _global_size(receipts, log, args["size"])
        try:
            index, proof = receipts.global_inclusion(aggregate_id, args["version"], size, shard)
        except LookupError as e:
            raise ApiError(404, str(e)) from None
        return {
            "shard": shard,
            "origin": log.origin,
            "index": index,
            "size": size,
            "proof": [b64(h) for h in proof],
            "checkpoint": note,
        }


@blp.route("/receipts/logs/<uuid:aggregate_id>/checkpoint")
class AggregateCheckpoint(MethodView):
    @blp.response(200, content_type="text/plain")
    @blp.alt_response(404, schema=ErrorSchema, description="No such game or tournament")
    def get(self, aggregate_id: UUID) -> Response:
        """A game's (or tournament's) log: its checkpoint, signed now."""
        receipts = receipts_or_404()
        tree = receipts.trees.tree(aggregate_id)
        if tree is None:
            raise ApiError(404, f"no game or tournament {aggregate_id}")
        with refusals():
            return text(receipts.trees.sign_tree(aggregate_id, tree).encode())


@blp.route("/receipts/logs/<uuid:aggregate_id>/consistency")
class AggregateConsistency(MethodView):
    @blp.arguments(SizesSchema, location="query")
    @blp.response(200, ConsistencySchema)
    @blp.alt_response(
        404, schema=ErrorSchema, description="No such game or tournament, or a size past its log"
    )
    def get(self, args: dict[str, Any], aggregate_id: UUID) -> dict[str, Any]:
        """The consistency proof of a game's log from ``old`` to ``size``
        (its size now by default), with the checkpoint at ``size`` signed."""
        receipts = receipts_or_404()
        tree = receipts.trees.tree(aggregate_id)
        if tree is None:
            raise ApiError(404, f"no game or tournament {aggregate_id}")
        size = tree.size if args["size"] is None else args["size"]
        old = args["old"]
        if not old <= size <= tree.size:
            raise ApiError(404, f"no proof from {old} to {size}: the log has {tree.size} events")
        with refusals():
            signed = receipts.trees.sign_tree(aggregate_id, tree, size)
        return {
            "old": old,
            "size": size,
            "proof": [b64(h) for h in tree.consistency(old, size)],
            "checkpoint": signed.encode(),
        }


@blp.route("/receipts/logs/<uuid:aggregate_id>/receipt")
class AggregateReceipt(MethodView):
    @blp.arguments(ReceiptArgsSchema, location="query")
    @blp.response(200, content_type="text/plain")
    @blp.alt_response(
        404, schema=ErrorSchema, description="No such game or tournament, or a version past its log"
    )
    def get(self, args: dict[str, Any], aggregate_id: UUID) -> Response:
        """The receipt (C2SP tlog-proof) of the event at ``version`` in the
        log's tree of ``size`` (now by default)."""
        receipts = receipts_or_404()
        return text(receipt_in_log(receipts, aggregate_id, args["version"], args["size"]).encode())

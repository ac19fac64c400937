"""Marshmallow schemas for every request and response of the API."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.accounts.aggregate import ADMISSIONS
from domain.catalog import STONES
from domain.clock import PRESETS
from domain.engine import MAX_CONTRIBUTION
from domain.names import MAX_NAME
from domain.ruleset import DRAW_VARIANTS

SOURCE = validate.Regexp(
    r"^(cabinet|hand:[0-9]|table:[0-9]|sequence:[0-9]:(" + "|".join(STONES) + r"):[1-7])$",
    error="not a place a card can be: cabinet, hand:<seat>, table:<seat> or "
    "sequence:<seat>:<column>:<stage>",
)


def card_id(**kwargs: object) -> fields.Integer:
    return fields.Integer(strict=True, validate=validate.Range(0, 10_000), **kwargs)  # type: ignore[arg-type]


class StrictBoolean(fields.Boolean):
    """JSON true or false only: 0 and 1 are numbers, not booleans."""

    def _deserialize(self, value: object, attr: object, data: object, **kwargs: object) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class StrictSchema(Schema):
    class Meta:
        ordered = True


# ---- commands ------------------------------------------------------------------


class RuleSetSchema(StrictSchema):
    """A rule-set variant (RULES §10): a game's, or all of a tournament's games'."""

    draw = fields.String(load_default="five", validate=validate.OneOf(DRAW_VARIANTS))
    guild = StrictBoolean(load_default=True)
    stage_points = fields.List(
        fields.Integer(strict=True, validate=validate.Range(0, 1000)),
        validate=validate.Length(equal=7),
        load_default=None,
    )


class ClockSchema(StrictSchema):
    """R11.1: a clock's values, whole seconds (its bounds are the rule's:
    a clock out of them is refused naming R11.1)."""

    initial = fields.Integer(strict=True, required=True)
    increment = fields.Integer(strict=True, load_default=0)
    move_limit = fields.Integer(strict=True, load_default=None, allow_none=True)
    on_timeout = fields.String(load_default="withdraw", validate=validate.Length(1, 40))
    grace = fields.Integer(strict=True, load_default=5)


class CreateGameSchema(RuleSetSchema):
    clock = fields.Nested(  # no default: an absent clock is an untimed game
        ClockSchema,
        metadata={"description": "A timed game's clock (RULES §11), its values."},
    )
    clock_preset = fields.String(
        load_default=None,
        validate=validate.OneOf(sorted(PRESETS)),
        metadata={"description": "A timed game's clock by its preset's name (R11.1)."},
    )
    admission = fields.String(
        load_default="open",
        validate=validate.OneOf(ADMISSIONS),
        metadata={
            "description": "Who may join: anyone (open), or the organiser and whoever "
            "brings the game's invitation code (invitation; returned once, here)."
        },
    )


class JoinSchema(StrictSchema):
    name = fields.String(required=True, validate=validate.Length(1, MAX_NAME))
    contribution = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_CONTRIBUTION),
        metadata={"description": "Your part of the shuffle seed (RULES §9.1)."},
    )
    invitation = fields.String(
        load_default=None,
        validate=validate.Length(max=100),
        metadata={"description": "The invitation code of a game by invitation."},
    )


class AddTimeSchema(StrictSchema):
    """R11.6: more time for a seat, with the reason and who gives it."""

    seat = fields.Integer(strict=True, required=True, validate=validate.Range(0, 5))
    seconds = fields.Integer(strict=True, required=True)
    reason = fields.String(required=True, validate=validate.Length(1, MAX_NAME))
    by = fields.String(required=True, validate=validate.Length(1, MAX_NAME))


class ClocksChangeSchema(StrictSchema):
    """R11.6: a pause or a resumption, with the reason and who makes it."""

    reason = fields.String(required=True, validate=validate.Length(1, MAX_NAME))
    by = fields.String(required=True, validate=validate.Length(1, MAX_NAME))


# how every seat in the API's JSON is numbered (a field ``seat``, an event's
# or a view's ``player``, ``turn``, ``winners``, a location's ``table:<seat>``)
SEAT_INDEX = "The seat's index, counted from 0; the pages show seat index + 1."


class WithdrawSchema(StrictSchema):
    """The seat a remove-seat or withdraw command names."""

    seat = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(0, 5),
        metadata={"description": SEAT_INDEX},
    )


class DiscardSchema(StrictSchema):
    card = card_id(required=True)


class ComponentSchema(StrictSchema):
    card = card_id(required=True)
    source = fields.String(
        load_default=None,
        validate=SOURCE,
        metadata={
            "description": "Where the card lies: cabinet, table:<seat> or "
            "sequence:<seat>:<column>:<stage>. Checked when given."
        },
    )


class AssembleSchema(StrictSchema):
    card = card_id(required=True)
    components = fields.List(
        fields.Nested(ComponentSchema), required=True, validate=validate.Length(max=6)
    )


class PlaceSchema(StrictSchema):
    column = fields.String(required=True, validate=validate.OneOf(STONES))
    card = card_id(required=True)
    source = fields.String(load_default=None, validate=SOURCE)


class CastSchema(StrictSchema):
    spell = card_id(required=True)
    card = card_id(load_default=None, allow_none=True)
    recipe = card_id(load_default=None, allow_none=True)
    column = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(STONES))


class PassSchema(StrictSchema):
    pass


class OutcomeSchema(StrictSchema):
    game_id = fields.UUID(required=True)
    position = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "Log position of the command's last event "
            "(null when a retried command id is answered again)."
        },
    )
    version = fields.Integer(required=True)
    replayed = fields.Boolean(required=True)
    receipt = fields.String(
        allow_none=True,
        metadata={
            "description": "The receipt of the command's last event: a C2SP tlog-proof "
            "(index, inclusion proof, signed checkpoint) in its log (README, Receipts); "
            "null when receipts are off."
        },
    )


class CreatedSchema(OutcomeSchema):
    organiser_token = fields.String(
        required=True, metadata={"description": "Shown once; starts the game."}
    )
    invitation = fields.String(
        allow_none=True,
        metadata={"description": "A game by invitation: the code its joins need (shown once)."},
    )


class JoinedSchema(OutcomeSchema):
    seat = fields.Integer(allow_none=True, required=True, metadata={"description": SEAT_INDEX})
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The seat's secret token, shown once."},
    )


# ---- queries ---------------------------------------------------------------------


class AfterSchema(StrictSchema):
    after = fields.Integer(
        strict=False,
        validate=validate.Range(0, 2**62),
        load_default=None,
        metadata={"description": "Wait (bounded) until the view reflects this position."},
    )


class SinceSchema(AfterSchema):
    since = fields.Integer(
        strict=False,
        validate=validate.Range(0, 2**31),
        load_default=0,
        metadata={"description": "Only the entries after this game version."},
    )


class LimitSchema(AfterSchema):
    limit = fields.Integer(strict=False, validate=validate.Range(1, 10_000), load_default=100)


class ViewSchema(StrictSchema):
    position = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "The log position the view reflects."},
    )
    positions = fields.List(
        fields.Integer(allow_none=True),
        metadata={
            "description": "With shards, an answer spanning them: the view's position in "
            "each shard, by shard (position is then null)."
        },
    )
    data = fields.Raw(required=True)


class MoveRequestSchema(StrictSchema):
    """A legal move as the request that makes it: post ``body`` to ``path``."""

    method = fields.String(required=True)
    path = fields.String(required=True)
    body = fields.Dict(required=True)


class LegalMovesSchema(StrictSchema):
    seat = fields.Integer(required=True, metadata={"description": SEAT_INDEX})
    version = fields.Integer(required=True)
    moves = fields.List(fields.Nested(MoveRequestSchema), required=True)
    reason = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Why there is no legal move now (with the rule), if none."},
    )


class HealthSchema(StrictSchema):
    status = fields.String(required=True)
    checks = fields.Dict(keys=fields.String(), values=fields.String())
    lag = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={"description": "/readyz: each view's distance behind the log, in positions"},
    )
    silence = fields.Dict(
        keys=fields.String(),
        values=fields.Float(),
        metadata={
            "description": "/readyz: seconds since each projection's runner's last heartbeat"
        },
    )


class ErrorSchema(StrictSchema):
    """The one error shape (api/errors.py)."""

    code = fields.Integer(required=True, metadata={"description": "HTTP status code"})
    status = fields.String(required=True, metadata={"description": "HTTP status name"})
    message = fields.String(required=True)
    errors = fields.Dict(
        keys=fields.String(), metadata={"description": "Invalid fields, by location"}
    )
    rule = fields.String(
        allow_none=True, metadata={"description": "The rule id (RULES.md) a move broke"}
    )

"""Marshmallow schemas of the tournament commands (TOURNAMENT.md T…).

Bounds that are rules (table sizes in order, a penalty's multiple of 1/2,
a name's key) are the domain's to refuse, with their rule id (409); these
schemas refuse what is not even a value of the right kind (422).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from marshmallow import ValidationError, fields, validate

from api.schemas import JoinSchema, RuleSetSchema, StrictSchema
from domain.engine import MAX_CONTRIBUTION
from domain.tournaments.aggregate import DEFAULT_WEIGHT, MAX_TOURNAMENT_NAME
from domain.tournaments.cut import CUT_TABLES
from domain.tournaments.decide import MAX_TEXT
from domain.tournaments.entrants import MAX_TEAM
from domain.tournaments.state import PROCEDURES, REGROUP_1
from domain.tournaments.tables import TableSizes

MAX_BY = 40  # who calls, corrects or penalises (domain/tournaments/decide.py)
MAX_BEACON_VALUE = 1000  # our bound on a beacon's value, a public random output
MAX_ROUND_SECONDS = 30 * 86_400  # our bound: a round of at most 30 days
MAX_ROUNDS = 100
MAX_PLAYER = 1_000_000


def _strict_int(*, minimum: int, maximum: int, **kwargs: Any) -> fields.Integer:
    return fields.Integer(strict=True, validate=validate.Range(minimum, maximum), **kwargs)


def _player(**kwargs: Any) -> fields.Integer:
    return _strict_int(
        minimum=1,
        maximum=MAX_PLAYER,
        metadata={"description": "A registration number (from 1)."},
        **kwargs,
    )


def _by() -> fields.String:
    return fields.String(
        load_default="organiser",
        validate=validate.Length(1, MAX_BY),
        metadata={"description": "Who does it, as the log will name them."},
    )


class ExactFraction(fields.String):
    """An exact fraction "p/q" (TOURNAMENT.md, encodings), read as one.

    A text of another shape (a sign "+", spaces, a leading zero, a zero
    denominator, a decimal point) is invalid input; a well-shaped one is the
    value it writes ("2/4" is 1/2), and what that value may be is the
    domain's to say, with its rule (a penalty: T7.2)."""

    SHAPE = re.compile(r"-?(0|[1-9][0-9]{0,8})/[1-9][0-9]{0,8}")

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": f"^{self.SHAPE.pattern}$", **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not self.SHAPE.fullmatch(text):
            raise ValidationError('an exact fraction is written "p/q", like "1/2"')
        numerator, _, denominator = text.partition("/")
        return Fraction(int(numerator), int(denominator))


# ---- commands ------------------------------------------------------------------


class TablesSchema(StrictSchema):
    """T1.1: table sizes; 2 ≤ min ≤ preferred ≤ max ≤ 5 (else 409 T1.1)."""

    min = _strict_int(minimum=2, maximum=5, load_default=TableSizes.min)
    preferred = _strict_int(minimum=2, maximum=5, load_default=TableSizes.preferred)
    max = _strict_int(minimum=2, maximum=5, load_default=TableSizes.max)


def _default_tables() -> dict[str, int]:
    sizes = TableSizes()
    return {"min": sizes.min, "preferred": sizes.preferred, "max": sizes.max}


class CreateTournamentSchema(RuleSetSchema):
    """T1.1; ``draw``, ``guild`` and ``stage_points``: the rule set of all its games."""

    name = fields.String(required=True, validate=validate.Length(1, MAX_TOURNAMENT_NAME))
    tables = fields.Nested(TablesSchema, load_default=_default_tables)
    weight = _strict_int(
        minimum=1,
        maximum=1000,
        load_default=DEFAULT_WEIGHT,
        metadata={"description": "T4.2's pairing weight W."},
    )
    late_until = _strict_int(
        minimum=1,
        maximum=MAX_ROUNDS,
        load_default=1,
        metadata={"description": "T2.3: registrations until round L is paired."},
    )
    time_limit = _strict_int(
        minimum=1,
        maximum=MAX_ROUND_SECONDS,
        load_default=None,
        allow_none=True,
        metadata={"description": "T8.1: seconds per round; none without."},
    )
    rounds = _strict_int(
        minimum=1,
        maximum=MAX_ROUNDS,
        load_default=None,
        allow_none=True,
        metadata={"description": "T1.1: fixed when round 1 is paired when not given."},
    )
    beacon = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_TOURNAMENT_NAME),
        metadata={"description": "T1.3: names the public value round 1 will be paired with."},
    )
    procedure = fields.String(
        load_default=REGROUP_1,
        validate=validate.OneOf(PROCEDURES),
        metadata={"description": "T4.2, T4.2b: the pairing procedure, recorded in every round."},
    )
    cut = _strict_int(
        minimum=1,
        maximum=max(CUT_TABLES),
        load_default=None,
        allow_none=True,
        metadata={
            "description": "T12.1: a top cut of k tables after the Swiss rounds (1, 3, 4 or 5; "
            "k within the table sizes when k > 1); none without."
        },
    )


class RegisterSchema(JoinSchema):
    contribution = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_CONTRIBUTION),
        metadata={"description": "Your part of the tournament seed (T1.3)."},
    )
    team = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_TEAM),
        metadata={
            "description": "T11.1: your team, if any: players of one team (by T2.1's key) "
            "are kept apart at the tables where the pairing can."
        },
    )


class ConstraintSchema(StrictSchema):
    players = fields.List(
        _player(),
        required=True,
        validate=validate.Length(2, 2),
        metadata={"description": "T11.1: two registration numbers who must not share a table."},
    )
    reason = fields.String(required=True, validate=validate.Length(1, MAX_TEXT))
    by = _by()


class DropSchema(StrictSchema):
    player = _player(required=True)


class PairSchema(StrictSchema):
    beacon = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=MAX_BEACON_VALUE),
        metadata={"description": "Round 1 only: the value of the beacon it named (T1.3)."},
    )


class CallSchema(StrictSchema):
    by = _by()


class CorrectionSchema(StrictSchema):
    game = fields.UUID(required=True)
    places = fields.List(
        _strict_int(minimum=1, maximum=5),
        required=True,
        validate=validate.Length(2, 5),
        metadata={"description": "The new places in seat order, a competition ranking."},
    )
    reason = fields.String(required=True, validate=validate.Length(1, MAX_TEXT))
    by = _by()


class PenaltySchema(StrictSchema):
    player = _player(required=True)
    points = ExactFraction(
        required=True,
        metadata={"description": 'Match points to subtract, "p/q": a positive multiple of 1/2.'},
    )
    reason = fields.String(required=True, validate=validate.Length(1, MAX_TEXT))
    by = _by()


# ---- answers ---------------------------------------------------------------------


class TournamentOutcomeSchema(StrictSchema):
    tournament_id = fields.UUID(required=True)
    position = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "Log position of the command's last event "
            "(null when a retried command id is answered again)."
        },
    )
    version = fields.Integer(required=True, metadata={"description": "The tournament's version."})
    replayed = fields.Boolean(required=True)
    receipt = fields.String(
        allow_none=True,
        metadata={
            "description": "The receipt of the command's last event: a C2SP tlog-proof "
            "(index, inclusion proof, signed checkpoint) in its log (README, Receipts); "
            "null when receipts are off."
        },
    )


class TournamentCreatedSchema(TournamentOutcomeSchema):
    organiser_token = fields.String(
        required=True, metadata={"description": "Shown once (empty on a retry)."}
    )


class RegisteredSchema(TournamentOutcomeSchema):
    player = fields.Integer(required=True, metadata={"description": "The registration number."})
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The player's token for all their games, shown once."},
    )


class PairedSchema(TournamentOutcomeSchema):
    round = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "The round paired (null when a retried command is answered)."},
    )

"""Who may see what of an event: the one disclosure policy (R1.3, R9).

Each event class declares its ``hidden`` and ``identity`` fields
(domain/events.py); ``disclose`` applies that declaration for an audience.
What shows an event to someone goes through it: the chain's sealing
(domain/chain.py), the export and the live stream (the auditor's form,
``domain.audit.Record.for_auditor``), the move log and the seats view
(projections/). The public table takes the public form of every event with
a hidden field (``HIDING``) and reads the others' public fields by name. The
hands projection keeps each seat's own cards under that seat's key, served to
that seat alone: what ``seat(k)`` may see.

The audiences:

- ``PUBLIC``: anyone watching. No hidden value until the game has ended,
  only its summary (how many cards were dealt or drawn); no identity field.
- ``seat(k)``: a player. As the public, and the cards of seat k itself: its
  draws, its part of the deal.
- ``ORGANISER``: as the public, and the identity fields (the token hashes
  of the seats it admitted). An organiser never sees a hand: an arbiter who
  could would be a leak.
- ``AUDITOR``: anyone checking the log: the event as the hash chain covers
  it. Hidden values are sealed (``seal``, domain/chain.py) until the game
  has ended, then in clear; identity fields are kept, because the chain is
  computed over them — a seat's token hash and a command id are part of
  what was recorded, and an export without them could not be checked. They
  disclose nothing: a token hash is SHA-256 of 256 random bits (the
  service's token, or a client's own, which the API holds to the same
  length), a command id a hash of the caller's key within the caller's
  token and of the request. The move log and the
  views are for players, who have no use for them, so they leave them out.

Payloads are an event's own fields: ``disclose`` drops the envelope
(id, version, timestamp, chain, topic) if it is given ``vars(event)``.

Beside the events, one thing is shown live: a seat's **turn offer**, when
its turn comes, its own hand and every move it may make (api/turn_offers.py),
sent on that seat's own stream so that its client need not ask for them.
Both are what ``seat(k)`` may see of its own cards, and nothing else may:
``sees_turn_offer`` is true for that seat alone, never the public, another
seat, the organiser or the auditor (R1.3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from domain.events import EVENT_TYPES, Hidden
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES

ENVELOPE = frozenset(
    {"originator_id", "originator_version", "timestamp", "chain", "originator_topic"}
)
Seal = Callable[[Any], str]


@dataclass(frozen=True)
class Audience:
    kind: Literal["public", "seat", "organiser", "auditor"]
    seat: int | None = None


PUBLIC = Audience("public")
ORGANISER = Audience("organiser")
AUDITOR = Audience("auditor")


def seat(k: int) -> Audience:
    return Audience("seat", k)


@dataclass(frozen=True)
class Policy:
    hidden: Mapping[str, Hidden]
    # what a viewer's payload leaves out before hidden values are summarised
    left_out: frozenset[str]
    left_out_by_organiser: frozenset[str]


def _policy(cls: type[Any]) -> Policy:
    hidden: Mapping[str, Hidden] = cls.hidden
    identity = frozenset(cls.identity)
    return Policy(
        hidden,
        ENVELOPE | identity | frozenset(hidden),
        ENVELOPE | frozenset(hidden),
    )


POLICIES: dict[str, Policy] = {
    name: _policy(cls) for name, cls in (EVENT_TYPES | TOURNAMENT_EVENT_TYPES).items()
}


def own_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """An event's own fields: everything but its envelope."""
    return {k: v for k, v in fields.items() if k not in ENVELOPE}


# For the event types with no hidden field, what each kind of audience does
# not see of them: the envelope, and the identity fields but for the
# organiser and the auditor.
_PLAIN: dict[str, dict[str, frozenset[str]]] = {
    kind: {
        name: ENVELOPE if kind in ("organiser", "auditor") else p.left_out
        for name, p in POLICIES.items()
        if not p.hidden
    }
    for kind in ("public", "seat", "organiser", "auditor")
}

# The event types with a hidden field: the only ones whose public form
# differs from the event but for its envelope and identity fields.
HIDING: frozenset[str] = frozenset(name for name, p in POLICIES.items() if p.hidden)


def hidden_fields(event_type: str) -> tuple[str, ...]:
    """The hidden fields of an event type (none for an unknown type)."""
    policy = POLICIES.get(event_type)
    return tuple(policy.hidden) if policy else ()


def disclose(
    event_type: str,
    fields: Mapping[str, Any],
    audience: Audience,
    *,
    ended: bool,
    seal: Seal | None = None,
) -> dict[str, Any]:
    """The event's own fields as ``audience`` may see them; ``ended``: the
    game has ended (R9.3: then nothing is hidden), or the tournament has
    finished (T9.3). The auditor's form needs
    ``seal`` for the hidden values of a game still running."""
    kind = audience.kind
    plain = _PLAIN[kind].get(event_type)
    if plain is not None:  # nothing hidden: the common case, kept lean for rebuilds
        return {k: v for k, v in fields.items() if k not in plain}
    policy = POLICIES[event_type]
    if kind == "auditor":
        if ended:
            return own_fields(fields)
        if seal is None:
            raise ValueError("the auditor's form of a running game's hidden fields needs a seal")
        return {
            k: seal(v) if k in policy.hidden else v for k, v in fields.items() if k not in ENVELOPE
        }
    left_out = policy.left_out_by_organiser if kind == "organiser" else policy.left_out
    shown = {k: v for k, v in fields.items() if k not in left_out}
    for name, hidden in policy.hidden.items():
        if name not in fields:
            continue
        value = fields[name]
        if hidden.summary is not None and hidden.summarise is not None:
            shown[hidden.summary] = hidden.summarise(value)
        if ended:
            shown[name] = value
        elif kind == "seat" and audience.seat is not None:
            if hidden.seen_by == "player" and fields.get("player") == audience.seat:
                shown[name] = value
            elif hidden.seen_by == "by_seat":
                shown[name] = [v if i == audience.seat else None for i, v in enumerate(value)]
    return shown


def sees_turn_offer(audience: Audience, offered_to: int) -> bool:
    """Whether ``audience`` may see the turn offer of seat ``offered_to`` (its
    hand and its legal moves, which name cards of its hand): that seat alone,
    while the game runs (an offer is made only then)."""
    return audience.kind == "seat" and audience.seat == offered_to

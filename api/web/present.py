"""What the pages say about a table, its log and its legal moves, in words
and card references, in one language.

Texts are lists of parts (projections/describe.py): plain strings (escaped
by the templates) and ``CardRef``s (rendered by one macro, which shows the
card's id, localized name, kind and element, and marks it ``data-card``).
The log's entries are put into words by the move log's own describer, with
api/web/i18n.py's words for the language. Everything here reads
what the views and the legal-moves decision give; nothing reads a hand but
the seat's own. Where a card lies and what a move scores are not worked
out here: the offers ask ``GameState.locate`` and ``engine.preview`` on
what the seat knows (``GameState.seen_by``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from api.web.i18n import STRINGS, cards_n, column_name, rule_words, text
from domain.catalog import load_catalog
from domain.clock import PRESETS
from domain.engine import Award, preview
from domain.errors import RuleError
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.state import GameState
from domain.zones import Location
from projections.describe import CardRef, Part, Words, compose, seat_name
from projections.describe import describe as describe_event


def say(key: str, lang: str, **values: Any) -> list[Part]:
    """The words for ``key`` (api/web/i18n.py) with parts filled in."""
    return compose(STRINGS[key][1 if lang == "ru" else 0], **values)


def rules_words(draw: str, guild: bool, lang: str) -> str:
    return ", ".join(
        [
            text("rules_five" if draw == "five" else "rules_one", lang),
            text("rules_guild" if guild else "rules_no_guild", lang),
        ]
    )


def clock_words(clock: dict[str, Any] | None, lang: str) -> str:
    """A timed game's speed (RULES §11), as the lobby shows it: its preset's
    name when its values are a preset's, and its initial time and increment
    ("3 min + 5 s"); "" for an untimed game."""
    if not clock:
        return ""
    russian = lang == "ru"

    def span(seconds: int) -> str:
        for unit, size, ru in (("d", 86400, "д"), ("h", 3600, "ч"), ("min", 60, "мин")):
            if seconds >= size and seconds % size == 0:
                return f"{seconds // size} {ru if russian else unit}"
        return f"{seconds} {'с' if russian else 's'}"

    speed = f"{span(clock['initial'])} + {span(clock['increment'])}"
    named = next((name for name, value in PRESETS.items() if value.as_dict() == clock), None)
    return f"{named} {speed}" if named else speed


@cache
def log_words(lang: str) -> Words:
    """What the pages' log says in ``lang`` besides the describer's
    templates (projections/describe.py): api/web/i18n.py's words."""
    return Words(
        russian=lang == "ru",
        card=CardRef,
        column=lambda column: column_name(column, lang),
        rule=lambda rule: f"{rule}: {rule_words(rule, lang)}",
        cards=lambda n: cards_n(n, lang),
        variant=lambda draw, guild: rules_words(draw, guild, lang),
        conjunction=text("and", lang),
    )


def describe(entry: Mapping[str, Any], names: Sequence[str], lang: str) -> list[Part]:
    """A log entry (the public form of an event, as the move log holds it)
    in words, by the one describer of events (``projections.describe``):
    ``names`` are the players' by seat."""
    return describe_event(entry, names, log_words(lang))


# ---- where a card lies -------------------------------------------------------------------


def spot_words(spot: Location | None, names: Sequence[str], me: int | None, lang: str) -> str:
    """Where a card lies (``GameState.locate``), as the seat ``me`` reads it."""
    if spot is None:
        return "?"
    if spot.zone == "cabinet":
        return text("from_cabinet", lang)
    if spot.zone == "hand":
        return text("from_hand", lang)
    if spot.zone == "table":
        if spot.seat == me:
            return text("from_own_table", lang)
        return text("from_table", lang, name=seat_name(names, spot.seat))
    return text(
        "from_sequence",
        lang,
        name=seat_name(names, spot.seat),
        column=column_name(spot.column, lang),
        stage=spot.stage,
    )


# ---- the seat's legal moves, as the page offers them ------------------------------------


Gain = tuple[str, int]  # an award in words, and its points


@dataclass
class Offer:
    """One legal move: what posting it sends (``value``), its words, its
    components (an assembly's, with where each lies) and the points it
    will score, by seat."""

    kind: str
    card: int | None  # the card it plays (None: a pass)
    value: str
    words: list[Part]
    components: list[tuple[int, str]] = field(default_factory=list)
    gains: list[Gain] = field(default_factory=list)


@dataclass
class CardOffers:
    card: int
    offers: list[Offer]


@dataclass
class Offers:
    by_card: list[CardOffers]  # the hand, in order; a card may have none
    other: list[Offer]  # moves with a card that is not in the hand
    passing: Offer | None
    reason: str | None
    version: int


def move_value(move: Move, request: Mapping[str, Any]) -> str:
    kind = str(request["path"]).rsplit("/", 1)[1]
    return json.dumps({"kind": kind, "body": request["body"]}, sort_keys=True)


def gains_of(awards: Sequence[Award], me: int, names: Sequence[str], lang: str) -> list[Gain]:
    """A move's awards (``engine.preview``) in words: the seat's own (R4.1's
    point for a discard onto an emptied stack, R4.4, R4.6) and each other
    seat's half (R4.4/half, R4.6/half)."""
    gains = []
    for award in awards:
        if award.seat != me:
            name = seat_name(names, award.seat)
            words = text("they_score", lang, name=name, n=award.points)
        elif award.rule == "R4.1":
            words = text("discard_point", lang)
        else:
            words = text("you_score", lang, n=award.points)
        gains.append((words, award.points))
    return gains


def offers_of(
    moves: Sequence[tuple[Move, Mapping[str, Any]]],
    *,
    state: GameState,
    me: int,
    reason: str | None,
    version: int,
    lang: str,
) -> Offers:
    """The seat's legal moves (each with the request that makes it, as the
    legal-moves query gives it), grouped by the card they play. ``state`` is
    what the seat knows (``GameState.seen_by``: the views' table and its
    hand): where each card lies is its ``locate``, and the points each move
    scores the engine's ``preview`` on it. A move it cannot judge (the views
    are behind the decision) is offered without its points."""
    cards = load_catalog().cards
    names = state.names
    hand = state.hands[me]
    by_card: dict[int, list[Offer]] = {card: [] for card in hand}
    other: list[Offer] = []
    passing = None
    for move, request in moves:
        value = move_value(move, request)
        if isinstance(move, Pass):
            passing = Offer("pass", None, value, say("pass", lang))
            continue
        if isinstance(move, Discard):
            offer = Offer("discard", move.card, value, say("discard", lang))
        elif isinstance(move, Assemble):
            components = [
                (component, spot_words(state.locate(component), names, me, lang))
                for component in move.components
            ]
            offer = Offer("assemble", move.card, value, say("assemble_with", lang), components)
        elif isinstance(move, Place):
            stage = state.last_stage(me, move.column) + 1  # R4.5, R5.2
            words = say("place_into", lang, column=column_name(move.column, lang), stage=stage)
            where = [(move.card, spot_words(state.locate(move.card), names, me, lang))]
            offer = Offer("place", move.card, value, words, where)
        else:
            assert isinstance(move, Cast)
            kind = cards[move.spell].spell or ""
            values: dict[str, Any] = {
                "card": CardRef(move.card) if move.card is not None else "—",
                "recipe": CardRef(move.recipe) if move.recipe is not None else "—",
                "column": column_name(move.column, lang) if move.column else "—",
            }
            offer = Offer("cast", move.spell, value, say(f"cast_{kind}", lang, **values))
        with suppress(RuleError):  # the views are behind the decision: no points yet
            offer.gains = gains_of(preview(state, move), me, names, lang)
        card = offer.card
        assert card is not None
        if isinstance(move, Place) and card not in by_card:  # from a table or a Sequence
            other.append(offer)
        else:
            by_card.setdefault(card, []).append(offer)
    for card, offers in by_card.items():
        if card not in hand:  # the hand view is behind the decision: offered all the same
            other.extend(offers)
    return Offers(
        by_card=[CardOffers(card, by_card[card]) for card in hand],
        other=other,
        passing=passing,
        reason=reason,
        version=version,
    )

"""What the pages say about a table, its log and its legal moves, in words
and card references, in one language.

Texts are lists of parts: plain strings (escaped by the templates) and
``CardRef``s (rendered by one macro, which shows the card's id, localized
name, kind and element, and marks it ``data-card``). Everything here reads
what the views and the legal-moves decision give; nothing reads a hand but
the seat's own. Where a card lies and what a move scores are not worked
out here: the offers ask ``GameState.locate`` and ``engine.preview`` on
what the seat knows (``GameState.seen_by``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from api.web.i18n import STRINGS, cards_n, column_name, rule_words, text
from domain.catalog import load_catalog
from domain.engine import Award, preview
from domain.errors import RuleError
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.state import GameState
from domain.zones import Location


@dataclass(frozen=True)
class CardRef:
    id: int


Part = str | CardRef
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def compose(template: str, **values: Any) -> list[Part]:
    """``template``'s text with each ``{name}`` replaced by its value: a
    string, a number, a CardRef, or a list of parts (kept as parts)."""
    parts: list[Part] = []
    at = 0
    for match in PLACEHOLDER.finditer(template):
        if match.start() > at:
            parts.append(template[at : match.start()])
        value = values[match.group(1)]
        if isinstance(value, list):
            parts.extend(value)
        elif isinstance(value, CardRef):
            parts.append(value)
        else:
            parts.append(str(value))
        at = match.end()
    if at < len(template):
        parts.append(template[at:])
    return parts


def say(key: str, lang: str, **values: Any) -> list[Part]:
    """The words for ``key`` (api/web/i18n.py) with parts filled in."""
    return compose(STRINGS[key][1 if lang == "ru" else 0], **values)


def card_list(cards: Sequence[int], lang: str) -> list[Part]:
    parts: list[Part] = []
    for i, card in enumerate(cards):
        if i:
            parts.append(", ")
        parts.append(CardRef(card))
    return parts or ["—"]


def seat_name(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"


# ---- the move log ------------------------------------------------------------------

LOG: dict[str, tuple[str, str]] = {
    "GameCreated": ("Game created: {rules}", "Игра создана: {rules}"),
    "TournamentGameCreated": (
        "Game created: {rules}; round {round}, table {table} of a tournament",
        "Игра создана: {rules}; тур {round}, стол {table} турнира",
    ),
    "PlayerJoined": ("{who} took seat {seat}", "{who} занимает место {seat}"),
    "PlayerLeft": (
        "Seat {seat} was removed; the seats after it move down",
        "Место {seat} освобождено; следующие места сдвинулись",
    ),
    "GameStarted": (
        "Game started, {n} players; cabinet: {cards}",
        "Игра началась, игроков: {n}; в шкафу: {cards}",
    ),
    "CardsDealt": ("Dealt: {counts}", "Сдано: {counts}"),
    "CardsDrawn": ("{who} drew {count}", "{who} берёт из колоды: {count}"),
    "CardDiscarded": ("{who} discarded {card}", "{who} сбрасывает {card}"),
    "StageStolen": (
        "{who} took {card} from stage {stage} of {owner}'s {column} column",
        "{who} забирает {card} с этапа {stage} цепочки {column} игрока {owner}",
    ),
    "StageTaken": (
        "{who} took {card} from stage {stage} of their own {column} column",
        "{who} забирает {card} с этапа {stage} своей цепочки {column}",
    ),
    "RecipeAssembled": ("{who} assembled {card} from {cards}", "{who} собирает {card} из {cards}"),
    "RecipePlaced": (
        "{who} placed {card} on stage {stage} of their {column} column",
        "{who} выкладывает {card} на этап {stage} цепочки {column}",
    ),
    "ComponentsReturned": ("Back to the cabinet: {cards}", "Вернулись в шкаф: {cards}"),
    "cast:knowledge": (
        "{who} cast {spell}, taking {card}",
        "{who} применяет {spell} и берёт {card}",
    ),
    "cast:transformation": (
        "{who} cast {spell}, giving {recipe} for {card}",
        "{who} применяет {spell}: отдаёт {recipe} за {card}",
    ),
    "cast:destruction": (
        "{who} cast {spell} on {recipe}, keeping {card}",
        "{who} применяет {spell} к {recipe}, оставив {card}",
    ),
    "cast:transmutation": (
        "{who} cast {spell} into stage {stage} of their {column} column",
        "{who} применяет {spell} на этап {stage} цепочки {column}",
    ),
    "PointsAwarded": (
        "{who} scored {points} ({rule}: {what})",
        "{who} получает {points} ({rule}: {what})",
    ),
    "SequenceCompleted": (
        "{who} completed their {column} column",
        "{who} завершает цепочку {column}",
    ),
    "turn": ("{who} ended the turn; {next} plays", "{who} завершает ход; ходит {next}"),
    "turn:passed": ("{who} passed; {next} plays", "{who} пасует; ходит {next}"),
    "SeatWithdrawn": (
        "{who} withdrew: their turns pass (R3.5)",
        "{who} выбывает: его ходы пропускаются (R3.5)",
    ),
    "GameCalled": (
        "{by} called the game (T8.1): it ends after the last seat's turn",
        "{by} объявляет конец игры (T8.1): она закончится после хода последнего места",
    ),
    "GameEnded": (
        "Game over ({reason}): {winners} won; scores {scores}",
        "Игра окончена ({reason}): победа — {winners}; очки {scores}",
    ),
}


def rules_words(draw: str, guild: bool, lang: str) -> str:
    return ", ".join(
        [
            text("rules_five" if draw == "five" else "rules_one", lang),
            text("rules_guild" if guild else "rules_no_guild", lang),
        ]
    )


def describe(entry: Mapping[str, Any], names: Sequence[str], lang: str) -> list[Part]:
    """A log entry (the public form of an event, as the move log holds it)
    in words: ``names`` are the players' by seat."""
    kind = entry["event"]
    ru = 1 if lang == "ru" else 0

    def who(key: str = "player") -> str:
        return seat_name(names, entry.get(key))

    def words(key: str, **values: Any) -> list[Part]:
        return compose(LOG[key][ru], **values)

    if kind in ("GameCreated", "TournamentGameCreated"):
        rules = rules_words(entry.get("draw", "five"), bool(entry.get("guild", True)), lang)
        return words(kind, rules=rules, round=entry.get("round"), table=entry.get("table"))
    if kind == "PlayerJoined":
        return words(kind, who=entry["name"], seat=entry["player"] + 1)
    if kind == "PlayerLeft":
        return words(kind, seat=entry["player"] + 1)
    if kind == "GameStarted":
        return words(kind, n=len(names), cards=card_list(entry["cabinet"], lang))
    if kind == "CardsDealt":
        counts: list[Part] = []
        hands = entry.get("hands")
        for seat, count in enumerate(entry["counts"]):
            if seat:
                counts.append("; " if hands else ", ")
            counts.append(f"{seat_name(names, seat)} ")
            if hands:
                counts.append(": ")
                counts.extend(card_list(hands[seat], lang))
            else:
                counts.append(str(count))
        return words(kind, counts=counts)
    if kind == "CardsDrawn":
        drawn = entry.get("cards")
        got: list[Part] = card_list(drawn, lang) if drawn else [cards_n(entry["count"], lang)]
        return words(kind, who=who(), count=got)
    if kind == "CardDiscarded":
        return words(kind, who=who(), card=CardRef(entry["card"]))
    if kind == "StageStolen":
        return words(
            kind,
            who=who(),
            owner=who("owner"),
            card=CardRef(entry["card"]),
            stage=entry["stage"],
            column=column_name(entry["column"], lang),
        )
    if kind == "StageTaken":
        column = column_name(entry["column"], lang)
        return words(
            kind, who=who(), card=CardRef(entry["card"]), stage=entry["stage"], column=column
        )
    if kind == "RecipeAssembled":
        return words(
            kind,
            who=who(),
            card=CardRef(entry["card"]),
            cards=card_list(entry["components"], lang),
        )
    if kind == "RecipePlaced":
        column = column_name(entry["column"], lang)
        return words(
            kind, who=who(), card=CardRef(entry["card"]), stage=entry["stage"], column=column
        )
    if kind == "ComponentsReturned":
        return words(kind, cards=card_list(entry["cards"], lang))
    if kind == "SpellCast":
        spell = entry["kind"]

        def ref(key: str) -> Part:
            value = entry.get(key)
            return CardRef(value) if isinstance(value, int) else "—"

        return words(
            f"cast:{spell}",
            who=who(),
            spell=CardRef(entry["spell"]),
            card=ref("card"),
            recipe=ref("recipe"),
            stage=entry.get("stage") or "—",
            column=column_name(entry["column"], lang) if entry.get("column") else "—",
        )
    if kind == "PointsAwarded":
        return words(
            kind,
            who=who(),
            points=entry["points"],
            rule=entry["rule"],
            what=rule_words(entry["rule"], lang),
        )
    if kind == "SequenceCompleted":
        return words(kind, who=who(), column=column_name(entry["column"], lang))
    if kind == "TurnEnded":
        key = "turn:passed" if entry["passed"] else "turn"
        return words(key, who=who(), next=who("next_player"))
    if kind == "SeatWithdrawn":
        return words(kind, who=who())
    if kind == "GameCalled":
        return words(kind, by=entry["by"])
    if kind == "GameEnded":
        winners = text("and", lang).join(seat_name(names, s) for s in entry["winners"])
        scores = ", ".join(str(s) for s in entry["scores"])
        return words(kind, reason=entry["reason"], winners=winners, scores=scores)
    return [kind]


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

"""What the pages say about a table, its log and its legal moves, in words
and card references, in one language.

Texts are lists of parts: plain strings (escaped by the templates) and
``CardRef``s (rendered by one macro, which shows the card's id, localized
name, kind and element, and marks it ``data-card``). Everything here reads
what the views and the legal-moves decision give; nothing reads a hand but
the seat's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from api.web.i18n import STRINGS, cards_n, column_name, rule_words, text
from domain.catalog import load_catalog
from domain.engine import half
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.table import last_filled


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


# ---- where a card lies on the public table -------------------------------------------


@dataclass(frozen=True)
class Spot:
    """Where a card lies, as the public table shows it (or in the seat's hand)."""

    zone: str  # cabinet, table, sequence, hand
    seat: int | None = None
    column: str | None = None
    stage: int | None = None


def locate(doc: Mapping[str, Any], card: int, hand: Sequence[int], me: int | None) -> Spot | None:
    if card in hand:
        return Spot("hand", me)
    if card in doc.get("cabinet", {}).values():
        return Spot("cabinet")
    for seat, recipes in enumerate(doc.get("tables", [])):
        if any(r["card"] == card for r in recipes):
            return Spot("table", seat)
    for seat, sequence in enumerate(doc.get("sequences", [])):
        for column, stages in sequence["columns"].items():
            if card in stages:
                return Spot("sequence", seat, column, stages.index(card) + 1)
    return None


def spot_words(spot: Spot | None, names: Sequence[str], me: int | None, lang: str) -> str:
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
    assert spot.column is not None
    return text(
        "from_sequence",
        lang,
        name=seat_name(names, spot.seat),
        column=column_name(spot.column, lang),
        stage=spot.stage,
    )


def next_stage(doc: Mapping[str, Any], seat: int, column: str) -> int:
    """The stage a placement into ``column`` fills: the one after its highest
    filled one (R4.5, R5.2)."""
    return last_filled(doc["sequences"][seat]["columns"][column]) + 1


# ---- the seat's legal moves, as the page offers them ------------------------------------


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
    gains: list[tuple[str, int]] = field(default_factory=list)  # (who, points)


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


def offers_of(
    moves: Sequence[tuple[Move, Mapping[str, Any]]],
    *,
    doc: Mapping[str, Any],
    hand: Sequence[int],
    me: int,
    stage_points: Sequence[int],
    reason: str | None,
    version: int,
    lang: str,
) -> Offers:
    """The seat's legal moves (each with the request that makes it, as the
    legal-moves query gives it), grouped by the card they play."""
    cards = load_catalog().cards
    names: list[str] = list(doc.get("players", []))
    by_card: dict[int, list[Offer]] = {card: [] for card in hand}
    other: list[Offer] = []
    passing = None

    def gains_of(points: int, losers: set[int]) -> list[tuple[str, int]]:
        gains = [(text("you_score", lang, n=points), points)] if points else []
        for seat in sorted(losers):  # R4.4/half, R4.6/half: as the rules score it
            lost = half(points)
            if lost:
                gains.append((text("they_score", lang, name=seat_name(names, seat), n=lost), lost))
        return gains

    for move, request in moves:
        value = move_value(move, request)
        if isinstance(move, Pass):
            passing = Offer("pass", None, value, say("pass", lang))
            continue
        if isinstance(move, Discard):
            stack = cards[move.card].stack
            point = stack not in doc.get("cabinet", {})  # R4.1: its stack is gone
            offer = Offer("discard", move.card, value, say("discard", lang))
            if point:
                offer.gains = [(text("discard_point", lang), 1)]
            by_card.setdefault(move.card, []).append(offer)
        elif isinstance(move, Assemble):
            components = []
            losers: set[int] = set()
            for component in move.components:
                spot = locate(doc, component, (), me)  # R4.2: never from a hand
                components.append((component, spot_words(spot, names, me, lang)))
                if spot and spot.zone in ("table", "sequence") and spot.seat != me:
                    assert spot.seat is not None
                    losers.add(spot.seat)
            offer = Offer("assemble", move.card, value, say("assemble_with", lang), components)
            offer.gains = gains_of(cards[move.card].points, losers)
            by_card.setdefault(move.card, []).append(offer)
        elif isinstance(move, Place):
            stage = next_stage(doc, me, move.column)
            points = stage_points[stage - 1] if stage <= len(stage_points) else 0  # R4.6
            spot = locate(doc, move.card, hand, me)
            words = say("place_into", lang, column=column_name(move.column, lang), stage=stage)
            losers = set()
            if spot and spot.zone in ("table", "sequence") and spot.seat != me:
                assert spot.seat is not None
                losers.add(spot.seat)
            where = [(move.card, spot_words(spot, names, me, lang))]
            offer = Offer("place", move.card, value, words, where)
            offer.gains = gains_of(points, losers)
            if move.card in by_card:
                by_card[move.card].append(offer)
            else:
                other.append(offer)
        elif isinstance(move, Cast):
            kind = cards[move.spell].spell or ""
            values: dict[str, Any] = {
                "card": CardRef(move.card) if move.card is not None else "—",
                "recipe": CardRef(move.recipe) if move.recipe is not None else "—",
                "column": column_name(move.column, lang) if move.column else "—",
            }
            offer = Offer("cast", move.spell, value, say(f"cast_{kind}", lang, **values))
            by_card.setdefault(move.spell, []).append(offer)
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

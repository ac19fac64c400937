"""How an event is put into words: the one describer of the move log's line
of text (projections/move_log.py) and of the web pages' log
(api/web/present.py).

``describe(entry, names, words)`` reads an entry as the move log holds it
(the public fields of an event, or all of them once GameEnded has revealed
them, with ``event``, its type) and the players' names by seat, and gives
its text as parts: strings and ``CardRef``s. ``LOG`` holds each template in
English and in Russian; ``Words`` the rest of what a language says (how a
card shows, a column's name, a rule's, a count of cards, a game's variant,
"and"): the pages' are api/web/i18n.py's (cards as ``CardRef``s), the move
log's ``PLAIN`` (English, the rules' own names, cards as their name and
id). ``plain(parts)`` writes parts as one line; ``line`` gives an entry's
line at once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.table import CARDS


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card named in a text: the pages show it as a card, ``plain`` by its
    name and id."""

    id: int


Part = str | CardRef
PLACEHOLDER = re.compile(r"\{(\w+)\}")
Template = tuple[tuple[str, str | None], ...]  # (text before, the placeholder after it)
Said = tuple[str, dict[str, Any]]  # a template's key in LOG, and its values


@functools.cache
def parse(template: str) -> Template:
    """A template's text, cut at its ``{name}`` placeholders (each template
    parsed once: the pages compose the same few for every offer)."""
    pieces: list[tuple[str, str | None]] = []
    at = 0
    for match in PLACEHOLDER.finditer(template):
        pieces.append((template[at : match.start()], match.group(1)))
        at = match.end()
    pieces.append((template[at:], None))
    return tuple(pieces)


def fill(template: Template, values: Mapping[str, Any]) -> list[Part]:
    """A parsed template with each placeholder replaced by its value: a
    string, a number, a CardRef, or a list of parts (kept as parts)."""
    parts: list[Part] = []
    for text, name in template:
        if text:
            parts.append(text)
        if name is None:
            continue
        value = values[name]
        if isinstance(value, list):
            parts.extend(value)
        elif isinstance(value, CardRef):
            parts.append(value)
        else:
            parts.append(str(value))
    return parts


def compose(template: str, **values: Any) -> list[Part]:
    """``template``'s text with each ``{name}`` replaced by its value."""
    return fill(parse(template), values)


def seat_name(names: Sequence[str], seat: int | None) -> str:
    """A seat's player's name; ``#n`` (1-based) for a seat the names miss."""
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"


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
    "PointsAwarded": ("{who} scored {points} ({rule})", "{who} получает {points} ({rule})"),
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
    "SeatWithdrawn:clock": (
        "{who} is out of time and withdrawn: their turns pass (R11.5)",
        "У {who} кончилось время, место выбывает: его ходы пропускаются (R11.5)",
    ),
    "TimeExpired": (
        "{who}'s time ran out at {at} (R11.4)",
        "У {who} кончилось время в {at} (R11.4)",
    ),
    "TimeAdded": (
        "{by} gave {who} {seconds} s more ({reason}; R11.6)",
        "{by} добавляет {who} {seconds} с ({reason}; R11.6)",
    ),
    "ClocksPaused": (
        "{by} paused the clocks ({reason}; R11.6)",
        "{by} останавливает часы ({reason}; R11.6)",
    ),
    "ClocksResumed": (
        "{by} started the clocks again ({reason}; R11.6)",
        "{by} снова запускает часы ({reason}; R11.6)",
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
# each template parsed once, by language: English, Russian
_PARSED: tuple[dict[str, Template], dict[str, Template]] = (
    {key: parse(texts[0]) for key, texts in LOG.items()},
    {key: parse(texts[1]) for key, texts in LOG.items()},
)


@dataclass(frozen=True)
class Words:
    """What a language says besides ``LOG``'s templates."""

    russian: bool  # which of LOG's texts
    card: Callable[[int], Part]  # a card: a CardRef, or its name as text
    column: Callable[[str], str]  # a Sequence column's name (R5)
    rule: Callable[[str], str]  # a rule that awards points, by its id (R8.1)
    cards: Callable[[int], str]  # a number of cards: "2 cards"
    variant: Callable[[str, bool], str]  # a game's draw rule and whether with the Guild
    conjunction: str  # between winners' names: " and "


# every card as ``plain`` writes it, made once (a card is named in most entries)
CARD_TEXTS: dict[int, str] = {card_id: f"{c.name} ({card_id})" for card_id, c in CARDS.items()}


def card_text(card: int) -> str:
    """A card as one line of text names it: its name and id."""
    return CARD_TEXTS.get(card) or f"card {card}"


PLAIN = Words(
    russian=False,
    card=card_text,
    column=str,
    rule=str,
    cards=lambda n: f"{n} card{'' if n == 1 else 's'}",
    variant=lambda draw, guild: f"draw {draw}, {'with' if guild else 'without'} the Guild",
    conjunction=" and ",
)


def plain(parts: Sequence[Part]) -> str:
    """Parts as one line of text: a card as its name and id."""
    return "".join([part if isinstance(part, str) else card_text(part.id) for part in parts])


Entry = Mapping[str, Any]


def _who(entry: Entry, names: Sequence[str], key: str = "player") -> str:
    return seat_name(names, entry.get(key))


def _card(entry: Entry, words: Words, key: str = "card") -> Part:
    value = entry.get(key)
    return words.card(value) if isinstance(value, int) else "—"


def _cards(card_ids: Sequence[int], words: Words) -> list[Part]:
    card = words.card
    parts: list[Part] = []
    for i, card_id in enumerate(card_ids):
        if i:
            parts.append(", ")
        parts.append(card(card_id))
    return parts or ["—"]


def _created(e: Entry, names: Sequence[str], words: Words) -> Said:
    rules = words.variant(e.get("draw", "five"), bool(e.get("guild", True)))
    return e["event"], {"rules": rules, "round": e.get("round"), "table": e.get("table")}


def _joined(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "PlayerJoined", {"who": e["name"], "seat": e["player"] + 1}


def _left(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "PlayerLeft", {"seat": e["player"] + 1}


def _started(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "GameStarted", {"n": len(names), "cards": _cards(e["cabinet"], words)}


def _dealt(e: Entry, names: Sequence[str], words: Words) -> Said:
    counts: list[Part] = []
    hands = e.get("hands")  # revealed at the end (R9.3)
    for seat, count in enumerate(e["counts"]):
        if seat:
            counts.append("; " if hands else ", ")
        if hands:
            counts.append(f"{seat_name(names, seat)}: ")
            counts.extend(_cards(hands[seat], words))
        else:
            counts.append(f"{seat_name(names, seat)} {count}")
    return "CardsDealt", {"counts": counts}


def _drawn(e: Entry, names: Sequence[str], words: Words) -> Said:
    drawn = e.get("cards")  # revealed at the end (R9.3)
    got = _cards(drawn, words) if drawn else [words.cards(e["count"])]
    return "CardsDrawn", {"who": _who(e, names), "count": got}


def _discarded(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "CardDiscarded", {"who": _who(e, names), "card": _card(e, words)}


def _staged(e: Entry, names: Sequence[str], words: Words) -> Said:
    """StageStolen, StageTaken, RecipePlaced: a card and a column's stage."""
    return e["event"], {
        "who": _who(e, names),
        "owner": _who(e, names, "owner"),
        "card": _card(e, words),
        "stage": e["stage"],
        "column": words.column(e["column"]),
    }


def _assembled(e: Entry, names: Sequence[str], words: Words) -> Said:
    components = _cards(e["components"], words)
    return "RecipeAssembled", {"who": _who(e, names), "card": _card(e, words), "cards": components}


def _returned(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "ComponentsReturned", {"cards": _cards(e["cards"], words)}


def _cast(e: Entry, names: Sequence[str], words: Words) -> Said:
    return f"cast:{e['kind']}", {
        "who": _who(e, names),
        "spell": _card(e, words, "spell"),
        "card": _card(e, words),
        "recipe": _card(e, words, "recipe"),
        "stage": e.get("stage") or "—",
        "column": words.column(e["column"]) if e.get("column") else "—",
    }


def _awarded(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "PointsAwarded", {
        "who": _who(e, names),
        "points": e["points"],
        "rule": words.rule(e["rule"]),
    }


def _completed(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "SequenceCompleted", {"who": _who(e, names), "column": words.column(e["column"])}


def _turn(e: Entry, names: Sequence[str], words: Words) -> Said:
    key = "turn:passed" if e["passed"] else "turn"
    return key, {"who": _who(e, names), "next": _who(e, names, "next_player")}


def _withdrawn(e: Entry, names: Sequence[str], words: Words) -> Said:
    key = "SeatWithdrawn:clock" if e.get("cause") == "clock" else "SeatWithdrawn"
    return key, {"who": _who(e, names)}


def _expired(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "TimeExpired", {"who": _who(e, names), "at": e["at"]}


def _time_added(e: Entry, names: Sequence[str], words: Words) -> Said:
    who = _who(e, names)
    return "TimeAdded", {"who": who, "seconds": e["seconds"], "reason": e["reason"], "by": e["by"]}


def _clocks(e: Entry, names: Sequence[str], words: Words) -> Said:
    return e["event"], {"reason": e["reason"], "by": e["by"]}


def _called(e: Entry, names: Sequence[str], words: Words) -> Said:
    return "GameCalled", {"by": e["by"]}


def _ended(e: Entry, names: Sequence[str], words: Words) -> Said:
    winners = words.conjunction.join(seat_name(names, s) for s in e["winners"])
    scores = ", ".join(str(s) for s in e["scores"])
    return "GameEnded", {"reason": e["reason"], "winners": winners, "scores": scores}


# event type -> how it is put into words
_DESCRIBERS: dict[str, Callable[[Entry, Sequence[str], Words], Said]] = {
    "GameCreated": _created,
    "TournamentGameCreated": _created,
    "PlayerJoined": _joined,
    "PlayerLeft": _left,
    "GameStarted": _started,
    "CardsDealt": _dealt,
    "CardsDrawn": _drawn,
    "CardDiscarded": _discarded,
    "StageStolen": _staged,
    "StageTaken": _staged,
    "RecipeAssembled": _assembled,
    "RecipePlaced": _staged,
    "ComponentsReturned": _returned,
    "SpellCast": _cast,
    "PointsAwarded": _awarded,
    "SequenceCompleted": _completed,
    "TurnEnded": _turn,
    "SeatWithdrawn": _withdrawn,
    "GameCalled": _called,
    "GameEnded": _ended,
    "TimeExpired": _expired,
    "TimeAdded": _time_added,
    "ClocksPaused": _clocks,
    "ClocksResumed": _clocks,
}


def describe(entry: Entry, names: Sequence[str], words: Words) -> list[Part]:
    """An entry of the move log in words; ``names`` are the players' by seat
    (a seat is named from 1, as the pages show it). An event type it does
    not know is named by its type."""
    describer = _DESCRIBERS.get(entry["event"])
    if describer is None:
        return [entry["event"]]
    key, values = describer(entry, names, words)
    return fill(_PARSED[1 if words.russian else 0][key], values)


def line(entry: Entry, names: Sequence[str], words: Words = PLAIN) -> str:
    """``plain(describe(entry, names, words))``, made by ``str.format``: the
    move log writes one for every event."""
    describer = _DESCRIBERS.get(entry["event"])
    if describer is None:
        return str(entry["event"])
    key, values = describer(entry, names, words)
    for name, value in values.items():
        if value.__class__ is list:
            values[name] = plain(value)
        elif value.__class__ is CardRef:
            values[name] = card_text(value.id)
    return LOG[key][1 if words.russian else 0].format_map(values)

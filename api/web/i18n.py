"""The web client's two languages: Russian (the printed game's) and English.

Card and element names come from the catalog (``domain.catalog``: each card's
``name_ru`` and ``name``); everything else the pages say is here, once per
language. The language of a request is its ``opus_lang`` cookie (set by
``/lang/<ru|en>``), else the best match of its Accept-Language, else
English.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from flask import Request

from api.web.words import all_words
from domain.catalog import STONES, load_catalog

LANGS = ("en", "ru")
DEFAULT_LANG = "en"
LANG_COOKIE = "opus_lang"


def negotiate(request: Request) -> str:
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in LANGS:
        return chosen
    best = request.accept_languages.best_match(LANGS, default=DEFAULT_LANG)
    return best if best in LANGS else DEFAULT_LANG


# ---- cards, elements, kinds ----------------------------------------------------

KINDS: dict[str, tuple[str, str]] = {
    "potion": ("Potion", "Зелье"),
    "elixir": ("Elixir", "Эликсир"),
    "powder": ("Powder", "Порошок"),
    "great_elixir": ("Great elixir", "Великий эликсир"),
    "talisman": ("Talisman", "Талисман"),
    "creature": ("Creature", "Существо"),
    "supreme": ("Supreme", "Высший рецепт"),
    "spell": ("Spell", "Заклятье"),
    "stone": ("Philosopher's Stone", "Философский камень"),
}
COLUMNS: dict[str, tuple[str, str]] = {
    "nigredo": ("Nigredo", "Нигредо"),
    "albedo": ("Albedo", "Альбедо"),
    "rubedo": ("Rubedo", "Рубедо"),
}
# Each element: a symbol besides its colour (never colour alone).
SYMBOLS = (
    "☀",  # 0 Fiery Light
    "✿",  # 1 Belladonna
    "◉",  # 2 Snake's Eye
    "◇",  # 3 Air Crystal
    "◆",  # 4 Bloodstone
    "♣",  # 5 Mandrake Root
    "✦",  # 6 Phoenix Feather
    "♠",  # 7 Mushrooms
    "▲",  # 8 Dragon's Tooth
    "❀",  # 9 Fern Flower
    "≈",  # 10 Spring Water
    "✶",  # 11 Astral Energy
    "✪",  # 12 Quintessence of Will
    "☾",  # 13 Thought Energy
    "▼",  # 14 Bat's Wing
    "∿",  # 15 Ether Waves
)


@dataclass(frozen=True)
class CardInfo:
    """A card as a page shows it, in one language."""

    id: int
    name: str
    kind: str  # the catalog's kind
    kind_label: str
    points: int
    elements: tuple[int, ...]
    element_names: tuple[str, ...]
    requires: tuple[tuple[str, Any], ...]  # ("element", (ids…)) or ("recipe", name)

    @property
    def title(self) -> str:
        """The card in a line: kind, points, element(s)."""
        parts = [self.kind_label]
        if self.points:
            parts.append(f"{self.points} ✧")
        parts.append(" / ".join(self.element_names))
        return " · ".join(parts)


@cache
def _names_ru() -> dict[str, str]:
    """English recipe name -> the printed Russian one (Sequence stages name recipes)."""
    return {card.name: card.name_ru for card in load_catalog().cards.values()}


@cache
def card_info(card_id: int, lang: str) -> CardInfo:
    catalog = load_catalog()
    card = catalog.cards[card_id]
    ru = lang == "ru"
    elements = catalog.elements_ru if ru else catalog.elements
    requires: list[tuple[str, Any]] = []
    for req in card.requires:
        if req.is_element:
            requires.append(("element", tuple(sorted(req.elements))))
        else:
            requires.append(("recipe", recipe_label(req.label, lang)))
    return CardInfo(
        id=card.id,
        name=card.name_ru if ru else card.name,
        kind=card.kind,
        kind_label=KINDS[card.kind][1 if ru else 0],
        points=card.points,
        elements=tuple(card.elements),
        element_names=tuple(elements[e] for e in card.elements),
        requires=tuple(requires),
    )


def recipe_label(label: str, lang: str) -> str:
    """A recipe requirement's label ("Love Potion", "any great elixir")."""
    if label.startswith("any "):
        kind = label[4:].replace(" ", "_")
        if kind in KINDS:
            return text("any_kind", lang, kind=KINDS[kind][1 if lang == "ru" else 0].lower())
    return _names_ru().get(label, label) if lang == "ru" else label


def element_name(element: int, lang: str) -> str:
    catalog = load_catalog()
    return (catalog.elements_ru if lang == "ru" else catalog.elements)[element]


def column_name(column: str, lang: str) -> str:
    return COLUMNS[column][1 if lang == "ru" else 0]


def stage_label(stage_name: str, lang: str) -> str:
    """A Sequence stage's name: a recipe's, or its column's Stone."""
    if stage_name.startswith("stone:"):
        stone = stage_name.split(":", 1)[1]
        return text("stone_of", lang, column=column_name(stone, lang))
    return recipe_label(stage_name, lang)


def sequence_stages(card: str) -> dict[str, tuple[str, ...]]:
    """Column -> its seven stage names, for a Sequence card (S1…S6)."""
    columns = load_catalog().sequence_cards[card].columns
    return {column.stone: column.stages for column in columns}


assert set(STONES) == set(COLUMNS)


# ---- words ---------------------------------------------------------------------

STRINGS: dict[str, tuple[str, str]] = {
    # frame
    "skip": ("Skip to the content", "К содержимому"),
    "site_nav": ("Site", "Разделы"),
    "lobby": ("Lobby", "Лобби"),
    "replay_upload_nav": ("Replay an export", "Повтор из файла"),
    "language": ("Language", "Язык"),
    "api_docs": ("HTTP API", "HTTP API"),
    "footer": (
        "Potion-Making: Practice with the Guild of Alchemists, played as an event-sourced service.",
        "«Зельеварение. Практикум» с «Гильдией Алхимиков»: игра как служба на событиях.",
    ),
    # lobby
    "lobby_title": ("Games", "Игры"),
    "create_title": ("Create a game", "Новая игра"),
    "draw_rule": ("Draw rule (R3.1)", "Добор (R3.1)"),
    "draw_five": ("up to five cards", "до пяти карт"),
    "draw_one": ("one card a turn (variant)", "по одной карте (вариант)"),
    "guild_on": ("With the Guild of Alchemists (Sequences)", "С «Гильдией Алхимиков» (Цепочки)"),
    "create": ("Create", "Создать"),
    "open_games": ("Open to join", "Набор игроков"),
    "running_games": ("In progress", "Идут"),
    "ended_games": ("Finished", "Завершены"),
    "tournaments": ("Tournaments", "Турниры"),
    "no_games": ("None yet.", "Пока нет."),
    "players": ("Players", "Игроки"),
    "rules": ("Rules", "Правила"),
    "created_at": ("Created", "Создана"),
    "watch": ("Watch", "Смотреть"),
    "open_table": ("Open the table", "К столу"),
    "replay": ("Replay", "Повтор"),
    "join": ("Join", "Сесть за стол"),
    "name": ("Name", "Имя"),
    "contribution": ("Seed contribution (optional, R9.1)", "Вклад в зерно (необязательно, R9.1)"),
    "rules_five": ("draw to five", "добор до пяти"),
    "rules_one": ("draw one", "добор по одной"),
    "rules_guild": ("Guild", "Гильдия"),
    "rules_no_guild": ("no Guild", "без Гильдии"),
    "winners": ("Winners", "Победители"),
    "game_of_tournament": (
        "round {round}, table {table} of a tournament",
        "тур {round}, стол {table} турнира",
    ),
    "you_sit": ("you hold seat {seat}", "ваше место {seat}"),
    "nobody": ("nobody yet", "пока никого"),
    # table
    "table_title": ("Table", "Стол"),
    "game": ("Game", "Игра"),
    "status_open": ("waiting for players", "набор игроков"),
    "status_running": ("in progress", "идёт"),
    "status_ended": ("finished", "завершена"),
    "status": ("Status", "Состояние"),
    "turn": ("Turn", "Ход"),
    "turn_of": ("{name}'s turn", "Ходит {name}"),
    "your_turn": ("Your turn", "Ваш ход"),
    "deck": ("Deck", "Колода"),
    "deck_cards": ("{n} cards in the deck", "В колоде: {n}"),
    "you_are": ("You play as {name} (seat {seat}).", "Вы играете за {name} (место {seat})."),
    "spectating": (
        "You are watching: no hand is shown to you.",
        "Вы зритель: ни одна рука вам не показана.",
    ),
    "live": ("Live", "В прямом эфире"),
    "start": ("Start the game", "Начать игру"),
    "start_needs": ("At least 2 players are needed to start.", "Для начала нужно 2 игрока."),
    "organiser_note": (
        "You created this game: start it once the players are seated.",
        "Вы создали эту игру: начните её, когда игроки сядут.",
    ),
    "join_title": ("Take a seat", "Занять место"),
    "hand": ("Your hand", "Ваша рука"),
    "hand_empty": ("Your hand is empty.", "Ваша рука пуста."),
    "hand_of": ("{name}'s hand", "Рука: {name}"),
    "cards_in_hand": ("{n} in hand", "в руке: {n}"),
    "cabinet": ("Elements cabinet", "Шкаф стихий"),
    "cabinet_empty": ("The cabinet is empty.", "Шкаф пуст."),
    "stack_size": ("{n} in the stack", "в стопке: {n}"),
    "tables": ("Tables", "Столы игроков"),
    "recipes": ("Recipes", "Рецепты"),
    "no_recipes": ("No recipes yet.", "Рецептов пока нет."),
    "components": ("components", "компоненты"),
    "no_components": ("no components", "без компонентов"),
    "sequences": ("Sequences", "Цепочки"),
    "sequence_caption": ("{name}'s Sequences ({card})", "Цепочки: {name} ({card})"),
    "stage": ("Stage", "Этап"),
    "stage_n": ("stage {n}", "этап {n}"),
    "gap": ("gap (taken)", "пропуск (взят)"),
    "empty": ("empty", "пусто"),
    "scores": ("Scores", "Очки"),
    "points_n": ("{n} points", "очков: {n}"),
    "provenance": ("Where {name}'s points come from", "Откуда очки: {name}"),
    "no_points": ("No points yet.", "Очков пока нет."),
    "award_line": ("+{points} · {rule} · {what}", "+{points} · {rule} · {what}"),
    "log": ("Move log", "Журнал ходов"),
    "log_event": ("event {v}", "событие {v}"),
    "moves": ("Your moves", "Ваши ходы"),
    "moves_hint": (
        "Pick a card, then one of the moves it has.",
        "Выберите карту, затем один из её ходов.",
    ),
    "other_moves": ("Cards on the table", "Карты со столов"),
    "no_move": ("No move now: {reason}", "Сейчас хода нет: {reason}"),
    "pass": ("Pass (R3.3)", "Пас (R3.3)"),
    "discard": ("Discard onto its stack", "Сбросить в шкаф"),
    "discard_point": ("+1 point: the stack is empty (R4.1)", "+1 очко: стопка пуста (R4.1)"),
    "assemble": ("Assemble", "Собрать"),
    "assemble_with": ("Assemble with", "Собрать из"),
    "place": ("Place", "Выложить"),
    "place_into": ("Into your {column} column, stage {stage}", "В цепочку {column}, этап {stage}"),
    "cast": ("Cast", "Применить"),
    "cast_knowledge": (
        "Take {card} from the cabinet into your hand",
        "Взять {card} из шкафа в руку",
    ),
    "cast_transformation": (
        "Take {card} from the cabinet onto your table, giving up {recipe}",
        "Взять {card} из шкафа на стол, отдав {recipe}",
    ),
    "cast_destruction": ("Destroy {recipe}, keeping {card}", "Разрушить {recipe}, оставив {card}"),
    "cast_transmutation": (
        "Fill the next stage of your {column} column",
        "Заполнить следующий этап цепочки {column}",
    ),
    "you_score": ("you score {n}", "вам {n}"),
    "they_score": ("{name} scores {n}", "{name}: {n}"),
    "no_score": ("no points", "без очков"),
    "from_cabinet": ("cabinet", "шкаф"),
    "from_hand": ("your hand", "ваша рука"),
    "from_table": ("{name}'s table", "стол: {name}"),
    "from_own_table": ("your table", "ваш стол"),
    "from_sequence": (
        "{name}'s {column} column, stage {stage}",
        "цепочка {column} ({name}), этап {stage}",
    ),
    "moves_of": ("Moves with {card}", "Ходы картой {card}"),
    "close": ("Close", "Закрыть"),
    "refused": ("Refused by rule {rule}: {message}", "Отказ по правилу {rule}: {message}"),
    "refused_plain": ("Refused: {message}", "Отказ: {message}"),
    "stale": (
        "The game had moved on; the table is shown as it is now.",
        "Игра ушла вперёд; стол показан как есть.",
    ),
    "ended_banner": ("The game is over.", "Игра окончена."),
    "won": ("{names} won.", "Победа: {names}."),
    "replay_this": ("Replay this game", "Повтор этой игры"),
    "export": ("Download the export (NDJSON)", "Скачать журнал (NDJSON)"),
    "requires": ("Needs", "Нужно"),
    "any_kind": ("any {kind}", "любой: {kind}"),
    "stone_of": ("{column} Stone", "Камень {column}"),
    "seat_n": ("seat {n}", "место {n}"),
    "and": (" and ", " и "),
    # replay
    "replay_title": ("Replay", "Повтор"),
    "step": ("Step", "Шаг"),
    "step_of": ("Step {n} of {total}", "Шаг {n} из {total}"),
    "first": ("First", "В начало"),
    "previous": ("Previous", "Назад"),
    "next": ("Next", "Вперёд"),
    "last": ("Last", "В конец"),
    "show": ("Show", "Показать"),
    "replay_keys": (
        "Move the slider with the arrow keys, Home and End; on the page, ← and → step too.",
        "Ползунок двигается стрелками, Home и End; на странице шагают ← и →.",
    ),
    "upload_title": ("Replay a downloaded export", "Повтор по скачанному журналу"),
    "upload_help": (
        "Choose a finished game's export (GET /games/{id}/export, NDJSON): "
        "it is replayed here step by step, exactly as the stored game.",
        "Выберите журнал завершённой игры (GET /games/{id}/export, NDJSON): "
        "он воспроизводится шаг за шагом так же, как сохранённая игра.",
    ),
    "export_file": ("Export file", "Файл журнала"),
    "upload": ("Replay it", "Воспроизвести"),
    "verdict_ok": (
        "Verified: the hash chain holds and every move re-judges (opus verify).",
        "Проверено: цепочка хэшей цела, каждый ход подтверждён (opus verify).",
    ),
    "verdict_fail": ("Verification failed: {reason}", "Проверка не пройдена: {reason}"),
    "step_event": ("This step", "Этот шаг"),
    "around": ("Around this step", "Рядом с этим шагом"),
    "scores_at": ("Scores at this step", "Очки на этом шаге"),
    "earned_at": ("earned at step {v}", "получено на шаге {v}"),
    "hands_revealed": (
        "Hands (revealed: the game is over, R9.3)",
        "Руки (открыты: игра окончена, R9.3)",
    ),
    # tournaments
    "tournament": ("Tournament", "Турнир"),
    "standings": ("Standings", "Турнирная таблица"),
    "standings_round": (
        "Standings as round {round}'s close sealed them",
        "Таблица на закрытии тура {round}",
    ),
    "provisional": ("provisional (before round 1)", "предварительная (до 1-го тура)"),
    "rank": ("Rank", "Место"),
    "player": ("Player", "Игрок"),
    "match_points": ("Match points", "Матчевые очки"),
    "penalties": ("Penalties", "Штрафы"),
    "opponents": ("Opponents", "Соперники"),
    "game_points": ("Game points", "Игровые очки"),
    "games": ("Games", "Игры"),
    "byes": ("Byes", "Пропуски"),
    "corrections": ("Corrections", "Исправления"),
    "dropped": ("dropped", "выбыл"),
    "round_n": ("Round {n}", "Тур {n}"),
    "rounds": ("Rounds", "Туры"),
    "table_n": ("Table {n}", "Стол {n}"),
    "result": ("Result", "Итог"),
    "places": ("places", "места"),
    "in_play": ("in play", "идёт"),
    "seal": ("Seal", "Печать"),
    "merkle_root": ("Merkle root", "Корень Меркла"),
    "standings_digest": ("Standings digest", "Хэш таблицы"),
    "heads": ("Games' last chain values", "Последние значения цепочек игр"),
    "not_closed": ("Not closed yet.", "Ещё не закрыт."),
    "no_rounds": ("No round paired yet.", "Туры ещё не составлены."),
    "no_corrections": ("No corrections or penalties.", "Исправлений и штрафов нет."),
    "correction_line": (
        "{type}: {what} — {reason} (by {by})",
        "{type}: {what} — {reason} ({by})",
    ),
    "status_registering": ("registering", "регистрация"),
    "status_playing": ("playing", "идёт тур"),
    "status_between": ("between rounds", "между турами"),
    "status_finished": ("finished", "завершён"),
    "sealed_rounds": ("Standings sealed at", "Таблица на закрытии"),
    "now": ("now", "сейчас"),
    "procedure": ("Pairing", "Жеребьёвка"),
    # errors
    "error_title": ("Something went wrong", "Что-то пошло не так"),
    "back_to_lobby": ("Back to the lobby", "В лобби"),
    "csrf_refused": (
        "This form has expired or did not come from this site: reload the page and try again.",
        "Форма устарела или пришла не с этого сайта: обновите страницу и попробуйте снова.",
    ),
    "not_seated": ("You hold no seat in this game.", "У вас нет места в этой игре."),
    "already_seated": ("You hold a seat in this game already.", "Вы уже сидите за этим столом."),
    "not_found": ("There is no such game.", "Такой игры нет."),
    "no_tournament": ("There is no such tournament.", "Такого турнира нет."),
}

for _key, _pair in all_words().items():
    if _key in STRINGS:
        raise ValueError(f"the words {_key!r} are said twice (api/web/words)")
    STRINGS[_key] = _pair

RULE_WORDS: dict[str, tuple[str, str]] = {
    "R4.1": ("new element", "новая стихия"),
    "R4.4": ("assembly", "сборка"),
    "R4.4/half": ("share of an assembly", "доля от сборки"),
    "R4.6": ("Sequence stage", "этап цепочки"),
    "R4.6/half": ("share of a placement", "доля от выкладки"),
}


def text(key: str, lang: str, **values: Any) -> str:
    """The words for ``key`` in ``lang``, with ``values`` filled in."""
    words = STRINGS[key][1 if lang == "ru" else 0]
    return words.format(**values) if values else words


def rule_words(rule: str, lang: str) -> str:
    words = RULE_WORDS.get(rule)
    return words[1 if lang == "ru" else 0] if words else rule


def plural(n: int, lang: str, en: tuple[str, str], ru: tuple[str, str, str]) -> str:
    """``n`` with its noun: 1 card, 2 cards; 1 карта, 2 карты, 5 карт."""
    if lang != "ru":
        return f"{n} {en[0] if n == 1 else en[1]}"
    if n % 10 == 1 and n % 100 != 11:
        form = ru[0]
    elif 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        form = ru[1]
    else:
        form = ru[2]
    return f"{n} {form}"


def cards_n(n: int, lang: str) -> str:
    return plural(n, lang, ("card", "cards"), ("карта", "карты", "карт"))

"""The words of games against the service's bots (api/web/bot_pages.py)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the lobby's form
    "bots_title": ("Play against bots", "Играть с ботами"),
    "bots_about": (
        "A game of your own against the service's bots, started at once: you sit first. "
        "The bots move a moment after the game changes; they see only their own hands.",
        "Своя игра против ботов службы, сразу начатая: вы ходите первым. Боты ходят "
        "через мгновение после каждого хода и видят только свои карты.",
    ),
    "bots_name": ("Your name", "Ваше имя"),
    "bots_default_name": ("Player", "Игрок"),
    "bots_count": ("How many bots", "Сколько ботов"),
    "bots_kind": ("Which bots", "Какие боты"),
    "bots_play": ("Play against bots", "Играть с ботами"),
    "bot_choice_greedy": ("Greedy: the move that scores most now", "Жадные: самый выгодный ход"),
    "bot_choice_shrewd": (
        "Shrewd: weighs what a move gives the others",
        "Хитрые: взвешивают, что ход даст другим",
    ),
    "bot_choice_random": ("Random: any legal move", "Случайные: любой разрешённый ход"),
    "bot_choice_mixed": ("One of each kind in turn", "Разные, по очереди"),
    # a lobby game's table, its organiser's
    "add_bot_title": ("Bots", "Боты"),
    "add_bot_help": (
        "Seat one of the service's bots; it plays its own turns once the game starts.",
        "Посадить за стол бота службы: он сам делает свои ходы, когда игра начнётся.",
    ),
    "add_bot_kind": ("Kind of bot", "Какой бот"),
    "add_bot": ("Add a bot", "Добавить бота"),
    # a bot's seat and moves
    "bot_kind_greedy": ("greedy bot", "жадный бот"),
    "bot_kind_shrewd": ("shrewd bot", "хитрый бот"),
    "bot_kind_random": ("random bot", "случайный бот"),
    "bot_unknown_kind": ("no such kind of bot", "такого бота нет"),
    "bot_count_invalid": ("choose 1 to {n} bots", "выберите от 1 до {n} ботов"),
    "bot_not_organiser": (
        "only the game's organiser may seat a bot",
        "посадить бота может только организатор игры",
    ),
    "bot_not_here": (
        "bots join a lobby game before it starts, seated by its organiser",
        "ботов сажает организатор игры из лобби, до её начала",
    ),
}

"""The words of the rules pages, the first-game guide, rule notes on the other
pages, and the error page of an address the pages do not serve."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the header
    "guide_nav": ("First game", "Первая игра"),
    # the rules pages
    "rules_title": ("Rules of the game", "Правила игры"),
    "rules_about": (
        "The rules the service runs (RULES.md), with the decisions taken where the printed "
        "rules are silent. Every rule has an id, such as R3.1: a refusal, an award or a line "
        "of the move log that names one links here.",
        "Правила, по которым играет служба (RULES.md), с решениями там, где печатные правила "
        "молчат. У каждого правила есть номер, например R3.1: отказ, начисление очков или "
        "строка журнала, где он назван, ведут сюда.",
    ),
    "rules_in_english": (
        "Below the rules comes the Guild of Alchemists' own text, translated from the Russian "
        "original sentence by sentence (S1–S16), each sentence with the rules that rest on it.",
        "Правила службы записаны по-английски, и номера правил — те, что называют отказы и "
        "журнал. По-русски ниже — исходный текст правил «Гильдии Алхимиков», предложение за "
        "предложением (S1–S16), и у каждого предложения — правила, которые на него опираются.",
    ),
    "rules_service_text": ("The rules the service runs", "Правила службы (по-английски)"),
    "rules_contents": ("Contents", "Содержание"),
    "rules_tournament_link": (
        "Tournaments are run by the tournament rules (T ids).",
        "Турниры идут по правилам турниров (номера T).",
    ),
    "rules_game_link": ("The game's own rules (R ids).", "Правила самой игры (номера R)."),
    "tournament_rules_title": ("Tournament rules", "Правила турниров"),
    "tournament_rules_about": (
        "How the service runs Swiss tournaments (TOURNAMENT.md). Every rule has an id, such "
        "as T4.2; the tournament pages link here.",
        "Как служба проводит турниры по швейцарской системе (TOURNAMENT.md). У каждого правила "
        "есть номер, например T4.2; страницы турниров ведут сюда. Текст правил записан "
        "по-английски.",
    ),
    "guild_text_title": (
        "The Great Work Sequence: the Guild of Alchemists' own text",
        "Последовательность Великого Делания: исходный текст «Гильдии Алхимиков»",
    ),
    "guild_text_about": (
        "The expansion's rules as the project received them, translated sentence by sentence; "
        "the rules above cite the sentences by their ids.",
        "Правила дополнения в том виде, в каком их получил проект; правила службы ссылаются на "
        "предложения по их номерам.",
    ),
    "cited_by": ("rules: ", "правила: "),
    # the guide
    "guide_title": ("Your first game", "Ваша первая игра"),
    "guide_intro": (
        "A short guide to a game: what a turn is and what scores. Each rule id links to the rule.",
        "Коротко об игре: из чего состоит ход и что приносит очки. Каждый номер правила — "
        "ссылка на правило.",
    ),
    "guide_goal_h": ("The goal", "Цель"),
    "guide_goal": (
        "Assemble recipes from the elements in the cabinet and score the most points (R7.3). "
        "The game ends when the deck is empty and every player has passed in a row (R7.1), or, "
        "with the Guild, once someone places a Philosopher's Stone and the round is played "
        "out (R7.2).",
        "Собирайте рецепты из стихий шкафа и наберите больше всех очков (R7.3). Игра "
        "кончается, когда колода пуста и все игроки подряд спасовали (R7.1), а с «Гильдией» — "
        "когда кто-то выложил Философский камень и круг доигран (R7.2).",
    ),
    "guide_setup_h": ("The start", "Начало"),
    "guide_setup": (
        "Four cards go face up into the elements cabinet, one stack per element, and each "
        "player gets four cards (R2.2). With the Guild each player also gets a Sequence card: "
        "three columns of seven stages (R2.3, R1.4). The first to join starts (R2.1).",
        "Четыре карты ложатся в шкаф стихий лицом вверх, по стопке на стихию, и каждый игрок "
        "получает четыре карты (R2.2). С «Гильдией» у каждого ещё карта Последовательности: "
        "три цепочки по семь этапов (R2.3, R1.4). Начинает тот, кто сел первым (R2.1).",
    ),
    "guide_turn_h": ("A turn", "Ход"),
    "guide_turn_draw": (
        "Draw from the deck until you hold five cards (R3.1).",
        "Доберите из колоды до пяти карт на руке (R3.1).",
    ),
    "guide_turn_spells": (
        "Cast as many spells as you like (R6).",
        "Примените сколько угодно заклятий (R6).",
    ),
    "guide_turn_main": (
        "Make exactly one main action (R3.2): discard a card onto its element's stack (R4.1), "
        "assemble a recipe from the tops of the cabinet's stacks and assembled recipes (R4.2), "
        "or place a card into the next stage of one of your Sequences (R4.5). The turn ends.",
        "Сделайте ровно одно основное действие (R3.2): сбросьте карту в стопку её стихии "
        "(R4.1), соберите рецепт из верхних карт шкафа и собранных рецептов (R4.2) или "
        "выложите карту на следующий этап своей цепочки (R4.5). Ход окончен.",
    ),
    "guide_turn_pass": (
        "When no main action is possible, or the deck is empty, you may pass (R3.3). Only the "
        "player whose turn it is may act (R3.4).",
        "Если основного действия нет или колода пуста, можно спасовать (R3.3). Действует "
        "только тот, чей ход (R3.4).",
    ),
    "guide_score_h": ("What scores", "Что приносит очки"),
    "guide_score_discard": (
        "A discard onto an empty stack: 1 point (R4.1).",
        "Сброс в пустую стопку: 1 очко (R4.1).",
    ),
    "guide_score_assembly": (
        "An assembly: the recipe's points (R4.4): potion 2, elixir 3, powder 4, great elixir 6, "
        "talisman and creature 8, supreme 10 (R1.2). A player whose recipe or Sequence stage "
        "went into it scores half, rounded down (R4.4, R8.2).",
        "Сборка: очки рецепта (R4.4): зелье 2, эликсир 3, порошок 4, великий эликсир 6, "
        "талисман и существо 8, высший рецепт 10 (R1.2). Игрок, чей рецепт или этап цепочки "
        "ушёл в сборку, получает половину, с округлением вниз (R4.4, R8.2).",
    ),
    "guide_score_stage": (
        "A Sequence stage: 2, 2, 4, 4, 6, 8 and 10 points for stages 1 to 7 (R4.6); a card "
        "taken from another player's table or Sequence gives that player half (R4.6, R5.4).",
        "Этап цепочки: 2, 2, 4, 4, 6, 8 и 10 очков за этапы с 1-го по 7-й (R4.6); карта, "
        "взятая со стола или из цепочки другого игрока, приносит ему половину (R4.6, R5.4).",
    ),
    "guide_score_spells": ("Spells score nothing (R1.2).", "Заклятья очков не приносят (R1.2)."),
    "guide_score_ledger": (
        "Every point is recorded with the rule that gave it (R8.1): open a player's score at "
        "the table to see where each point came from.",
        "Каждое очко записано вместе с правилом, которое его дало (R8.1): раскройте очки "
        "игрока за столом, чтобы увидеть, откуда они.",
    ),
    "guide_table_h": ("At the table", "За столом"),
    "guide_table": (
        "On your turn, pick a card in your hand, then one of the moves it has: each move shows "
        "the points it will score. A refused move says which rule refused it, and the rule's "
        "id links to it.",
        "В свой ход выберите карту в руке, затем один из её ходов: у каждого хода видно, "
        "сколько очков он принесёт. Отказ называет правило, по которому ход не принят, и "
        "номер правила ведёт к нему.",
    ),
    "guide_more": ("Everything else is in the rules:", "Всё остальное — в правилах:"),
    # rule notes on the other pages
    "moves_rules": (
        "What the moves score: R4.1, R4.4, R4.6; passing: R3.3.",
        "Очки за ходы: R4.1, R4.4, R4.6; пас: R3.3.",
    ),
    "standings_rules": (
        "Ranked by T6.1; match points by T5.2, penalties by T7.2.",
        "Порядок — по T6.1; матчевые очки — по T5.2, штрафы — по T7.2.",
    ),
    "rounds_rules": (
        "Tables by T3.1, pairing by T4.1 and T4.2, seats by T4.3; a round is sealed when it "
        "closes (T9.1).",
        "Столы — по T3.1, жеребьёвка — по T4.1 и T4.2, места — по T4.3; закрытый тур "
        "запечатан (T9.1).",
    ),
    "corrections_rules": (
        "Corrections and penalties are added, never rewritten (T7.1, T7.2, T7.3).",
        "Исправления и штрафы добавляются и никогда не переписываются (T7.1, T7.2, T7.3).",
    ),
    # the error page of an address the pages do not serve (api/errors.py)
    "error_404": ("There is nothing at this address.", "По этому адресу ничего нет."),
    "error_405": (
        "This address does not take this kind of request.",
        "Этот адрес не принимает такой запрос.",
    ),
    "error_500": (
        "The service failed on this request; the failure is logged.",
        "Служба не справилась с этим запросом; сбой записан в журнал.",
    ),
    "error_503": (
        "The service cannot answer now; retry shortly.",
        "Служба сейчас не может ответить; попробуйте чуть позже.",
    ),
}

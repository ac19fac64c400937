"""The organiser's desk's words (api/web/desk.py and its desk_*.html,
_organiser.html templates): key: (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # creating a tournament: one label and one hint per option of the API's schema
    "desk_new_link": ("New tournament", "Новый турнир"),
    "desk_new_title": ("A new tournament", "Новый турнир"),
    "desk_new_intro": (
        "Every option of TOURNAMENT.md's T1.1. You become the tournament's organiser: "
        "this browser keeps your organiser token, and the desk opens once it is created.",
        "Все параметры правила T1.1 из TOURNAMENT.md. Вы станете организатором турнира: "
        "этот браузер сохранит ваш токен организатора, и после создания откроется стол "
        "организатора.",
    ),
    "desk_create": ("Create the tournament", "Создать турнир"),
    "desk_field_name": ("Tournament name", "Название турнира"),
    "desk_field_name_hint": ("Shown to everyone.", "Видно всем."),
    "desk_field_draw": ("Draw rule (R3.1), for all its games", "Добор (R3.1), для всех игр"),
    "desk_field_draw_five": ("up to five cards", "до пяти карт"),
    "desk_field_draw_one": ("one card a turn (variant)", "по одной карте (вариант)"),
    "desk_field_guild": (
        "With the Guild of Alchemists (Sequences)",
        "С «Гильдией Алхимиков» (Цепочки)",
    ),
    "desk_field_guild_hint": (
        "The rule set of every game of the tournament (RULES §10).",
        "Набор правил всех игр турнира (RULES §10).",
    ),
    "desk_field_stage_points": ("Points of the Sequence stages", "Очки за этапы цепочек"),
    "desk_field_stage_points_hint": (
        "Seven numbers, one for each stage (R4.6).",
        "Семь чисел, по одному на этап (R4.6).",
    ),
    "desk_field_stage_points_item": ("Stage {n}", "Этап {n}"),
    "desk_field_tables": ("Table sizes (T1.1, T3)", "Размеры столов (T1.1, T3)"),
    "desk_field_tables_hint": (
        "2 ≤ smallest ≤ preferred ≤ largest ≤ 5.",
        "2 ≤ наименьший ≤ желательный ≤ наибольший ≤ 5.",
    ),
    "desk_field_tables_min": ("Smallest table", "Наименьший стол"),
    "desk_field_tables_min_hint": ("Players at the smallest table.", "Игроков за наименьшим."),
    "desk_field_tables_preferred": ("Preferred table", "Желательный стол"),
    "desk_field_tables_preferred_hint": (
        "As many tables of this size as can be (T3.1).",
        "Как можно больше столов этого размера (T3.1).",
    ),
    "desk_field_tables_max": ("Largest table", "Наибольший стол"),
    "desk_field_tables_max_hint": ("Players at the largest table.", "Игроков за наибольшим."),
    "desk_field_weight": ("Pairing weight W (T4.2)", "Вес жеребьёвки W (T4.2)"),
    "desk_field_weight_hint": (
        "How much more avoiding repeat opponents counts than close match points.",
        "Насколько избегать повторных соперников важнее, чем близость матчевых очков.",
    ),
    "desk_field_late_until": ("Registration open until round", "Регистрация до тура"),
    "desk_field_late_until_hint": (
        "Registrations are taken until this round is paired (T2.3).",
        "Регистрация идёт, пока этот тур не составлен (T2.3).",
    ),
    "desk_field_time_limit": ("Round time limit", "Время на тур"),
    "desk_field_time_limit_hint": (
        "In seconds; empty for none. Once it is up the organiser may call a game (T8.1).",
        "В секундах; пусто — без ограничения. По истечении организатор может "
        "завершить игру (T8.1).",
    ),
    "desk_field_rounds": ("Number of rounds", "Число туров"),
    "desk_field_rounds_hint": (
        "Empty: fixed when round 1 is paired, by the players then (T1.1).",
        "Пусто: определится при составлении 1-го тура по числу игроков (T1.1).",
    ),
    "desk_field_beacon": ("Beacon (optional)", "Маяк (необязательно)"),
    "desk_field_beacon_hint": (
        "Names a public random value that will appear after registration closes; "
        "round 1 is paired with it (T1.3).",
        "Название публичного случайного значения, которое появится после окончания "
        "регистрации; с ним составляется 1-й тур (T1.3).",
    ),
    # the desk
    "desk_title": ("Organiser's desk", "Стол организатора"),
    "desk_link": ("Organiser's desk", "Стол организатора"),
    "desk_version": ("version {v}", "версия {v}"),
    "desk_public_page": ("the tournament's public page", "открытая страница турнира"),
    "desk_done_created": ("The tournament is created.", "Турнир создан."),
    "desk_done_registered": ("Registered.", "Игрок зарегистрирован."),
    "desk_done_dropped": ("The player is dropped (T2.2).", "Игрок выбыл (T2.2)."),
    "desk_done_paired": (
        "The round is paired; its games have started.",
        "Тур составлен; игры начаты.",
    ),
    "desk_done_called": (
        "The game is called: it ends after its last seat's next turn (T8.1).",
        "Игра остановлена: она закончится после ближайшего хода последнего места (T8.1).",
    ),
    "desk_done_corrected": ("The result is corrected (T7.1).", "Итог исправлен (T7.1)."),
    "desk_done_penalised": ("The penalty is given (T7.2).", "Штраф назначен (T7.2)."),
    "desk_done_finished": ("The tournament is finished (T9.3).", "Турнир завершён (T9.3)."),
    "desk_stale": (
        "Refused: the tournament had changed since this page was shown (another tab or "
        "organiser, or a game's result). Nothing was done; the desk is shown as it is now.",
        "Отказ: турнир изменился с тех пор, как страница была показана (другая вкладка, "
        "другой организатор или итог игры). Ничего не сделано; стол показан как есть.",
    ),
    "desk_invalid": ("Invalid input: {problems}", "Неверные данные: {problems}"),
    "desk_not_organiser": (
        "Only the tournament's organiser may use its desk, and this browser holds no "
        "organiser token for it.",
        "Стол организатора доступен только организатору турнира, а у этого браузера "
        "нет его токена.",
    ),
    "desk_no_version": (
        "This form carries no tournament version: reload the desk.",
        "В форме нет версии турнира: обновите страницу.",
    ),
    "desk_issued_title": (
        "{name}'s token (registration {n})",
        "Токен игрока {name} (регистрация {n})",
    ),
    "desk_issued_help": (
        "Hand this token to {name}: on the tournament's page they enter it under "
        "“I have a registration token”, and their browser then plays their games; "
        "or they send it to the API as “Authorization: Bearer”.",
        "Передайте этот токен игроку {name}: на странице турнира он вводит его в "
        "«У меня есть токен регистрации», и его браузер играет его игры; или "
        "передаёт его API как «Authorization: Bearer».",
    ),
    "desk_issued_once": (
        "It is shown this once: the service keeps only its hash.",
        "Он показан один раз: служба хранит только его хэш.",
    ),
    "desk_token": ("Registration token", "Токен регистрации"),
    "desk_settings": ("Settings (T1.1)", "Параметры (T1.1)"),
    "desk_stage_points": ("stage points", "очки этапов"),
    "desk_seconds": ("{n} s", "{n} с"),
    "desk_none": ("none", "нет"),
    "desk_rounds_later": (
        "fixed when round 1 is paired",
        "определится при составлении 1-го тура",
    ),
    "desk_players": ("Players ({n})", "Игроки ({n})"),
    "desk_number": ("No.", "№"),
    "desk_action": ("Action", "Действие"),
    "desk_drop": ("Drop", "Исключить"),
    "desk_drop_player": ("Drop {name} (T2.2)", "Исключить: {name} (T2.2)"),
    "desk_register_title": ("Register a player", "Зарегистрировать игрока"),
    "desk_register_help": (
        "Players may also register themselves on the tournament's public page. "
        "A player you register here gets a token, shown once, to hand to them.",
        "Игроки могут зарегистрироваться и сами на открытой странице турнира. "
        "Игрок, зарегистрированный здесь, получает токен, который показывается один "
        "раз: передайте его игроку.",
    ),
    "desk_contribution": (
        "Seed contribution (optional, T1.3)",
        "Вклад в зерно (необязательно, T1.3)",
    ),
    "desk_register": ("Register", "Зарегистрировать"),
    "desk_registration_closed": (
        "Registration closed when round {n} was paired (T2.3).",
        "Регистрация закрылась при составлении тура {n} (T2.3).",
    ),
    "desk_pair_title": ("Pair round {n}", "Составить тур {n}"),
    "desk_pair_wait": (
        "Round {n} is in play: the next is paired once every game has a result (T9.1).",
        "Идёт тур {n}: следующий составляется, когда у всех игр есть итог (T9.1).",
    ),
    "desk_beacon_value": (
        "Value of the beacon “{beacon}” (T1.3)",
        "Значение маяка «{beacon}» (T1.3)",
    ),
    "desk_pair": ("Pair the next round", "Составить следующий тур"),
    "desk_call": ("Call table {n}", "Остановить стол {n}"),
    "desk_call_help": (
        "A game may be called once the round's time is up or a seat at it has withdrawn; "
        "it ends after its last seat's next turn (T8.1).",
        "Игру можно остановить, когда время тура вышло или одно из мест выбыло; она "
        "закончится после ближайшего хода последнего места (T8.1).",
    ),
    "desk_by": ("By", "Кто"),
    "desk_correct_title": ("Correct a result (T7.1)", "Исправить итог (T7.1)"),
    "desk_correct_help": (
        "New places in seat order, a competition ranking (1, 2, 2, 4); the scores and the "
        "game's own events never change.",
        "Новые места по порядку мест за столом, спортивная нумерация (1, 2, 2, 4); очки "
        "и события самой игры не меняются.",
    ),
    "desk_new_places": ("New places", "Новые места"),
    "desk_reason": ("Reason", "Причина"),
    "desk_correct": ("Correct", "Исправить"),
    "desk_no_results": ("No game has a result yet.", "Пока ни у одной игры нет итога."),
    "desk_penalise_title": ("Penalise a player (T7.2)", "Оштрафовать игрока (T7.2)"),
    "desk_points": ("Match points to subtract", "Снять матчевых очков"),
    "desk_points_hint": (
        "A positive multiple of 1/2, written p/q: 1/2, 1/1, 3/2.",
        "Положительное кратное 1/2 в виде p/q: 1/2, 1/1, 3/2.",
    ),
    "desk_penalise": ("Penalise", "Оштрафовать"),
    "desk_finish_title": ("Finish the tournament (T9.3)", "Завершить турнир (T9.3)"),
    "desk_finish_help": (
        "When no round is open: the standings' digest is recorded and the secret revealed.",
        "Когда ни один тур не идёт: записывается хэш таблицы и раскрывается секрет.",
    ),
    "desk_finish_sure": ("Yes, finish it", "Да, завершить"),
    "desk_finish": ("Finish", "Завершить"),
    # the players' part of the tournament's page
    "desk_you": ("You in this tournament", "Вы в этом турнире"),
    "desk_registered_as": (
        "You are registered as {name} (registration {n}).",
        "Вы зарегистрированы как {name} (регистрация {n}).",
    ),
    "desk_your_game": ("Your current game:", "Ваша текущая игра:"),
    "desk_play": ("play", "играть"),
    "desk_drop_out": ("Drop out", "Выбыть"),
    "desk_drop_out_sure": (
        "Yes, drop me from the next pairing on (T2.2)",
        "Да, исключить меня со следующего тура (T2.2)",
    ),
    "desk_self_register_title": ("Register", "Регистрация"),
    "desk_register_me": ("Register me", "Зарегистрироваться"),
    "desk_claim_title": ("I have a registration token", "У меня есть токен регистрации"),
    "desk_claim": ("Use this token here", "Использовать здесь"),
    "desk_registered_already": (
        "This browser holds a registration in this tournament already.",
        "У этого браузера уже есть регистрация в этом турнире.",
    ),
    "desk_token_shape": (
        "A registration token is 43 or more letters, digits, - and _.",
        "Токен регистрации — это 43 или больше букв, цифр, - и _.",
    ),
    "desk_not_a_registration": (
        "This token holds no registration in this tournament.",
        "Этот токен не регистрация в этом турнире.",
    ),
    "desk_not_registered": (
        "This browser holds no registration in this tournament.",
        "У этого браузера нет регистрации в этом турнире.",
    ),
    # a lobby game's organiser
    "desk_game_organiser": ("Organiser's controls", "Управление игрой"),
    "desk_remove_help": (
        "Before the start, remove a seat whose player never came or left; the seats after "
        "it move down. The seats are as this page was loaded: reload it to see who has "
        "joined since (a removal asked of an older list is refused).",
        "До начала можно убрать место игрока, который не пришёл или ушёл; места после "
        "него сдвигаются. Места показаны на момент загрузки страницы: обновите её, чтобы "
        "увидеть новых игроков (удаление по устаревшему списку отклоняется).",
    ),
    "desk_remove": ("Remove", "Убрать"),
    "desk_remove_seat": ("Remove {name} (seat {n})", "Убрать: {name} (место {n})"),
    "desk_withdraw_help": (
        "Withdraw the seat whose turn it is once it has not moved for {n} seconds: its turns "
        "pass from then on (R3.5).",
        "Место, чей ход, можно снять, если оно не ходит {n} секунд: дальше его ходы "
        "пропускаются (R3.5).",
    ),
    "desk_withdraw": ("Withdraw", "Снять"),
    "desk_withdraw_seat": ("Withdraw {name} (seat {n})", "Снять: {name} (место {n})"),
    "desk_admission": ("Who may join", "Кто может сесть"),
    "desk_admission_open": ("anyone", "любой"),
    "desk_admission_invitation": ("by invitation link", "по ссылке-приглашению"),
    "desk_invitation_link": ("Invitation link", "Ссылка-приглашение"),
    "desk_invitation_help": (
        "This game is by invitation: send this link to the players you invite; whoever opens "
        "it may take a seat until the game starts.",
        "Эта игра по приглашению: пошлите ссылку тем, кого приглашаете; открывший её может "
        "занять место до начала игры.",
    ),
    "desk_by_invitation": (
        "This game is by invitation: open its invitation link to take a seat.",
        "Эта игра по приглашению: чтобы сесть, откройте ссылку-приглашение.",
    ),
    "desk_seat_invalid": ("seat: a seat of this game, from 1", "место: место этой игры, от 1"),
    "desk_not_game_organiser": (
        "Only the game's organiser may do this.",
        "Это может только организатор игры.",
    ),
}

"""The tournament page's words for revision 4 (TOURNAMENT.md T4.2b, T11,
T12): why each table was paired so, teams and constraints, the top cut as
a bracket, the final ranking; and the desk's for the new options and
commands. key: (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the settings line
    "r4_procedure_swap-1": ("pairing by swap-1 (T4.2)", "рассадка по swap-1 (T4.2)"),
    "r4_procedure_regroup-1": ("pairing by regroup-1 (T4.2b)", "рассадка по regroup-1 (T4.2b)"),
    "r4_cut_n": ("a top cut of {n} tables (T12)", "топ-кат из {n} столов (T12)"),
    "r4_cut_1": (
        "a final table after the Swiss rounds (T12)",
        "финальный стол после швейцарских туров (T12)",
    ),
    # why a table was paired so (T11.3), from the record alone
    "r4_why": ("Why this table", "Почему такой стол"),
    "r4_why_hint": (
        "Each table's share of what the pairing keeps low (T4.2, T11.3): repeats of "
        "earlier tables, the spread of match points, and pairs that should be kept "
        "apart. One pair kept apart fewer outweighs everything else (T11.2).",
        "Доля каждого стола в том, что рассадка старается уменьшить (T4.2, T11.3): "
        "повторные встречи, разброс очков матча и пары, которых следует разводить. "
        "Одна такая пара за столом весит больше всего остального (T11.2).",
    ),
    "r4_no_repeats": (
        "No two of them have met before.",
        "Никто из них раньше не встречался друг с другом.",
    ),
    "r4_repeats": (
        "Met before: {pairs} (repeats Σ m² = {a}).",
        "Уже встречались: {pairs} (повторы Σ m² = {a}).",
    ),
    "r4_pair_met": ("{one} and {two}, {m}×", "{one} и {two}, {m}×"),
    "r4_no_spread": ("All on the same match points.", "У всех одинаковые очки матча."),
    "r4_spread": (
        "Spread of match points (highest − lowest):",
        "Разброс очков матча (наибольшие − наименьшие):",
    ),
    "r4_no_conflict": (
        "No teammates and no constrained pair here.",
        "Здесь нет ни товарищей по команде, ни разведённых организатором пар.",
    ),
    "r4_conflicts": (
        "Left at this table by the procedure: {pairs} (its share of (c): {c}). The procedure "
        "compares tables at most three apart (T11.3), so another split may avoid them; "
        "the record shows what it reached.",
        "Процедура оставила за этим столом: {pairs} (его доля в (c): {c}). Процедура "
        "сравнивает столы не дальше трёх друг от друга (T11.3), так что другое разбиение "
        "могло бы их развести; запись показывает, чего она достигла.",
    ),
    "r4_cut_conflicts": (
        "At this table together: {pairs}.",
        "За этим столом вместе: {pairs}.",
    ),
    "r4_conflict_team": ("{one} and {two}, one team", "{one} и {two}, одна команда"),
    "r4_conflict_constraint": (
        "{one} and {two}, kept apart by the organiser ({reason})",
        "{one} и {two}, разведены организатором ({reason})",
    ),
    "r4_cut_table": (
        "A cut table seats by merit alone (T12.2): seeds by the Swiss standings, the "
        "best seed in seat 1; teams and constraints move no one here.",
        "Стол топ-ката рассаживается только по заслугам (T12.2): посев по швейцарской "
        "таблице, лучший посев — на месте 1; команды и ограничения здесь никого не "
        "передвигают.",
    ),
    "r4_objective_c": (
        "pairs kept apart sharing a table (c): {c}",
        "разводимых пар за одним столом (c): {c}",
    ),
    # teams and constraints (T11)
    "r4_constraints_h": ("Kept apart", "Разведены"),
    "r4_constraints_hint": (
        "Players of one team, and the pairs the organiser named, are kept apart where "
        "the pairing can (T11). Recorded until round 1 is paired, never removed.",
        "Игроков одной команды и пары, названные организатором, рассадка разводит, "
        "где может (T11). Записываются до рассадки первого тура и не удаляются.",
    ),
    "r4_team": ("team", "команда"),
    "r4_teams": ("Teams", "Команды"),
    "r4_no_constraints": ("No pair is constrained.", "Разведённых пар нет."),
    "r4_constraint_item": (
        "{one} and {two}: {reason} ({by})",
        "{one} и {two}: {reason} ({by})",
    ),
    # the cut as a bracket (T12)
    "r4_cut_h": ("Top cut", "Топ-кат"),
    "r4_cut_hint": (
        "After the Swiss rounds the best of the standings play on (T12.1): dealt "
        "snake-wise to the semifinal tables, each table's winner to the final (T12.3).",
        "После швейцарских туров лучшие по таблице играют дальше (T12.1): они "
        "раздаются змейкой по столам полуфинала, победитель каждого стола выходит "
        "в финал (T12.3).",
    ),
    "r4_semifinals": ("Semifinals (round {n})", "Полуфинал (тур {n})"),
    "r4_final": ("Final (round {n})", "Финал (тур {n})"),
    "r4_final_to_come": ("The final is still to be paired.", "Финал ещё не рассажен."),
    "r4_cut_to_come": (
        "The cut is paired once the Swiss rounds are played.",
        "Топ-кат рассаживается после швейцарских туров.",
    ),
    "r4_seed_n": ("seed {n}", "посев {n}"),
    "r4_place_n": ("place {n}", "место {n}"),
    "r4_advances": ("to the final", "в финал"),
    "r4_stage_swiss": ("Swiss round", "швейцарский тур"),
    "r4_stage_semifinal": ("semifinals", "полуфинал"),
    "r4_stage_final": ("final", "финал"),
    # the final ranking (T12.4)
    "r4_ranking_h": ("Final ranking", "Итоговый рейтинг"),
    "r4_ranking_hint": (
        "The final table by place, then the semifinalists by place and seed, then "
        "everyone else in Swiss standings order (T12.4).",
        "Финальный стол по местам, затем полуфиналисты по местам и посеву, затем все "
        "остальные в порядке швейцарской таблицы (T12.4).",
    ),
    "r4_reached": ("Reached", "Дошёл до"),
    "r4_place": ("Place", "Место"),
    "r4_reached_final": ("final", "финала"),
    "r4_reached_semifinal": ("semifinals", "полуфинала"),
    "r4_reached_swiss": ("Swiss rounds", "швейцарских туров"),
    # the desk: the options of CreateTournamentSchema revision 4 adds
    "desk_field_procedure": ("Pairing procedure (T4.2, T4.2b)", "Процедура рассадки (T4.2, T4.2b)"),
    "desk_field_procedure_hint": (
        "regroup-1 (the default) also exchanges several players at once and rotates "
        "three tables; swap-1 exchanges two players at a time.",
        "regroup-1 (по умолчанию) меняет и нескольких игроков сразу, и по кругу между "
        "тремя столами; swap-1 меняет по двое.",
    ),
    "desk_field_procedure_swap-1": ("swap-1", "swap-1"),
    "desk_field_procedure_regroup-1": ("regroup-1", "regroup-1"),
    "desk_field_cut": ("Top cut: tables (T12.1)", "Топ-кат: столов (T12.1)"),
    "desk_field_cut_hint": (
        "Empty for none; 1 for one final table; 3, 4 or 5 semifinal tables (within the "
        "table sizes) whose winners play the final.",
        "Пусто — без ката; 1 — один финальный стол; 3, 4 или 5 столов полуфинала (в "
        "пределах размеров столов), победители которых играют финал.",
    ),
    # the desk: teams and constraints, the cut
    "desk_team": ("Team (optional, T11.1)", "Команда (необязательно, T11.1)"),
    "desk_constrain_h": ("Keep two players apart", "Развести двух игроков"),
    "desk_constrain_hint": (
        "T11.1: until round 1 is paired; never removed. The pairing keeps them at "
        "different tables where it can (T11.2).",
        "T11.1: до рассадки первого тура; не удаляется. Рассадка сажает их за разные "
        "столы, где может (T11.2).",
    ),
    "desk_constrain_first": ("First player", "Первый игрок"),
    "desk_constrain_second": ("Second player", "Второй игрок"),
    "desk_constrain": ("Keep them apart", "Развести"),
    "desk_done_constrained": ("The two are kept apart (T11.1).", "Эти двое разведены (T11.1)."),
    "desk_pair_cut": ("Pair the cut", "Рассадить топ-кат"),
    "desk_cut_next": (
        "The Swiss rounds are played: the next pairing is the cut's (T12).",
        "Швейцарские туры сыграны: следующая рассадка — топ-кат (T12).",
    ),
}

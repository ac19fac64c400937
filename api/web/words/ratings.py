"""Words of the ratings on the pages (api/web/rating_chart.py, the
leaderboard's and an account's page)."""

WORDS: dict[str, tuple[str, str]] = {
    "rt_by_rating": ("By rating", "По рейтингу"),
    "rt_by_wins": ("By wins", "По победам"),
    "rt_rating": ("Rating", "Рейтинг"),
    "rt_games": ("Rated games", "Партий в рейтинге"),
    "rt_explain": (
        "A rating is a Bayesian estimate of skill from the places of finished games "
        "(Weng–Lin, Plackett–Luce): its conservative end, μ − 3σ, times 40. A new player "
        "starts at 0 and rises as games say more; hover a rating for μ and σ. The seat is "
        "rated apart (the seat effects below), so sitting first earns no one anything.",
        "Рейтинг — байесовская оценка мастерства по местам в завершённых партиях "
        "(Вэн — Линь, Плакетт — Льюс): её осторожная граница μ − 3σ, умноженная на 40. "
        "Новый игрок начинает с 0 и поднимается по мере того, как партии говорят о нём "
        "больше; μ и σ — при наведении на рейтинг. Место за столом оценивается отдельно "
        "(влияние мест ниже), так что игра первым никому ничего не приносит.",
    ),
    "rt_mu_sigma": ("μ {mu}, σ {sigma}", "μ {mu}, σ {sigma}"),
    "rt_not_rated": (
        "Not rated yet: a rating comes with a finished game against another account "
        "(the service's bots are accounts too).",
        "Рейтинга пока нет: он появится после завершённой партии с другой учётной "
        "записью (боты сервиса — тоже учётные записи).",
    ),
    "rt_rank": ("rank {rank} of {rated}", "место {rank} из {rated}"),
    "rt_history": ("Rating history", "История рейтинга"),
    "rt_chart_title": (
        "{name}'s rating after each rated game",
        "Рейтинг: {name}, после каждой партии в рейтинге",
    ),
    "rt_chart_desc": (
        "{n} rated games; the rating went from {first} to {last}, between {low} and {high}.",
        "Партий в рейтинге: {n}; рейтинг прошёл от {first} до {last}, в пределах от {low} "
        "до {high}.",
    ),
    "rt_chart_axis": ("rated games", "партии в рейтинге"),
    "rt_legend": (
        "The rating after each rated game, 40 × (μ − 3σ), from 0; hover a point for μ and σ.",
        "Рейтинг после каждой партии в рейтинге, 40 × (μ − 3σ), начиная с 0; μ и σ — при "
        "наведении на точку.",
    ),
    "rt_point": (
        "Game {n}: rating {rating} (μ {mu}, σ {sigma}), {place}",
        "Партия {n}: рейтинг {rating} (μ {mu}, σ {sigma}), {place}",
    ),
    "rt_place_of": ("place {place} of {rated}", "место {place} из {rated}"),
    "rt_withdrawn": ("withdrawn", "выбыл"),
    "rt_game": ("Game", "Партия"),
    "rt_seat": ("Seat", "Место за столом"),
    "rt_place": ("Place", "Место"),
    "rt_after": ("Rating after", "Рейтинг после"),
    "rt_seats_h": ("Seat effects", "Влияние места за столом"),
    "rt_seats_explain": (
        "What the ratings learned of each seat (seat 1 plays first): its μ less the mean of "
        "its table's seats, and its share of the wins at a table of equally rated players.",
        "Что рейтинги узнали о каждом месте (место 1 ходит первым): его μ за вычетом "
        "среднего по местам его стола и его доля побед за столом равных по рейтингу игроков.",
    ),
    "rt_table": ("Players", "Игроков"),
    "rt_effect": ("Effect (μ)", "Влияние (μ)"),
    "rt_share": ("Share of wins among equals", "Доля побед среди равных"),
    "rt_seat_games": ("Games", "Партий"),
    "rt_none": ("No rated game yet.", "Пока нет ни одной партии в рейтинге."),
    "rt_model": (
        "Computed by {library} {version} ({model}).",
        "Вычислено: {library} {version} ({model}).",
    ),
}

"""Ratings on the pages: the number shown with μ and σ on hover, and an
account's rating history as a chart, drawn on the server as inline SVG (no
script, no style attribute: the pages' Content-Security-Policy holds).

The chart has a point per rated game, from the prior (game 0): the rating
shown, round(40 × (μ − 3σ)). Each point's title says the game's rating, μ,
σ and place (on hover); the page lists the same points as a table with a
link to each game, which is what a screen reader reads (the SVG is one
image, named and described).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from api.web.i18n import DEFAULT_LANG, text
from api.web.pages import blp
from domain.ratings import shown

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 14, 34
LINE = "#1f5f99"


def minus(number: int) -> str:
    """A whole number with a true minus sign."""
    return str(number).replace("-", "−")


def decimal(value: float, lang: str, places: int = 2) -> str:
    """A decimal as the language writes it (a comma in Russian)."""
    shown = f"{value:.{places}f}"
    return shown.replace(".", ",") if lang == "ru" else shown


@blp.app_template_global("rating_html")
def rating_html(rating: Mapping[str, Any], lang: str = DEFAULT_LANG) -> Markup:
    """The one number shown, μ and σ on hover."""
    title = text(
        "rt_mu_sigma", lang, mu=decimal(rating["mu"], lang), sigma=decimal(rating["sigma"], lang)
    )
    return Markup('<abbr class="rating" title="{}">{}</abbr>').format(
        title, minus(rating["rating"])
    )


@blp.app_template_filter("decimal")
def decimal_filter(value: float, lang: str = DEFAULT_LANG, places: int = 2) -> str:
    return decimal(value, lang, places)


def ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round values from ``low`` to ``high``: steps of 1, 2 or 5 × 10^k."""
    span = max(high - low, 1.0)
    raw = span / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) // step) + 1)]


@blp.app_template_global("rating_chart")
def rating_chart(
    history: Sequence[Mapping[str, Any]],
    parameters: Mapping[str, float],
    name: str,
    lang: str = DEFAULT_LANG,
) -> Markup:
    """The SVG of an account's rating after each rated game, from the prior
    (``parameters``: those the ratings were computed with)."""
    start = shown(parameters["mu"], parameters["sigma"])
    ratings = [start, *(p["rating"] for p in history)]
    low = float(min(ratings) - 10)
    high = float(max(ratings) + 10)
    marks = ticks(low, high)
    low, high = min(low, marks[0]), max(high, marks[-1])
    n = len(history)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (inner_w * i / n if n else 0)

    def y(value: float) -> float:
        return TOP + inner_h * (high - value) / (high - low)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" viewBox="0 0 {WIDTH} '
        f'{HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        'aria-labelledby="rating-chart-title rating-chart-desc">',
        f'<title id="rating-chart-title">{escape(text("rt_chart_title", lang, name=name))}</title>',
        '<desc id="rating-chart-desc">{}</desc>'.format(
            escape(
                text(
                    "rt_chart_desc",
                    lang,
                    n=n,
                    first=minus(ratings[0]),
                    last=minus(ratings[-1]),
                    low=minus(min(ratings)),
                    high=minus(max(ratings)),
                )
            )
        ),
        '<g fill="none" stroke="currentColor" stroke-width="1">',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + inner_h}"/>',
        f'<line x1="{LEFT}" y1="{TOP + inner_h}" x2="{LEFT + inner_w}" y2="{TOP + inner_h}"/>',
        "</g>",
        '<g fill="currentColor" font-size="11" font-family="sans-serif">',
    ]
    for mark in marks:
        parts.append(
            f'<line x1="{LEFT - 4}" y1="{y(mark):.1f}" x2="{LEFT + inner_w}" y2="{y(mark):.1f}" '
            'stroke="currentColor" stroke-opacity="0.15"/>'
            f'<text x="{LEFT - 7}" y="{y(mark) + 4:.1f}" text-anchor="end">'
            f"{minus(int(mark))}</text>"
        )
    step = max(1, math.ceil(n / 10))
    for i in range(0, n + 1, step):
        parts.append(
            f'<text x="{x(i):.1f}" y="{TOP + inner_h + 16}" text-anchor="middle">{i}</text>'
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2:.1f}" y="{HEIGHT - 3}" text-anchor="middle">'
        f"{escape(text('rt_chart_axis', lang))}</text>"
    )
    parts.append("</g>")
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(ratings))
    parts.append(f'<polyline points="{line}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    for i, point in enumerate(history, start=1):
        place = text("rt_place_of", lang, place=point["place"], rated=point["rated"])
        title = text(
            "rt_point",
            lang,
            n=i,
            rating=point["rating"],
            mu=decimal(point["mu"], lang),
            sigma=decimal(point["sigma"], lang),
            place=place,
        )
        parts.append(
            f'<circle cx="{x(i):.1f}" cy="{y(point["rating"]):.1f}" r="3.5" fill="{LINE}">'
            f"<title>{escape(title)}</title></circle>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))

"""The web client's pages for the rules page and the first-game guide

Its routes join the pages blueprint (api/web/pages.py):

- ``GET /rules``: RULES.md, each rule anchored by its id (``/rules#R3.1``),
  and the Guild's own text sentence by sentence (``#S5``): in Russian, the
  original Russian text, in English its translation (api/web/rulebook.py);
- ``GET /rules/tournament``: TOURNAMENT.md (``/rules/tournament#T4.2``);
- ``GET /guide``: a first game in short: a turn, what scores, with the rule
  ids linked.

And the templates' filters every page may use: ``rule_links`` (a text with
each rule id it names linked to its rule, everything else escaped) and
``fraction`` (an exact "p/q" figure as a decimal with the exact value on
hover, api/web/numbers.py).
"""

from __future__ import annotations

from typing import Any

from flask import g, render_template
from markupsafe import Markup

from api.web import rulebook
from api.web.i18n import DEFAULT_LANG
from api.web.numbers import fraction_html
from api.web.pages import blp


@blp.app_template_filter("rule_links")
def rule_links(text: Any) -> Markup:
    """``text`` escaped, each rule id the rules name (R3.1, R4.4/half, T2.2)
    a link to its rule (T ids to the tournament rules). Markup (already
    HTML) is returned as it is."""
    if isinstance(text, Markup):
        return text
    return rulebook.link_ids("" if text is None else str(text))


@blp.app_template_filter("fraction")
def fraction(value: Any, lang: str = DEFAULT_LANG) -> Markup:
    return fraction_html(value, lang)


@blp.get("/rules")
def rules() -> str:
    lang = g.get("lang", DEFAULT_LANG)
    return render_template(
        "web/rules.html",
        kind="game",
        book=rulebook.game_rules(),
        guild=rulebook.guild_text("ru" if lang == "ru" else "en"),
    )


@blp.get("/rules/tournament")
def tournament_rules() -> str:
    return render_template(
        "web/rules.html", kind="tournament", book=rulebook.tournament_rules(), guild=None
    )


@blp.get("/guide")
def guide() -> str:
    return render_template("web/guide.html")

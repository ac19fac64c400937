"""The web client's pages for games against the service's bots.

Its routes join the pages blueprint (api/web/pages.py); its words are
api/web/words/bots.py, its templates ``_bots_form.html`` (the lobby's
form) and ``_add_bot.html`` (a lobby game's table, for its organiser). The
bots are seated by ``domain.bot_seats.seat_bots`` and play through the
service (infra/bot_driver.py), never through a page.

- ``POST /table/bots``: a name, how many bots (1–5) and which: a new
  game, this browser its organiser and its first seat, the bots seated,
  started; then its table. With the lobby's defaults that is one click
  (the name is the signed-in account's, or "Player").
- ``POST /table/<game>/bots``: the organiser of a lobby game seats one
  more bot before the start.

A signed-in browser organises and sits with its account's holder hash;
any other keeps new organiser and seat tokens in cookies, as a create and a
join do (``new_holding``).
"""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from flask import g, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from api.runtime import services
from api.web.i18n import text
from api.web.pages import PageError, blp, table_url
from api.web.session import (
    keep_token,
    new_holding,
    organiser_cookie,
    organiser_hash,
    seat_cookie,
    signed_in,
)
from domain.bot_seats import seat_bots
from domain.bots import BOTS
from domain.names import player_name
from domain.pipeline import Caller
from domain.ruleset import MAX_PLAYERS, RuleSet

log = logging.getLogger(__name__)

MAX_BOTS = MAX_PLAYERS - 1  # beside the person who plays them (R2.1)
DEFAULT_BOTS = 3
DEFAULT_KIND = "greedy"
KINDS = ("greedy", "shrewd", "random")  # as the forms offer them
MIXED = "mixed"  # one of each kind in turn, the strongest first
MIXED_ORDER = ("shrewd", "greedy", "random")
assert set(KINDS) == set(BOTS) == set(MIXED_ORDER)


@blp.context_processor
def bot_helpers() -> dict[str, Any]:
    """The forms' choices, and the name the lobby's form offers (called
    only by the page that shows it)."""

    def player_default() -> str:
        try:
            account = signed_in(request)
        except Exception:  # the store is down: the page says so elsewhere
            log.exception("the signed-in account cannot be read")
            account = None
        if account is not None:
            return account.name
        return text("bots_default_name", g.get("lang", "en"))

    return {
        "bot_kinds": KINDS,
        "bot_mixed": MIXED,
        "bot_count_choices": range(1, MAX_BOTS + 1),
        "bot_count_default": DEFAULT_BOTS,
        "bot_kind_default": DEFAULT_KIND,
        "bot_player_name": player_default,
    }


def kinds_of(choice: str, count: int) -> list[str]:
    """The bots' kinds, seat by seat: ``count`` of one kind, or mixed."""
    if choice == MIXED:
        return [MIXED_ORDER[i % len(MIXED_ORDER)] for i in range(count)]
    if choice not in BOTS:
        raise PageError(422, text("bot_unknown_kind", g.lang))
    return [choice] * count


def count_arg() -> int:
    raw = request.form.get("count", str(DEFAULT_BOTS)).strip()
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_BOTS:
        raise PageError(422, text("bot_count_invalid", g.lang, n=MAX_BOTS))
    return int(raw)


@blp.post("/table/bots")
def play_bots() -> BaseResponse:
    """A game against bots, running: created (this browser its organiser),
    this browser seated first, the bots after it, started."""
    name = player_name(request.form.get("name", ""))  # refused before anything is made
    kinds = kinds_of(request.form.get("kind", DEFAULT_KIND), count_arg())
    opus = services().opus
    organiser_token, organiser = new_holding(request)
    # by invitation: no stranger takes a seat between its creation and its start
    created = opus.create(RuleSet(), caller=Caller(organiser), admission="invitation")
    game_id = created.aggregate_id
    seat_token, seat = new_holding(request)
    opus.join(game_id, name, caller=Caller(seat), invitation=opus.invitation_code(game_id))
    seat_bots(opus, game_id, kinds)
    started = opus.start(game_id, caller=Caller(organiser))
    response = redirect(table_url(game_id, started.position), 303)
    if organiser_token is not None:
        keep_token(response, request, organiser_cookie(game_id), organiser_token)
    if seat_token is not None:
        keep_token(response, request, seat_cookie(game_id), seat_token)
    return response


@blp.post("/table/<uuid:game_id>/bots")
def add_bot(game_id: UUID) -> BaseResponse:
    """One more bot at a lobby game's table, seated by its organiser before
    the start (``Opus.join`` refuses it after)."""
    g.table_on_error = game_id
    svc = services()
    digest = organiser_hash(request, game_id)
    if digest is None or not svc.opus.organises(game_id, digest):
        raise PageError(403, text("bot_not_organiser", g.lang))
    if (svc.views.lobby_game(game_id) or {}).get("tournament"):
        raise PageError(409, text("bot_not_here", g.lang))
    kinds = kinds_of(request.form.get("kind", DEFAULT_KIND), 1)
    seat_bots(svc.opus, game_id, kinds)
    return redirect(table_url(game_id, svc.views.head()), 303)

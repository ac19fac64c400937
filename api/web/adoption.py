"""A browser's seats, games and registrations taken signed out, joined to
an account only when the person says so.

Signing in (or up) adopts nothing. A browser whose cookies hold seat,
organiser or registration tokens the account does not hold yet is sent,
once signed in, to ``GET /account/adopt``, which names each plainly (the
seat and its game's players, the game or tournament organised, the
tournament and the name registered in it) under the account's own name;
``POST /account/adopt`` adopts those the person ticked (``TokensAdopted``)
and nothing else: only tokens this browser's cookies hold, and only those
that hold something (a cookie's mere presence proves nothing). A sign-in
forced on the browser by another site, had it passed the origin and CSRF
checks, would find the person asked, under a name not theirs, before any
seat of theirs changed hands. The page serves a new account the same way:
the seats taken before signing up join it once confirmed there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from flask import g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from api.runtime import services
from api.web.i18n import text
from api.web.pages import PageError, blp, local_path
from api.web.session import Held, held, signed_in
from domain.accounts.commands import AccountView
from domain.application import seat_of
from domain.errors import OpusError


@dataclass(frozen=True)
class Holding:
    """One token this browser holds, as the page names it."""

    held: Held
    words: str  # what it is, in the page's language
    href: str  # where it is seen

    @property
    def key(self) -> str:
        """The form's value for it: its kind and what it is of (no secret)."""
        return f"{self.held.kind}:{self.held.of}"


def _players(names: Any) -> str:
    listed = [str(n) for n in names or []]
    return ", ".join(listed) if listed else "—"


def _named(h: Held) -> Holding | None:
    """What a held token holds, in words; None if it holds nothing (a stale
    or forged cookie) or what it held is gone."""
    svc = services()
    views, opus = svc.views, svc.opus
    lang = g.lang
    if h.kind == "seat":  # read from the game itself, as a command finds a seat
        try:
            with opus.reading(h.of) as (state, _):
                seat = seat_of(state, h.hash)
                players = list(state.names)
        except OpusError:  # no such game, or no seat of this token's
            return None
        words = text("adopt_seat", lang, name=players[seat], players=_players(players))
        return Holding(h, words, url_for("pages.table", game_id=h.of))
    if h.kind == "organiser":
        if not opus.organises(h.of, h.hash):
            return None
        try:
            with opus.reading(h.of) as (state, _):
                players = list(state.names)
        except OpusError:  # not a game: a tournament
            tournament = views.tournament(h.of) or {}
            words = text("adopt_organiser_tournament", lang, name=tournament.get("name", ""))
            return Holding(h, words, url_for("pages.tournament", tournament_id=h.of))
        words = text("adopt_organiser_game", lang, players=_players(players))
        return Holding(h, words, url_for("pages.table", game_id=h.of))
    if h.kind == "registration":
        try:
            number = opus.tournaments.player_of(h.of, h.hash)
        except OpusError:
            return None
        if number is None:
            return None
        tournament = views.tournament(h.of) or {}
        registered: list[dict[str, Any]] = tournament.get("players", [])
        player: dict[str, Any] = next((p for p in registered if p.get("player") == number), {})
        words = text(
            "adopt_registration",
            lang,
            name=player.get("name", f"#{number}"),
            tournament=tournament.get("name", ""),
        )
        return Holding(h, words, url_for("pages.tournament", tournament_id=h.of))
    return None


def offered(account: AccountView) -> list[Holding]:
    """The tokens this browser holds that hold something the account does
    not hold yet: what the adoption page offers."""
    mine = set(account.hashes)
    found = (_named(h) for h in held(request) if h.hash not in mine)
    return [h for h in found if h is not None]


def after_sign_in(account_id: UUID, target: str) -> str:
    """Where a browser goes once signed in to the account: the adoption
    page when its cookies hold seats, games or registrations the account
    does not hold yet (a stale or forged cookie diverts nobody), else
    ``target``."""
    if not held(request):
        return target
    if not offered(services().opus.accounts.view(account_id)):
        return target
    return url_for("pages.adopt", next=target)


def _next() -> str:
    path = local_path(request.values.get("next") or "/")
    return "/" if path.startswith(("/signin", "/signup", "/signout", "/account/adopt")) else path


@blp.get("/account/adopt")
def adopt() -> Any:
    """The seats, games and registrations this browser took signed out,
    named, each with a box to tick, under the account's name."""
    account = signed_in(request)
    if account is None:
        return redirect(url_for("pages.signin", next="/account/adopt"), 303)
    return render_template(
        "web/account_adopt.html", account=account, holdings=offered(account), next=_next()
    )


@blp.post("/account/adopt")
def adopt_chosen() -> BaseResponse:
    """The ticked holdings become the account's too; the others stay this
    browser's tokens (playable signed out)."""
    account = signed_in(request)
    if account is None:
        raise PageError(401, text("acct_signed_out", g.lang))
    chosen = set(request.form.getlist("take"))
    hashes = [h.held.hash for h in offered(account) if h.key in chosen]
    if hashes:
        services().opus.accounts.adopt(account.id, hashes)
    return redirect(_next(), 303)

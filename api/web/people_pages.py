"""The web client's pages of people: my games and tournaments, an
account's public page, the leaderboard (one row per account).

Its routes join the pages blueprint (api/web/pages.py). They read the
accounts view (projections/accounts.py) beside the lobby's: what an
account sat at or organised, each game's status, a tournament player's
current game, one click away.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import redirect, render_template, request

from api.runtime import services
from api.web import rating_chart  # noqa: F401  (the templates' rating_html, rating_chart)
from api.web.pages import after_arg, blp, caught_up
from api.web.session import signed_in
from domain.clock import Clocks, moment
from domain.errors import AccountNotFoundError

LEADERBOARD_ROWS = 100


def account_games(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """An account's games with what the lobby holds of each (newest first),
    by status: "running" (a tournament's among them), "open", "ended"."""
    views = services().views
    by_status: dict[str, list[dict[str, Any]]] = {"running": [], "open": [], "ended": []}
    for entry in reversed(doc["games"]):
        game = views.lobby_game(entry["game"])
        if game is None:
            continue
        organiser = entry.get("organiser", entry["seat"] is None)
        row = {**game, "seat": entry["seat"], "organiser": organiser}
        if game["status"] == "running" and game.get("clock") and entry["seat"] is not None:
            row["due"] = move_due(entry["game"], entry["seat"])
        by_status[game["status"]].append(row)
    return by_status


def move_due(game_id: str, seat: int) -> str | None:
    """When the seat's move in a timed game is due (RULES R11.3: its turn's
    deadline, as the running clocks' view has it), as an ISO time in UTC to
    the second; None when it is not the seat's turn or no clock runs."""
    doc = services().views.clocks(game_id, timeout=0)
    if doc is None or doc["fold"] is None or doc["expired"] is not None:
        return None
    clocks = Clocks.from_doc(doc["fold"])
    deadline = clocks.deadline()
    if clocks.turn != seat or deadline is None:
        return None
    return moment(deadline).replace(microsecond=0).isoformat()


def account_tournaments(doc: dict[str, Any], running: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An account's tournaments (newest first), each with the running game it
    sits at, if any: the tournament player's current game."""
    views = services().views
    rows = []
    for entry in reversed(doc["tournaments"]):
        found = views.lobby_game(entry["tournament"]) or {}
        current = next(
            (
                g
                for g in running
                if g["tournament"]
                and g["tournament"]["id"] == entry["tournament"]
                and g["seat"] is not None
            ),
            None,
        )
        rows.append(
            {
                **entry,
                "name": found.get("name", ""),
                "status": found.get("status", ""),
                "current": current,
            }
        )
    return rows


@blp.get("/me")
def my_games() -> Any:
    """The signed-in account's games and tournaments."""
    account = signed_in(request)
    if account is None:
        return redirect("/signin?next=/me", 303)
    caught_up(("accounts", "lobby"), after_arg())
    doc = services().views.account(account.id) or {"games": [], "tournaments": []}
    games = account_games(doc)
    tournaments = account_tournaments(doc, games["running"])
    return render_template(
        "web/people_me.html", account=account, games=games, tournaments=tournaments
    )


@blp.get("/account/<uuid:account_id>")
def account_page(account_id: UUID) -> str:
    """An account's public page: its name, kind, and its games."""
    caught_up(("accounts", "ratings"), after_arg())
    doc = services().views.account(account_id)
    if doc is None:
        raise AccountNotFoundError(f"no account {account_id}")
    rating = services().views.rating(account_id)  # its history drawn by api/web/rating_chart.py
    return render_template(
        "web/people_account.html", doc=doc, games=account_games(doc), rating=rating
    )


@blp.get("/players")
def leaderboard() -> str:
    caught_up(("leaderboard", "ratings"), after_arg())
    rows = services().views.leaderboard(LEADERBOARD_ROWS)
    ratings = services().views.ratings(LEADERBOARD_ROWS)
    return render_template("web/people_leaderboard.html", rows=rows, ratings=ratings)

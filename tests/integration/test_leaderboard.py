"""The leaderboard counts players by identity, never by display name."""

from __future__ import annotations

import random
from pathlib import Path

from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from projections.accounts import AccountsView
from projections.leaderboard import Leaderboard
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.sqlite_views import SQLiteViewStore


def play_out(app: Opus, seats: list[tuple[str, str]], seed: int) -> list[int]:
    """A whole game with these (name, token hash) seats; returns its scores."""
    game_id = app.create_game(secret=seed.to_bytes(32, "big"))
    for name, token_hash in seats:
        app.join(game_id, name, caller=Caller(token_hash))
    app.start(game_id)
    choose = BOTS["greedy"](random.Random(seed))
    while (state := app.state(game_id)).status == "running":
        app.play(game_id, choose(state, state.turn))
    return list(app.state(game_id).scores)


def test_players_named_alike_are_apart_and_a_player_keeps_one_row(tmp_path: Path) -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    ada, impostor = "a" * 64, "b" * 64
    first = play_out(app, [("Ada", ada), ("Ada's bot", "")], 1)
    second = play_out(app, [("Ada", impostor), ("Boris", "c" * 64)], 2)
    third = play_out(app, [("Ada the Great", ada), ("Ada", "")], 3)  # Ada renamed; a bot "Ada"
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    try:
        rebuild(store, app, [Leaderboard])
        rows = Queries(store).leaderboard()
    finally:
        store.close()
    by_id = {row["player_id"]: row for row in rows}
    assert len(rows) == 5  # Ada, Ada's bot, the impostor, Boris, the bot named Ada
    ada_rows = [r for r in rows if r["games"] == 2]
    assert len(ada_rows) == 1
    (ada_row,) = ada_rows
    assert ada_row["name"] == "Ada the Great"  # the name last played under
    assert ada_row["points"] == first[0] + third[0]
    named_ada = [r for r in by_id.values() if r["name"] == "Ada"]
    assert sorted(r["points"] for r in named_ada) == sorted([second[0], third[1]])
    assert all(ada not in str(row) and impostor not in str(row) for row in rows)


def test_an_account_is_one_row_under_its_name_whatever_its_seats_are_called(
    tmp_path: Path,
) -> None:
    """One row per account (its public id, its current name), apart from a
    token player who calls themselves the same; rebuilt from the log, and
    the accounts view lists the account's games; nothing secret in either."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    opened = app.accounts.open("Ada")
    ada = app.accounts.view(opened.account)
    first = play_out(app, [("Ada", ada.holder_hash), ("Boris", "c" * 64)], 4)
    second = play_out(app, [("Countess", ada.holder_hash), ("Ada", "d" * 64)], 5)
    app.accounts.rename(opened.account, "Ada Lovelace")
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    try:
        rebuild(store, app, [Leaderboard, AccountsView])
        rows = Queries(store).leaderboard()
        account = Queries(store).account(opened.account)
    finally:
        store.close()
    (row,) = [r for r in rows if r["player_id"] == str(opened.account)]
    assert row["account"] == str(opened.account)
    assert row["name"] == "Ada Lovelace" and row["games"] == 2
    assert row["points"] == first[0] + second[0]
    (token_ada,) = [r for r in rows if r["name"] == "Ada"]
    assert token_ada["account"] is None and token_ada["points"] == second[1]
    assert account is not None and account["name"] == "Ada Lovelace"
    assert [entry["seat"] for entry in account["games"]] == [0, 0]
    assert ada.holder_hash not in str(rows) + str(account)


def test_the_accounts_view_follows_seats_that_move_before_the_start(tmp_path: Path) -> None:
    """PlayerLeft moves the seats after it down: the accounts' seats follow;
    a tournament's registrations name their accounts; live equals rebuilt."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    accounts = [app.accounts.open(name).account for name in ("Ann", "Ben", "Cat")]
    holders = [app.accounts.view(a).holder_hash for a in accounts]
    game = app.create_game()
    for name, holder in zip(("Ann", "Ben", "Cat"), holders, strict=True):
        app.join(game, name, caller=Caller(holder))
    app.remove_seat(game, 0)
    tournament = app.tournaments.create("Cup").aggregate_id
    app.tournaments.register(tournament, "Cat", caller=Caller(holders[2]))
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    try:
        rebuild(store, app, [AccountsView])
        queries = Queries(store)
        members = queries.members(game)
        assert {seat: doc["name"] for seat, doc in members.items()} == {0: "Ben", 1: "Cat"}
        ann = queries.account(accounts[0])
        assert ann is not None and ann["games"] == []  # her seat removed: not her game
        registered = queries.members(tournament)
        assert {n: d["id"] for n, d in registered.items()} == {1: str(accounts[2])}
    finally:
        store.close()


def test_a_seat_taken_with_an_adopted_token_counts_for_the_account(tmp_path: Path) -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    opened = app.accounts.open("Jo")
    token = "9" * 64
    before = play_out(app, [("Jo", token), ("Kim", "8" * 64)], 21)  # signed out
    app.accounts.adopt(opened.account, [token])
    after = play_out(app, [("Jo", token), ("Lev", "7" * 64)], 22)  # the same token, adopted
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    try:
        rebuild(store, app, [Leaderboard, AccountsView])
        rows = {row["player_id"]: row for row in Queries(store).leaderboard()}
        games = Queries(store).account(opened.account)
    finally:
        store.close()
    account_row = rows[str(opened.account)]
    assert account_row["games"] == 1 and account_row["points"] == after[0]
    (token_row,) = [r for r in rows.values() if r["account"] is None and r["name"] == "Jo"]
    assert token_row["points"] == before[0]
    assert games is not None and len(games["games"]) == 1

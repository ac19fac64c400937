"""Seating the service's bots at a lobby game and knowing them (domain/bot_seats.py).

In memory: the bots join through ``Opus.join`` with their accounts' holder
hashes under their accounts' names; which seats are bots, and of which
kind, is read from the store, so a new process (a new ``Opus`` on a copy
of the log) knows them as well.
"""

from __future__ import annotations

import pytest

from domain.accounts.aggregate import bot_name
from domain.application import Opus
from domain.bot_seats import MAX_OF_A_KIND, bots_at, named_as_bot, roster, seat_bots
from domain.errors import NotInvitedError, SetupError
from domain.pipeline import Caller
from domain.simulation import token_hash
from tests.apps import copy_events

PERSON = Caller(token_hash("a person's token"))


def in_memory() -> Opus:
    return Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def test_bots_take_seats_under_their_accounts_names_holding_their_holder_hashes() -> None:
    app = in_memory()
    game_id = app.create_game(caller=PERSON)
    app.join(game_id, "Ada", caller=PERSON)
    seats = seat_bots(app, game_id, ["greedy", "greedy", "shrewd", "random"])
    assert seats == [1, 2, 3, 4]
    state = app.state(game_id)
    assert state.names == ["Ada", "Greedy bot", "Greedy bot 2", "Shrewd bot", "Random bot"]
    for seat, (kind, number) in zip(
        seats, [("greedy", 1), ("greedy", 2), ("shrewd", 1), ("random", 1)], strict=True
    ):
        account = app.accounts.view(app.accounts.bot(kind, number))
        assert account.kind == f"bot:{kind}"
        assert state.token_hashes[seat] == account.holder_hash
        assert state.names[seat] == account.name == bot_name(kind, number)
        # the log names its kind where the analytics read a seat's bot (R9.1's contribution)
        assert state.contributions[seat].startswith(f"bot:{kind}:")
    assert len(set(state.contributions[1:])) == 4  # each its own share of the seed
    assert bots_at(app, game_id) == {1: "greedy", 2: "greedy", 3: "shrewd", 4: "random"}


def test_the_bots_at_a_table_are_known_from_the_store_in_a_new_process() -> None:
    app = in_memory()
    game_id = app.create_game(caller=PERSON)
    app.join(game_id, "Ada", caller=PERSON)
    seat_bots(app, game_id, ["shrewd", "greedy", "shrewd"])
    app.start(game_id, caller=PERSON)
    restarted = in_memory()  # another process: nothing of the first one's memory
    copy_events(app, restarted)
    assert roster(restarted) is not roster(app)
    assert bots_at(restarted, game_id) == {1: "shrewd", 2: "greedy", 3: "shrewd"}
    # and the seats held by the same accounts: the service acts for them there too
    holder = restarted.accounts.view(restarted.accounts.bot("greedy")).holder_hash
    assert restarted.legal_moves_of(game_id, holder).seat == 2


def test_a_seat_named_as_a_bot_is_no_bot_and_the_bot_takes_its_next_account() -> None:
    app = in_memory()
    game_id = app.create_game(caller=PERSON)
    # the same name key as "Greedy bot": seated by the service (a person may
    # not take it now, tests/unit/test_names.py), or recorded before that rule
    app.join(game_id, "greedy BOT")
    assert named_as_bot("greedy BOT")
    assert seat_bots(app, game_id, ["greedy"]) == [1]
    assert app.state(game_id).names[1] == "Greedy bot 2"
    assert bots_at(app, game_id) == {1: "greedy"}


def test_a_game_by_invitation_takes_its_organisers_bots() -> None:
    app = in_memory()
    game_id = app.create(caller=PERSON, admission="invitation").aggregate_id
    stranger = Caller(token_hash("a stranger"))
    with pytest.raises(NotInvitedError):
        app.join(game_id, "Boris", caller=stranger)
    assert seat_bots(app, game_id, ["random", "greedy"]) == [0, 1]
    assert bots_at(app, game_id) == {0: "random", 1: "greedy"}


def test_seating_refuses_an_unknown_kind_a_full_table_and_a_started_game() -> None:
    app = in_memory()
    game_id = app.create_game(caller=PERSON)
    with pytest.raises(SetupError, match="kind"):
        seat_bots(app, game_id, ["clever"])
    assert app.state(game_id).names == []  # nothing was seated
    seat_bots(app, game_id, ["greedy"] * MAX_OF_A_KIND)
    with pytest.raises(SetupError):  # R2.1: six players at most
        seat_bots(app, game_id, ["random"])
    app.start(game_id, caller=PERSON)
    other = app.create_game(caller=PERSON)
    seat_bots(app, other, ["greedy", "greedy"])  # the same accounts, at another table
    app.start(other, caller=PERSON)
    with pytest.raises(SetupError):
        seat_bots(app, other, ["greedy"])
    assert bots_at(app, game_id) == dict.fromkeys(range(MAX_OF_A_KIND), "greedy")
    assert bots_at(app, other) == {0: "greedy", 1: "greedy"}

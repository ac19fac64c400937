"""R3.5: a withdrawn seat's turns keep their draw phase and then pass.

Ada is seat 0, Boris seat 1, Cleo seat 2 (tests/builders.py).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from domain.audit import Record, verify_game
from domain.bots import greedy_bot
from domain.disclosure import PUBLIC, disclose
from domain.errors import WithdrawalError
from domain.moves import Discard, Pass
from domain.table import PublicTable, public_view
from tests.builders import Position, kinds, of_kind, started_game
from tests.unit.test_audit import rechain


def turns(events: list[object]) -> list[tuple[int, int, bool]]:
    return [(e.player, e.next_player, e.passed) for e in of_kind(events, "TurnEnded")]


def test_R3_5_a_withdrawn_seats_turn_draws_then_passes() -> None:
    """Boris withdraws while Ada plays; when his turn comes he draws to five
    (R3.1) and passes, and Cleo's turn begins with her draw."""
    p = Position(players=3).hand(0, 6, 7).hand(1, 2).hand(2, 3, 4, 5, 9, 12)
    p.deck(20, 21, 22, 23, 24)
    assert kinds(p.withdraw(1)) == ["SeatWithdrawn"]
    assert p.state.turn == 0 and p.state.withdrawn == [1]
    events = p.play(Discard(0, 6))
    assert turns(events) == [(0, 1, False), (1, 2, True)]
    drawn = of_kind(events, "CardsDrawn")
    assert [(d.player, d.cards) for d in drawn] == [(1, [20, 21, 22, 23])]  # Cleo holds 5
    assert p.state.turn == 2 and p.state.hands[1] == [2, 20, 21, 22, 23]


def test_R3_5_a_turn_in_progress_ends_with_a_pass() -> None:
    p = Position(players=3).hand(0, 6).hand(1, 2, 3, 4, 5, 9).hand(2, 7)
    p.deck(20, 21, 22, 23)
    events = p.withdraw(0)
    assert kinds(events)[:2] == ["SeatWithdrawn", "TurnEnded"]
    assert turns(events) == [(0, 1, True)]
    assert p.state.turn == 1 and p.state.hands[0] == [6]  # Ada keeps what she holds


def test_R3_5_withdrawn_seats_passes_count_for_R7_1() -> None:
    """The deck is empty: Ada passes, Boris (withdrawn) passes: two passes in
    a row with two players ends the game (R7.1)."""
    p = Position().hand(0, 6).hand(1, 7).empty_deck()
    p.withdraw(1)
    events = p.play(Pass(0))
    assert turns(events) == [(0, 1, True), (1, 0, True)]
    assert of_kind(events, "GameEnded")[0].reason == "R7.1"


def test_R3_5_the_last_seat_still_in_play_withdrawing_ends_the_game_at_once() -> None:
    p = Position().hand(0, 6).hand(1, 7)
    p.withdraw(1)
    events = p.withdraw(0)
    assert kinds(events) == ["SeatWithdrawn", "GameEnded"]  # no pass
    ended = of_kind(events, "GameEnded")[0]
    assert ended.reason == "withdrawn" and ended.winners == [0, 1]
    assert p.state.status == "ended"


def test_R3_5_a_seat_withdraws_once_and_only_from_a_running_game() -> None:
    p = Position().hand(0, 6).hand(1, 7)
    p.withdraw(1)
    with pytest.raises(WithdrawalError, match=r"^R3\.5: Boris has withdrawn already"):
        p.game.withdraw(1)
    with pytest.raises(WithdrawalError, match=r"^R3\.5: there is no seat index 5"):
        p.game.withdraw(5)
    assert not p.game.pending_events


def test_R3_5_a_game_with_withdrawals_re_judges_and_its_public_table_shows_them() -> None:
    """The audit decides withdrawals and the passes they bring as it decides
    moves; the public table, built from public events, equals the state's."""
    game = started_game(3)
    rng = random.Random(4)
    choose = greedy_bot(rng)
    moves = 0
    while game.state.status == "running":
        if moves == 3:
            game.withdraw(2)
        if moves == 20:
            game.withdraw(game.state.turn)
        game.play(choose(game.state, game.state.turn))
        moves += 1
    events = list(game.collect_events())
    records = [Record.of_event(e, None) for e in events]
    verdict = verify_game(records)
    assert verdict.ok, verdict.reason
    assert kinds(events).count("SeatWithdrawn") == 2
    public = PublicTable(commitment=events[0].commitment)
    for event in events[1:]:
        kind = type(event).__name__
        public.evolve(kind, disclose(kind, vars(event), PUBLIC, ended=False))
    assert public_view(public) == public_view(game.state)
    assert public_view(public)["withdrawn"] == game.state.withdrawn
    # a forged log where Cleo, withdrawn, did not pass, chained again, fails
    # on the rules at that event
    at = next(
        i
        for i, r in enumerate(records)
        if r.type == "TurnEnded" and r.payload and r.payload["player"] == 2 and i > 40
    )
    payload = {**(records[at].payload or {}), "passed": False}
    forged = rechain([*records[:at], replace(records[at], payload=payload), *records[at + 1 :]])
    verdict = verify_game(forged)
    assert not verdict.ok and verdict.version == at + 1, verdict.reason

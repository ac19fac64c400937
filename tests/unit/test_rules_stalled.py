"""R7.4: a stalled game ends. When n turns in a row (n = the number of
players, withdrawn seats included) were each a pass with no card drawn and
no spell cast, the game ends after the last of them (reason "stalled");
R7.1 and R7.2 come first, a call (T8.1) after.

Ada is seat 0, Boris seat 1, Cleo seat 2 (tests/builders.py). Stones are
cards 200-205: never discarded (R4.1), and placed only at stage 7 of a
column whose stages 1-6 are filled (R4.5), so a hand of Stones alone has no
main action and passes (R3.3) with cards left in the deck.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime

from domain.audit import Record, verify_game
from domain.game import Game
from domain.legal import legal_moves
from domain.moves import Cast, Discard, Move, Pass
from domain.ruleset import RuleSet
from domain.state import CARDS, GameState
from projections.describe import PLAIN, line
from tests.builders import SECRET, Position, kinds, of_kind
from tests.forgery import rechain, rewritten

STONES_IN_HAND = (200, 201, 202, 203, 204)
FIVE_CARDS = (6, 7, 8, 9, 14)  # Boris's hand: five cards, so he draws none (R3.1)
KNOWLEDGE = 73  # R6.1


def turns(events: list[object]) -> list[tuple[int, int, bool]]:
    return [(e.player, e.next_player, e.passed) for e in of_kind(events, "TurnEnded")]


def stalled_three_seats() -> Position:
    """The issue's game: Boris and Cleo withdrawn, five cards each; Ada, the
    one seat in play, holds five Stones; Cleo has a recipe on her table
    that no stage of Ada's Sequences names (R4.5)."""
    p = Position(players=3).hand(0, *STONES_IN_HAND).hand(1, *FIVE_CARDS)
    p.hand(2, 15, 38, 39, 40, 46).table(2, 2, 20, 24)  # Polyglotum Potion: no stage of Ada's
    assert kinds(p.withdraw(1)) == ["SeatWithdrawn"]
    assert kinds(p.withdraw(2)) == ["SeatWithdrawn"]
    assert legal_moves(p.state, 0) == [Pass(0)]
    return p


def test_R7_4_a_stalled_game_ends_after_n_passes_with_no_draw_and_no_spell() -> None:
    """Ada passes, Boris and Cleo (withdrawn, holding five) pass without a
    draw: three quiet turns in a row at three players, and the game ends
    after the third, with cards left in the deck. R7.3 still ranks it:
    nobody scored, nobody has a stage, Cleo has one recipe on her table."""
    p = stalled_three_seats()
    deck = len(p.state.deck)
    events = p.play(Pass(0))
    assert kinds(events) == ["TurnEnded", "TurnEnded", "TurnEnded", "GameEnded"]
    assert turns(events) == [(0, 1, True), (1, 2, True), (2, 0, True)]
    (ended,) = of_kind(events, "GameEnded")
    assert ended.reason == "stalled"
    assert ended.scores == [0, 0, 0]
    assert ended.winners == [2]
    assert ended.secret == SECRET.hex()  # R9.3
    assert p.state.status == "ended"
    assert len(p.state.deck) == deck > 0


def test_R7_4_the_logs_words_for_a_stalled_end() -> None:
    """The move log and the pages' log (projections/describe.py) show the
    reason as recorded, in both languages."""
    ended = {"event": "GameEnded", "reason": "stalled", "winners": [2], "scores": [0, 0, 0]}
    names = ["Ada", "Boris", "Cleo"]
    assert line(ended, names) == "Game over (stalled): Cleo won; scores 0, 0, 0"
    assert "(stalled)" in line(ended, names, replace(PLAIN, russian=True))


def test_R7_4_a_turn_that_draws_a_card_breaks_the_row() -> None:
    """Boris (withdrawn) holds four: his turn draws one (R3.1), so it is not
    quiet and the row starts again; it takes two more quiet turns."""
    p = Position().hand(0, *STONES_IN_HAND).hand(1, *FIVE_CARDS[:4])
    p.withdraw(1)
    first = p.play(Pass(0))
    assert kinds(first) == ["TurnEnded", "CardsDrawn", "TurnEnded"]
    assert p.state.status == "running" and p.state.turn == 0
    second = p.play(Pass(0))
    assert kinds(second) == ["TurnEnded", "TurnEnded", "GameEnded"]
    assert of_kind(second, "GameEnded")[0].reason == "stalled"


def test_R7_4_a_turn_that_casts_a_spell_breaks_the_row() -> None:
    """Ada casts Knowledge (R6.1) for the Stone on the cabinet, then passes
    with five Stones: her turn cast a spell, so only Boris's pass counts;
    her next pass, quiet, makes the row of two."""
    p = Position().hand(0, *STONES_IN_HAND[:4], KNOWLEDGE).hand(1, *FIVE_CARDS).cabinet(205)
    p.withdraw(1)
    p.play(Cast(0, KNOWLEDGE, card=205))
    assert legal_moves(p.state, 0) == [Pass(0)]
    first = p.play(Pass(0))
    assert turns(first) == [(0, 1, True), (1, 0, True)]
    assert p.state.status == "running"
    second = p.play(Pass(0))
    assert kinds(second) == ["TurnEnded", "GameEnded"]
    assert of_kind(second, "GameEnded")[0].reason == "stalled"


def test_R7_4_a_main_action_breaks_the_row() -> None:
    """Ada discards (R4.1: +1, the stack was empty), and her next turn draws
    the last Stone (R3.1): neither turn is quiet. Boris's pass after her
    draw and her next pass are the row of two."""
    p = Position().hand(0, *STONES_IN_HAND[:4], 10).hand(1, *FIVE_CARDS).deck(205)
    p.withdraw(1)
    first = p.play(Discard(0, 10))
    assert turns(first) == [(0, 1, False), (1, 0, True)]
    assert [(d.player, d.cards) for d in of_kind(first, "CardsDrawn")] == [(0, [205])]
    second = p.play(Pass(0))
    assert turns(second) == [(0, 1, True), (1, 0, True)]
    assert p.state.status == "running"
    third = p.play(Pass(0))
    assert kinds(third) == ["TurnEnded", "GameEnded"]
    (ended,) = of_kind(third, "GameEnded")
    assert (ended.reason, ended.scores, ended.winners) == ("stalled", [1, 0], [0])


def test_R7_4_R7_1_is_recorded_when_it_ends_the_game_at_the_same_turn() -> None:
    """The deck is empty: two quiet passes at two players end the game by
    R7.1 and by R7.4 at once; the reason is R7.1."""
    p = Position().hand(0, 6).hand(1, 7).empty_deck()
    events = p.play(Pass(0), Pass(1))
    assert of_kind(events, "GameEnded")[0].reason == "R7.1"


def test_R7_4_a_call_ending_the_game_at_the_same_turn_gives_stalled() -> None:
    """T8.1 would end the game after Boris's turn, the row of quiet passes
    ends there too: "stalled" (decision)."""
    p = Position().hand(0, *STONES_IN_HAND).hand(1, *FIVE_CARDS)
    p.withdraw(1)
    p.game.call(datetime(2026, 1, 1, tzinfo=UTC), "arbiter")
    p.events.extend(p.game.collect_events())
    events = p.play(Pass(0))
    assert kinds(events) == ["TurnEnded", "TurnEnded", "GameEnded"]
    assert of_kind(events, "GameEnded")[0].reason == "stalled"


def test_R7_4_a_game_started_under_rules_version_1_plays_on() -> None:
    """R10: a game is replayed under the rule set it started with; version
    "1" came before R7.4, so its stalled games go on as they were recorded."""
    p = stalled_three_seats()
    assert p.state.rules is not None
    p.state.rules = replace(p.state.rules, version="1")
    for _ in range(3):
        events = p.play(Pass(0))
        assert kinds(events) == ["TurnEnded"] * 3
    assert p.state.status == "running"


# ---- a recorded game that stalls: played from a real deal, re-judged -----------------


def hoard(state: GameState, seat: int) -> Move:
    """Ada's play: discard the first card that is not a Stone; with Stones
    alone, pass (nothing else is legal: nobody has a recipe on the table)."""
    for card in state.hands[seat]:
        if not CARDS[card].stone:
            return Discard(seat, card)
    return Pass(seat)


def stalled_game() -> Game:
    """Two seats from the deal of a fixed secret; Boris withdraws at once and
    Ada hoards the Stones she draws until she holds five with cards left in
    the deck (this secret's deal gets there)."""
    game = Game.create(RuleSet(), secret=hashlib.sha256(b"stalled:0").digest())
    game.join("Ada", "")
    game.join("Boris", "")
    game.start()
    game.withdraw(1)
    for _ in range(500):
        if game.state.status != "running":
            break
        game.play(hoard(game.state, game.state.turn))
    return game


def went_on(records: list[Record]) -> list[Record]:
    """The log as if the game had not ended: its GameEnded replaced by the
    next seat's pass (the seat the last TurnEnded named), chained again."""
    ended, last = records[-1], next(r for r in reversed(records) if r.type == "TurnEnded")
    seat = (last.payload or {})["next_player"]
    turn = {"player": seat, "next_player": (seat + 1) % 2, "passed": True, "command": ""}
    return rechain([*records[:-1], replace(ended, type="TurnEnded", payload=turn)])


def test_R7_4_a_recorded_stalled_game_is_re_judged_and_a_log_going_on_fails() -> None:
    game = stalled_game()
    records = [Record.of_event(e, None) for e in game.collect_events()]
    ended = records[-1]
    assert ended.type == "GameEnded" and (ended.payload or {})["reason"] == "stalled"
    assert game.state.deck  # cards were left
    assert len(game.state.hands[0]) == 5 and all(CARDS[c].stone for c in game.state.hands[0])
    verdict = verify_game(records)
    assert verdict.ok, verdict.reason
    # the log says the game went on: the rules end it there, naming R7.4
    verdict = verify_game(went_on(records))
    assert not verdict.ok and verdict.version == ended.version
    assert verdict.reason.startswith("R7.4: recorded TurnEnded"), verdict.reason
    # the log gives the end another reason
    verdict = verify_game(rewritten(records, ended.version, lambda p: p.update(reason="R7.1")))
    assert not verdict.ok and verdict.version == ended.version
    assert verdict.reason.startswith("R7.4: GameEnded differs: reason"), verdict.reason


def test_R7_4_a_game_started_under_version_1_is_re_judged_without_it() -> None:
    """R10: the same log, its start recording version "1" (as a store written
    before R7.4 holds it): its stalled end is no move the rules of version 1
    make, and the log going on instead re-judges."""
    records = [Record.of_event(e, None) for e in stalled_game().collect_events()]
    started = next(r for r in records if r.type == "GameStarted")
    old_rules = RuleSet.from_dict({**(started.payload or {})["rules"], "version": "1"})

    def as_version_1(payload: dict[str, object]) -> None:
        payload.update(rules=old_rules.as_dict(), rules_digest=old_rules.digest)

    old = rewritten(records, started.version, as_version_1)
    verdict = verify_game(old)
    assert not verdict.ok and verdict.version == records[-1].version, verdict.reason
    assert verdict.reason.startswith("R7.4: recorded GameEnded"), verdict.reason
    assert "the rules give TurnEnded" in verdict.reason
    going_on = verify_game(went_on(old))
    assert going_on.ok, going_on.reason

"""The turn (R3.1–R3.4), the end of the game (R7.1–R7.3) and the points
ledger (R8.1–R8.2), on hand-built positions and one whole game.

Ada is seat 0, Boris seat 1, Cleo seat 2 (tests/builders.py).
"""

from __future__ import annotations

import random

from domain.bots import greedy_bot
from domain.engine import winners
from domain.errors import GameOverError, OutOfTurnError, PassNotAllowedError
from domain.events import PointsAwarded
from domain.legal import legal_moves
from domain.moves import Assemble, Cast, Discard, Pass, Place
from domain.ruleset import RuleSet
from domain.state import GAP
from tests.builders import Position, kinds, of_kind, points, started_game

ADA_ALBEDO = (6, 14, 38, 44, 49, 67)  # stages 1-6 of S1's albedo column
BORIS_ALBEDO = (10, 8, 39, 47, 54, 63)  # stages 1-6 of S4's albedo column

# ---- R3.1 the draw phase -----------------------------------------------------


def test_R3_1_the_next_player_draws_from_the_top_of_the_deck_up_to_five() -> None:
    """R3.1, R2.2: Boris holds 2 cards, so his draw phase takes the top 3."""
    p = Position().hand(0, 6).hand(1, 2, 3).deck(20, 21, 22, 23)
    events = p.play(Discard(0, 6))
    (drawn,) = of_kind(events, "CardsDrawn")
    assert (drawn.player, drawn.cards) == (1, [20, 21, 22])
    assert p.state.hands[1] == [2, 3, 20, 21, 22]
    assert p.state.deck[0] == 23


def test_R3_1_no_draw_with_five_or_more_cards_in_hand() -> None:
    """R3.1: Boris holds 6 cards: he draws none."""
    p = Position().hand(0, 6).hand(1, 0, 1, 2, 3, 4, 5)
    events = p.play(Discard(0, 6))
    assert "CardsDrawn" not in kinds(events)
    assert len(p.state.hands[1]) == 6


def test_R3_1_the_draw_stops_when_the_deck_runs_out() -> None:
    """R3.1: two cards left in the deck: Boris draws those two."""
    p = Position().hand(0, 6).hand(1, 2).cabinet(3).deck(20, 21).empty_deck(keep=2)
    events = p.play(Discard(0, 6))
    assert of_kind(events, "CardsDrawn")[0].cards == [20, 21]
    assert p.state.deck == []
    events = p.play(Discard(1, 2))
    assert "CardsDrawn" not in kinds(events)


def test_R3_1_variant_one_draws_a_single_card() -> None:
    """R3.1, variant draw="one": Boris holds 3 cards and draws one."""
    p = Position(rules=RuleSet(draw="one")).hand(0, 6).hand(1, 2, 3, 4).deck(20, 21)
    events = p.play(Discard(0, 6))
    assert of_kind(events, "CardsDrawn")[0].cards == [20]
    assert len(p.state.hands[1]) == 4


def test_R3_1_variant_one_draws_up_to_seven_cards_in_hand() -> None:
    """R3.1, variant draw="one": with 6 cards Boris draws a 7th; with 7, none."""
    six = Position(rules=RuleSet(draw="one")).hand(0, 6).hand(1, 0, 1, 2, 3, 4, 5)
    events = six.play(Discard(0, 6))
    assert len(of_kind(events, "CardsDrawn")[0].cards) == 1
    assert len(six.state.hands[1]) == 7
    seven = Position(rules=RuleSet(draw="one")).hand(0, 6).hand(1, 0, 1, 2, 3, 4, 5, 7)
    events = seven.play(Discard(0, 6))
    assert "CardsDrawn" not in kinds(events)
    assert len(seven.state.hands[1]) == 7


def test_R3_1_the_first_player_draws_to_five_when_the_game_starts() -> None:
    """R3.1, R2.2: seat 0's first draw phase follows the deal of four cards."""
    for draw in ("five", "one"):
        game = started_game(2, RuleSet(draw=draw))
        assert [len(h) for h in game.state.hands] == [5, 4]
        assert kinds(game.collect_events())[-1] == "CardsDrawn"


# ---- R3.2 the play phase -----------------------------------------------------


def test_R3_2_exactly_one_main_action_then_the_turn_ends() -> None:
    """R3.2: after Ada's discard it is Boris's turn; Ada cannot cast or act."""
    p = Position().hand(0, 6, 7, 73).cabinet(8)
    events = p.play(Discard(0, 6))
    (ended,) = of_kind(events, "TurnEnded")
    assert (ended.player, ended.next_player, ended.passed) == (0, 1, False)
    p.refuse(Discard(0, 7), OutOfTurnError, "R3.4")
    p.refuse(Cast(0, 73, card=8), OutOfTurnError, "R3.4")


# ---- R3.3 pass ---------------------------------------------------------------


def test_R3_3_pass_is_refused_while_a_main_action_is_legal_and_the_deck_is_not_empty() -> None:
    """R3.3: Ada could discard her Love Potion."""
    p = Position().hand(0, 6)
    assert p.state.deck
    error = p.refuse(Pass(0), PassNotAllowedError, "R3.3")
    assert "Ada has a legal main action" in str(error)
    assert Pass(0) not in legal_moves(p.state, 0)


def test_R3_3_pass_is_allowed_when_no_main_action_is_legal() -> None:
    """R3.3: Ada holds only a Stone (never discarded, R4.1) and no column is at
    stage 6: nothing to do, so she may pass although the deck is not empty."""
    p = Position().hand(0, 202)
    assert legal_moves(p.state, 0) == [Pass(0)]
    events = p.play(Pass(0))
    (ended,) = of_kind(events, "TurnEnded")
    assert ended.passed is True
    assert p.state.turn == 1


def test_R3_3_a_stone_that_can_be_placed_is_a_main_action_so_no_pass() -> None:
    """R3.3, R4.5: Ada's albedo column is at stage 6 and she holds its Stone."""
    p = Position().hand(0, 202).column(0, "albedo", *ADA_ALBEDO)
    assert legal_moves(p.state, 0) == [Place(0, "albedo", 202)]
    p.refuse(Pass(0), PassNotAllowedError, "R3.3")


def test_R3_3_pass_is_allowed_when_the_deck_is_empty() -> None:
    """R3.3: with the deck empty Ada may pass even though she could discard."""
    p = Position().hand(0, 6).empty_deck()
    assert Pass(0) in legal_moves(p.state, 0)
    events = p.play(Pass(0))
    assert of_kind(events, "TurnEnded")[0].passed is True


# ---- R3.4 whose turn ---------------------------------------------------------


def test_R3_4_only_the_player_whose_turn_it_is_may_act() -> None:
    """R3.4: it is Ada's turn; Boris's discard, cast and pass are all refused."""
    p = Position().hand(0, 6).hand(1, 7, 73).cabinet(8)
    error = p.refuse(Discard(1, 7), OutOfTurnError, "R3.4")
    assert str(error) == "R3.4: it is Ada's turn, not Boris's"
    p.refuse(Cast(1, 73, card=8), OutOfTurnError, "R3.4")
    p.refuse(Pass(1), OutOfTurnError, "R3.4")
    assert legal_moves(p.state, 1) == []


def test_R3_4_a_seat_that_does_not_exist_may_not_act() -> None:
    """R3.4: there is no seat index 2 in a two-player game."""
    p = Position().hand(0, 6)
    p.refuse(Discard(2, 6), OutOfTurnError, "R3.4")
    p.refuse(Discard(-1, 6), OutOfTurnError, "R3.4")


# ---- R7.1 the deck is empty and everyone passed ------------------------------


def test_R7_1_the_game_ends_after_n_passes_in_a_row_with_the_deck_empty() -> None:
    """R7.1, R9.3: Ada and Boris pass with the deck empty: the game ends and the
    secret is revealed."""
    p = Position().hand(0, 6).hand(1, 7).empty_deck()
    p.play(Pass(0))
    assert p.state.status == "running"
    events = p.play(Pass(1))
    (ended,) = of_kind(events, "GameEnded")
    assert ended.reason == "R7.1"
    assert ended.secret == bytes(32).hex()
    assert ended.scores == [0, 0]
    assert p.state.status == "ended"


def test_R7_1_a_main_action_breaks_the_row_of_passes() -> None:
    """R7.1: pass, discard, pass: not yet two passes in a row."""
    p = Position().hand(0, 6).hand(1, 7, 2).empty_deck()
    p.play(Pass(0), Discard(1, 7), Pass(0))
    assert p.state.status == "running"
    events = p.play(Pass(1))
    assert of_kind(events, "GameEnded")[0].reason == "R7.1"


def test_R7_1_passes_made_while_the_deck_still_has_cards_do_not_count() -> None:
    """R7.1: Ada's pass (nothing to do, one card left) comes before the deck is
    empty; Boris draws the last card; only his and Ada's next pass count."""
    p = Position().hand(0, 202).hand(1, 2, 3, 4, 5).deck(20).empty_deck(keep=1)
    p.play(Pass(0))
    assert p.state.deck == []
    p.play(Pass(1))
    assert p.state.status == "running"
    events = p.play(Pass(0))
    assert of_kind(events, "GameEnded")[0].reason == "R7.1"


def test_R7_1_after_the_end_no_move_is_accepted() -> None:
    """R7.1: the game is over."""
    p = Position().hand(0, 6).hand(1, 7).empty_deck()
    p.play(Pass(0), Pass(1))
    p.refuse(Discard(0, 6), GameOverError, "R7.1")
    p.refuse(Pass(0), GameOverError, "R7.1")
    assert legal_moves(p.state, 0) == []


# ---- R7.2 a Philosopher's Stone ends the game --------------------------------


def test_R7_2_after_a_stone_the_round_is_played_out_to_the_last_seat() -> None:
    """R7.2: Boris (seat 1 of 3) places his White Stone; Cleo still plays, then
    the game ends before Ada's next turn."""
    p = Position(players=3).column(1, "albedo", *BORIS_ALBEDO).hand(1, 202)
    p.hand(2, 7).turn(1)
    events = p.play(Place(1, "albedo", 202))
    assert "SequenceCompleted" in kinds(events)
    assert "GameEnded" not in kinds(events)
    assert p.state.turn == 2
    events = p.play(Discard(2, 7))
    (ended,) = of_kind(events, "GameEnded")
    assert ended.reason == "R7.2"
    assert ended.winners == [1]
    assert p.state.status == "ended"


def test_R7_2_a_stone_placed_by_the_last_seat_ends_the_game_at_once() -> None:
    """R7.2: Boris is the last seat: the round is already played out."""
    p = Position().column(1, "albedo", *BORIS_ALBEDO).hand(1, 203).turn(1)
    events = p.play(Place(1, "albedo", 203))
    assert kinds(events)[-3:] == ["SequenceCompleted", "TurnEnded", "GameEnded"]
    assert of_kind(events, "GameEnded")[0].reason == "R7.2"


def test_R7_2_a_stone_placed_by_seat_zero_lets_everyone_else_play_once() -> None:
    """R7.2: Ada places her Stone first; Boris and Cleo play, then the end."""
    p = Position(players=3).column(0, "albedo", *ADA_ALBEDO).hand(0, 202)
    p.hand(1, 7).hand(2, 2)
    p.play(Place(0, "albedo", 202), Discard(1, 7))
    assert p.state.status == "running"
    events = p.play(Discard(2, 2))
    assert of_kind(events, "GameEnded")[0].reason == "R7.2"


# ---- R7.3 the winner ---------------------------------------------------------


def _end(p: Position) -> list[int]:
    """Empty the deck and let everyone pass (R7.1); returns the winners."""
    p.empty_deck()
    for _ in range(p.state.players):
        p.play(Pass(p.state.turn))
    (ended,) = of_kind(p.events, "GameEnded")
    assert ended.winners == p.state.winners
    return ended.winners


def test_R7_3_most_points_wins() -> None:
    """R7.3: Ada's stage (2 points) beats Boris's three stages and two recipes."""
    p = Position().hand(0, 6).column(1, "nigredo", 7, GAP, 206)
    p.table(1, 10, 20, 24).table(1, 11, 21, 25)
    p.play(Place(0, "albedo", 6))
    assert _end(p) == [0]


def test_R7_3_a_tie_on_points_goes_to_more_completed_stages() -> None:
    """R7.3: no points on either side; Boris's Transmutation, gap and Telepathic
    Draught are three completed stages against Ada's one; her two table recipes
    would only count after that."""
    p = Position().column(0, "albedo", 206).column(1, "nigredo", 207, GAP, 33)
    p.table(0, 10, 20, 24).table(0, 11, 21, 25)
    assert winners(p.state) == [1]
    assert _end(p) == [1]


def test_R7_3_then_more_recipes_on_the_table_counting_only_top_level_cards() -> None:
    """R7.3: equal points and stages; Ada's one great elixir (its two recipe
    components do not count) loses to Boris's two potions."""
    p = Position().table(0, 49, 6, 14).table(1, 10, 20, 24).table(1, 11, 21, 25)
    p.column(0, "albedo", 206).column(1, "rubedo", 207)
    assert _end(p) == [1]


def test_R7_3_still_tied_the_win_is_shared() -> None:
    """R7.3: equal points, stages and table recipes: all three share the win."""
    p = Position(players=3).table(0, 10, 20, 24).table(1, 11, 21, 25)
    p.table(2, 49, 6, 14)
    assert _end(p) == [0, 1, 2]


# ---- R8.1, R8.2 the points ledger --------------------------------------------


def test_R8_1_every_point_is_a_points_awarded_event_naming_its_cause() -> None:
    """R8.1: over a whole greedy game, each score is the sum of that player's
    PointsAwarded, each names a known rule and the event that caused it."""
    game = started_game(3)
    rng = random.Random(7)
    bot = greedy_bot(rng)
    events = list(game.collect_events())
    while game.state.status == "running" and len(events) < 3000:
        game.play(bot(game.state, game.state.turn))
        events.extend(game.collect_events())
    assert game.state.status == "ended"
    by_version = {e.originator_version: e for e in events}
    awards = [e for e in events if isinstance(e, PointsAwarded)]
    assert awards
    for award in awards:
        assert award.rule in {"R4.1", "R4.4", "R4.4/half", "R4.6", "R4.6/half"}
        assert type(by_version[award.cause_version]).__name__ == award.cause
        assert award.points > 0
    for seat in range(3):
        assert game.state.scores[seat] == sum(a.points for a in awards if a.player == seat)
    (ended,) = of_kind(events, "GameEnded")
    assert ended.scores == game.state.scores


def test_R8_1_the_five_rule_labels_of_the_ledger() -> None:
    """R8.1: R4.1 (Ada's discard onto an empty stack), R4.6 (Boris's stage 1),
    R4.4 and R4.4/half (Ada's Powder of Control with Boris's Love Potion), R4.6
    and R4.6/half (Boris's stage 2 from Ada's table)."""
    p = Position().hand(0, 2, 46).hand(1, 7).table(1, 6, 8, 10).table(0, 14, 11, 17)
    p.cabinet(16)
    p.play(Discard(0, 2), Place(1, "nigredo", 7))
    p.play(Assemble(0, 46, (6, 16)), Place(1, "nigredo", 14))
    assert [(e.player, e.points, e.rule) for e in p.ledger()] == [
        (0, 1, "R4.1"),
        (1, 2, "R4.6"),
        (0, 4, "R4.4"),
        (1, 2, "R4.4/half"),
        (1, 2, "R4.6"),
        (0, 1, "R4.6/half"),
    ]
    assert p.state.scores == [6, 6]
    p.assert_ledger()


def test_R8_2_half_points_round_down() -> None:
    """R8.2: with stage points 3, 3, 5, 5, 7, 9, 11 (a rule-set variant, R10),
    Boris's half of a 3-point stage is 1."""
    p = Position(rules=RuleSet(stage_points=(3, 3, 5, 5, 7, 9, 11))).table(1, 6, 8, 10)
    events = p.play(Place(0, "albedo", 6))
    assert points(events) == [(0, 3, "R4.6"), (1, 1, "R4.6/half")]
    p.assert_ledger()

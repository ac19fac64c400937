"""What a move scores, asked before it is played (``engine.preview``): the
awards playing it records, on the whole state and on what the mover knows
of it (``GameState.seen_by``, the web page's state), where a card lies
(``GameState.locate``) the same on both but for the other hands."""

from __future__ import annotations

import copy
import random

import pytest

from domain.engine import Award, preview
from domain.events import PointsAwarded
from domain.game import Game
from domain.legal import legal_moves
from domain.moves import Move
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.table import PublicTable, public_view
from tests.builders import all_cards, started_game


def seen_by_mover(state: GameState) -> GameState:
    """The mover's state as the page builds it: the public view, the whole
    cabinet stacks, the mover's hand and the rules."""
    assert state.rules is not None
    table = PublicTable.from_doc(public_view(state), state.cabinet)
    return GameState.seen_by(table, state.turn, state.hands[state.turn], state.rules)


def played(game: Game, move: Move) -> list[Award]:
    """The awards playing ``move`` records, on a copy of the game."""
    copied = copy.deepcopy(game)
    copied.play(move)
    return [
        Award(e.player, e.points, e.rule)
        for e in copied.collect_events()
        if isinstance(e, PointsAwarded)
    ]


@pytest.mark.parametrize(
    ("players", "rules", "seed"),
    [
        (2, RuleSet(), 1),
        (3, RuleSet(), 2),
        (4, RuleSet(draw="one"), 3),
        (3, RuleSet(guild=False), 4),
    ],
)
def test_a_preview_is_what_playing_the_move_awards_and_the_page_sees_the_same(
    players: int, rules: RuleSet, seed: int
) -> None:
    rng = random.Random(seed)
    game = started_game(players, rules)
    game.collect_events()
    rules_seen: set[str] = set()
    turns = 0
    while game.state.status == "running" and turns < 400:
        state = game.state
        before = copy.deepcopy(state)
        seen = seen_by_mover(state)
        moves = legal_moves(state, state.turn)
        scored: list[tuple[int, Move]] = []
        for move in moves:
            awards = preview(state, move)
            if turns % 4 == 0:  # every move of every fourth turn, played on a copy
                assert awards == played(game, move), move
            assert preview(seen, move) == awards, move
            rules_seen.update(a.rule for a in awards)
            scored.append((sum(a.points for a in awards if a.seat == state.turn), move))
        assert state == before  # a preview changes nothing
        for card in all_cards(rules.guild):
            elsewhere = any(card in hand for k, hand in enumerate(state.hands) if k != state.turn)
            assert seen.locate(card) == (None if elsewhere else state.locate(card)), card
        best = max(points for points, _ in scored)  # greedy, to reach every kind of award
        game.play(rng.choice([m for points, m in scored if points == best]))
        game.collect_events()
        turns += 1
    assert game.state.status == "ended"
    assert {"R4.1", "R4.4", "R4.4/half"} <= rules_seen  # every kind of award was previewed
    if rules.guild:
        assert {"R4.6", "R4.6/half"} <= rules_seen

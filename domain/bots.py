"""Bots that play through legal-move enumeration: random and greedy."""

from __future__ import annotations

import random
from collections.abc import Callable

from domain.engine import preview
from domain.legal import legal_moves
from domain.moves import Move
from domain.state import GameState

Bot = Callable[[GameState, int], Move]


def immediate_points(state: GameState, move: Move) -> int:
    """The points the mover scores by this move alone (the engine's preview)."""
    return sum(award.points for award in preview(state, move) if award.seat == move.player)


def random_bot(rng: random.Random) -> Bot:
    def choose(state: GameState, seat: int) -> Move:
        return rng.choice(legal_moves(state, seat))

    return choose


def greedy_bot(rng: random.Random) -> Bot:
    """Highest immediate points; ties broken at random."""

    def choose(state: GameState, seat: int) -> Move:
        moves = legal_moves(state, seat)
        scored = [(immediate_points(state, m), m) for m in moves]
        best = max(p for p, _ in scored)
        return rng.choice([m for p, m in scored if p == best])

    return choose


BOTS: dict[str, Callable[[random.Random], Bot]] = {"random": random_bot, "greedy": greedy_bot}

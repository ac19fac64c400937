"""Whole games played by bots through the application service."""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from uuid import UUID

from domain.application import Opus
from domain.bots import BOTS
from domain.ruleset import RuleSet

NAMES = ("Ada", "Boris", "Chloe", "Dmitri", "Elena", "Farid")


@dataclass
class Summary:
    games: int = 0
    events: int = 0
    moves: int = 0
    points: int = 0
    scores: int = 0  # how many player scores went into ``points``
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0
    game_ids: list[UUID] = field(default_factory=list)

    @property
    def mean_score(self) -> float:
        return self.points / self.scores if self.scores else 0.0

    def lines(self) -> list[str]:
        wins = ", ".join(f"seat {s}: {self.wins_by_seat[s]}" for s in sorted(self.wins_by_seat))
        rate = self.games / self.seconds if self.seconds else 0.0
        return [
            f"games: {self.games}",
            f"events: {self.events}",
            f"moves: {self.moves}",
            f"mean score: {self.mean_score:.2f}",
            f"winners by seat: {wins}",
            f"time: {self.seconds:.2f} s ({rate:.1f} games/s)",
        ]


def play_game(
    app: Opus,
    players: int,
    bot: str,
    rng: random.Random,
    variant: RuleSet | None = None,
    secret: bytes | None = None,
) -> tuple[UUID, int]:
    """One complete game; returns its id and the number of moves played."""
    choose = BOTS[bot](rng)
    game_id = app.create_game(variant, secret=secret)
    for name in NAMES[:players]:
        app.join(game_id, name, contribution=f"{name}-{rng.random()}")
    app.start(game_id)
    moves = 0
    state = app.state(game_id)
    while state.status == "running":
        app.play(game_id, choose(state, state.turn))
        moves += 1
        state = app.state(game_id)
    return game_id, moves


def simulate(
    app: Opus, games: int, players: int, bot: str, seed: int, variant: RuleSet | None = None
) -> Summary:
    """Play ``games`` games; the seed fixes the bots' choices and the secrets."""
    rng = random.Random(seed)
    summary = Summary()
    started = time.perf_counter()
    for i in range(games):
        secret = hashlib.sha256(f"opus-simulation:{seed}:{i}".encode()).digest()
        game_id, moves = play_game(app, players, bot, rng, variant, secret)
        state = app.state(game_id)
        summary.games += 1
        summary.moves += moves
        summary.events += app.version(game_id)
        summary.points += sum(state.scores)
        summary.scores += len(state.scores)
        summary.wins_by_seat.update(state.winners)
        summary.game_ids.append(game_id)
    summary.seconds = time.perf_counter() - started
    return summary

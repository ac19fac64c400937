"""A whole tournament of bots, through the application service (``opus
tournament simulate``, benchmarks, tests): registration, pairing, every
game played by its seats' tokens, drops at random, finish."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.application import Opus
from domain.bots import BOTS
from domain.ruleset import RuleSet
from domain.tournaments.standings import Row


@dataclass
class TournamentRun:
    tournament: UUID
    games: list[UUID] = field(default_factory=list)
    moves: int = 0
    dropped: list[int] = field(default_factory=list)
    standings: list[Row] = field(default_factory=list)


def token_of(seed: int, player: int) -> str:
    """A simulated player's token (reproducible from the seed)."""
    return hashlib.sha256(f"opus-tournament:{seed}:{player}".encode()).hexdigest()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


ORGANISER = "opus-simulated-organiser"


def simulate_tournament(
    app: Opus,
    players: int,
    rounds: int,
    bot: str = "greedy",
    seed: int = 1,
    drop_rate: float = 0.0,
    rules: RuleSet | None = None,
) -> TournamentRun:
    """Play a tournament of ``players`` bots over ``rounds`` rounds; after
    each round each active player drops with probability ``drop_rate``."""
    rng = random.Random(seed)
    choose = BOTS[bot](rng)
    secret = hashlib.sha256(f"opus-tournament-secret:{seed}".encode()).digest()
    tournaments = app.tournaments
    tournament_id, _ = tournaments.create(
        f"Simulated {seed}", token_hash(ORGANISER), rules=rules, rounds=rounds, secret=secret
    )
    run = TournamentRun(tournament_id)
    hashes = {}
    for number in range(1, players + 1):
        hashes[number] = token_hash(token_of(seed, number))
        tournaments.register(tournament_id, f"Bot {number}", f"c{number}", hashes[number])
    for _ in range(rounds):
        state = tournaments.get(tournament_id).state
        if len(state.active) < state.sizes.min:
            break
        tournaments.pair(tournament_id)
        state = tournaments.get(tournament_id).state
        for seat in state.rounds[-1].tables:
            run.games.append(seat.game)
            run.moves += _play_out(app, seat.game, [hashes[p] for p in seat.players], choose)
        for player in tournaments.get(tournament_id).state.active:
            if rng.random() < drop_rate:
                tournaments.drop(tournament_id, player)
                run.dropped.append(player)
    tournaments.finish(tournament_id)
    run.standings = tournaments.get(tournament_id).state.standings()
    return run


def _play_out(app: Opus, game_id: UUID, seat_hashes: list[str], choose: Any) -> int:
    moves = 0
    state = app.state(game_id)
    while state.status == "running":
        seat = state.turn
        app.play(game_id, choose(state, seat), token_hash=seat_hashes[seat])
        moves += 1
        state = app.state(game_id)
    return moves

"""A whole tournament of bots, through the application service (``opus
tournament simulate``, benchmarks, tests): registration, pairing, every
game played by its seats' tokens, drops at random, finish.

``play_on`` takes a tournament from wherever the store has it (a round half
played, a round to pair, a finish to record) to its end, so a run that was
killed can be resumed."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from domain.application import Opus
from domain.bots import BOTS
from domain.moves import Move
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.tournaments.standings import Row

ORGANISER = "opus-simulated-organiser"
Choose = Callable[[GameState, int], Move]


@dataclass
class TournamentRun:
    tournament: UUID
    seed: int
    games: list[UUID] = field(default_factory=list)
    moves: int = 0
    dropped: list[int] = field(default_factory=list)
    standings: list[Row] = field(default_factory=list)


def token_of(seed: int, player: int) -> str:
    """A simulated player's token (reproducible from the seed)."""
    return hashlib.sha256(f"opus-tournament:{seed}:{player}".encode()).hexdigest()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


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
    run = enter_tournament(app, players, rounds, seed, rules)
    play_on(app, run, bot, drop_rate)
    return run


def enter_tournament(
    app: Opus, players: int, rounds: int, seed: int = 1, rules: RuleSet | None = None
) -> TournamentRun:
    """Create the tournament and register ``players`` bots."""
    secret = hashlib.sha256(f"opus-tournament-secret:{seed}".encode()).digest()
    tournament_id, _ = app.tournaments.create(
        f"Simulated {seed}", token_hash(ORGANISER), rules=rules, rounds=rounds, secret=secret
    )
    for number in range(1, players + 1):
        hashed = token_hash(token_of(seed, number))
        app.tournaments.register(tournament_id, f"Bot {number}", f"c{number}", hashed)
    return TournamentRun(tournament_id, seed)


def play_on(app: Opus, run: TournamentRun, bot: str = "greedy", drop_rate: float = 0.0) -> None:
    """Play the tournament to its finish from wherever it stands."""
    rng = random.Random(run.seed)
    choose: Choose = BOTS[bot](rng)
    tournaments = app.tournaments
    while True:
        state = tournaments.get(run.tournament).state
        if state.status == "finished":
            break
        if state.status == "playing":
            for seat in state.rounds[-1].tables:
                if seat.game not in state.results:
                    run.games.append(seat.game)
                    hashes = [token_hash(token_of(run.seed, p)) for p in seat.players]
                    run.moves += play_out(app, seat.game, hashes, choose)
            for player in tournaments.get(run.tournament).state.active:
                if rng.random() < drop_rate:
                    tournaments.drop(run.tournament, player)
                    run.dropped.append(player)
            continue
        planned = state.planned_rounds
        if (planned is not None and state.paired >= planned) or len(state.active) < state.sizes.min:
            tournaments.finish(run.tournament)
        else:
            tournaments.pair(run.tournament)
    run.standings = tournaments.get(run.tournament).state.standings()


def play_out(app: Opus, game_id: UUID, seat_hashes: list[str], choose: Choose) -> int:
    """Play a game to its end, each move by its seat's token; the moves made."""
    moves = 0
    state = app.state(game_id)
    while state.status == "running":
        seat = state.turn
        app.play(game_id, choose(state, seat), token_hash=seat_hashes[seat])
        moves += 1
        state = app.state(game_id)
    return moves

"""Whole games and tournaments played by bots through the application
service (``opus simulate``, ``opus tournament simulate``, benchmarks, tests).

A tournament's registration, pairing, every game played by its seats'
tokens, drops at random, finish. ``play_on`` takes a tournament from
wherever the store has it (a round half played, a round to pair, a finish
to record) to its end, so a run that was killed can be resumed."""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import TournamentRuleError
from domain.moves import Move
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.tournaments.cut import stage as cut_stage
from domain.tournaments.standings import Row

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
        # a person reads it: seats counted from 1, as the pages show them (the index + 1)
        wins = ", ".join(f"seat {s + 1}: {self.wins_by_seat[s]}" for s in sorted(self.wins_by_seat))
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


# ---- tournaments ---------------------------------------------------------------

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
    *,
    teams: int = 0,
    constraints: int = 0,
    cut: int | None = None,
    **settings: Any,
) -> TournamentRun:
    """Play a tournament of ``players`` bots over ``rounds`` Swiss rounds
    (then the cut of ``cut`` tables, T12, when named); after each round each
    active player drops with probability ``drop_rate``. ``teams``: the
    players registered in that many teams, in turn (T11.1); ``constraints``:
    that many pairs, drawn with the seed, that must not share a table;
    ``settings``: T1.1's others (``sizes``, ``weight``, ``procedure``), as
    the tournament's creation takes them."""
    run = enter_tournament(
        app,
        players,
        rounds,
        seed,
        rules,
        teams=teams,
        constraints=constraints,
        cut=cut,
        **settings,
    )
    play_on(app, run, bot, drop_rate)
    return run


def enter_tournament(
    app: Opus,
    players: int,
    rounds: int,
    seed: int = 1,
    rules: RuleSet | None = None,
    *,
    teams: int = 0,
    constraints: int = 0,
    cut: int | None = None,
    **settings: Any,
) -> TournamentRun:
    """Create the tournament and register ``players`` bots (bot n in team
    ``n mod teams`` when there are teams); record the constraints."""
    secret = hashlib.sha256(f"opus-tournament-secret:{seed}".encode()).digest()
    organiser = Caller(token_hash(ORGANISER))
    created = app.tournaments.create(
        f"Simulated {seed}",
        caller=organiser,
        rules=rules,
        rounds=rounds,
        secret=secret,
        cut=cut,
        **settings,
    )
    tournament_id = created.aggregate_id
    for number in range(1, players + 1):
        player = Caller(token_hash(token_of(seed, number)))
        team = f"Team {number % teams + 1}" if teams else ""
        app.tournaments.register(
            tournament_id, f"Bot {number}", f"c{number}", caller=player, team=team
        )
    rng = random.Random(f"constraints:{seed}")
    pairs = [(p, q) for p in range(1, players + 1) for q in range(p + 1, players + 1)]
    for pair in rng.sample(pairs, min(constraints, len(pairs))):
        app.tournaments.constrain(
            tournament_id, list(pair), "simulated", "organiser", caller=organiser
        )
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
        stage = cut_stage(state, state.paired + 1)
        if stage == "over" or len(state.active) < state.sizes.min:
            tournaments.finish(run.tournament)
        elif stage == "swiss":
            tournaments.pair(run.tournament)
        else:  # T12: the cut's round, unless too few are left for it
            try:
                tournaments.pair(run.tournament)
            except TournamentRuleError as refused:
                if refused.rule not in ("T12.1", "T12.3"):
                    raise
                tournaments.finish(run.tournament)
    run.standings = tournaments.get(run.tournament).state.standings()


def play_out(app: Opus, game_id: UUID, seat_hashes: list[str], choose: Choose) -> int:
    """Play a game to its end, each move by its seat's token; the moves made."""
    moves = 0
    state = app.state(game_id)
    while state.status == "running":
        seat = state.turn
        app.play(game_id, choose(state, seat), caller=Caller(seat_hashes[seat]))
        moves += 1
        state = app.state(game_id)
    return moves

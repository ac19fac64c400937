"""Synthetic players of known strength and seats of known edge: the truth
bench/ratings.py holds the seat models to (issue 35, item 5).

Each of ``players`` players has a true strength θ, evenly from −spread/2
to +spread/2 (in μ units), and each seat k at a table of s a true edge δ,
made from its share of the wins at a table of equals (``TRUE_SHARES``: the
first seat of three wins 40.3 %, as in the issue): δ = c_s ln share, c_s =
√s β, centred. A game's order is drawn from the Plackett–Luce model at a
settled table's scale: the first place with probability ∝ exp((θ + δ) /
c_s), the next among those left, and so on. So the oracle (bench/
rating_models.Oracle) knows every probability exactly, and a model's seat
is right when its share at a table of equals (domain.ratings.
equal_table_shares, what /players and the report show) is the true share.

Three seatings (``SEATINGS``): ``random`` (every round, random tables of
2–5 in random seats, as the bot bench); ``strongest first`` (the strongest
player at each table sits first: the lobby's "Play against bots" seats the
person first), where the log's win shares mix the seat with the player;
and ``a third strongest first`` (a third of the tables so, the rest random).

Printed, the mean over ``seeds`` populations, after 10, 30 and 100 games a
player: each model's learned share of the first seat at each table size
against the truth, its seats' σ against their prior, its held-out
log-loss of the winner and its gap to the oracle's, and rank Elo's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.rating_models import (
    LogSeats,
    Model,
    Oracle,
    RankElo,
    Seated,
    Unseated,
    log_loss,
    spearman,
)
from domain.ratings import (
    BEFORE_ISSUE_35,
    PARAMETERS,
    Parameters,
    RatedGame,
    RatedSeat,
    equal_table_shares,
)

TABLE_SIZES = (2, 3, 4, 5)
SEATINGS = ("random", "a third strongest first", "strongest first")
CHECKPOINTS = (10, 30, 100)
TRUE_SHARES = {
    2: (0.56, 0.44),
    3: (0.403, 0.300, 0.297),
    4: (0.30, 0.24, 0.23, 0.23),
    5: (0.25, 0.19, 0.19, 0.19, 0.18),
}
WIDENED = Parameters(seat_scale=0.0)  # today's prior on each game's scale: widened, nothing else
WIDER = Parameters(seat_sigma=2.0)  # a prior wider still, on a settled table's scale


def settled_c(players: int) -> float:
    return math.sqrt(players) * PARAMETERS.beta


def edges(shares: Sequence[float]) -> list[float]:
    """Each seat's true edge in μ at a settled table: c_s ln share, centred."""
    c = settled_c(len(shares))
    logs = [c * math.log(share) for share in shares]
    return [x - sum(logs) / len(logs) for x in logs]


DELTA = {size: edges(shares) for size, shares in TRUE_SHARES.items()}


@dataclass
class World:
    """One population: true strengths, and the games drawn for it."""

    theta: list[float]
    rng: random.Random
    seating: str

    def truth(self, game: RatedGame) -> list[float]:
        c = settled_c(game.players)
        weights = [
            math.exp((self.theta[int(s.account[1:])] + DELTA[game.players][s.seat]) / c)
            for s in game.seats
        ]
        total = sum(weights)
        return [w / total for w in weights]

    def strength(self, account: str) -> float:
        return self.theta[int(account[1:])]

    def round(self) -> list[RatedGame]:
        """Every player once, at random tables of 2–5."""
        order = list(range(len(self.theta)))
        self.rng.shuffle(order)
        games = []
        while order:
            size = self.rng.choice(TABLE_SIZES)
            if len(order) - size == 1:  # no table of one
                size += 1 if size < 5 else -1
            table, order = order[:size], order[size:]
            if self.seating == "strongest first" or (
                self.seating == "a third strongest first" and self.rng.random() < 1 / 3
            ):
                table.sort(key=lambda p: -self.theta[p])
            games.append(self.play(table))
        return games

    def play(self, table: list[int]) -> RatedGame:
        size = len(table)
        c = settled_c(size)
        weights = [math.exp((self.theta[p] + DELTA[size][k]) / c) for k, p in enumerate(table)]
        left = list(range(size))
        place = [0] * size
        for rank in range(1, size + 1):
            pick = self.rng.random() * sum(weights[i] for i in left)
            for i in left:
                pick -= weights[i]
                if pick <= 0:
                    break
            place[i] = rank
            left.remove(i)
        seats = tuple(RatedSeat(k, f"p{p}", place[k]) for k, p in enumerate(table))
        return RatedGame("synthetic", 0, size, seats)


def models() -> list[Model]:
    return [
        Seated(BEFORE_ISSUE_35, "before: seats σ₀ 1, game's scale"),
        Seated(WIDENED, f"widened: σ₀ {WIDENED.seat_sigma:g}, game's scale"),
        Seated(PARAMETERS, f"now: σ₀ {PARAMETERS.seat_sigma:g}, settled scale"),
        Seated(WIDER, f"wider: σ₀ {WIDER.seat_sigma:g}, settled scale"),
        LogSeats(PARAMETERS, "seats from the log, fixed"),
        Unseated(PARAMETERS, "no seats"),
        RankElo(32.0),
    ]


@dataclass
class Figures:
    """Sums over the seeds, by checkpoint and model."""

    share: dict[tuple[int, str, int], float]  # (checkpoint, model, table size): seat 1's share
    sigma: dict[tuple[int, str], float]  # seats' σ over their prior
    loss: dict[tuple[int, str], float]
    rho: dict[tuple[int, str], float]


def run(
    seating: str, seeds: int, players: int, spread: float, held_out: int, say: Callable[[str], None]
) -> None:
    names = [m.name for m in models()] + [Oracle.name]
    figures = Figures({}, {}, {}, {})
    for seed in range(seeds):
        theta = [spread * (i / (players - 1) - 0.5) for i in range(players)]
        world = World(theta, random.Random(seed), seating)
        judged = World(theta, random.Random(10_000 + seed), seating)
        held = [game for _ in range(held_out) for game in judged.round()]
        trained = models()
        oracle = Oracle(world.truth, world.strength)
        accounts = [f"p{i}" for i in range(players)]
        for number in range(1, max(CHECKPOINTS) + 1):
            for game in world.round():
                for model in trained:
                    model.update(game)
            if number not in CHECKPOINTS:
                continue
            for model in [*trained, oracle]:
                name = model.name
                add(figures.loss, (number, name), log_loss(model, held) / seeds)
                rho = spearman([model.score(a) for a in accounts], theta)
                add(figures.rho, (number, name), rho / seeds)
                if not isinstance(model, Seated) or isinstance(model, Unseated):
                    continue
                sigmas = []
                for size in TABLE_SIZES:
                    seats = [model.seat(k, size) for k in range(size)]
                    share = equal_table_shares(model.params, seats)[0]
                    add(figures.share, (number, name, size), share / seeds)
                    sigmas += [sigma / model.params.seat_sigma for _, sigma in seats]
                if not isinstance(model, LogSeats):  # its seats are not learned: no σ
                    add(figures.sigma, (number, name), sum(sigmas) / len(sigmas) / seeds)
    say(
        f"\nSynthetic, {seating} seats: {players} players of known strength (spread "
        f"{spread:g} μ), seats of known edge; the mean of {seeds} populations, each "
        f"{held_out} rounds held out"
    )
    truth = "  ".join(f"{s}: {TRUE_SHARES[s][0]:.1%}" for s in TABLE_SIZES)
    say(f"  the first seat's true share at a table of equals, by table size: {truth}")
    for number in CHECKPOINTS:
        oracle_loss = figures.loss[(number, Oracle.name)]
        elo_loss = figures.loss[(number, "rank Elo K=32")]
        say(
            f"  after {number} games a player (oracle's log-loss {oracle_loss:.4f}, "
            f"{elo_loss / oracle_loss - 1:+.1%} for rank Elo K=32 above it):"
        )
        say(
            f"    {'model':<34}"
            + "".join(f"{'seat 1 of ' + str(s):>12}" for s in TABLE_SIZES)
            + f"{'σ / σ₀':>8}{'log-loss':>10}{'vs oracle':>11}{'vs Elo':>8}{'ρ':>7}"
        )
        for name in names:
            if name == Oracle.name:
                continue
            shares = "".join(
                f"{figures.share[(number, name, s)]:>12.1%}"
                if (number, name, s) in figures.share
                else f"{'':>12}"
                for s in TABLE_SIZES
            )
            sigma = figures.sigma.get((number, name))
            loss = figures.loss[(number, name)]
            say(
                f"    {name:<34}{shares}"
                + (f"{sigma:>8.2f}" if sigma is not None else f"{'':>8}")
                + f"{loss:>10.4f}{loss / oracle_loss - 1:>+11.2%}{loss / elo_loss - 1:>+8.2%}"
                + f"{figures.rho[(number, name)]:>7.3f}"
            )


def add(sums: dict[Any, float], key: Any, value: float) -> None:
    sums[key] = sums.get(key, 0.0) + value

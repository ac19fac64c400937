"""The rating models bench/ratings.py compares, on bot games and on
synthetic players (bench/ratings_synthetic.py), each fed the same rated
games in order and asked the same questions: each rated seat's probability
of the first place before a game, and a player's score for ranking.

- ``Seated``: domain/ratings.py's model with given parameters (today's,
  or as recorded before issue 35);
- ``Unseated``: the same openskill model without the seat pseudo-players;
- ``LogSeats``: the seats' edges estimated from the log and held fixed:
  each seat's share of the wins so far at its table size (a shared win
  split, two fair games' worth of prior), put into each game as a fixed
  member of its team at the game's own scale (so that it moves the win's
  probability by exactly that share's log-odds), the players rated by the
  same openskill model;
- ``RankElo``: BGA-style rank Elo;
- ``Oracle``: the true strengths and seat edges, where they are known.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

from domain.ratings import (
    PARAMETERS,
    Parameters,
    RatedGame,
    Rating,
    game_probabilities,
    model_of,
    ordinal,
    rate_game,
    seat_id,
    win_probabilities,
)


class Model:
    name = ""

    def update(self, game: RatedGame) -> None:
        raise NotImplementedError

    def predict(self, game: RatedGame) -> list[float]:
        """Each rated seat's probability of the first place."""
        raise NotImplementedError

    def score(self, account: str) -> float:
        raise NotImplementedError

    def snapshot(self) -> Model:
        raise NotImplementedError


class Seated(Model):
    """domain/ratings.py's model: a seat is its player and its seat."""

    def __init__(
        self,
        params: Parameters = PARAMETERS,
        name: str = "openskill PL + seats",
        ratings: dict[str, Rating] | None = None,
    ) -> None:
        self.params = params
        self.name = name
        self.ratings = dict(ratings or {})

    def rating(self, member: str) -> Rating:
        p = self.params
        default = (p.seat_mu, p.seat_sigma) if "/" in member else (p.mu, p.sigma)
        return self.ratings.get(member, default)

    def update(self, game: RatedGame) -> None:
        self.ratings.update(rate_game(self.params, self.ratings, game))

    def predict(self, game: RatedGame) -> list[float]:
        return game_probabilities(self.params, self.ratings, game)

    def score(self, account: str) -> float:
        return ordinal(*self.rating(account))

    def seat(self, seat: int, players: int) -> Rating:
        return self.rating(seat_id(seat, players))

    def snapshot(self) -> Model:
        return Seated(self.params, self.name, self.ratings)


class Unseated(Seated):
    """The same model, the same parameters, without the seat pseudo-players."""

    def __init__(
        self,
        params: Parameters = PARAMETERS,
        name: str = "openskill PL, no seats",
        ratings: dict[str, Rating] | None = None,
    ) -> None:
        super().__init__(params, name, ratings)

    def update(self, game: RatedGame) -> None:
        model = model_of(self.params)
        teams = [[model.rating(*self.rating(s.account))] for s in game.seats]
        rated = model.rate(teams, ranks=[float(s.place) for s in game.seats])
        for s, (new,) in zip(game.seats, rated, strict=True):
            self.ratings[s.account] = (new.mu, new.sigma)

    def predict(self, game: RatedGame) -> list[float]:
        return win_probabilities(self.params, [[self.rating(s.account)] for s in game.seats])

    def snapshot(self) -> Model:
        return Unseated(self.params, self.name, self.ratings)


PRIOR_GAMES = 2.0  # LogSeats: fair games assumed at each table size before the log's


class LogSeats(Seated):
    """The seats' edges estimated from the log and held fixed (above)."""

    def __init__(
        self,
        params: Parameters = PARAMETERS,
        name: str = "seats from the log, fixed",
        ratings: dict[str, Rating] | None = None,
        wins: dict[tuple[int, int], float] | None = None,
    ) -> None:
        super().__init__(params, name, ratings)
        self.wins: dict[tuple[int, int], float] = defaultdict(float, wins or {})

    def edge(self, seat: int, players: int) -> float:
        """The seat's log-odds of the win against its table's mean seat."""

        def share(k: int) -> float:
            games = sum(self.wins[(players, j)] for j in range(players))
            return (self.wins[(players, k)] + PRIOR_GAMES / players) / (games + PRIOR_GAMES)

        logs = [math.log(share(k)) for k in range(players)]
        return logs[seat] - sum(logs) / players

    def _teams(self, game: RatedGame) -> tuple[list[list[Rating]], float]:
        p = self.params
        players = [[self.rating(s.account)] for s in game.seats]
        c = math.sqrt(sum(sigma**2 + p.tau**2 + p.beta**2 for ((_, sigma),) in players))
        teams = [
            [rating, (c * self.edge(s.seat, game.players), 0.0)]
            for (rating,), s in zip(players, game.seats, strict=True)
        ]
        return teams, c

    def update(self, game: RatedGame) -> None:
        model = model_of(self.params)
        teams, _ = self._teams(game)
        rated = model.rate(
            [[model.rating(mu, sigma) for mu, sigma in team] for team in teams],
            ranks=[float(s.place) for s in game.seats],
        )
        for s, (new, _) in zip(game.seats, rated, strict=True):
            self.ratings[s.account] = (new.mu, new.sigma)
        winners = [s.seat for s in game.seats if s.place == 1]
        for seat in winners:
            self.wins[(game.players, seat)] += 1 / len(winners)

    def predict(self, game: RatedGame) -> list[float]:
        teams, _ = self._teams(game)
        return win_probabilities(self.params, teams)

    def seat(self, seat: int, players: int) -> Rating:
        """The edge on a settled table's scale, as ``Seated.seat`` gives it."""
        return math.sqrt(players) * self.params.beta * self.edge(seat, players), 0.0

    def snapshot(self) -> Model:
        return LogSeats(self.params, self.name, self.ratings, dict(self.wins))


class RankElo(Model):
    """BGA-style rank Elo: each pair at a table a two-player game by their
    places (1 for the better, ½ a shared place), K / (n − 1) a pair, from
    1500; the winner predicted by 10^(R/400), normalised."""

    def __init__(self, k: float, ratings: dict[str, float] | None = None) -> None:
        self.k = k
        self.name = f"rank Elo K={k:g}"
        self.ratings = dict(ratings or {})

    def update(self, game: RatedGame) -> None:
        seats = game.seats
        before = [self.ratings.get(s.account, 1500.0) for s in seats]
        n = len(seats)
        for i, s in enumerate(seats):
            delta = 0.0
            for j, t in enumerate(seats):
                if i == j:
                    continue
                expected = 1 / (1 + 10 ** ((before[j] - before[i]) / 400))
                actual = 1.0 if s.place < t.place else 0.5 if s.place == t.place else 0.0
                delta += actual - expected
            self.ratings[s.account] = before[i] + self.k / (n - 1) * delta

    def predict(self, game: RatedGame) -> list[float]:
        powers = [10 ** (self.ratings.get(s.account, 1500.0) / 400) for s in game.seats]
        total = sum(powers)
        return [p / total for p in powers]

    def score(self, account: str) -> float:
        return self.ratings.get(account, 1500.0)

    def snapshot(self) -> Model:
        return RankElo(self.k, self.ratings)


class Oracle(Model):
    """Knows every player's true strength and every seat's true edge:
    ``truth`` gives a game's true probabilities of the first place."""

    name = "oracle (the truth)"

    def __init__(
        self, truth: Callable[[RatedGame], list[float]], strength: Callable[[str], float]
    ) -> None:
        self.truth = truth
        self.strength = strength

    def update(self, game: RatedGame) -> None:
        pass

    def predict(self, game: RatedGame) -> list[float]:
        return self.truth(game)

    def score(self, account: str) -> float:
        return self.strength(account)

    def snapshot(self) -> Model:
        return self


class Hindsight(Model):
    """Where the true strengths are not known (bot games): the strengths
    and seat edges that best explain every game, held-out ones included,
    fitted once (each player's and each seat's log-odds of the win,
    maximising the likelihood of the winners by gradient steps): what
    knowing the strengths reaches, a bound no rating learned online meets."""

    name = "hindsight (fitted to every game)"

    def __init__(self, games: Sequence[RatedGame], steps: int = 400, rate: float = 2.0) -> None:
        self.strengths: dict[str, float] = defaultdict(float)
        self.edges: dict[tuple[int, int], float] = defaultdict(float)
        counts: dict[object, int] = defaultdict(int)
        for game in games:
            for s in game.seats:
                counts[s.account] += 1
                counts[(game.players, s.seat)] += 1
        for _ in range(steps):
            grads: dict[object, float] = defaultdict(float)
            for game in games:
                p = self.predict(game)
                won = sum(p[i] for i, s in enumerate(game.seats) if s.place == 1)
                for i, s in enumerate(game.seats):
                    q = p[i] / won if s.place == 1 else 0.0
                    grads[s.account] += p[i] - q
                    grads[(game.players, s.seat)] += p[i] - q
            for key, grad in grads.items():
                if isinstance(key, str):
                    self.strengths[key] -= rate * grad / counts[key]
                else:
                    self.edges[key] -= rate * grad / counts[key]  # type: ignore[index]

    def update(self, game: RatedGame) -> None:
        pass

    def predict(self, game: RatedGame) -> list[float]:
        logits = [
            self.strengths[s.account] + self.edges[(game.players, s.seat)] for s in game.seats
        ]
        top = max(logits)
        weights = [math.exp(x - top) for x in logits]
        total = sum(weights)
        return [w / total for w in weights]

    def score(self, account: str) -> float:
        return self.strengths[account]

    def snapshot(self) -> Model:
        return self


def log_loss(model: Model, games: Sequence[RatedGame]) -> float:
    """Mean −ln of the probability given to the first place as it fell (a
    shared win: the sum over the seats that shared it)."""
    total = 0.0
    for game in games:
        p = model.predict(game)
        won = sum(p[i] for i, s in enumerate(game.seats) if s.place == 1)
        total -= math.log(max(won, 1e-12))
    return total / len(games)


def spearman(scores: Sequence[float], truth: Sequence[float]) -> float:
    """Spearman's ρ (ties take their mean rank)."""

    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    a, b = ranks(scores), ranks(truth)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    var = math.sqrt(sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b))
    return cov / var

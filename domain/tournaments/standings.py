"""Places, match points and standings (T5, T6), with corrections and
penalties taking effect (T7). All arithmetic is exact: fractions, or
integers over a common denominator.

The caller gives each game's outcome as of the standings' moment: the places
that count (the latest ResultCorrected's, else the recorded ones, T7.1) and
the number of corrections recorded so far; and the penalties recorded so far."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from math import lcm
from typing import Any
from uuid import UUID

from domain.chain import canonical_json
from domain.tournaments import exact
from domain.tournaments.seeds import rank_key

BYE_POINTS = 6  # T3.2: a table's average
RATE_FLOOR = 4  # T6.1 (2)


def places(keys: Sequence[tuple[int, int, int]]) -> list[int]:
    """T5.1: each player's place from their (points, completed stages,
    top-level table recipes), seat order: 1 + the number strictly greater,
    so ties share a place (1, 2, 2, 4)."""
    return [1 + sum(other > key for other in keys) for key in keys]


def is_competition_ranking(places: Sequence[int]) -> bool:
    """T7.1: whether every place is 1 + the number of places strictly better
    (1, 2, 2, 4 and 1, 1, 3 are; 1, 1, 2 and 2, 2 are not)."""
    return all(place == 1 + sum(other < place for other in places) for place in places)


def match_points(places: Sequence[int]) -> list[Fraction]:
    """T5.2: the match points of each place at a table of s = len(places) ≥ 2
    players: place k gets 12·(s − k)/(s − 1); players sharing a place share
    equally the points of the places they cover. ValueError if ``places`` is
    not a competition ranking (T7.1)."""
    s = len(places)
    if s < 2:
        raise ValueError(f"T5.2: a table has at least 2 players, not {s}")
    if not is_competition_ranking(places):
        raise ValueError(f"T7.1: places {list(places)} are not a competition ranking")
    shared: dict[int, Fraction] = {}
    for place in set(places):
        count = places.count(place)  # covers places place … place + count − 1
        covered = sum(12 * (s - k) for k in range(place, place + count))
        shared[place] = Fraction(covered, (s - 1) * count)
    return [shared[place] for place in places]


@cache
def _table_points(places: tuple[int, ...]) -> tuple[Fraction, ...]:
    return tuple(match_points(places))


@dataclass(frozen=True)
class Entrant:
    """A registration: its number (from 1), the name as given, whether dropped."""

    number: int
    name: str
    dropped: bool


@dataclass(frozen=True)
class Outcome:
    """A game's result as it counts now: ``players`` are registration numbers
    in seat order; ``places`` the latest correction's, else the recorded ones
    (T7.1); ``scores`` the games' own (T5.3); ``corrections`` the number of
    ResultCorrected recorded for this game."""

    game: UUID
    round: int
    table: int
    players: tuple[int, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    corrections: int


@dataclass(frozen=True)
class Row:
    """T6.2: one player's standings row; ``match_points`` is after penalties
    (the figure ranked by), ``penalties`` the total subtracted."""

    rank: int
    player: int
    name: str
    dropped: bool
    match_points: Fraction
    penalties: Fraction
    opponents: Fraction
    game_points: int
    games: int
    byes: int
    corrections: int

    def to_json(self) -> dict[str, Any]:
        """T6.2: the row as JSON values, fractions as "p/q" strings."""
        return {
            "rank": self.rank,
            "player": self.player,
            "name": self.name,
            "dropped": self.dropped,
            "match_points": exact.text(self.match_points),
            "penalties": exact.text(self.penalties),
            "opponents": exact.text(self.opponents),
            "game_points": self.game_points,
            "games": self.games,
            "byes": self.byes,
            "corrections": self.corrections,
        }


@dataclass
class _Tally:
    units: int = 0  # T5.2 match points from games (no byes, no penalties), in 1/unit
    games: int = 0
    scores: int = 0
    corrections: int = 0


def standings(
    entrants: Sequence[Entrant],
    outcomes: Iterable[Outcome],
    byes: Mapping[int, Sequence[int]],
    penalties: Mapping[int, Sequence[Fraction]],
    seed: bytes,
    up_to_round: int | None = None,
) -> list[Row]:
    """T6: every entrant's row, in rank order. Only games and byes of rounds
    ≤ ``up_to_round`` count when it is given. ``byes`` maps a player to the
    rounds of their byes, ``penalties`` a player to the match points
    subtracted (T7.2); ``seed`` is the tournament seed (T6.1 (4))."""

    def counts(round_: int) -> bool:
        return up_to_round is None or round_ <= up_to_round

    tally = {entrant.number: _Tally() for entrant in entrants}
    if len(tally) != len(entrants):
        raise ValueError("T6.2: two entrants share a registration number")
    tables: list[tuple[tuple[int, ...], tuple[Fraction, ...]]] = []
    seen: set[UUID] = set()
    for outcome in outcomes:
        if not counts(outcome.round):
            continue
        if outcome.game in seen:
            raise ValueError(f"T6.1: game {outcome.game} is given twice")
        seen.add(outcome.game)
        size = len(outcome.players)
        if len(set(outcome.players)) != size or not (
            len(outcome.places) == len(outcome.scores) == size
        ):
            raise ValueError(f"T5.1: game {outcome.game} has a malformed result")
        tables.append((outcome.players, _table_points(tuple(outcome.places))))
        for player, score in zip(outcome.players, outcome.scores, strict=True):
            if player not in tally:
                raise ValueError(f"T6.2: player {player} of game {outcome.game} is not registered")
            own = tally[player]
            own.games += 1
            own.scores += score
            own.corrections += outcome.corrections

    # Exact, in integers (Fraction arithmetic is too slow for 10,000 players):
    # every game's match points are whole multiples of 1/unit, and every rate
    # and table average below of 1/fine, fine = unit · G · S, where G is the
    # lcm of the players' game counts and S of the tables' sizes − 1.
    unit = lcm(1, *(point.denominator for _, shares in tables for point in shares))
    for players, shares in tables:
        for player, point in zip(players, shares, strict=True):
            tally[player].units += point.numerator * (unit // point.denominator)  # T5.2
    per_game = lcm(1, *(own.games for own in tally.values() if own.games))
    per_seat = lcm(1, *(len(players) - 1 for players, _ in tables))
    fine = unit * per_game * per_seat
    # T6.1 (2): each player's rate, once, in 1/fine: match points from games
    # (no byes, no penalties) ÷ games, floored at 4.
    rate = {
        player: max(own.units * (per_game // own.games) * per_seat, RATE_FLOOR * fine)
        for player, own in tally.items()
        if own.games
    }
    # Each seat's average of the other players' rates, (Σ rates − own) ÷ (s − 1),
    # summed over the player's games (each rate is a multiple of per_seat).
    opponent_sum = dict.fromkeys(tally, 0)
    for players, _ in tables:
        total = sum(rate[player] for player in players)
        for player in players:
            opponent_sum[player] += (total - rate[player]) // (len(players) - 1)

    rows: list[Row] = []
    for entrant in entrants:
        own = tally[entrant.number]
        bye_count = sum(1 for round_ in byes.get(entrant.number, ()) if counts(round_))
        taken = sum(penalties.get(entrant.number, ()), Fraction(0))
        points = Fraction(own.units, unit) + BYE_POINTS * bye_count - taken  # T6.1 (1), T3.2, T7.2
        opponents = Fraction(opponent_sum[entrant.number], fine * own.games or 1)  # 0 with no games
        rows.append(
            Row(
                rank=0,  # set below
                player=entrant.number,
                name=entrant.name,
                dropped=entrant.dropped,  # T6.1: a dropped player keeps their place, marked
                match_points=points,
                penalties=taken,
                opponents=opponents,
                game_points=own.scores,
                games=own.games,
                byes=bye_count,
                corrections=own.corrections + len(penalties.get(entrant.number, ())),  # T7.3
            )
        )

    # T6.1: (1)–(3) higher first, then (4) the rank key lower first. Fractions
    # are compared as integers over a common denominator (Fraction's own
    # comparisons are slow).
    points_scale = lcm(1, *(row.match_points.denominator for row in rows))
    opponents_scale = lcm(1, *(row.opponents.denominator for row in rows))

    def order(row: Row) -> tuple[int, int, int, bytes]:
        points, opponents = row.match_points, row.opponents
        return (
            -points.numerator * (points_scale // points.denominator),
            -opponents.numerator * (opponents_scale // opponents.denominator),
            -row.game_points,
            rank_key(seed, row.player),
        )

    rows.sort(key=order)
    return [replace(row, rank=rank) for rank, row in enumerate(rows, start=1)]


def digest(rows: Sequence[Row]) -> str:
    """T9.1, T9.3: hex SHA-256 of the JCS (RFC 8785) of the rows' JSON."""
    # domain.chain.canonical_json is JCS for these values: ASCII keys sorted,
    # no whitespace, strings unescaped but for '"', '\\' and control
    # characters (names hold none, T2.1), integers and booleans.
    return hashlib.sha256(canonical_json([row.to_json() for row in rows])).hexdigest()

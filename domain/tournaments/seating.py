"""Seats at a table (TOURNAMENT.md T4.3): seat 0 has an edge (RULES R2.1), so
the first seat, then the early seats, are spread evenly over the rounds."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from fractions import Fraction

from domain.shuffle import shuffle

# One earlier game of a player: (seat, number of players at that table).
Game = tuple[int, int]


def seat_order(players: Sequence[int], round_seed: bytes) -> dict[int, int]:
    """T4.3's last tie-break: each player's position in shuffle(registration
    numbers of all active players, byes included, SHA-256(round seed ‖ "seats"))."""
    order = shuffle(sorted(players), hashlib.sha256(round_seed + b"seats").digest())
    return {player: position for position, player in enumerate(order)}


def seat_load(games: Sequence[Game]) -> Fraction:
    """T4.3: Σ over earlier games of (s − 1 − seat)/(s − 1): 1 for a first seat, 0 for a last."""
    return sum((Fraction(size - 1 - seat, size - 1) for seat, size in games), Fraction(0))


def seat_table(
    table: Sequence[int], history: Mapping[int, Sequence[Game]], order: Mapping[int, int]
) -> list[int]:
    """T4.3: the table's players in seat order. Seat k, from seat 0, goes to the
    remaining player with the fewest earlier games at a seat ≤ k; ties by the
    lower seat load, then by the earlier position in ``order`` (seat_order)."""
    load = {p: seat_load(history.get(p, ())) for p in table}
    remaining = list(table)
    seated: list[int] = []
    for k in range(len(table)):

        def key(p: int, k: int = k) -> tuple[int, Fraction, int]:
            early = sum(1 for seat, _ in history.get(p, ()) if seat <= k)
            return (early, load[p], order[p])

        chosen = min(remaining, key=key)
        remaining.remove(chosen)
        seated.append(chosen)
    return seated

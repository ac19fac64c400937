"""Table sizes and byes (TOURNAMENT.md T3): how many tables of which sizes a
round has, and how many players sit out when no such split exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product


@dataclass(frozen=True)
class TableSizes:
    """T1.1: the smallest, preferred and largest table; 2 ≤ min ≤ preferred ≤ max ≤ 5."""

    min: int = 3
    preferred: int = 4
    max: int = 5

    def __post_init__(self) -> None:
        if not 2 <= self.min <= self.preferred <= self.max <= 5:
            raise ValueError(
                f"table sizes {self.min}/{self.preferred}/{self.max} (min/preferred/max) "
                "must satisfy 2 ≤ min ≤ preferred ≤ max ≤ 5"
            )


def partition(n: int, sizes: TableSizes) -> tuple[int, ...] | None:
    """T3.1: the table sizes for ``n`` players, largest first; None if there is none (or n ≤ 0).

    The partition of n into parts in [min, max] with the most tables of the
    preferred size, then the fewest tables, then the largest smallest table."""
    if n <= 0:
        return None
    pref = sizes.preferred
    others = [s for s in range(sizes.min, sizes.max + 1) if s != pref]
    best: tuple[tuple[int, int, int], int, tuple[int, ...]] | None = None
    # T3.1: a size other than the preferred one appears fewer than `pref` times in
    # the best partition: `pref` tables of size s hold as many players as s
    # preferred tables, which would be more preferred tables. So these few
    # counts of the other sizes are all the candidates, whatever n is.
    for counts in product(range(pref), repeat=len(others)):
        rest = sum(c * s for c, s in zip(counts, others, strict=True))
        if rest > n or (n - rest) % pref:
            continue
        k = (n - rest) // pref
        used = [s for c, s in zip(counts, others, strict=True) if c]
        smallest = min(used + ([pref] if k else []))
        key = (k, -(k + sum(counts)), smallest)  # T3.1's order, greatest best
        if best is None or key > best[0]:
            best = (key, k, counts)
    if best is None:
        return None
    _, k, counts = best
    parts = [pref] * k + [s for c, s in zip(counts, others, strict=True) for _ in range(c)]
    return tuple(sorted(parts, reverse=True))


def fewest_byes(n: int, sizes: TableSizes) -> tuple[int, tuple[int, ...]]:
    """T3.2: the fewest byes b for ``n`` active players, and T3.1's partition of n − b.

    ValueError when n < min: then no round can be paired (T2.4)."""
    if n < sizes.min:
        raise ValueError(f"{n} active players cannot fill a table of at least {sizes.min}")
    for b in range(n - sizes.min + 1):
        parts = partition(n - b, sizes)
        if parts is not None:
            return b, parts
    raise AssertionError("unreachable: one table of min players is a partition")


def cut(order: Sequence[int], parts: Sequence[int]) -> list[list[int]]:
    """T3.1: ``order`` cut into consecutive tables of the sizes ``parts``, table 1 first."""
    if sum(parts) != len(order):
        raise ValueError(f"tables of {sum(parts)} seats for {len(order)} players")
    tables: list[list[int]] = []
    start = 0
    for size in parts:
        tables.append(list(order[start : start + size]))
        start += size
    return tables

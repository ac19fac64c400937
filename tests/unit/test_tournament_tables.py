"""T3: table sizes and byes, against T3.1's examples and a brute force that
ranks every partition by T3.1's order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.tournaments.tables import TableSizes, cut, fewest_byes, partition

DEFAULT = TableSizes()
ALL_SIZES = [
    TableSizes(lo, pref, hi) for lo in range(2, 6) for pref in range(lo, 6) for hi in range(pref, 6)
]


def all_partitions(n: int, lo: int, hi: int) -> Iterator[tuple[int, ...]]:
    """Every partition of n into parts in [lo, hi], largest part first."""
    if n == 0:
        yield ()
        return
    for part in range(min(hi, n), lo - 1, -1):
        for rest in all_partitions(n - part, lo, part):
            yield (part, *rest)


def brute_force(n: int, sizes: TableSizes) -> list[tuple[int, ...]]:
    """The partitions that rank first by T3.1: most preferred tables, fewest
    tables, largest smallest table."""
    candidates = list(all_partitions(n, sizes.min, sizes.max))
    if not candidates:
        return []

    def rank(p: tuple[int, ...]) -> tuple[int, int, int]:
        return (p.count(sizes.preferred), -len(p), min(p))

    top = max(map(rank, candidates))
    return [p for p in candidates if rank(p) == top]


def test_T1_1_table_sizes_default_to_3_4_5() -> None:
    assert (DEFAULT.min, DEFAULT.preferred, DEFAULT.max) == (3, 4, 5)


@pytest.mark.parametrize(
    "lo, pref, hi", [(1, 3, 4), (3, 2, 4), (3, 5, 4), (3, 4, 6), (4, 3, 3), (0, 0, 0)]
)
def test_T1_1_table_sizes_outside_2_min_pref_max_5_are_refused(lo: int, pref: int, hi: int) -> None:
    with pytest.raises(ValueError, match="2 ≤ min ≤ preferred ≤ max ≤ 5"):
        TableSizes(lo, pref, hi)


@pytest.mark.parametrize(
    "n, parts", [(6, (3, 3)), (7, (4, 3)), (9, (5, 4)), (10, (4, 3, 3)), (13, (5, 4, 4))]
)
def test_T3_1_examples_of_the_rule(n: int, parts: tuple[int, ...]) -> None:
    assert partition(n, DEFAULT) == parts


def test_T3_1_4_4_5_with_7_players_has_no_partition() -> None:
    assert partition(7, TableSizes(4, 4, 5)) is None


def test_T3_1_no_players_no_partition() -> None:
    assert partition(0, DEFAULT) is None


@pytest.mark.parametrize("sizes", ALL_SIZES, ids=lambda s: f"{s.min}-{s.preferred}-{s.max}")
def test_T3_1_partition_is_the_unique_best_of_all_partitions(sizes: TableSizes) -> None:
    for n in range(1, 41):
        best = brute_force(n, sizes)
        assert len(best) <= 1, f"T3.1 ties for {n}: {best}"
        assert partition(n, sizes) == (best[0] if best else None), n


def test_T3_1_partition_of_many_players_is_quick_and_right() -> None:
    # 10,000 = 2,500 tables of 4; 10,001 needs one table of 5; 10,003 one of 3 (4/4/5: 5s).
    assert partition(10_000, DEFAULT) == (4,) * 2500
    assert partition(10_001, DEFAULT) == (5,) + (4,) * 2499
    assert partition(10_003, DEFAULT) == (4,) * 2500 + (3,)
    assert partition(10_003, TableSizes(4, 4, 5)) == (5,) * 3 + (4,) * 2497
    assert partition(10_001, TableSizes(2, 2, 2)) is None


def test_T3_1_partition_for_large_n_repeats_the_pattern_of_small_n() -> None:
    # The best partition of n + pref adds one preferred table (once n is past
    # the few non-preferred tables any best partition has).
    for sizes in ALL_SIZES:
        for n in range(60, 120):
            small, large = partition(n, sizes), partition(n + sizes.preferred, sizes)
            if small is None:
                assert large is None
            else:
                assert large == tuple(sorted((*small, sizes.preferred), reverse=True))


def test_T3_2_no_bye_when_a_partition_exists() -> None:
    assert fewest_byes(13, DEFAULT) == (0, (5, 4, 4))


def test_T3_2_4_4_5_with_7_players_gives_2_byes() -> None:
    # 6 has no partition into 4s and 5s; 5 does.
    assert fewest_byes(7, TableSizes(4, 4, 5)) == (2, (5,))


def test_T3_2_fewest_byes_is_the_smallest_b_with_a_partition() -> None:
    for sizes in ALL_SIZES:
        for n in range(sizes.min, 41):
            b, parts = fewest_byes(n, sizes)
            assert all(partition(n - c, sizes) is None for c in range(b))
            assert parts == partition(n - b, sizes)


def test_T3_2_fewer_players_than_min_is_refused() -> None:
    with pytest.raises(ValueError):
        fewest_byes(2, DEFAULT)


def test_T3_1_cut_takes_consecutive_slices_table_1_first() -> None:
    assert cut([9, 8, 7, 6, 5, 4, 3], (4, 3)) == [[9, 8, 7, 6], [5, 4, 3]]
    with pytest.raises(ValueError):
        cut([1, 2, 3], (4,))

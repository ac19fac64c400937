"""R9: the seeded shuffle, with a published test vector.

Another implementation checks itself against ours with this vector: the
secret is the bytes 0x00..0x1f, the contributions "Ada" then "Boris", the
deck the 85 card ids of the base game and the Guild in ascending order.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from domain.catalog import load_catalog
from domain.shuffle import commitment, random_words, sequence_seed, shuffle, shuffle_seed

SECRET = bytes(range(32))
CONTRIBUTIONS = ["Ada", "Boris"]
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_SEED = "752c48aebfdb240f33c6d623cb917e68429b2b1f8e51f281a7ce060059767f0c"
VECTOR_FIRST_TEN = [64, 67, 57, 9, 40, 11, 44, 61, 7, 24]
VECTOR_SEQUENCE_CARDS = ["S3", "S2", "S4", "S6", "S5", "S1"]


def full_deck() -> list[int]:
    catalog = load_catalog()
    return list(catalog.base_deck + catalog.guild_deck)


def test_R9_published_vector_commitment_seed_and_first_ten_cards() -> None:
    """R9.1–R9.2: commitment, seed and the top ten cards of the published vector."""
    assert commitment(SECRET) == VECTOR_COMMITMENT
    seed = shuffle_seed(SECRET, CONTRIBUTIONS)
    assert seed.hex() == VECTOR_SEED
    assert len(full_deck()) == 85
    assert shuffle(full_deck(), seed)[:10] == VECTOR_FIRST_TEN


def test_R2_3_published_vector_sequence_cards() -> None:
    """R2.3: the six Sequence cards shuffled with SHA-256(seed ‖ "sequences")."""
    seed = shuffle_seed(SECRET, CONTRIBUTIONS)
    assert shuffle(["S1", "S2", "S3", "S4", "S5", "S6"], sequence_seed(seed)) == (
        VECTOR_SEQUENCE_CARDS
    )


def test_R9_1_seed_frames_each_contribution_with_its_length() -> None:
    """R9.1: ("ab", "c") and ("a", "bc") give different seeds; an absent
    contribution counts as the empty text, which still changes the seed."""
    assert shuffle_seed(SECRET, ["ab", "c"]) != shuffle_seed(SECRET, ["a", "bc"])
    assert shuffle_seed(SECRET, ["", ""]) != shuffle_seed(SECRET, [""])
    expected = hashlib.sha256(SECRET + b"\x00\x00\x00\x03Ada").digest()
    assert shuffle_seed(SECRET, ["Ada"]) == expected


def test_R9_2_words_are_big_endian_quarters_of_counter_blocks() -> None:
    """R9.2: block k = SHA-256(seed ‖ k as 8 bytes big-endian), four words each."""
    seed = b"seed"
    words = random_words(seed)
    first_eight = [next(words) for _ in range(8)]
    for k in range(2):
        block = hashlib.sha256(seed + k.to_bytes(8, "big")).digest()
        expected = [int.from_bytes(block[i : i + 8], "big") for i in range(0, 32, 8)]
        assert first_eight[4 * k : 4 * k + 4] == expected


def test_R9_2_shuffle_is_a_permutation_that_depends_on_the_seed() -> None:
    """R9.2: every card once; different seeds, different orders."""
    deck = full_deck()
    a = shuffle(deck, b"a")
    b = shuffle(deck, b"b")
    assert sorted(a) == sorted(deck)
    assert a != b
    assert shuffle(deck, b"a") == a


def test_R9_2_fisher_yates_is_unbiased_on_a_small_deck() -> None:
    """R9.2: rejection sampling leaves no modulo bias: each of the 6 orders
    of three cards comes up about equally often."""
    counts = Counter(tuple(shuffle([0, 1, 2], i.to_bytes(4, "big"))) for i in range(6000))
    assert len(counts) == 6
    assert all(850 < c < 1150 for c in counts.values())

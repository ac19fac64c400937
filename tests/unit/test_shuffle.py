"""R9: the seeded shuffle, with a published test vector.

Another implementation checks itself against ours with this vector: the
secret is the bytes 0x00..0x1f, the contributions "Ada" then "Boris", the
deck the 85 card ids of the base game and the Guild in ascending order. A
second vector has a non-ASCII contribution ("Борис": 5 characters, 10 UTF-8
bytes), so that the length prefix of R9.1 is checked in bytes; its seed and
cards are computed here independently (hashlib and a Fisher–Yates written
out from RULES §9), not with domain/shuffle.py.
"""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from typing import Any

import pytest

from domain.catalog import load_catalog
from domain.shuffle import commitment, random_words, sequence_seed, shuffle, shuffle_seed

SECRET = bytes(range(32))
CONTRIBUTIONS = ["Ada", "Boris"]
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_SEED = "752c48aebfdb240f33c6d623cb917e68429b2b1f8e51f281a7ce060059767f0c"
VECTOR_FIRST_TEN = [64, 67, 57, 9, 40, 11, 44, 61, 7, 24]
VECTOR_SEQUENCE_CARDS = ["S3", "S2", "S4", "S6", "S5", "S1"]
# The second vector: the same secret and deck, contributions "Ada" and "Борис".
UTF8_CONTRIBUTIONS = ["Ada", "Борис"]
UTF8_BYTES = [bytes.fromhex("416461"), bytes.fromhex("d091d0bed180d0b8d181")]
UTF8_SEED = "046d8cff8b5ed05ddf8ca9ad4d5e5989ff77682c5d08fd8d46d6b8bdead8f4cc"
UTF8_FIRST_TEN = [6, 30, 32, 20, 42, 24, 4, 75, 59, 44]
UTF8_SEQUENCE_CARDS = ["S1", "S2", "S3", "S6", "S4", "S5"]


def reference_shuffle(items: list[Any], seed: bytes) -> list[Any]:
    """R9.2 written out again, independently of domain/shuffle.py."""
    words: list[int] = []
    counter = 0
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        while True:
            if not words:
                block = hashlib.sha256(seed + struct.pack(">Q", counter)).digest()
                words = list(struct.unpack(">4Q", block))
                counter += 1
            word = words.pop(0)
            if word < 2**64 - (2**64 % (i + 1)):
                break
        j = word % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


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


def test_R9_1_published_vector_with_a_non_ascii_contribution() -> None:
    """R9.1: the length prefix counts UTF-8 bytes ("Борис": 10, not 5). The
    expected seed and cards are computed here from RULES §9 alone, then
    compared with the published values and with the service's functions."""
    assert [text.encode("utf-8") for text in UTF8_CONTRIBUTIONS] == UTF8_BYTES
    assert len(UTF8_CONTRIBUTIONS[1]) == 5
    framed = b"".join(struct.pack(">I", len(raw)) + raw for raw in UTF8_BYTES)
    assert framed[7:11] == b"\x00\x00\x00\x0a"
    seed = hashlib.sha256(SECRET + framed).digest()
    assert seed.hex() == UTF8_SEED
    assert reference_shuffle(full_deck(), seed)[:10] == UTF8_FIRST_TEN
    sequence_cards = ["S1", "S2", "S3", "S4", "S5", "S6"]
    sequences = hashlib.sha256(seed + b"sequences").digest()
    assert reference_shuffle(sequence_cards, sequences) == UTF8_SEQUENCE_CARDS
    # The service gives the same.
    assert shuffle_seed(SECRET, UTF8_CONTRIBUTIONS) == seed
    assert shuffle(full_deck(), seed)[:10] == UTF8_FIRST_TEN
    assert shuffle(sequence_cards, sequence_seed(seed)) == UTF8_SEQUENCE_CARDS


def test_R9_the_first_vector_checked_by_the_independent_reference() -> None:
    """R9.1–R9.2: the first published vector, from RULES §9 alone."""
    framed = b"\x00\x00\x00\x03Ada\x00\x00\x00\x05Boris"
    seed = hashlib.sha256(SECRET + framed).digest()
    assert seed.hex() == VECTOR_SEED
    assert reference_shuffle(full_deck(), seed)[:10] == VECTOR_FIRST_TEN


# ---- R9.2's rejection bound, with injected words ---------------------------

TOP = 2**64 - 1  # the largest 64-bit word


def test_R9_2_a_word_at_the_rejection_bound_is_drawn_again() -> None:
    """R9.2: for i = 2 the bound is 3 and 2^64 mod 3 = 1, so the limit is
    2^64 − 1: the word 2^64 − 1 is refused and the next one (4) is used:
    j = 4 mod 3 = 1, then j = 6 mod 2 = 0 for i = 1. Had 2^64 − 1 been taken,
    j would have been 0 and the order [1, 2, 0]."""
    words = iter([TOP, 4, 6, 99])
    assert shuffle([0, 1, 2], b"unused", words=words) == [2, 0, 1]
    assert next(words) == 99  # exactly three words drawn


def test_R9_2_the_largest_word_below_the_bound_is_taken() -> None:
    """R9.2: 2^64 − 2 is below the limit for the bound 3: j = (2^64 − 2) mod 3 = 2
    (no swap), then j = 0 mod 2 = 0 for i = 1."""
    words = iter([TOP - 1, 0, 99])
    assert shuffle([0, 1, 2], b"unused", words=words) == [1, 0, 2]
    assert next(words) == 99


def test_R9_2_every_word_is_below_the_limit_of_a_power_of_two_bound() -> None:
    """R9.2: 2^64 mod 2 = 0, so the limit is 2^64 and 2^64 − 1 (odd: j = 1) is taken."""
    words = iter([TOP, 99])
    assert shuffle(["a", "b"], b"unused", words=words) == ["a", "b"]
    assert next(words) == 99


@pytest.mark.parametrize(("bound", "remainder"), [(3, 1), (6, 4), (7, 2), (10, 6), (85, 1)])
def test_R9_2_the_words_refused_are_exactly_the_top_remainder(bound: int, remainder: int) -> None:
    """R9.2: the words at or above 2^64 − (2^64 mod n) are refused, no others
    (2^64 mod n written out: 3 → 1, 6 → 4, 7 → 2, 10 → 6, 85 → 1). The first
    draw of a deck of n cards swaps its last card with position j."""
    assert 2**64 % bound == remainder
    limit = 2**64 - remainder
    deck = list(range(bound))
    rest = [0] * (bound - 2) + [99]  # j = 0 for every later i; then one spare
    refused = iter([*range(limit, 2**64), bound - 2, *rest])
    expected = reference_shuffle_with(deck, [bound - 2, *rest[:-1]])
    assert shuffle(deck, b"unused", words=refused) == expected
    assert next(refused) == 99
    taken = iter([limit - 1, *rest])
    expected = reference_shuffle_with(deck, [limit - 1, *rest[:-1]])
    assert shuffle(deck, b"unused", words=taken) == expected
    assert next(taken) == 99


def reference_shuffle_with(items: list[Any], words: list[int]) -> list[Any]:
    """Fisher–Yates on words that are all below their limits (no redraw)."""
    out = list(items)
    for k, i in enumerate(range(len(out) - 1, 0, -1)):
        j = words[k] % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out

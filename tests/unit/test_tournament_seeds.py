"""T1.3, T1.4, T6.1 (4), T9.1: the tournament's hashes; T2.1: entrants' names.

Every hash is computed again here independently, with hashlib and hmac from
TOURNAMENT.md's text, not with domain/tournaments/seeds.py. The Merkle roots
are built by hand from RFC 6962's definition for 1, 2, 3 and 5 leaves, and
one is published as a vector for other implementations.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import unicodedata
from uuid import UUID

import pytest

from domain.errors import RegistrationError
from domain.shuffle import shuffle_seed
from domain.tournaments.entrants import UNICODE_VERSION, check_name, name_key
from domain.tournaments.seeds import game_secret, merkle_root, rank_key, round_seed, tournament_seed

SECRET = bytes(range(32))


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def framed(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(">I", len(raw)) + raw


# ---- T1.3, T1.4, T6.1 (4) -------------------------------------------------------


def test_T1_3_tournament_seed_is_R9_1_over_contributions_then_the_beacon() -> None:
    contributions = ["Ada", "", "Борис"]
    expected = sha(SECRET, *(framed(text) for text in contributions), framed("drand:4242"))
    assert tournament_seed(SECRET, contributions, "drand:4242") == expected


def test_T1_3_no_beacon_is_one_more_empty_contribution() -> None:
    seed = tournament_seed(SECRET, ["Ada"], "")
    assert seed == sha(SECRET, framed("Ada"), b"\x00\x00\x00\x00")
    assert seed != shuffle_seed(SECRET, ["Ada"])  # the empty beacon still counts
    assert tournament_seed(SECRET, [], "") == sha(SECRET, b"\x00\x00\x00\x00")


def test_T1_4_round_seed_is_sha256_of_seed_round_and_r_as_4_bytes() -> None:
    seed = tournament_seed(SECRET, ["Ada", "Boris"], "")
    assert round_seed(seed, 1) == sha(seed, b"round", b"\x00\x00\x00\x01")
    assert round_seed(seed, 258) == sha(seed, b"round", b"\x00\x00\x01\x02")
    assert round_seed(seed, 1) != round_seed(seed, 2)


def test_T1_4_game_secret_is_hmac_of_game_r_t_in_ascii_decimal() -> None:
    expected = hmac.new(SECRET, b"game:2:13", hashlib.sha256).digest()
    assert game_secret(SECRET, 2, 13) == expected
    assert game_secret(SECRET, 21, 3) != game_secret(SECRET, 2, 13)  # "game:21:3" ≠ "game:2:13"
    assert len(game_secret(SECRET, 1, 1)) == 32


def test_T6_1_rank_key_is_sha256_of_seed_rank_and_player_as_4_bytes() -> None:
    seed = tournament_seed(SECRET, [], "")
    assert rank_key(seed, 7) == sha(seed, b"rank", b"\x00\x00\x00\x07")


# ---- T9.1 ----------------------------------------------------------------------

# The published vector: games UUID(int=1)…UUID(int=5), heads bytes([i]) * 32.
MERKLE_VECTOR_5 = "892eb0db78236f919af6fb06623e536e992ae95f101bb686bd036a874216d4f9"


def leaves(count: int) -> list[tuple[UUID, str]]:
    return [(UUID(int=i), (bytes([i]) * 32).hex()) for i in range(1, count + 1)]


def leaf(i: int) -> bytes:
    return sha(b"\x00", UUID(int=i).bytes, bytes([i]) * 32)


def node(left: bytes, right: bytes) -> bytes:
    return sha(b"\x01", left, right)


def test_T9_1_merkle_root_of_no_leaves_is_sha256_of_the_empty_string() -> None:
    assert merkle_root([]) == hashlib.sha256(b"").hexdigest()


def test_T9_1_merkle_root_of_one_leaf_is_the_leaf_hash() -> None:
    assert merkle_root(leaves(1)) == leaf(1).hex()


def test_T9_1_merkle_root_of_two_leaves() -> None:
    assert merkle_root(leaves(2)) == node(leaf(1), leaf(2)).hex()


def test_T9_1_merkle_root_of_three_leaves_does_not_duplicate_the_odd_one() -> None:
    expected = node(node(leaf(1), leaf(2)), leaf(3))
    assert merkle_root(leaves(3)) == expected.hex()
    assert merkle_root(leaves(3)) != node(node(leaf(1), leaf(2)), node(leaf(3), leaf(3))).hex()


def test_T9_1_merkle_root_of_five_leaves_splits_at_four() -> None:
    expected = node(node(node(leaf(1), leaf(2)), node(leaf(3), leaf(4))), leaf(5))
    assert merkle_root(leaves(5)) == expected.hex() == MERKLE_VECTOR_5


def test_T9_1_merkle_root_is_in_table_order() -> None:
    assert merkle_root(leaves(2)[::-1]) != merkle_root(leaves(2))


def test_T9_1_merkle_root_refuses_a_head_that_is_not_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        merkle_root([(UUID(int=1), "ab" * 31)])


# ---- T2.1 ----------------------------------------------------------------------


def test_T2_1_names_equal_by_their_key_are_one_name() -> None:
    assert name_key("Ada") == name_key("ＡＤＡ ") == name_key("ada\u00a0") == "ada"
    assert name_key("ß") == name_key("SS") == name_key("\u1e9e") == "ss"
    assert name_key("ﬃ") == name_key("FFI") == "ffi"


def test_T2_1_the_key_is_normalised_again_after_case_folding() -> None:
    assert "\u01f0".casefold() == "j\u030c"  # folding alone leaves it decomposed
    assert name_key("\u01f0") == name_key("J\u030c") == "\u01f0"


def test_T2_1_the_key_trims_unicode_white_space_not_pythons_strip_set() -> None:
    assert name_key("\u3000\u2028Ada\u205f\u0085\t") == "ada"
    assert name_key("Ada\x1f") == "ada\x1f"  # "\x1f".isspace(), but not White_Space
    assert name_key("A da") == "a da"  # inner spaces stay


def test_T2_1_check_name_returns_the_key_or_refuses_a_taken_one() -> None:
    assert check_name("Ada", set()) == "ada"
    with pytest.raises(RegistrationError, match=r"^T2\.1: .*taken") as caught:
        check_name("ＡＤＡ", {"ada", "boris"})
    assert caught.value.rule == "T2.1"
    with pytest.raises(RegistrationError, match="taken"):
        check_name("STRASSE", [name_key("Straße")])


def test_T2_1_the_joiners_are_allowed() -> None:
    assert check_name("\u0915\u094d\u200d\u0937", set())  # ZWJ
    assert check_name("\u0645\u200c\u0645", set())  # ZWNJ


@pytest.mark.parametrize(
    ("name", "code_point"),
    [
        ("Ada\u200b", "U+200B"),  # format: zero-width space
        ("\ufeffAda", "U+FEFF"),  # format: byte-order mark
        ("\u202eadA", "U+202E"),  # format: bidi override
        ("Ada\ue000", "U+E000"),  # private use
        ("Ada\U000f0000", "U+F0000"),  # private use, plane 15
        ("Ada\u0378", "U+0378"),  # unassigned
        ("Ada\ud800", "U+D800"),  # a lone surrogate
        ("x\nAda", "U+000A"),  # control
        ("Ada\x1f", "U+001F"),  # control
        ("\x85Ada", "U+0085"),  # control, and White_Space
    ],
)
def test_T2_1_a_name_with_refused_code_points_is_refused_naming_them(
    name: str, code_point: str
) -> None:
    with pytest.raises(RegistrationError, match=rf"^T2\.1: .*{code_point.replace('+', '[+]')}"):
        check_name(name, set())


@pytest.mark.parametrize("name", ["", " ", "\u3000\u00a0 \u2003"])
def test_T2_1_a_name_whose_key_is_empty_is_refused(name: str) -> None:
    with pytest.raises(RegistrationError, match=r"^T2\.1: .*white space"):
        check_name(name, set())


def test_T2_1_a_name_has_at_most_40_characters() -> None:
    assert check_name("x" * 40, set()) == "x" * 40
    with pytest.raises(RegistrationError, match=r"^T2\.1: .*at most 40"):
        check_name("x" * 41, set())


def test_T2_1_the_unicode_version_is_the_running_pythons() -> None:
    assert unicodedata.unidata_version == UNICODE_VERSION

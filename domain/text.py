"""The one policy for text a person is shown: which characters a name, a
reason, a "by", a tournament's name or a beacon may not hold, and the one
key two names must not share.

The characters refused are T2.1's (TOURNAMENT.md), for every such field:
control, format (other than the joiners U+200C and U+200D, which some
scripts need), private-use, surrogate and unassigned code points (Unicode
categories Cc, Cf, Co, Cs, Cn). So a bidi control (U+202A–U+202E,
U+2066–U+2069, U+200E, U+200F) cannot make "Cup \\u202egnp.exe\\u202c"
read as "Cup exe.png", a zero-width space cannot make "\\u200bAda" a
second "Ada", and a newline cannot fake a log line. T2.1 is the rule for a
tournament's names; for every other field the policy is our decision
(README, decisions). How long a field may be stays where it is decided.

The policy is checked where a new command enters the domain, never when
stored events are replayed, audited or verified: a text recorded before it
loads and verifies as it was recorded.

``name_key`` is T2.1's key: NFKC(full case folding of NFKC(name)), leading
and trailing White_Space removed. A tournament's registrations and a game's
seats are unique by it ("Ada", "ＡＤＡ" and "ada\\u00a0" are one name). The
Unicode version is the running Python's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
JOINERS = frozenset({"\u200c", "\u200d"})  # ZERO WIDTH NON-JOINER, ZERO WIDTH JOINER
WHY = (
    "control, format (other than U+200C and U+200D), private-use, surrogate "
    "and unassigned code points are refused"
)
OUR_DECISION = "our decision"

# T2.1: Unicode's White_Space property (PropList.txt). Python's str.strip()
# removes a different set (it adds U+001C–U+001F, which are not White_Space).
WHITE_SPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def refused_character(text: str) -> str | None:
    """The first character of ``text`` the policy refuses, None if none."""
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES and char not in JOINERS:
            return char
    return None


def describe(char: str) -> str:
    """A character as an error names it: "U+202E (RIGHT-TO-LEFT OVERRIDE)"."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def text_refusal(field: str, text: str, basis: str = OUR_DECISION) -> str | None:
    """Why ``text`` may not be recorded as ``field`` (naming the field, the
    character and the rule the refusal rests on, ``basis``), None if it may.
    The caller raises it as its command's error, with that command's rule."""
    char = refused_character(text)
    if char is None:
        return None
    return f"{field} may not hold {describe(char)}: {WHY} ({basis})"


def check_text(
    field: str, text: str, error: Callable[[str], Exception], basis: str = OUR_DECISION
) -> None:
    """Raise ``error`` (the command's own, with its rule) with the refusal
    of ``text`` as ``field`` (``text_refusal``), if the policy refuses it."""
    refusal = text_refusal(field, text, basis)
    if refusal:
        raise error(refusal)


def name_key(name: str) -> str:
    """T2.1: the key two names must not share, in a tournament or a game."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip(WHITE_SPACE)

"""Entrants' names (T2.1): unique in a tournament by their key, refused when
they hold characters that could hide or fake a name.

The key is NFKC(full case folding of NFKC(name)) with leading and trailing
White_Space characters removed: "Ada", "ＡＤＡ " (fullwidth) and "ada\\u00a0"
are one key, as are "ß" and "SS". The Unicode version is the running
Python's; TournamentCreated records it."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection

from domain.errors import RegistrationError
from domain.names import MAX_NAME

UNICODE_VERSION = unicodedata.unidata_version

# T2.1: Unicode's White_Space property (PropList.txt). Python's str.strip()
# removes a different set (it adds U+001C–U+001F, which are not White_Space).
WHITE_SPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
# T2.1: control, format, private-use, surrogate and unassigned code points are
# refused, except the joiners U+200C and U+200D (some scripts need them).
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
ALLOWED_FORMAT = frozenset({"\u200c", "\u200d"})


def name_key(name: str) -> str:
    """T2.1: the key two names must not share."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip(WHITE_SPACE)


def check_name(name: str, taken_keys: Collection[str]) -> str:
    """T2.1: the key of ``name`` if it may register, given the keys already
    taken (a dropped player's too); RegistrationError (T2.1) if not."""
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES and char not in ALLOWED_FORMAT:
            raise RegistrationError(
                f"a name may not hold U+{ord(char):04X} (control, format other than "
                "U+200C and U+200D, private-use, surrogate and unassigned code points "
                "are refused)"
            )
    # Our decision: the service's bound on any player's name (domain.names).
    if len(name) > MAX_NAME:
        raise RegistrationError(f"a name has at most {MAX_NAME} characters, not {len(name)}")
    key = name_key(name)
    if not key:
        raise RegistrationError("a name must hold more than white space")
    # Our decision: a name is seated in its games as it is registered, and a
    # game trims its seats' names (R2.1), so white space may not begin or end it.
    if name != name.strip(WHITE_SPACE) or name != name.strip():
        raise RegistrationError("a name may not begin or end with white space")
    if key in taken_keys:
        raise RegistrationError(f"the name {name!r} is taken in this tournament")
    return key

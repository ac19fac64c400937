"""Entrants' names (T2.1): unique in a tournament by their key, refused when
they hold characters that could hide or fake a name.

The key is ``domain.text.name_key``, the one a game's seats are unique by
too: NFKC(full case folding of NFKC(name)) with leading and trailing
White_Space characters removed, so "Ada", "ＡＤＡ " (fullwidth) and
"ada\\u00a0" are one key, as are "ß" and "SS". The characters refused are
T2.1's, which domain/text.py makes the policy of every text a person sees.
The Unicode version is the running Python's; TournamentCreated records it.
``check_name`` is the decision's, and verification's: it is exactly T2.1."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection

from domain.errors import RegistrationError
from domain.names import MAX_NAME
from domain.text import WHITE_SPACE, check_text, name_key

__all__ = ["MAX_TEAM", "UNICODE_VERSION", "WHITE_SPACE", "check_name", "check_team", "name_key"]

UNICODE_VERSION = unicodedata.unidata_version
MAX_TEAM = 40  # T11.1: code points


def check_name(name: str, taken_keys: Collection[str]) -> str:
    """T2.1: the key of ``name`` if it may register, given the keys already
    taken (a dropped player's too); RegistrationError (T2.1) if not."""
    check_text("a name", name, RegistrationError, "T2.1")
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


def check_team(team: str) -> str:
    """T11.1: the key of ``team`` ("" for the empty text: no team), keyed as
    T2.1 keys names and refused on T2.1's grounds: a key that is empty, or a
    control, format (other than U+200C and U+200D), private-use, surrogate
    or unassigned code point; and more than 40 code points.
    RegistrationError naming T11.1 if refused."""
    if team == "":
        return ""

    def refused(why: str) -> RegistrationError:
        return RegistrationError(why, "T11.1")

    if len(team) > MAX_TEAM:
        raise refused(f"a team has at most {MAX_TEAM} characters, not {len(team)}")
    check_text("a team", team, refused, "T11.1")
    key = name_key(team)
    if not key:
        raise refused("a team must hold more than white space (the empty text is no team)")
    return key

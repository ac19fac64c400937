"""Players' names, as the service accepts them (R2.1 names the players; the
brief leaves what a name may be to us).

A name is NFC-normalised text of 1 to 40 characters that the one text
policy accepts (domain/text.py: no control, format other than the joiners,
private-use, surrogate or unassigned characters, T2.1's rule made ours), and
no two seats of a game share T2.1's key (``name_key``: NFKC and case
folding), as no two entrants of a tournament do: "Ada" beside "ＡＤＡ" or
"ada" is refused. The engine checks what it always checked (length, exact
duplicates); these checks are the service's, made before a name reaches the
engine, so games recorded before them still re-judge.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from domain.errors import SetupError
from domain.text import check_text, name_key

MAX_NAME = 40


def player_name(text: str) -> str:
    """The name as it is recorded; SetupError (R2.1) for one that cannot be."""
    return recorded_name(text, "a player's name", SetupError)


def recorded_name(
    text: str, field: str, error: Callable[[str], Exception], most: int = MAX_NAME
) -> str:
    """A name as recorded: the text policy's, NFC, 1 to ``most`` characters
    (``error`` names what refuses it: a seat's rule, an account's)."""
    check_text(field, text, error)
    name = unicodedata.normalize("NFC", text.strip())
    if not 1 <= len(name) <= most:
        raise error(f"{field} must have 1 to {most} characters")
    return name


def check_unique(name: str, taken: list[str]) -> None:
    """No two seats' names share a key (T2.1's ``name_key``)."""
    key = name_key(name)
    for other in taken:
        if name_key(other) == key:
            raise SetupError(f"{name!r} is taken in this game (as {other!r})")

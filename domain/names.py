"""Players' names, as the service accepts them (R2.1 names the players; the
brief leaves what a name may be to us).

A name is NFC-normalised text of 1 to 40 characters, with no control,
format, private-use or surrogate characters (Unicode categories Cc, Cf, Co,
Cs: a newline would fake a log line, a bidi override or a zero-width space
would make "Ada" and "\\u200bAda" two names), and no two seats of a game have
names equal after case-folding. The engine checks what it always checked
(length, exact duplicates); these checks are the service's, made before a
name reaches the engine, so games recorded before them still re-judge.
"""

from __future__ import annotations

import unicodedata

from domain.errors import SetupError

MAX_NAME = 40
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})


def player_name(text: str) -> str:
    """The name as it is recorded; SetupError (R2.1) for one that cannot be."""
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise SetupError(
                f"a player's name may not hold the character U+{ord(char):04X} "
                "(control, format, private-use and surrogate characters are refused)"
            )
    name = unicodedata.normalize("NFC", text.strip())
    if not 1 <= len(name) <= MAX_NAME:
        raise SetupError(f"a player's name must have 1 to {MAX_NAME} characters")
    return name


def check_unique(name: str, taken: list[str]) -> None:
    """No two seats' names equal after case-folding."""
    folded = name.casefold()
    for other in taken:
        if other.casefold() == folded:
            raise SetupError(f"{name!r} is taken in this game (as {other!r})")

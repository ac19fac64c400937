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

Names that cannot impersonate (our decisions, issue 35), checked only where
a name is chosen, never when stored events are replayed or verified:

- **Nothing blank-looking** (``check_visible``): a name of an account, a
  seat, an entrant or a tournament holds no default-ignorable code point
  (variation selectors, the Hangul fillers U+115F, U+1160, U+3164,
  U+FFA0…), no U+2800 BRAILLE PATTERN BLANK and no white space but the
  plain space, so "Ada" beside "Ada" with a Hangul filler cannot be. The
  joiners U+200C/U+200D the text policy lets through for the scripts that
  need them are kept only where those scripts need them (RFC 5892's
  CONTEXTJ: after a virama, a non-joiner between joining letters), so
  "Ada" with a zero-width joiner is refused and "क्‍ष" is not.
- **No look-alike** (``look_alike``): a new name may not look like one
  already there (domain/confusables.py's ``look``: UTS #39's skeleton, blind
  to case): "Аda" with a Cyrillic А beside "Ada". Where "there" is: the
  game's seats (bots' seats included), the tournament's registrations, the
  other accounts.
- **No bot claimed by a person** (``bot_claim``): a name that looks like a
  bot account's ("Greedy bot", "Greedy bоt 2" with a Cyrillic о) or a
  seed contribution reading ``bot:`` (what the analytics count a bot by) is
  the service's bots' alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache

from domain.confusables import combining_class, default_ignorable, joining_type, look
from domain.errors import SetupError
from domain.text import JOINERS, check_text, describe, name_key

MAX_NAME = 40
BLANK_LOOKING = frozenset({"\u2800"})  # BRAILLE PATTERN BLANK: drawn as an empty cell
ZWNJ = "\u200c"  # ZERO WIDTH NON-JOINER (ZERO WIDTH JOINER is U+200D)
VIRAMA = 9  # the canonical combining class of a virama
BOT_CONTRIBUTION = "bot:"  # a seat's contribution the analytics read its bot from


def player_name(text: str) -> str:
    """The name as it is recorded; SetupError (R2.1) for one that cannot be."""
    return recorded_name(text, "a player's name", SetupError)


def recorded_name(
    text: str, field: str, error: Callable[[str], Exception], most: int = MAX_NAME
) -> str:
    """A name as recorded: the text policy's, NFC, 1 to ``most`` characters,
    nothing blank-looking (``error`` names what refuses it: a seat's rule,
    an account's)."""
    check_text(field, text, error)
    name = unicodedata.normalize("NFC", text.strip())
    if not 1 <= len(name) <= most:
        raise error(f"{field} must have 1 to {most} characters")
    check_visible(field, name, error)
    return name


def check_unique(name: str, taken: list[str]) -> None:
    """No two seats' names share a key (T2.1's ``name_key``) or look alike."""
    key = name_key(name)
    for other in taken:
        if name_key(other) == key:
            raise SetupError(f"{name!r} is taken in this game (as {other!r})")
    check_not_look_alike(name, taken, "a name taken in this game", SetupError)


# ---- names that cannot impersonate -------------------------------------------------------


def refusal(
    error: Callable[[str], Exception], message: str, reason: str, **values: str
) -> Exception:
    """``error(message)`` carrying ``reason`` and its values as ``name_refusal``,
    so a page can say it in its own language (api/web/name_words.py)."""
    refused = error(message)
    refused.name_refusal = (reason, values)  # type: ignore[attr-defined]
    return refused


def joiner_in_context(text: str, index: int) -> bool:
    """Whether the joiner at ``text[index]`` is where a script needs it, by
    RFC 5892's CONTEXTJ rules (Appendix A.1, A.2): either joiner after a
    virama (Devanagari's "क्‍ष"); ZERO WIDTH NON-JOINER between letters that
    would join (Persian's "می‌خواهم"), transparent marks aside."""
    if index > 0 and combining_class(text[index - 1]) == VIRAMA:
        return True
    if text[index] != ZWNJ:
        return False
    before = (joining_type(c) for c in reversed(text[:index]))
    after = (joining_type(c) for c in text[index + 1 :])
    left = next((kind for kind in before if kind != "T"), "U")
    right = next((kind for kind in after if kind != "T"), "U")
    return left in ("L", "D") and right in ("R", "D")


def invisible_character(text: str) -> str | None:
    """The first character of ``text`` drawn as nothing or as blank space
    (other than the plain space, and a joiner where its script needs it),
    None if none."""
    for index, char in enumerate(text):
        if char == " " or (char in JOINERS and joiner_in_context(text, index)):
            continue
        if default_ignorable(char) or char in BLANK_LOOKING:
            return char
        if unicodedata.category(char) in ("Zs", "Zl", "Zp"):  # white space but the plain space
            return char
    return None


def check_visible(field: str, text: str, error: Callable[[str], Exception]) -> None:
    """Raise ``error`` if ``text`` holds a character that shows as nothing
    or as blank space (``invisible_character``), naming it."""
    char = invisible_character(text)
    if char is not None:
        message = (
            f"{field} may not hold {describe(char)}: it shows as nothing or as blank "
            "space, so the name could pass for another (our decision)"
        )
        raise refusal(error, message, "invisible", char=describe(char))


def look_alike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that ``name`` could be taken for (the same
    ``look``), None if none."""
    seen = look(name)
    return next((other for other in others if look(other) == seen), None)


def check_not_look_alike(
    name: str, others: Iterable[str], where: str, error: Callable[[str], Exception]
) -> None:
    """Raise ``error`` if ``name`` looks like one of ``others`` (``where``
    says whose names they are: "a name taken in this game")."""
    other = look_alike(name, others)
    if other is not None:
        chars = differing_characters(name, other)
        message = (
            f"{name!r} looks like {other!r}, {where} ({chars} can be taken for other "
            "characters): choose a name that cannot be taken for another (our decision)"
        )
        raise refusal(error, message, "look_alike", name=name, other=other, chars=chars)


def differing_characters(name: str, other: str, most: int = 3) -> str:
    """The characters of ``name`` that ``other`` does not hold, named (at most
    ``most``): what tells two names that look alike apart, for a person who
    sees "Аda" and "Ada" drawn the same ("U+0410 (CYRILLIC CAPITAL LETTER A)")."""
    theirs = set(other)
    differing = list(dict.fromkeys(c for c in name if c not in theirs and c != " "))
    return ", ".join(describe(c) for c in differing[:most]) or "nothing but spacing"


@cache
def _bot_names() -> re.Pattern[str]:
    """The look of every name a bot account may have: "<kind> bot",
    "<kind> bot <number>" (domain/accounts' ``bot_name``)."""
    from domain.bots import BOTS  # here: domain.bots -> engine -> names

    kinds = "|".join(re.escape(look(f"{kind} bot")) for kind in BOTS)
    digits = "".join(sorted({look(digit) for digit in "0123456789"}))
    return re.compile(rf"(?:{kinds})(?: [{re.escape(digits)}]+)?")


def looks_like_a_bot(name: str) -> bool:
    """Whether ``name`` looks like a name of the service's bots ("Greedy
    bot", "Greedy bоt 2" with a Cyrillic о, "GREEDY BOT")."""
    return _bot_names().fullmatch(look(name)) is not None


def bot_claim(name: str, contribution: str = "") -> tuple[str, str] | None:
    """Why a seat or a registration with this name and seed contribution
    would pass for one of the service's bots (the reason, in words), None
    if it would not."""
    if looks_like_a_bot(name):
        return "bot_name", f"{name!r} looks like the name of one of the service's bots"
    if look(contribution).startswith(BOT_CONTRIBUTION):
        return "bot_contribution", f"a seed contribution reading {BOT_CONTRIBUTION!r} is a bot's"
    return None


def check_no_bot_claim(name: str, contribution: str, error: Callable[[str], Exception]) -> None:
    """Raise ``error`` if a person's seat or registration would claim a bot
    (``bot_claim``): only the service's own bot seats may."""
    claim = bot_claim(name, contribution)
    if claim is not None:
        reason, why = claim
        message = f"{why}: only the service's bots take it (our decision)"
        raise refusal(error, message, reason, name=name)


def check_new_entrant(
    name: str,
    contribution: str,
    registered: Iterable[str],
    *,
    person: bool,
    error: Callable[[str], Exception],
) -> None:
    """A tournament's new registration (T2.1's checks made by
    domain/tournaments/entrants.py besides): nothing blank-looking, no
    look-alike of a registered name (a dropped player's too), and no bot
    claimed by a ``person`` (a caller with a token)."""
    check_visible("a name", name, error)
    check_not_look_alike(name, registered, "a name registered in this tournament", error)
    if person:
        check_no_bot_claim(name, contribution, error)

"""How a name looks, not how it is spelled: Unicode's confusables (UTS #39)
and its default-ignorable code points, as ICU holds them.

``look`` is the key two names that a reader could take for one another
share. It is built on UTS #39's skeleton (ICU's ``SpoofChecker``, from
Unicode's confusables.txt: "Аda" with a Cyrillic А, "Ada" and "Αda" with a
Greek Α all have the skeleton "Ada"), made blind to case as T2.1's key is
("ADA" looks like "Ada" on a page that shows both): NFKC, then skeleton and
case folding twice (a skeleton may hold capitals, "0" -> "O", whose folding
has a skeleton of its own), then runs of white space as one space. It is a
conservative key: "Il" and "ll" share it, as do "m" and "rn".

``default_ignorable`` is Unicode's Default_Ignorable_Code_Point property
(DerivedCoreProperties.txt): what a renderer draws as nothing (the joiners,
variation selectors, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0…);
``joining_type`` and ``combining_class`` are the properties RFC 5892's
CONTEXTJ rules read to tell where a joiner is a script's own.

The Unicode version is ICU's (``UNICODE_VERSION``), not the running
Python's; a newer ICU may map a few more characters, so a name once
accepted could later look like another: the check is made when a name is
chosen, never when stored events are replayed or verified.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import icu  # type: ignore[import-untyped]  # PyICU: no type information

UNICODE_VERSION: str = icu.UNICODE_VERSION
_checker = icu.SpoofChecker()  # read-only once made: ICU allows it in every thread
LOOKS_KEPT = 65_536  # names whose look is kept (a tournament's registrations, read at each new one)
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_JOINING_TYPE = icu.UProperty.JOINING_TYPE
_SHORT = icu.UPropertyNameChoice.SHORT_PROPERTY_NAME


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text`` (confusables.txt's mapping of NFD)."""
    result: str = _checker.getSkeleton(0, text)  # the type argument is ignored since ICU 58
    return result


@lru_cache(maxsize=LOOKS_KEPT)
def look(name: str) -> str:
    """The key two names that look alike share, whatever their case.
    Default-ignorable code points are left out first, as UTS #39's skeleton
    does from Unicode 15.1 on (ICU's may be older): "क्‍ष" with a joiner
    looks like "क्ष" without."""
    text = "".join(c for c in unicodedata.normalize("NFKC", name) if not default_ignorable(c))
    for _ in range(2):
        text = skeleton(text).casefold()
    return " ".join(text.split())


def joining_type(char: str) -> str:
    """Unicode's Joining_Type of ``char``, by its short name ("D", "R", "L",
    "T", "C" or "U"): how Arabic-like scripts join it to its neighbours."""
    value = icu.Char.getIntPropertyValue(char, _JOINING_TYPE)
    name: str = icu.Char.getPropertyValueName(_JOINING_TYPE, value, _SHORT)
    return name


def combining_class(char: str) -> int:
    """Unicode's Canonical_Combining_Class of ``char`` (9: a virama)."""
    found: int = icu.Char.getCombiningClass(char)
    return found


def default_ignorable(char: str) -> bool:
    """Whether ``char`` is a Default_Ignorable_Code_Point (drawn as nothing)."""
    found: bool = icu.Char.hasBinaryProperty(char, _IGNORABLE)
    return found

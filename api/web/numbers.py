"""Exact fractions as people read them: a decimal, the exact value on hover.

The tournament's figures are exact fractions, written "p/q" in lowest terms
("24/1", "7/3": TOURNAMENT.md, T6.2). The pages show a whole number as
itself ("24") and any other as a decimal of two places at most, rounded half
away from zero, in the language's own way ("2.33"; Russian "2,33"), inside
``<abbr title="7/3">`` so the exact value is one hover away. What is not
such a fraction is shown as it is, escaped.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from markupsafe import Markup, escape

FRACTION = re.compile(r"-?\d{1,30}/\d{1,30}")


def exact(value: Any) -> Fraction | None:
    """``value`` as an exact fraction: a "p/q" text (q not 0) or an int; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str) and FRACTION.fullmatch(value.strip()):
        numerator, denominator = value.strip().split("/")
        if int(denominator) == 0:
            return None
        return Fraction(int(numerator), int(denominator))
    return None


def decimal_text(value: Fraction, lang: str) -> str:
    """A fraction as a decimal of two places at most, trailing zeros left
    out: 7/3 "2.33", 1/2 "0.5", 1/8 "0.13", -3/2 "-1.5", 24 "24";
    in Russian with a decimal comma ("2,33")."""
    hundredths = math.floor(abs(value) * 100 + Fraction(1, 2))  # exact: no float on the way
    whole, cents = divmod(hundredths, 100)
    sign = "-" if value < 0 and hundredths else ""
    text = f"{sign}{whole}.{cents:02d}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "ru" else text


def fraction_html(value: Any, lang: str) -> Markup:
    """How a page shows a figure that may be an exact fraction: a whole
    number as itself, another fraction as ``<abbr title="p/q">decimal</abbr>``
    (its exact value in lowest terms), anything else escaped as it is."""
    number = exact(value)
    if number is None:
        return escape("" if value is None else str(value))
    if number.denominator == 1:
        return escape(str(number.numerator))
    shown = decimal_text(number, lang)
    return Markup('<abbr class="exact" title="{}">{}</abbr>').format(
        f"{number.numerator}/{number.denominator}", shown
    )

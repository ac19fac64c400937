"""Exact fractions as text (TOURNAMENT.md, encodings): "p/q" in lowest terms,
"6/1" for 6, "-1/2" for minus a half. Match points, penalties and averages are
written this way in events and standings, so that every reader gets the same
bytes and no rounding ever enters a rule."""

from __future__ import annotations

import re
from fractions import Fraction
from math import gcd

_FORM = re.compile(r"(-?)([0-9]+)/([0-9]+)")


def text(value: Fraction | int) -> str:
    """The "p/q" text of ``value``, in lowest terms with q > 0 ("6/1", "-1/2", "0/1")."""
    exact = Fraction(value)
    return f"{exact.numerator}/{exact.denominator}"


def parse(text: str) -> Fraction:
    """The fraction written as ``text``, which must be exactly what ``exact.text`` writes.

    ValueError, naming the fault, for anything else: no slash, a sign "+",
    spaces, a leading zero, a zero denominator, "-0/1", not lowest terms."""
    match = _FORM.fullmatch(text)
    if match is None:
        raise ValueError(
            f'{text!r} is not an exact fraction: write it as "p/q" '
            "(ASCII digits, an optional '-', no '+', no spaces)"
        )
    sign, numerator, denominator = match.groups()
    for digits in (numerator, denominator):
        if len(digits) > 1 and digits.startswith("0"):
            raise ValueError(f"{text!r} is not an exact fraction: {digits!r} has a leading zero")
    p, q = int(numerator), int(denominator)
    if q == 0:
        raise ValueError(f"{text!r} is not an exact fraction: the denominator is 0")
    if sign and p == 0:
        raise ValueError(f'{text!r} is not an exact fraction: zero is written "0/1"')
    g = gcd(p, q)
    if g != 1:
        raise ValueError(f"{text!r} is not in lowest terms: write '{sign}{p // g}/{q // g}'")
    return Fraction(-p if sign else p, q)

"""Exact fractions as the pages show them (api/web/numbers.py): a whole
number as itself, another as a decimal of two places at most (rounded half
away from zero, a decimal comma in Russian) with the exact value in lowest
terms on hover; anything else escaped as it is."""

from __future__ import annotations

from fractions import Fraction

import pytest

from api.web.numbers import decimal_text, exact, fraction_html


@pytest.mark.parametrize(
    ("value", "en", "ru"),
    [
        (
            "7/3",
            '<abbr class="exact" title="7/3">2.33</abbr>',
            '<abbr class="exact" title="7/3">2,33</abbr>',
        ),
        (
            "1/2",
            '<abbr class="exact" title="1/2">0.5</abbr>',
            '<abbr class="exact" title="1/2">0,5</abbr>',
        ),
        (
            "-3/2",
            '<abbr class="exact" title="-3/2">-1.5</abbr>',
            '<abbr class="exact" title="-3/2">-1,5</abbr>',
        ),
        (
            "2/3",
            '<abbr class="exact" title="2/3">0.67</abbr>',
            '<abbr class="exact" title="2/3">0,67</abbr>',
        ),
        ("24/1", "24", "24"),
        ("0/1", "0", "0"),
        ("-6/1", "-6", "-6"),
        ("8/4", "2", "2"),  # not in lowest terms: its value
        (
            "9/6",
            '<abbr class="exact" title="3/2">1.5</abbr>',
            '<abbr class="exact" title="3/2">1,5</abbr>',
        ),
        (5, "5", "5"),
    ],
)
def test_a_fraction_is_a_decimal_with_its_exact_value_on_hover(
    value: object, en: str, ru: str
) -> None:
    assert str(fraction_html(value, "en")) == en
    assert str(fraction_html(value, "ru")) == ru


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(1, 8), "0.13"),  # half away from zero, not to even
        (Fraction(-1, 8), "-0.13"),
        (Fraction(3, 8), "0.38"),
        (Fraction(1, 200), "0.01"),
        (Fraction(1, 201), "0"),
        (Fraction(-1, 1000), "0"),  # no "-0"
        (Fraction(12345, 100), "123.45"),
        (Fraction(10**30 + 1, 3), f"{(10**30 + 1) // 3}.67"),  # exact however large
        (Fraction(199999, 2000), "100"),  # 99.9995 rounds up to the next whole number
    ],
)
def test_the_decimal_rounds_half_away_from_zero_exactly(value: Fraction, shown: str) -> None:
    assert decimal_text(value, "en") == shown


@pytest.mark.parametrize("value", ["1/0", "abc", "1.5", "1/2/3", "", None, True, "<b>7/3</b>"])
def test_what_is_not_a_fraction_is_shown_as_it_is_escaped(value: object) -> None:
    assert exact(value) is None
    shown = str(fraction_html(value, "en"))
    assert "<abbr" not in shown
    assert "<b>" not in shown
    if value == "<b>7/3</b>":
        assert shown == "&lt;b&gt;7/3&lt;/b&gt;"

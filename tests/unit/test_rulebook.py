"""The rules as the pages show them (api/web/rulebook.py): RULES.md and
TOURNAMENT.md with an anchor per rule id, the Guild's Russian original and
its translation matched sentence by sentence, and rule ids in any text
linked to their rule, everything else escaped."""

from __future__ import annotations

import re

import pytest

from api.web import rulebook
from api.web.rules_pages import rule_links

R_ITEMS = re.compile(r"^- (R\d+\.\d+) ", re.MULTILINE)
T_ITEMS = re.compile(r"^- (T\d+\.\d+) ", re.MULTILINE)


# ---- rule ids in a text ------------------------------------------------------------------


def test_a_rule_id_links_to_its_rule_and_everything_else_is_escaped() -> None:
    shown = str(rule_links('Refused by rule R4.1: <b>Ada</b> & "Boris"'))
    assert shown == (
        'Refused by rule <a class="rule-ref" href="/rules#R4.1">R4.1</a>: '
        "&lt;b&gt;Ada&lt;/b&gt; &amp; &#34;Boris&#34;"
    )


def test_a_tournament_rule_links_to_the_tournament_rules() -> None:
    assert (
        str(rule_links("(T2.2)")) == '(<a class="rule-ref" href="/rules/tournament#T2.2">T2.2</a>)'
    )


def test_a_half_share_links_to_its_rule() -> None:
    shown = str(rule_links("+4 · R4.4/half"))
    assert shown == '+4 · <a class="rule-ref" href="/rules#R4.4">R4.4/half</a>'


@pytest.mark.parametrize(
    "text",
    [
        "R99.1",  # no such rule
        "R2D2",  # a word
        "SHA-256",
        "R4.10",  # a longer number than any rule's
        "1R3.1",
        "S5 (S5)",  # sentences: only on the rules pages
    ],
)
def test_what_is_not_a_rule_the_rules_name_stays_text(text: str) -> None:
    assert "<a" not in str(rule_links(text))
    assert str(rule_links(text)) == text


def test_markup_is_left_as_it_is_and_none_is_nothing() -> None:
    from markupsafe import Markup

    html = Markup('<span title="R3.1">x</span>')
    assert rule_links(html) is html
    assert str(rule_links(None)) == ""


def test_sentence_ids_link_only_inside_parentheses() -> None:
    sentences = frozenset({"S5", "S6"})
    assert "href" not in str(rulebook.link_ids("the six cards S5–S6", sentences=sentences))
    shown = str(rulebook.link_ids("from your hand (S5, S6)", sentences=sentences))
    assert shown.count('href="/rules#S') == 2


# ---- the rules files as pages -----------------------------------------------------------


def test_every_rule_of_rules_md_has_its_anchor_in_order() -> None:
    text = rulebook.RULES_FILE.read_text(encoding="utf-8")
    items = R_ITEMS.findall(text)
    book = rulebook.game_rules()
    assert len(items) > 30
    assert [i for i in book.ids if "." in i] == items
    for rule in items:
        assert f'<li id="{rule}" class="rule">' in book.html
    assert '<h2 id="R3">3. The turn</h2>' in book.html


def test_every_rule_of_tournament_md_has_its_anchor() -> None:
    text = rulebook.TOURNAMENT_FILE.read_text(encoding="utf-8")
    book = rulebook.tournament_rules()
    assert [i for i in book.ids if "." in i] == T_ITEMS.findall(text)
    assert ("T4", "T4. Pairing") in book.sections


def test_the_markdown_subset_is_rendered_and_its_text_escaped() -> None:
    book = rulebook.render(
        "# Title\n\nIntro with `code <x>` and **strong** and *em*.\n\n## 1. Part\n"
        "- R1.1 First <script>alert(1)</script>\n  continued, see R1.2.\n- R1.2 Second\n\n"
        "| question | answer |\n|---|---|\n| who? | R1.1 |\n",
        tournament=False,
    )
    assert book.title == "Title"
    assert "<code>code &lt;x&gt;</code>" in book.html
    assert "<strong>strong</strong>" in book.html and "<em>em</em>" in book.html
    assert "<script>" not in book.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; continued, see" in book.html
    assert book.ids == ("R1", "R1.1", "R1.2")
    assert '<th scope="col">question</th>' in book.html
    assert "<td>who?</td>" in book.html


# ---- the Guild's own text --------------------------------------------------------------


def test_the_russian_original_is_matched_to_the_translations_sentence_ids() -> None:
    en, ru = rulebook.guild_text("en"), rulebook.guild_text("ru")
    assert [s.id for s in ru.sentences] == [s.id for s in en.sentences]
    assert [s.id for s in en.sentences] == [f"S{n}" for n in range(1, 17)]
    by_id = {s.id: s for s in ru.sentences}
    assert by_id["S5"].text.startswith("Игрок может помещать в Последовательность рецепты")
    # the original's two sentences of S11 are one entry
    assert by_id["S11"].text.startswith("Карты этапов Последовательности")
    assert "Карты новых этапов подкладываются" in by_id["S11"].text
    assert by_id["S12"].text.startswith("Рецепты, находящиеся в Последовательности")
    assert by_id["S16"].text == "Дата добавления: 2015-08-18"
    assert {s.id: s.text for s in en.sentences}["S14"].startswith("The card that is")


def test_each_sentence_names_the_rules_citing_it() -> None:
    cites = rulebook.cited_by(
        "- R4.5 Place from hand (S5), never skip (S3, S4).\n"
        "- R5.1 Taking (S12–S14).\n- R2.3 the six cards S1–S6 are dealt.\n"
    )
    assert cites == {
        "S5": ["R4.5"],
        "S3": ["R4.5"],
        "S4": ["R4.5"],
        "S12": ["R5.1"],
        "S14": ["R5.1"],
        "S13": ["R5.1"],
    }
    guild = {s.id: s.cited_by for s in rulebook.guild_text("ru").sentences}
    assert "R4.5" in guild["S5"]
    assert guild["S1"] == ()

"""The rules as the pages show them: RULES.md and TOURNAMENT.md, read at run
time from the repository (the service runs from its clone, ``pip install
-e .``), each parsed once, and the Guild's own text (seed/: the Russian
original and its English translation, sentence by sentence, S1–S16).

A small subset of Markdown is rendered, the one these files use: ``#`` and
``##`` headings, paragraphs, ``-`` list items (continued by indented lines),
pipe tables, and inline code, ``**strong**`` and ``*emphasis*``. Every text
is escaped; the only markup is what this module writes. Each rule item gets
its id as its anchor (``id="R3.1"``, ``id="T4.2"``), each numbered section
its own (``R3``, ``T4``), each sentence of the Guild's text its S id. A rule
id in a text (``R3.1``, ``R4.4/half``, ``T2.2``) becomes a link to its rule
when the rules name it; a sentence id (``S5``) only within the rules pages
and only inside parentheses, as RULES.md cites the sentences (its ``S1–S6``
elsewhere are Sequence cards).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]  # the repository: api/web/rulebook.py
RULES_FILE = ROOT / "RULES.md"
TOURNAMENT_FILE = ROOT / "TOURNAMENT.md"
SEED_RU = ROOT / "seed" / "great-work-sequence.ru.txt"
SEED_EN = ROOT / "seed" / "great-work-sequence.en.md"
RULES_PATH = "/rules"
TOURNAMENT_PATH = "/rules/tournament"

# R3.1, R4.4/half, T2.2, S12, R3 (a section): a letter, a number, maybe a
# second one; never inside a word ("R2D2") or a longer number
RULE_ID = re.compile(r"(?<![\w.])([RST]\d{1,2}(?:\.\d{1,2})?)(/half)?(?![\w]|\.\d)")
ITEM = re.compile(r"^- ([RT]\d{1,2}\.\d{1,2})\s")
RULES_SECTION = re.compile(r"^## (\d{1,2})\. ")
TOURNAMENT_SECTION = re.compile(r"^## (T\d{1,2})\. ")
INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*")
SENTENCE_EN = re.compile(r"^(S\d{1,2})\. (.*)$")
SENTENCE_BREAK_RU = re.compile(r"(?<=[.!?])\s+(?=[А-ЯЁA-Z])")
S_RANGE = re.compile(r"\b(S\d{1,2})–(S\d{1,2})\b")
# the translation's sentences that are more than one of the original's: S11
# ("…рубашкой вниз. Карты новых этапов подкладываются…" is one sentence in English)
SPANS = {"S11": 2}


def rule_href(rule: str) -> str:
    """Where a rule id is shown: T ids on the tournament rules' page, R and
    S ids on the game's."""
    return f"{TOURNAMENT_PATH if rule.startswith('T') else RULES_PATH}#{rule}"


# ---- the ids the rules name ----------------------------------------------------------


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def ids_in(markdown: str, tournament: bool) -> list[str]:
    """The anchors a rules file gives: each rule item's id and each numbered
    section's (R3 for RULES.md's "## 3.", T3 for TOURNAMENT.md's "## T3.")."""
    found = []
    for line in markdown.splitlines():
        item = ITEM.match(line)
        if item:
            found.append(item.group(1))
        elif tournament and (section := TOURNAMENT_SECTION.match(line)):
            found.append(section.group(1))
        elif not tournament and (section := RULES_SECTION.match(line)):
            found.append(f"R{section.group(1)}")
    return found


@functools.cache
def known_ids() -> frozenset[str]:
    """Every id the rules pages anchor: RULES.md's and TOURNAMENT.md's
    (without the files, none: texts keep their ids as plain text)."""
    try:
        rules, tournament = read(RULES_FILE), read(TOURNAMENT_FILE)
    except OSError:
        log.exception("the rules files cannot be read: rule ids are not linked")
        return frozenset()
    return frozenset(ids_in(rules, False) + ids_in(tournament, True))


def link_ids(text: str, *, sentences: frozenset[str] = frozenset()) -> Markup:
    """``text`` escaped, each rule id the rules name a link to it
    (``R4.4/half`` to R4.4); ``sentences``: the S ids to link too, inside
    parentheses only."""
    known = known_ids()
    out: list[str] = []
    at = 0
    for match in RULE_ID.finditer(text):
        rule = match.group(1)
        if rule.startswith("S"):
            wanted = rule in sentences and _in_parentheses(text, match.start())
        else:
            wanted = rule in known
        if not wanted:
            continue
        out.append(escape(text[at : match.start()]))
        out.append(_anchor(rule, match.group(0)))
        at = match.end()
    out.append(escape(text[at:]))
    return Markup("".join(out))


def _anchor(rule: str, shown: str) -> str:
    return f'<a class="rule-ref" href="{escape(rule_href(rule))}">{escape(shown)}</a>'


def _in_parentheses(text: str, at: int) -> bool:
    before = text[:at]
    return before.count("(") > before.count(")")


# ---- a rules file as a page ------------------------------------------------------------


@dataclass(frozen=True)
class Rulebook:
    """A rules file as its page shows it: its title, its sections (id and
    title, for the contents), its body after the title as HTML, and every
    anchor the body holds, in order."""

    title: str
    sections: tuple[tuple[str, str], ...]
    html: Markup
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Sentence:
    id: str | None  # S1…; None when the text's sentences cannot be matched to the ids
    text: str
    cited_by: tuple[str, ...]  # the rules (RULES.md) that cite it


@dataclass(frozen=True)
class GuildText:
    """The Guild's own rules text in one language: its sentences, each with
    its S id and the rules citing it."""

    lang: str
    sentences: tuple[Sentence, ...]


class _Writer:
    """Markdown blocks into HTML, line by line."""

    def __init__(self, tournament: bool, sentences: frozenset[str]) -> None:
        self.tournament = tournament
        self.sentences = sentences
        self.out: list[str] = []
        self.title = ""
        self.sections: list[tuple[str, str]] = []
        self.ids: list[str] = []
        self.paragraph: list[str] = []
        self.items: list[list[str]] = []
        self.rows: list[str] = []

    def inline(self, text: str) -> str:
        """A text's inline code, strong and emphasis, its rule ids linked."""
        out: list[str] = []
        at = 0
        for match in INLINE.finditer(text):
            out.append(self.plain(text[at : match.start()]))
            code, strong, emphasis = match.groups()
            if code is not None:
                linked = RULE_ID.fullmatch(code) and code.split("/")[0] in known_ids()
                inner = str(self.plain(code)) if linked else str(escape(code))
                out.append(f"<code>{inner}</code>")
            elif strong is not None:
                out.append(f"<strong>{self.inline(strong)}</strong>")
            else:
                out.append(f"<em>{self.inline(emphasis)}</em>")
            at = match.end()
        out.append(self.plain(text[at:]))
        return "".join(out)

    def plain(self, text: str) -> str:
        return str(link_ids(text, sentences=self.sentences))

    def flush(self) -> None:
        if self.paragraph:
            self.out.append(f"<p>{self.inline(' '.join(self.paragraph))}</p>")
        if self.items:
            self.out.append('<ul class="rule-list">')
            for item in self.items:
                self.out.append(self.item(" ".join(item)))
            self.out.append("</ul>")
        if self.rows:
            self.out.append(self.table(self.rows))
        self.paragraph, self.items, self.rows = [], [], []

    def item(self, text: str) -> str:
        own = ITEM.match(f"- {text} ")
        if own is None:
            return f"<li>{self.inline(text)}</li>"
        rule = own.group(1)
        self.ids.append(rule)
        rest = text[len(rule) :]
        self_link = f'<a class="rule-id" href="#{escape(rule)}">{escape(rule)}</a>'
        return f'<li id="{escape(rule)}" class="rule">{self_link}{self.inline(rest)}</li>'

    def table(self, rows: list[str]) -> str:
        cells = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows]
        body = [r for r in cells[1:] if not all(set(c) <= set("-: ") for c in r)]
        head = "".join(f'<th scope="col">{self.inline(c)}</th>' for c in cells[0])
        lines = "".join(
            "<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in row) + "</tr>" for row in body
        )
        return (
            f'<table class="rule-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{lines}</tbody></table>"
        )

    def heading(self, text: str) -> None:
        self.flush()
        if self.tournament:
            numbered = TOURNAMENT_SECTION.match(f"## {text}")
            anchor = numbered.group(1) if numbered else None
        else:
            numbered = RULES_SECTION.match(f"## {text}")
            anchor = f"R{numbered.group(1)}" if numbered else None
        if anchor is None:
            anchor = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
        else:
            self.ids.append(anchor)
        self.sections.append((anchor, text))
        self.out.append(f'<h2 id="{escape(anchor)}">{self.inline(text)}</h2>')

    def feed(self, line: str) -> None:
        if not line.strip():
            self.flush()
        elif line.startswith("# "):
            self.flush()
            self.title = line[2:].strip()
        elif line.startswith("## "):
            self.heading(line[3:].strip())
        elif line.startswith("- "):
            if self.paragraph or self.rows:
                self.flush()
            self.items.append([line[2:].strip()])
        elif line.startswith("|"):
            if self.paragraph or self.items:
                self.flush()
            self.rows.append(line)
        elif self.items and line.startswith(" "):
            self.items[-1].append(line.strip())
        else:
            if self.items or self.rows:
                self.flush()
            self.paragraph.append(line.strip())


def render(markdown: str, *, tournament: bool, sentences: frozenset[str] = frozenset()) -> Rulebook:
    """A rules file's text as a page (the subset of Markdown above)."""
    writer = _Writer(tournament, sentences)
    for line in markdown.splitlines():
        writer.feed(line)
    writer.flush()
    return Rulebook(
        title=writer.title,
        sections=tuple(writer.sections),
        html=Markup("\n".join(writer.out)),
        ids=tuple(writer.ids),
    )


@functools.cache
def game_rules() -> Rulebook:
    """RULES.md as its page shows it (the sentences it cites linked)."""
    return render(read(RULES_FILE), tournament=False, sentences=sentence_ids())


@functools.cache
def tournament_rules() -> Rulebook:
    return render(read(TOURNAMENT_FILE), tournament=True)


# ---- the Guild's own text ---------------------------------------------------------------


def english_sentences(text: str) -> list[tuple[str, str]]:
    """seed/great-work-sequence.en.md's numbered sentences: (S id, text)."""
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        numbered = SENTENCE_EN.match(line)
        if numbered:
            found.append((numbered.group(1), [numbered.group(2).strip()]))
        elif found and line.startswith(" ") and line.strip():
            found[-1][1].append(line.strip())
    return [(sid, " ".join(words)) for sid, words in found]


def russian_sentences(text: str) -> list[str]:
    """The Russian original's sentences, in order: its title left out, its
    paragraphs cut after each full stop (or ! or ?) that a capital follows."""
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    sentences: list[str] = []
    for paragraph in paragraphs[1:]:  # the first is the title
        sentences.extend(s.strip() for s in SENTENCE_BREAK_RU.split(" ".join(paragraph.split())))
    return [s for s in sentences if s]


@functools.cache
def sentence_ids() -> frozenset[str]:
    try:
        return frozenset(sid for sid, _ in english_sentences(read(SEED_EN)))
    except OSError:
        return frozenset()


def cited_by(rules_markdown: str) -> dict[str, list[str]]:
    """Which rule items of RULES.md cite each sentence, in parentheses
    (``(S8, S15)``; a range ``S12–S14`` cites each of them)."""
    cites: dict[str, list[str]] = {}
    items: list[tuple[str, str]] = []
    for line in rules_markdown.splitlines():
        item = ITEM.match(line)
        if item:
            items.append((item.group(1), line))
        elif items and line.startswith(" "):
            items[-1] = (items[-1][0], f"{items[-1][1]} {line.strip()}")
    for rule, text in items:
        for sid in _cited(text):
            cites.setdefault(sid, [])
            if rule not in cites[sid]:
                cites[sid].append(rule)
    return cites


def _cited(text: str) -> Iterator[str]:
    for match in RULE_ID.finditer(text):
        if not match.group(1).startswith("S") or not _in_parentheses(text, match.start()):
            continue
        yield match.group(1)
    for span in S_RANGE.finditer(text):
        if _in_parentheses(text, span.start()):
            low, high = int(span.group(1)[1:]), int(span.group(2)[1:])
            yield from (f"S{n}" for n in range(low + 1, high))


@functools.cache
def guild_text(lang: str) -> GuildText:
    """The Guild's text in ``lang`` (the Russian original, or its English
    translation), each sentence with its S id. The translation numbers its
    sentences; the original's are matched to them in order, each one
    sentence but those ``SPANS`` names. Should the counts no longer agree
    (a text changed), the original is shown without ids."""
    numbered = english_sentences(read(SEED_EN))
    cites = cited_by(read(RULES_FILE))
    ids: list[str | None] = [sid for sid, _ in numbered]
    texts = [text for _, text in numbered]
    if lang == "ru":
        original = russian_sentences(read(SEED_RU))
        if sum(SPANS.get(sid, 1) for sid, _ in numbered) == len(original):
            texts = []
            for sid, _ in numbered:
                taken, original = original[: SPANS.get(sid, 1)], original[SPANS.get(sid, 1) :]
                texts.append(" ".join(taken))
        else:  # the texts have changed: the original without ids
            ids, texts = [None] * len(original), original
    return GuildText(
        lang=lang,
        sentences=tuple(
            Sentence(sid, text, tuple(cites.get(sid, ())) if sid else ())
            for sid, text in zip(ids, texts, strict=True)
        ),
    )

"""The web client's words (api/web/i18n.py, and the log's templates of the
one describer of events, projections/describe.py): both languages say
everything, with the same placeholders; every event of the log and every
card, element and column has its words in each."""

from __future__ import annotations

import string

import pytest

from api.web import i18n, present
from domain.catalog import STONES, load_catalog
from domain.events import EVENT_TYPES
from projections.describe import LOG, CardRef


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("table", [i18n.STRINGS, LOG], ids=["pages", "log"])
def test_both_languages_say_everything_with_the_same_placeholders(
    table: dict[str, tuple[str, str]],
) -> None:
    for key, (en, ru) in table.items():
        assert en.strip() and ru.strip(), key
        assert placeholders(en) == placeholders(ru), key


def test_every_card_element_and_column_has_its_names() -> None:
    catalog = load_catalog()
    for card_id in catalog.cards:
        en, ru = i18n.card_info(card_id, "en"), i18n.card_info(card_id, "ru")
        assert en.name and ru.name and en.kind_label and ru.kind_label
        assert len(en.element_names) == len(en.elements)
    assert len(set(i18n.SYMBOLS)) == len(i18n.SYMBOLS) == len(catalog.elements)
    for column in STONES:
        assert i18n.column_name(column, "ru") != i18n.column_name(column, "en")
    for sequence in catalog.sequence_cards.values():
        for column in sequence.columns:
            for stage in column.stages:
                assert i18n.stage_label(stage, "ru") != stage  # every stage has its Russian name


FIELDS = {
    "GameCreated": {"draw": "five", "guild": True},
    "TournamentGameCreated": {"draw": "one", "guild": False, "round": 2, "table": 1},
    "PlayerJoined": {"player": 0, "name": "Ada"},
    "PlayerLeft": {"player": 1, "names": ["Ada"]},
    "GameStarted": {"cabinet": [1, 2, 3, 4]},
    "CardsDealt": {"counts": [4, 4]},
    "CardsDrawn": {"player": 0, "count": 2},
    "CardDiscarded": {"player": 0, "card": 5},
    "StageStolen": {"player": 0, "owner": 1, "column": "albedo", "stage": 2, "card": 6},
    "StageTaken": {"player": 0, "column": "rubedo", "stage": 1, "card": 6},
    "RecipeAssembled": {"player": 1, "card": 30, "components": [1, 2]},
    "RecipePlaced": {"player": 1, "column": "nigredo", "stage": 1, "card": 7},
    "ComponentsReturned": {"cards": [1, 2]},
    "SpellCast": {"player": 0, "spell": 73, "kind": "knowledge", "card": 4},
    "PointsAwarded": {"player": 0, "points": 3, "rule": "R4.4"},
    "SequenceCompleted": {"player": 0, "column": "albedo"},
    "TurnEnded": {"player": 0, "next_player": 1, "passed": True},
    "SeatWithdrawn": {"player": 1},
    "GameCalled": {"by": "the arbiter"},
    "TimeExpired": {"player": 0, "at": "2026-12-08T01:00:00+00:00", "grace": 5},
    "TimeAdded": {"player": 1, "seconds": 30, "reason": "a phone call", "by": "the arbiter"},
    "ClocksPaused": {"reason": "a fire drill", "by": "the arbiter"},
    "ClocksResumed": {"reason": "the drill is over", "by": "the arbiter"},
    "GameEnded": {"reason": "R7.1", "scores": [3, 1], "winners": [0]},
}


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_event_of_the_log_is_told_in_words(lang: str) -> None:
    assert set(FIELDS) == set(EVENT_TYPES)
    for event, fields in FIELDS.items():
        parts = present.describe({"event": event, **fields}, ["Ada", "Борис"], lang)
        words = "".join(p for p in parts if isinstance(p, str))
        assert words != event and "{" not in words, (event, words)
    revealed = {"event": "CardsDrawn", "player": 1, "count": 1, "cards": [42]}
    assert CardRef(42) in present.describe(revealed, ["Ada", "Борис"], lang)


def test_russian_plurals() -> None:
    assert [i18n.cards_n(n, "ru") for n in (1, 2, 5, 11, 21, 22, 25)] == [
        "1 карта",
        "2 карты",
        "5 карт",
        "11 карт",
        "21 карта",
        "22 карты",
        "25 карт",
    ]
    assert i18n.cards_n(1, "en") == "1 card" and i18n.cards_n(3, "en") == "3 cards"

"""The one text policy (domain/text.py): every text a person is shown, in a
game or a tournament, refuses the characters T2.1 refuses, naming the field
and the rule; names are unique by T2.1's key in games as in tournaments;
and what was stored before the policy still loads, re-judges and verifies."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.audit import group_by_game, verify_game
from domain.errors import RuleError
from domain.game import Game
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from domain.text import name_key, refused_character, text_refusal
from domain.tournaments import entrants
from infra.eventlog import read_records
from tests.unit.test_tournament_verify import organised_export

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}

# Every bidi control, the marks, and other format and control characters.
BIDI = [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
HOSTILE = [*BIDI, "\u200e", "\u200f", "\u061c", "\u200b", "\u2060", "\ufeff", "\x00", "\n", "\x1b"]
HOSTILE += ["\ue000", "\ud800", "\u0378"]  # private use, a lone surrogate, unassigned


@pytest.mark.parametrize("char", HOSTILE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_bidi_control_and_format_or_control_character_is_refused(char: str) -> None:
    refusal = text_refusal("the reason", f"Cup {char}gnp.exe")
    assert refusal is not None
    assert refusal.startswith(f"the reason may not hold U+{ord(char):04X}")
    assert refusal.endswith("(our decision)")


def test_the_joiners_and_ordinary_text_pass() -> None:
    for text in ("Ada", "Борис", "\u0915\u094d\u200d\u0937", "\u0645\u200c\u0645", "Zoë «Ω» 1/2"):
        assert refused_character(text) is None, text


def test_a_refusal_names_the_character_by_its_unicode_name() -> None:
    refusal = text_refusal("a name", "Cup \u202egnp.exe\u202c", "T2.1")
    assert refusal is not None
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in refusal and refusal.endswith("(T2.1)")


# ---- look-alike names: one key (T2.1) for games and tournaments ------------------


def joined(*names: str) -> list[str]:
    app = Opus(env=POPO)
    game_id = app.create_game()
    for name in names:
        app.join(game_id, name)
    return app.state(game_id).names


@pytest.mark.parametrize(
    "look_alike",
    [
        "\uff21\uff44\uff41",
        "ADA",
        "ada\u00a0",
        "\u1d2c\u1d48\u1d43",
    ],  # fullwidth, case, NBSP, modifiers
)
def test_R2_1_a_game_refuses_a_name_that_looks_like_a_seated_one(look_alike: str) -> None:
    assert name_key(look_alike) == name_key("Ada")
    with pytest.raises(RuleError, match=r"^R2\.1: .*taken in this game"):
        joined("Ada", look_alike)


def test_games_and_tournaments_key_names_by_one_function() -> None:
    assert entrants.name_key is name_key
    assert joined("Straße", "Ada") == ["Straße", "Ada"]
    with pytest.raises(RuleError, match="taken in this game"):
        joined("Straße", "STRASSE")


# ---- every text field of every command --------------------------------------------


def tournament_with_a_game(app: Opus) -> tuple[UUID, UUID]:
    """A tournament of three, round 1 paired (one game, running); the
    organiser is the service."""
    t = app.tournaments
    tournament = t.create("Cup", beacon="drand 1").aggregate_id
    for n, name in enumerate(("Ada", "Boris", "Cleo"), start=1):
        t.register(tournament, name, caller=Caller(f"{n:064x}"))
    t.pair(tournament, beacon="ab12")
    game = t.get(tournament).state.rounds[-1].tables[0].game
    return tournament, game


BAD = "Cup \u202egnp.exe\u202c"


def commands(app: Opus, tournament: UUID, game: UUID) -> list[tuple[str, str, Callable[[], Any]]]:
    """Each free-text field of each command, given BAD: (rule, field, command)."""
    t = app.tournaments
    open_game = app.create_game()
    beaconed = t.create("Beaconed", beacon="b").aggregate_id
    return [
        ("R2.1", "a player's name", lambda: app.join(open_game, BAD)),
        ("T1.1", "a tournament's name", lambda: t.create(BAD)),
        ("T1.1", "the beacon's name", lambda: t.create("Cup", beacon=BAD)),
        ("T2.1", "a name", lambda: t.register(beaconed, BAD)),
        ("T1.3", "the beacon's value", lambda: t.pair(beaconed, beacon=BAD)),
        ("T8.1", "who calls", lambda: t.call(tournament, game, BAD)),
        ("T7.1", "the reason", lambda: t.correct(tournament, game, [1, 2, 3], BAD, "Arbiter")),
        ("T7.1", "who corrects", lambda: t.correct(tournament, game, [1, 2, 3], "slip", BAD)),
        ("T7.2", "the reason", lambda: t.penalise(tournament, 1, Fraction(1, 2), BAD, "Arbiter")),
        ("T7.2", "who gives it", lambda: t.penalise(tournament, 1, Fraction(1, 2), "late", BAD)),
    ]


def test_every_text_a_person_sees_refuses_a_bidi_override_naming_field_and_rule() -> None:
    app = Opus(env=POPO)
    tournament, game = tournament_with_a_game(app)
    for rule, field, command in commands(app, tournament, game):
        head = app.recorder.max_notification_id()
        with pytest.raises(RuleError) as refused:
            command()
        assert refused.value.rule == rule, (field, refused.value)
        assert str(refused.value).startswith(f"{rule}: {field} may not hold U+202E"), field
        assert app.recorder.max_notification_id() == head, field  # nothing recorded


# ---- what was stored before the policy --------------------------------------------


def test_a_tournament_stored_with_such_texts_before_the_policy_still_verifies() -> None:
    """Texts the policy now refuses, recorded as the service recorded them
    before it (the chain recomputed over them): the tournament's state loads
    and verification re-decides every event without refusing them."""
    log = organised_export()
    log.rewrite("TournamentCreated", lambda p: p.update(name=BAD, beacon="drand\u202e 1"))
    log.rewrite("ResultCorrected", lambda p: p.update(reason=BAD, by="Arb\u2066iter"))
    log.rewrite("PenaltyGiven", lambda p: p.update(reason="late\u200b", by="\u200fArbiter"))
    called = next(
        (game, r.version)
        for game, records in log.games.items()
        for r in records
        if r.type == "GameCalled"
    )
    log.rewrite_game(*called, lambda p: p.update(by="Arbiter\u202d"))
    verdict = log.verify()
    assert verdict.ok, verdict.reason
    assert (log.first("TournamentCreated").payload or {})["name"] == BAD


def test_a_game_stored_with_look_alike_and_bidi_names_still_re_judges() -> None:
    """Names the service now refuses (a look-alike, a bidi override, an
    unassigned code point), seated as the engine always seated them."""
    app = Opus(env=POPO)
    game = Game.create(RuleSet(), secret=bytes(32))
    for name in ("Ada", "\uff21\uff44\uff41", "\u202eadA", "Bo\u0378"):
        game.join(name)
    game.start()
    app.save(game)
    records = group_by_game(read_records(app))[str(game.id)]
    assert verify_game(records).ok
    assert app.state(game.id).names[1] == "\uff21\uff44\uff41"


def test_the_policy_is_t2_1s_character_rule() -> None:
    """The categories refused are the ones T2.1 names, so a registration
    that verified under T2.1 still does."""
    samples = {"Cc": "\x07", "Cf": "\u202e", "Co": "\ue000", "Cs": "\ud800", "Cn": "\u0378"}
    for category, char in samples.items():
        assert unicodedata.category(char) == category
        assert refused_character(char) == char
    assert refused_character("\u2028") is None  # a separator (Zl): T2.1 does not refuse it

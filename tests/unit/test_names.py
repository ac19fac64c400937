"""Players' names (domain/names.py): what a seat may be called."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.application import Opus
from domain.bot_seats import seat_bots
from domain.errors import AccountError, CreationError, RegistrationError, SetupError
from domain.pipeline import Caller
from domain.simulation import token_hash


def joined(*names: str) -> list[str]:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    for name in names:
        app.join(game_id, name)
    return app.state(game_id).names


@pytest.mark.parametrize(
    "name",
    [
        "x\nAda scored 99",  # a fake log line
        "\x1b[31mAda",  # a terminal escape
        "Ada\x00",
        "\u202eadA",  # a bidi override
        "\ufeffAda\u200b",  # invisible characters around a real name
        "Ada\ue000",  # private use
    ],
)
def test_R2_1_a_name_with_control_format_or_private_characters_is_refused(name: str) -> None:
    with pytest.raises(SetupError, match=r"^R2\.1: .*U\+"):
        joined(name)


def test_R2_1_a_name_is_recorded_in_NFC_and_trimmed() -> None:
    assert joined("  Cle\u0301o ") == ["Cl\u00e9o"]


def test_R2_1_names_equal_after_case_folding_are_one_name() -> None:
    with pytest.raises(SetupError, match="taken in this game"):
        joined("Ada", "ADA")
    with pytest.raises(SetupError, match="taken in this game"):
        joined("Straße", "STRASSE")
    assert joined("Ada", "Boris") == ["Ada", "Boris"]


def test_R2_1_a_name_has_1_to_40_characters() -> None:
    with pytest.raises(SetupError, match="1 to 40"):
        joined("   ")
    with pytest.raises(SetupError, match="1 to 40"):
        joined("x" * 41)
    assert joined("x" * 40) == ["x" * 40]


# ---- names that cannot impersonate (issue 35) ------------------------------------------------

PERSON = Caller(token_hash("a person's token"))
OTHER = Caller(token_hash("another person's token"))
CYRILLIC_A = "\u0410"  # looks like A
CYRILLIC_O = "\u043e"  # looks like o


def test_a_seat_that_looks_like_another_seat_of_the_game_is_refused() -> None:
    for look_alike in (f"{CYRILLIC_A}da", "\u0391da", f"{CYRILLIC_A}DA", "Аdа"):
        with pytest.raises(SetupError, match=r"^R2\.1: .* looks like 'Ada', a name taken"):
            joined("Ada", look_alike)
    with pytest.raises(SetupError, match="looks like 'Emma'"):
        joined("Emma", "Ernrna")  # rn for m
    assert joined("Ada", "Adam", "Ida") == ["Ada", "Adam", "Ida"]


def test_a_refused_look_alike_records_nothing() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada")
    version = app.version(game_id)
    with pytest.raises(SetupError):
        app.join(game_id, f"{CYRILLIC_A}da")
    assert app.state(game_id).names == ["Ada"]
    assert app.version(game_id) == version


@pytest.mark.parametrize(
    "name",
    [
        "Ada\u200d",  # ZERO WIDTH JOINER beside the name
        "A\u200cda",  # ZERO WIDTH NON-JOINER inside it
        "Ada\u3164",  # HANGUL FILLER
        "\u3164",  # a name of a Hangul filler alone
        "\u115fAda",  # HANGUL CHOSEONG FILLER
        "Ada\uffa0",  # HALFWIDTH HANGUL FILLER
        "\u2800",  # BRAILLE PATTERN BLANK
        "Ada\ufe0f",  # a variation selector
        "Ada\u034f",  # COMBINING GRAPHEME JOINER
        "Ada\u3000Lovelace",  # IDEOGRAPHIC SPACE inside the name
        "Ada\u2028Lovelace",  # LINE SEPARATOR
    ],
)
def test_a_blank_looking_or_default_ignorable_character_in_a_seat_name_is_refused(
    name: str,
) -> None:
    with pytest.raises(SetupError, match=r"^R2\.1: a player's name may not hold U\+.*shows as"):
        joined(name)


def test_a_person_may_not_take_a_seat_named_or_seeded_as_a_bot() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game(caller=PERSON)
    for name in (
        "Greedy bot",
        "greedy BOT 2",
        f"Greedy b{CYRILLIC_O}t",
        "Shrewd b0t",
        "Random bot",
    ):
        with pytest.raises(SetupError, match="looks like the name of one of the service's bots"):
            app.join(game_id, name, caller=PERSON)
    for contribution in ("bot:greedy", "bot:greedy:1234", f"b{CYRILLIC_O}t:random", "BOT:shrewd"):
        with pytest.raises(SetupError, match="a seed contribution reading 'bot:' is a bot's"):
            app.join(game_id, "Ada", contribution, caller=PERSON)
    assert app.state(game_id).names == []
    app.join(game_id, "Greedy botanist", "robot: not one", caller=PERSON)
    assert app.state(game_id).names == ["Greedy botanist"]


def test_the_services_bots_and_its_own_callers_still_seat_bots() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game(caller=PERSON)
    app.join(game_id, "Ada", caller=PERSON)
    assert seat_bots(app, game_id, ["greedy", "greedy"]) == [1, 2]
    app.join(game_id, "P3-random", "bot:random:7")  # a simulation's seat: no token
    state = app.state(game_id)
    assert state.names == ["Ada", "Greedy bot", "Greedy bot 2", "P3-random"]
    assert state.contributions[3] == "bot:random:7"


def test_a_bot_does_not_take_a_name_a_seat_looks_like() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game(caller=PERSON)
    app.join(game_id, f"Greedy b{CYRILLIC_O}t")  # recorded before the rule, or by the service
    assert seat_bots(app, game_id, ["greedy"]) == [1]
    assert app.state(game_id).names[1] == "Greedy bot 2"


def test_an_account_may_not_be_named_like_a_bot() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    for name in (f"Greedy b{CYRILLIC_O}t", "GREEDY B0T 3", "Shr\u0435wd bot"):
        with pytest.raises(AccountError, match="name of the service's bots"):
            app.accounts.open(name)
    ada = app.accounts.open("Ada").account
    with pytest.raises(AccountError, match="name of the service's bots"):
        app.accounts.rename(ada, f"Random b{CYRILLIC_O}t")


def test_an_account_name_may_not_be_blank_looking() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    for name in ("\u3164", "Ada\u200d", "\u2800\u2800"):
        with pytest.raises(AccountError, match=r"an account's name may not hold U\+.*shows as"):
            app.accounts.open(name)


def tournament(app: Opus) -> UUID:
    created = app.tournaments.create("Cup", caller=Caller(token_hash("organiser")))
    return created.aggregate_id


def test_a_registration_that_looks_like_another_is_refused() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    cup = tournament(app)
    app.tournaments.register(cup, "Ada", caller=PERSON)
    with pytest.raises(RegistrationError, match=r"^T2\.1: .* looks like 'Ada', a name registered"):
        app.tournaments.register(cup, f"{CYRILLIC_A}da", caller=OTHER)
    with pytest.raises(RegistrationError, match=r"^T2\.1: a name may not hold U\+3164"):
        app.tournaments.register(cup, "Ada\u3164", caller=OTHER)
    with pytest.raises(RegistrationError, match="looks like the name of one of the service's"):
        app.tournaments.register(cup, f"Greedy b{CYRILLIC_O}t", caller=OTHER)
    with pytest.raises(RegistrationError, match="a seed contribution reading 'bot:'"):
        app.tournaments.register(cup, "Boris", "bot:greedy", caller=OTHER)
    assert [r.name for r in app.tournaments.get(cup).state.registrations] == ["Ada"]


def test_a_tournaments_name_may_not_be_blank_looking() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    for name in ("\u3164", "Cup\u2800", "Cup\u200d"):
        with pytest.raises(CreationError, match=r"^T1\.1: a tournament's name may not hold U\+"):
            app.tournaments.create(name, caller=Caller(token_hash("organiser")))


def test_a_joiner_is_kept_only_where_its_script_needs_it() -> None:
    # RFC 5892's CONTEXTJ: after a virama (Devanagari), a non-joiner between
    # joining letters (Persian "mi-khaham"), transparent marks aside
    for name in ("\u0915\u094d\u200d\u0937", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"):
        assert joined(name) == [name]
    assert joined("\u0645\u064b\u200c\u064b\u0645") == ["\u0645\u064b\u200c\u064b\u0645"]
    # an alef joins nothing after it: no non-joiner is needed there
    with pytest.raises(SetupError, match=r"U\+200C \(ZERO WIDTH NON-JOINER\)"):
        joined("\u0627\u200c\u0645")


def test_a_name_that_differs_from_a_seat_by_a_joiner_alone_looks_like_it() -> None:
    with pytest.raises(SetupError, match="looks like"):
        joined("\u0915\u094d\u0937", "\u0915\u094d\u200d\u0937")

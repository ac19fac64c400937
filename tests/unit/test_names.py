"""Players' names (domain/names.py): what a seat may be called."""

from __future__ import annotations

import pytest

from domain.application import Opus
from domain.errors import SetupError


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

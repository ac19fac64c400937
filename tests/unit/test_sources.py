"""R4.2, R4.5: a source named in a move is checked by the engine, after the
turn (R3.4), and a refusal never says where the card really lies."""

from __future__ import annotations

import pytest

from domain.catalog import load_catalog
from domain.errors import AssemblyError, OutOfTurnError, PlacementError
from domain.moves import Assemble, Place
from tests.builders import Position


def test_R4_2_a_named_source_must_be_where_the_component_lies() -> None:
    # Love Potion (6) needs elements 4 and 5: Bloodstone-stack 4 top and 5 top.
    p = Position().hand(0, 6).cabinet(8, 10)
    ok = Assemble(0, 6, (8, 10), ("cabinet", "cabinet"))
    wrong = Assemble(0, 6, (8, 10), ("cabinet", "table:1"))
    error = p.refuse(wrong, AssemblyError, "R4.2")
    assert "is not at table:1" in str(error) and "cabinet" not in str(error)
    p.play(ok)


def test_R3_4_out_of_turn_comes_before_any_source_check() -> None:
    p = Position().hand(0, 6).hand(1, 14).cabinet(8, 10)
    with pytest.raises(OutOfTurnError):
        p.game.play(Assemble(1, 14, (8, 10), ("hand:0", "cabinet")))
    with pytest.raises(OutOfTurnError):
        p.game.play(Place(1, "albedo", 6, "cabinet"))


def test_R4_5_a_named_source_of_a_placement_is_checked() -> None:
    p = Position()
    stage_one = p.state.stage_name(0, "albedo", 1)
    card = next(c.id for c in load_catalog().cards.values() if c.name == stage_one)
    p.hand(0, card)
    error = p.refuse(Place(0, "albedo", card, "table:0"), PlacementError, "R4.5")
    assert "is not at table:0" in str(error)
    p.play(Place(0, "albedo", card, "hand:0"))

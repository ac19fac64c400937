"""The Great Work Sequence: placing (R4.5–R4.8), taking stages (R5.1–R5.4)
and the expansion's own sentences S1–S15, on hand-built positions.

Ada (seat 0) holds Sequence card S1, Boris (seat 1) S4 (tests/builders.py):

    S1 albedo:  Love Potion 6/7, Elixir of Fidelity 14/15, Elixir of the Plant
                Master 38-40, Powder of Incorporeality 44, Great Elixir of
                Eternal Love 49, Fire Salamander 67, White Stone 202/203
    S1 nigredo: Solution of Eternity 10/11, Infusion of Divination 8/9,
                Telepathic Draught 32-34, ...
    S1 rubedo:  Elixir of Oblivion 18/19, Potion of Eternal Sleep 0/1, ...
    S4 nigredo: Love Potion, Elixir of Fidelity, Telepathic Draught,
                Powder of Incorporeality 44, ...
    S4 albedo:  Solution of Eternity, Infusion of Divination, Elixir of the
                Plant Master, ...
"""

from __future__ import annotations

import pytest

from domain.catalog import STONES
from domain.errors import (
    ColumnBuiltError,
    OutOfTurnError,
    PlacementError,
    StageIsLastError,
)
from domain.moves import Assemble, Cast, Discard, Place
from domain.state import CATALOG, GAP
from domain.table import public_view
from tests.builders import Position, kinds, of_kind, points

ADA_ALBEDO = (6, 14, 38, 44, 49, 67)  # stages 1-6 of S1's albedo column
STAGE_POINTS = (2, 2, 4, 4, 6, 8, 10)

# ---- S1, S2: the Sequence card -----------------------------------------------


def test_S1_every_player_has_a_sequence_card_with_three_columns() -> None:
    """S1, R1.4: one Sequence card per player, its three Sequences named by
    their Stone."""
    p = Position(players=3)
    for seat in range(3):
        card = CATALOG.sequence_cards[p.state.sequence_cards[seat]]
        assert [c.stone for c in card.columns] == list(STONES)
        assert set(p.state.columns[seat]) == set(STONES)


def test_S2_each_sequence_has_seven_stages_ending_with_a_philosophers_stone() -> None:
    """S2, R1.4: seven stages; stage 7 is the column's Stone."""
    for card in CATALOG.sequence_cards.values():
        for column in card.columns:
            assert len(column.stages) == 7
            assert column.stages[6] == f"stone:{column.stone}"
            names = {c.name for c in CATALOG.cards.values()}
            assert set(column.stages[:6]) <= names


# ---- R4.5 placing, S3-S6 -----------------------------------------------------


def test_S3_S5_R4_5_place_the_named_recipe_from_hand_into_the_next_stage() -> None:
    """S3, S5, R4.5: Ada puts a Love Potion (any copy) straight from her hand into
    stage 1 of her albedo column; she scores the stage (2), no recipe points."""
    p = Position().hand(0, 7)
    events = p.play(Place(0, "albedo", 7))
    assert p.state.columns[0]["albedo"] == [7, None, None, None, None, None, None]
    (placed,) = of_kind(events, "RecipePlaced")
    assert (placed.column, placed.stage, placed.card, placed.source) == ("albedo", 1, 7, "hand:0")
    assert points(events) == [(0, 2, "R4.6")]
    p.assert_ledger()


def test_S3_stages_are_placed_one_after_another_top_to_bottom() -> None:
    """S3: after stage 1 comes stage 2: Elixir of Fidelity."""
    p = Position().hand(0, 14).column(0, "albedo", 6)
    events = p.play(Place(0, "albedo", 14))
    assert p.state.columns[0]["albedo"][:3] == [6, 14, None]
    assert of_kind(events, "RecipePlaced")[0].stage == 2


def test_S4_no_stage_of_a_sequence_may_be_skipped() -> None:
    """S4, R4.5: stage 1 of the albedo column takes Love Potion; Elixir of
    Fidelity (stage 2) is refused."""
    p = Position().hand(0, 14, 6)
    error = p.refuse(Place(0, "albedo", 14), PlacementError, "R4.5")
    assert "stage 1 of Ada's albedo column takes Love Potion" in str(error)


def test_R4_5_only_the_recipe_the_stage_names_can_be_placed() -> None:
    """R4.5: Telepathic Draught is no Love Potion."""
    p = Position().hand(0, 32)
    p.refuse(Place(0, "albedo", 32), PlacementError, "R4.5")


def test_R4_5_there_is_no_fourth_column() -> None:
    """R4.5: columns are named nigredo, albedo and rubedo."""
    p = Position().hand(0, 6)
    p.refuse(Place(0, "citrinitas", 6), PlacementError, "R4.5")


def test_S6_placing_into_a_sequence_takes_the_whole_play_phase() -> None:
    """S6, R3.2: placing is a main action: the turn ends, Boris is to play."""
    p = Position().hand(0, 6, 7, 10)
    events = p.play(Place(0, "albedo", 6))
    assert kinds(events)[-2:] == ["TurnEnded", "CardsDrawn"]
    assert p.state.turn == 1
    p.refuse(Discard(0, 7), OutOfTurnError, "R3.4")  # no second main action


def test_S9_R4_7_a_recipe_placed_from_your_own_table_sends_its_components_back() -> None:
    """R4.5, R4.7, S9: Ada's assembled Love Potion goes into her Sequence and
    its components go back to the cabinet; no one scores half."""
    p = Position().table(0, 6, 8, 10).cabinet(9)
    events = p.play(Place(0, "albedo", 6))
    assert p.state.tables[0] == {}
    assert p.state.columns[0]["albedo"][0] == 6
    (returned,) = of_kind(events, "ComponentsReturned")
    assert returned.cards == [8, 10]
    assert p.stack(4) == [9, 8] and p.stack(5) == [10]
    assert points(events) == [(0, 2, "R4.6")]


def test_S8_R4_6_half_placing_another_players_table_recipe_scores_them_half() -> None:
    """S8, R4.6/half, S9: Ada places Boris's Elixir of the Plant Master into
    stage 3 (4 points); Boris scores 2 and the elixir's components go back."""
    p = Position().column(0, "albedo", 6, 14).table(1, 38, 2, 0, 24)
    events = p.play(Place(0, "albedo", 38))
    (placed,) = of_kind(events, "RecipePlaced")
    assert (placed.stage, placed.source) == (3, "table:1")
    assert of_kind(events, "ComponentsReturned")[0].cards == [2, 0, 24]
    assert p.stack(1) == [2] and p.stack(0) == [0] and p.stack(12) == [24]
    assert points(events) == [(0, 4, "R4.6"), (1, 2, "R4.6/half")]
    half = p.ledger()[1]
    assert (half.cause, half.cause_version) == ("RecipePlaced", placed.originator_version)
    assert p.state.tables[1] == {}
    p.assert_ledger()


def test_S15_R4_6_half_placing_a_stage_stolen_from_another_sequence() -> None:
    """S15, R4.6/half, R5.4: Ada takes the Elixir of Fidelity from stage 2 of
    Boris's nigredo column into her albedo stage 2: she scores 2, he scores 1."""
    p = Position().column(0, "albedo", 6).column(1, "nigredo", 7, 15, 33)
    events = p.play(Place(0, "albedo", 15))
    assert kinds(events)[:2] == ["StageStolen", "RecipePlaced"]
    stolen = of_kind(events, "StageStolen")[0]
    assert (stolen.owner, stolen.column, stolen.stage, stolen.card) == (1, "nigredo", 2, 15)
    assert of_kind(events, "RecipePlaced")[0].source == "sequence:1:nigredo:2"
    assert points(events) == [(0, 2, "R4.6"), (1, 1, "R4.6/half")]
    assert p.state.columns[1]["nigredo"][:4] == [7, GAP, 33, None]
    assert p.state.columns[0]["albedo"][:3] == [6, 15, None]
    p.assert_ledger()


def test_R4_5_a_card_in_the_cabinet_cannot_be_placed() -> None:
    """R4.5: only assembled recipes or cards from your own hand."""
    p = Position().cabinet(6)
    p.refuse(Place(0, "albedo", 6), PlacementError, "R4.5")


def test_R4_5_a_card_in_another_players_hand_cannot_be_placed() -> None:
    """R4.5, R4.2: never from someone else's hand."""
    p = Position().hand(1, 6).hand(0, 10)
    p.refuse(Place(0, "albedo", 6), PlacementError, "R4.5")


def test_R4_5_you_never_place_into_another_players_sequence() -> None:
    """R4.5: the move names only a column; it is always the mover's own. Ada's
    Love Potion goes to *her* albedo column, Boris's columns stay empty."""
    p = Position().hand(0, 6)
    p.play(Place(0, "albedo", 6))
    assert all(s is None for stages in p.state.columns[1].values() for s in stages)


# ---- R4.5 the Stone ----------------------------------------------------------


def test_R4_5_R4_8_the_stone_from_hand_completes_the_column() -> None:
    """R4.5, R4.6, R4.8: stage 7 takes the matching Stone from hand: 10 points
    and the column is complete."""
    p = Position().column(0, "albedo", *ADA_ALBEDO).hand(0, 203)
    events = p.play(Place(0, "albedo", 203))
    assert p.state.columns[0]["albedo"][6] == 203
    assert points(events) == [(0, 10, "R4.6")]
    (completed,) = of_kind(events, "SequenceCompleted")
    assert (completed.player, completed.column) == (0, "albedo")


def test_R4_5_the_stone_only_from_hand_not_from_the_cabinet() -> None:
    """R4.5: a White Stone on top of the cabinet cannot be placed."""
    p = Position().column(0, "albedo", *ADA_ALBEDO).cabinet(203).hand(0, 6)
    p.refuse(Place(0, "albedo", 203), PlacementError, "R4.5")


def test_R4_5_the_stone_only_from_your_own_hand() -> None:
    """R4.5: not from Boris's hand."""
    p = Position().column(0, "albedo", *ADA_ALBEDO).hand(1, 202).hand(0, 6)
    p.refuse(Place(0, "albedo", 202), PlacementError, "R4.5")


def test_R4_5_stage_seven_takes_only_the_stone_of_its_own_variant() -> None:
    """R4.5: the albedo column takes a White Stone, not a Black one."""
    p = Position().column(0, "albedo", *ADA_ALBEDO).hand(0, 200)
    error = p.refuse(Place(0, "albedo", 200), PlacementError, "R4.5")
    assert "albedo Stone" in str(error)


def test_R4_5_S4_a_stone_cannot_skip_to_stage_seven() -> None:
    """R4.5, S4: a column at stage 1 takes Elixir of Fidelity next, not a Stone."""
    p = Position().column(0, "albedo", 6).hand(0, 202)
    p.refuse(Place(0, "albedo", 202), PlacementError, "R4.5")


# ---- R4.6, S7 stage points ---------------------------------------------------


@pytest.mark.parametrize("stage", range(1, 8))
def test_S7_R4_6_each_new_stage_scores_the_points_on_the_sequence_card(stage: int) -> None:
    """S7, R4.6: stages score 2, 2, 4, 4, 6, 8, 10."""
    card = (*ADA_ALBEDO, 202)[stage - 1]
    p = Position().column(0, "albedo", *ADA_ALBEDO[: stage - 1]).hand(0, card)
    events = p.play(Place(0, "albedo", card))
    assert points(events) == [(0, STAGE_POINTS[stage - 1], "R4.6")]
    p.assert_ledger()


# ---- R4.7, S9, S12: a card in a Sequence -------------------------------------


def test_R4_7_S12_a_card_in_a_sequence_counts_as_assembled_and_has_no_components() -> None:
    """R4.7, S12: after Boris's Love Potion went into Ada's Sequence its
    components are back in the cabinet; later taken as an ingredient, it brings
    nothing back with it."""
    p = Position().table(1, 6, 8, 10).hand(0, 14, 46).cabinet(16)
    p.play(Place(0, "albedo", 6))
    assert p.stack(4) == [8] and p.stack(5) == [10]
    p.turn(0)  # Ada again: stage 2, so that stage 1 is no longer the last
    p.play(Place(0, "albedo", 14))
    p.turn(0)
    events = p.play(Assemble(0, 46, (6, 16)))
    assert "ComponentsReturned" not in kinds(events)
    assert p.state.tables[0] == {46: [6, 16]}
    assert p.state.columns[0]["albedo"][:2] == [GAP, 14]


def test_S5_S12_S13_a_recipe_placed_from_hand_is_later_used_as_an_ingredient() -> None:
    """S5 + S12 + S13: Ada places Love Potion straight from her hand, then Elixir
    of Fidelity on top of it; Boris then takes the Love Potion out of her
    Sequence for his Powder of Control: he scores 4, Ada half (2) — she never
    assembled that Love Potion, yet it counts as assembled."""
    p = Position().hand(0, 6, 14, 3).hand(1, 46, 2).cabinet(16)
    p.play(Place(0, "albedo", 6))  # S5: +2
    p.play(Discard(1, 2))
    p.play(Place(0, "albedo", 14))  # +2
    events = p.play(Assemble(1, 46, (6, 16)))
    stolen = of_kind(events, "StageStolen")[0]
    assert (stolen.player, stolen.owner, stolen.stage) == (1, 0, 1)
    assert points(events) == [(1, 4, "R4.4"), (0, 2, "R4.4/half")]
    assert p.state.tables[1] == {46: [6, 16]}
    assert p.state.columns[0]["albedo"][:3] == [GAP, 14, None]
    assert p.state.scores == [6, 5]  # Ada 2 + 2 + 2; Boris 1 (discard) + 4
    p.assert_ledger()


def test_S12_a_sequence_card_may_be_placed_into_another_sequence() -> None:
    """S12: Boris's stage-1 Love Potion goes into Ada's albedo stage 1."""
    p = Position().column(1, "nigredo", 6, 14)
    events = p.play(Place(0, "albedo", 6))
    assert p.state.columns[0]["albedo"][0] == 6
    assert p.state.columns[1]["nigredo"][:2] == [GAP, 14]
    assert points(events) == [(0, 2, "R4.6"), (1, 1, "R4.6/half")]


# ---- R4.8, S10 ---------------------------------------------------------------


def test_S10_R4_8_several_columns_may_be_built_at_once() -> None:
    """S10, R4.8: Ada builds albedo and rubedo side by side."""
    p = Position().hand(0, 6, 18).hand(1, 2, 3)
    p.play(Place(0, "albedo", 6))
    p.play(Discard(1, 2))
    p.play(Place(0, "rubedo", 18))
    assert p.state.columns[0]["albedo"][0] == 6
    assert p.state.columns[0]["rubedo"][0] == 18
    assert p.state.scores[0] == 4


def test_S10_R4_8_the_same_column_is_never_built_twice() -> None:
    """S10, R4.8: once its Stone is placed the albedo column is complete;
    nothing more goes into it, not even a new Love Potion for stage 1."""
    p = Position().column(0, "albedo", *ADA_ALBEDO, 202).hand(0, 7, 203)
    error = p.refuse(Place(0, "albedo", 7), ColumnBuiltError, "R4.8")
    assert "Ada's albedo column is complete" in str(error)
    p.refuse(Place(0, "albedo", 203), ColumnBuiltError, "R4.8")


def test_R4_8_transmutation_cannot_restart_a_complete_column() -> None:
    """R4.8, R6.4: no stage is left to fill in a complete column."""
    p = Position().column(0, "albedo", *ADA_ALBEDO, 202).hand(0, 206, 7)
    p.refuse(Cast(0, 206, column="albedo"), ColumnBuiltError, "R4.8")


# ---- R5.1-R5.4, S13-S15: taking stages ---------------------------------------


def test_R5_1_R5_4_taking_from_your_own_sequence_scores_nothing_extra() -> None:
    """R5.1, R5.4: Ada takes stages 1 and 2 of her own nigredo column (Solution
    of Eternity, Infusion of Divination) for a Great Elixir of Omens: StageTaken,
    not StageStolen, and only her 6 points."""
    p = Position().column(0, "nigredo", 10, 8, 32).hand(0, 54)
    events = p.play(Assemble(0, 54, (8, 10)))
    assert kinds(events)[:3] == ["StageTaken", "StageTaken", "RecipeAssembled"]
    assert [(e.column, e.stage, e.card) for e in of_kind(events, "StageTaken")] == [
        ("nigredo", 1, 10),
        ("nigredo", 2, 8),
    ]
    assert points(events) == [(0, 6, "R4.4")]
    assert p.state.columns[0]["nigredo"][:4] == [GAP, GAP, 32, None]
    p.assert_ledger()


def test_S13_R5_1_any_player_may_take_a_card_out_of_a_sequence() -> None:
    """S13, R5.1: Boris takes Ada's Love Potion (stage 1 of her albedo column)
    for his own nigredo stage 1: a steal."""
    p = Position().column(0, "albedo", 6, 14).turn(1)
    events = p.play(Place(1, "nigredo", 6))
    assert kinds(events)[:2] == ["StageStolen", "RecipePlaced"]
    assert points(events) == [(1, 2, "R4.6"), (0, 1, "R4.6/half")]


def test_S14_R5_2_the_last_stage_of_a_sequence_can_never_be_taken() -> None:
    """S14, R5.2: stage 3 is the highest filled stage of Ada's albedo column;
    Boris may not take its Elixir of the Plant Master for his albedo stage 3."""
    p = Position().column(0, "albedo", 6, 14, 38).column(1, "albedo", 10, 8).turn(1)
    p.hand(1, 2)
    error = p.refuse(Place(1, "albedo", 38), StageIsLastError, "R5.2")
    assert str(error) == "R5.2: stage 3 is the last stage of Ada's albedo column"


def test_R5_2_the_last_stage_is_locked_for_an_assembly_too() -> None:
    """R5.2, S14: Ada may not use stage 2 (the last) of Boris's nigredo column."""
    p = Position().hand(0, 49).table(0, 6, 8, 10).column(1, "nigredo", 7, 14)
    error = p.refuse(Assemble(0, 49, (6, 14)), StageIsLastError, "R5.2")
    assert "stage 2 is the last stage of Boris's nigredo column" in str(error)


def test_R5_2_R5_1_your_own_last_stage_is_locked_as_well() -> None:
    """R5.1, R5.2: Ada's own nigredo column ends at stage 2."""
    p = Position().column(0, "nigredo", 10, 8).hand(0, 54)
    error = p.refuse(Assemble(0, 54, (10, 8)), StageIsLastError, "R5.2")
    assert "Ada's nigredo column" in str(error)


def test_R5_2_a_transmutation_in_a_sequence_can_never_be_taken() -> None:
    """R5.2, R6.4: the Transmutation at stage 1 of Boris's column is not the
    last stage, and still cannot be taken."""
    p = Position().hand(0, 46).column(1, "nigredo", 206, 14, 32).cabinet(16)
    error = p.refuse(Assemble(0, 46, (206, 16)), StageIsLastError, "R5.2")
    assert "can never be taken" in str(error)


def test_R5_2_a_stone_in_a_sequence_can_never_be_taken() -> None:
    """R5.2, R4.5: Boris cannot take Ada's White Stone for his own albedo stage 7."""
    boris_albedo = (10, 8, 39, 47, 54, 63)
    p = Position().column(0, "albedo", *ADA_ALBEDO, 202).column(1, "albedo", *boris_albedo)
    p.turn(1).hand(1, 2, 69)
    p.refuse(Place(1, "albedo", 202), PlacementError, "R4.5")
    error = p.refuse(Assemble(1, 69, (202, 48)), StageIsLastError, "R5.2")
    assert "White Stone" in str(error) and "can never be taken" in str(error)


def test_R5_3_a_taken_middle_stage_leaves_a_gap_that_stays_completed() -> None:
    """R5.3: Ada takes Elixir of Fidelity from stage 2 of Boris's nigredo
    column. Stage 2 becomes a gap: it still counts as completed, Boris keeps
    his points, his column continues from stage 3 and the gap is never refilled."""
    p = Position().column(0, "albedo", 6).column(1, "nigredo", 7, 15, 33).hand(1, 14, 44)
    p.play(Place(0, "albedo", 15))
    assert p.state.columns[1]["nigredo"][:4] == [7, GAP, 33, None]
    assert p.state.completed_stages(1) == 3
    assert p.state.last_stage(1, "nigredo") == 3
    assert all(e.points > 0 for e in p.ledger())  # R5.3: nothing is taken back
    assert p.state.scores == [2, 1]
    # Boris cannot refill the gap with his own Elixir of Fidelity ...
    error = p.refuse(Place(1, "nigredo", 14), PlacementError, "R4.5")
    assert "stage 4" in str(error)
    # ... but goes on with stage 4, Powder of Incorporeality (4 points).
    events = p.play(Place(1, "nigredo", 44))
    assert p.state.columns[1]["nigredo"][:5] == [7, GAP, 33, 44, None]
    assert points(events) == [(1, 4, "R4.6")]
    p.assert_ledger()


def test_R5_3_a_gap_is_never_taken_and_the_stage_below_is_still_free() -> None:
    """R5.3, R5.2: with stage 2 a gap and stage 3 the last, stage 1 can still
    be taken; the column's last stage remains stage 3."""
    p = Position().hand(0, 46).column(1, "nigredo", 6, GAP, 33).cabinet(16)
    p.play(Assemble(0, 46, (6, 16)))
    assert p.state.columns[1]["nigredo"][:4] == [GAP, GAP, 33, None]
    assert p.state.last_stage(1, "nigredo") == 3


# ---- S11: the stages stay visible --------------------------------------------


def test_S11_every_stage_of_a_sequence_stays_visible_to_everyone() -> None:
    """S11: the public view shows each column's stages in order, gaps included."""
    p = Position().column(0, "albedo", 6, 14, 38).column(1, "nigredo", 7, GAP, 33)
    view = public_view(p.state)
    assert view["sequences"][0]["card"] == "S1"
    assert view["sequences"][0]["columns"]["albedo"][:4] == [6, 14, 38, None]
    assert view["sequences"][1]["columns"]["nigredo"][:4] == [7, "gap", 33, None]

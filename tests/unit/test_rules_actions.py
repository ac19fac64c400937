"""Discard and assemble (RULES R4.1–R4.4), on hand-built positions.

Ada is seat 0 and Boris seat 1 (tests/builders.py). Card ids used here:
Love Potion 6, 7 (elements 4 + 5), Infusion of Divination 8, 9 (element 4),
Solution of Eternity 10, 11 (element 5), Elixir of Fidelity 14, 15 (5 + 8),
Elixir of Eternal Youth 16 (element 8), Powder of Control 46 (Love Potion +
element 8), Great Elixir of Eternal Love 49 (Love Potion + Elixir of Fidelity).
"""

from __future__ import annotations

from domain.errors import AssemblyError, DiscardError
from domain.moves import Assemble, Cast, Discard
from domain.state import GAP
from tests.builders import Position, kinds, of_kind, points

# ---- R4.1 discard ------------------------------------------------------------


def test_R4_1_discard_onto_an_empty_stack_scores_one_point() -> None:
    """R4.1: a card from hand goes onto its element's stack; +1 if it was empty."""
    p = Position().hand(0, 6)
    events = p.play(Discard(0, 6))
    assert p.stack(3) == [6]
    assert 6 not in p.state.hands[0]
    assert points(events) == [(0, 1, "R4.1")]
    (award,) = p.ledger()
    (discarded,) = of_kind(events, "CardDiscarded")
    assert (award.cause, award.cause_version) == ("CardDiscarded", discarded.originator_version)
    p.assert_ledger()


def test_R4_1_discard_onto_a_stack_that_has_cards_scores_nothing() -> None:
    """R4.1: no point when the element's stack already holds a card."""
    p = Position().hand(0, 6).cabinet(7)
    events = p.play(Discard(0, 6))
    assert p.stack(3) == [7, 6]
    assert points(events) == []
    assert p.state.scores == [0, 0]


def test_R4_1_a_stack_emptied_during_play_counts_as_empty() -> None:
    """R4.1, R6.1: Knowledge takes Love Potion 6, the last card of the element-3
    stack; the stack is empty again, so discarding 6 back onto it scores 1."""
    p = Position().hand(0, 73).cabinet(6)
    p.play(Cast(0, 73, card=6))
    assert p.stack(3) == []
    events = p.play(Discard(0, 6))
    assert p.stack(3) == [6]
    assert points(events) == [(0, 1, "R4.1")]


def test_R4_1_a_supreme_card_forms_its_own_stack_so_its_discard_scores() -> None:
    """R4.1, R1.3: a supreme card goes onto a stack of its own, always empty before."""
    p = Position().hand(0, 69).cabinet(35, 24, 30)  # stacks 12 and 15 hold cards
    events = p.play(Discard(0, 69))
    assert p.state.cabinet["supreme-69"] == [69]
    assert points(events) == [(0, 1, "R4.1")]


def test_R4_1_a_stone_cannot_be_discarded() -> None:
    """R4.1 (decision): a Stone stays in hand until it is placed."""
    p = Position().hand(0, 202, 6)
    error = p.refuse(Discard(0, 202), DiscardError, "R4.1")
    assert "Stone" in str(error)


def test_R4_1_only_a_card_from_your_own_hand_can_be_discarded() -> None:
    """R4.1: Ada cannot discard a card that Boris holds, nor one in the cabinet."""
    p = Position().hand(0, 7).hand(1, 6).cabinet(8)
    p.refuse(Discard(0, 6), DiscardError, "R4.1")
    p.refuse(Discard(0, 8), DiscardError, "R4.1")
    p.refuse(Discard(0, 999), DiscardError, "R4.1")


# ---- R4.2 assemble -----------------------------------------------------------


def test_R4_2_assemble_a_potion_from_two_cabinet_stack_tops() -> None:
    """R4.2: the recipe goes from hand to table with its components under it,
    listed in slot order whatever order the command named them in."""
    p = Position().hand(0, 6).cabinet(8, 10)
    events = p.play(Assemble(0, 6, (10, 8)))
    assert p.state.tables[0] == {6: [8, 10]}
    assert p.stack(4) == [] and p.stack(5) == []
    (assembled,) = of_kind(events, "RecipeAssembled")
    assert assembled.components == [8, 10]
    assert assembled.sources == ["cabinet", "cabinet"]
    assert points(events) == [(0, 2, "R4.4")]
    p.assert_ledger()


def test_R4_2_element_components_come_only_from_the_tops_of_cabinet_stacks() -> None:
    """R4.2, R1.3: Infusion 8 lies under Infusion 9 on the element-4 stack."""
    p = Position().hand(0, 6).cabinet(8, 9, 10)
    error = p.refuse(Assemble(0, 6, (8, 10)), AssemblyError, "R4.2")
    assert "not on any table, stack top or Sequence" in str(error)
    p.play(Assemble(0, 6, (9, 10)))
    assert p.state.tables[0] == {6: [9, 10]}
    assert p.stack(4) == [8]


def test_R4_2_components_never_come_from_your_own_hand() -> None:
    """R4.2: the element-4 card in Ada's hand cannot fill the slot."""
    p = Position().hand(0, 6, 8).cabinet(10)
    error = p.refuse(Assemble(0, 6, (8, 10)), AssemblyError, "R4.2")
    assert "components never come from a hand" in str(error)


def test_R4_2_components_never_come_from_another_players_hand() -> None:
    """R4.2: nor can a card in Boris's hand; and the refusal must not tell
    Ada that the card is in a hand rather than in the deck (R1.3)."""
    p = Position().hand(0, 6).hand(1, 8).cabinet(10)
    error = p.refuse(Assemble(0, 6, (8, 10)), AssemblyError, "R4.2")
    assert "Boris" not in str(error) and "hand" not in str(error)
    p.deck(8)
    from_deck = p.refuse(Assemble(0, 6, (8, 10)), AssemblyError, "R4.2")
    assert str(from_deck) == str(error)


def test_R4_2_one_card_never_fills_two_slots() -> None:
    """R4.2: one distinct card per slot: the Supreme Elixir needs two great
    elixirs, and naming the one Ada has twice is refused."""
    p = Position().hand(0, 69).table(0, 48, 18, 0)
    p.refuse(Assemble(0, 69, (48, 48)), AssemblyError, "R4.2")


def test_R4_2_one_element_card_never_fills_two_element_slots() -> None:
    """R4.2: Love Potion needs elements 4 and 5; one card named twice is refused,
    and so is one card named once for both."""
    p = Position().hand(0, 6).cabinet(8, 10)
    p.refuse(Assemble(0, 6, (8, 8)), AssemblyError, "R4.2")
    p.refuse(Assemble(0, 6, (8,)), AssemblyError, "R4.2")


def test_R4_2_two_great_elixirs_fill_the_supreme_elixirs_two_slots() -> None:
    """R4.2, R1.2: two distinct great elixirs, one from each table, make the
    Supreme Elixir (10 points); Boris loses one and scores half (R4.4)."""
    p = Position().hand(0, 69).table(0, 48, 18, 0).table(1, 54, 10, 8)
    events = p.play(Assemble(0, 69, (48, 54)))
    assert p.state.tables == [{69: [48, 54]}, {}]
    assert points(events) == [(0, 10, "R4.4"), (1, 5, "R4.4/half")]
    p.assert_ledger()


def test_R4_2_components_must_fit_the_slots() -> None:
    """R4.2: Warding Solution 12 (element 6) cannot fill Love Potion's element-5 slot."""
    p = Position().hand(0, 6).cabinet(8, 12)
    error = p.refuse(Assemble(0, 6, (8, 12)), AssemblyError, "R4.2")
    assert "one-to-one" in str(error)


def test_R4_2_a_supreme_card_on_top_fills_one_slot_of_any_of_its_elements() -> None:
    """R4.2, R1.1: the Supreme Elixir card (elements 11, 12, 15) fills the
    element-12 slot of Emanation of Power (12 + 10)."""
    p = Position().hand(0, 30).cabinet(69, 20)
    events = p.play(Assemble(0, 30, (20, 69)))
    assert p.state.tables[0] == {30: [69, 20]}
    assert p.state.cabinet.get("supreme-69", []) == []
    assert points(events) == [(0, 2, "R4.4")]


def test_R4_2_a_recipe_slot_takes_an_assembled_recipe_not_a_cabinet_card() -> None:
    """R4.2: Love Potion 7 on top of the element-3 stack is not assembled."""
    p = Position().hand(0, 46).cabinet(7, 16)
    p.refuse(Assemble(0, 46, (7, 16)), AssemblyError, "R4.2")


def test_R4_2_an_element_slot_takes_a_cabinet_card_not_a_table_recipe() -> None:
    """R4.2: Elixir of Eternal Youth 16 on a table cannot fill an element slot."""
    p = Position().hand(0, 46).table(0, 6, 8, 10).table(0, 16, 12, 30)
    p.refuse(Assemble(0, 46, (6, 16)), AssemblyError, "R4.2")


def test_R4_2_only_a_recipe_card_can_be_assembled() -> None:
    """R4.2, R1.2: a spell is no recipe."""
    p = Position().hand(0, 73).cabinet(8, 10)
    p.refuse(Assemble(0, 73, ()), AssemblyError, "R4.2")


def test_R4_2_the_assembler_chooses_among_equivalent_recipes() -> None:
    """R4.2: the components are named in the command; Ada names her own Love
    Potion, so Boris keeps his and scores nothing."""
    p = Position().hand(0, 46).table(0, 7, 9, 11).table(1, 6, 8, 10).cabinet(16)
    events = p.play(Assemble(0, 46, (7, 16)))
    assert p.state.tables == [{46: [7, 16]}, {6: [8, 10]}]
    assert points(events) == [(0, 4, "R4.4")]


def test_R4_2_recipe_components_may_come_from_any_players_table() -> None:
    """R4.2: Ada takes Boris's Love Potion for her Powder of Control."""
    p = Position().hand(0, 46).table(1, 6, 8, 10).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    assert p.state.tables == [{46: [6, 16]}, {}]
    (assembled,) = of_kind(events, "RecipeAssembled")
    assert assembled.sources == ["table:1", "cabinet"]


# ---- R4.3 cards going back to the cabinet ------------------------------------


def test_R4_3_a_consumed_recipes_components_return_in_slot_order_after_the_take() -> None:
    """R4.3: Love Potion goes under Powder of Control; its components (element 4,
    then element 5) go back on top of their stacks, after the element-8 card was
    taken from the top of its stack."""
    p = Position().hand(0, 46).table(0, 6, 8, 10).cabinet(9, 11, 17, 16)
    events = p.play(Assemble(0, 46, (16, 6)))
    assert kinds(events)[:3] == ["RecipeAssembled", "ComponentsReturned", "PointsAwarded"]
    (returned,) = of_kind(events, "ComponentsReturned")
    assert returned.cards == [8, 10]
    assert p.state.tables[0] == {46: [6, 16]}
    assert p.stack(4) == [9, 8]
    assert p.stack(5) == [11, 10]
    assert p.stack(8) == [17]


def test_R4_3_components_of_two_consumed_recipes_return_in_the_new_recipes_slot_order() -> None:
    """R4.3: Great Elixir of Eternal Love takes Love Potion (slot 1) and Elixir of
    Fidelity (slot 2): Love Potion's components go back first, then Fidelity's;
    two cards onto the element-5 stack land in that order."""
    p = Position().hand(0, 49).table(0, 6, 8, 10).table(1, 14, 11, 16)
    events = p.play(Assemble(0, 49, (14, 6)))
    (returned,) = of_kind(events, "ComponentsReturned")
    assert returned.cards == [8, 10, 11, 16]
    assert p.stack(5) == [10, 11]
    assert p.stack(4) == [8] and p.stack(8) == [16]
    assert p.state.tables == [{49: [6, 14]}, {}]


def test_R4_3_a_recipe_card_taken_from_a_sequence_has_nothing_to_return() -> None:
    """R4.3, R4.7: a card in a Sequence has no components, so none go back."""
    p = Position().hand(0, 46).column(1, "nigredo", 6, 14).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    assert "ComponentsReturned" not in kinds(events)
    assert p.state.columns[1]["nigredo"][:2] == [GAP, 14]


# ---- R4.4 scoring an assembly ------------------------------------------------


def test_R4_4_the_assembler_scores_the_recipes_printed_points() -> None:
    """R4.4: Powder of Control scores 4, with the assembly as its cause (R8.1)."""
    p = Position().hand(0, 46).table(0, 6, 8, 10).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    (assembled,) = of_kind(events, "RecipeAssembled")
    (award,) = p.ledger()
    assert (award.player, award.points, award.rule) == (0, 4, "R4.4")
    assert (award.cause, award.cause_version) == ("RecipeAssembled", assembled.originator_version)
    p.assert_ledger()


def test_R4_4_half_points_to_the_owner_of_a_recipe_taken_from_their_table() -> None:
    """R4.4/half: Boris lost his Love Potion to Ada's Powder of Control (4): he scores 2."""
    p = Position().hand(0, 46).table(1, 6, 8, 10).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    assert points(events) == [(0, 4, "R4.4"), (1, 2, "R4.4/half")]
    (assembled,) = of_kind(events, "RecipeAssembled")
    half = p.ledger()[1]
    assert (half.cause, half.cause_version) == ("RecipeAssembled", assembled.originator_version)
    p.assert_ledger()


def test_R4_4_S15_half_points_once_per_assembly_however_many_cards_it_used() -> None:
    """R4.4, S15: both recipes of the Great Elixir (6) come from Boris's table;
    he scores half once: 3, not 6."""
    p = Position().hand(0, 49).table(1, 6, 8, 10).table(1, 14, 11, 16)
    events = p.play(Assemble(0, 49, (6, 14)))
    assert points(events) == [(0, 6, "R4.4"), (1, 3, "R4.4/half")]
    p.assert_ledger()


def test_R4_4_S15_half_points_once_for_a_table_recipe_and_a_stage_of_one_owner() -> None:
    """R4.4, S15: Love Potion from Boris's table and Elixir of Fidelity from his
    nigredo stage 2: one assembly, one half for Boris."""
    p = Position().hand(0, 49).table(1, 6, 8, 10).column(1, "nigredo", 7, 14, 32)
    events = p.play(Assemble(0, 49, (6, 14)))
    assert kinds(events)[:2] == ["StageStolen", "RecipeAssembled"]
    assert points(events) == [(0, 6, "R4.4"), (1, 3, "R4.4/half")]
    p.assert_ledger()


def test_R4_4_every_other_player_who_lost_a_recipe_scores_half() -> None:
    """R4.4: Boris lost the Love Potion and Cleo the Elixir of Fidelity: 3 each."""
    p = Position(players=3).hand(0, 49).table(1, 6, 8, 10).table(2, 14, 11, 16)
    events = p.play(Assemble(0, 49, (6, 14)))
    assert points(events) == [(0, 6, "R4.4"), (1, 3, "R4.4/half"), (2, 3, "R4.4/half")]
    p.assert_ledger()


def test_R4_4_using_your_own_recipe_scores_no_half() -> None:
    """R4.4: only *other* players who lost a recipe score half."""
    p = Position().hand(0, 46).table(0, 6, 8, 10).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    assert points(events) == [(0, 4, "R4.4")]


def test_R4_4_S15_half_points_to_the_owner_of_a_stolen_sequence_stage() -> None:
    """R4.4/half, S15, R5.4: Ada takes Love Potion from stage 1 of Boris's
    nigredo column for her Powder of Control: a steal, Boris scores 2."""
    p = Position().hand(0, 46).column(1, "nigredo", 6, 14).cabinet(16)
    events = p.play(Assemble(0, 46, (6, 16)))
    (stolen,) = of_kind(events, "StageStolen")
    assert (stolen.player, stolen.owner, stolen.column, stolen.stage, stolen.card) == (
        0,
        1,
        "nigredo",
        1,
        6,
    )
    (assembled,) = of_kind(events, "RecipeAssembled")
    assert assembled.sources == ["sequence:1:nigredo:1", "cabinet"]
    assert points(events) == [(0, 4, "R4.4"), (1, 2, "R4.4/half")]
    assert p.state.tables[0] == {46: [6, 16]}
    p.assert_ledger()

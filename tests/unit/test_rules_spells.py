"""Spells (RULES R6, R6.1–R6.4), on hand-built positions.

Spell cards: Transformation 71 (element 14), 72 (5); Knowledge 73 (7), 74 (1);
Destruction 75 (9), 76 (2); Transmutation 206 (6), 207 (11), 208 (15).
"""

from __future__ import annotations

from domain.errors import PlacementError, SpellError
from domain.legal import legal_moves
from domain.moves import Cast, Discard, Place
from tests.builders import Position, kinds, of_kind, points

# ---- R6: casting in general --------------------------------------------------


def test_R6_R3_2_casting_is_no_main_action_and_any_number_may_be_cast() -> None:
    """R6, R3.2: Ada casts two Knowledge spells, still her turn, then discards."""
    p = Position().hand(0, 73, 74).cabinet(6, 8)
    events = p.play(Cast(0, 73, card=6), Cast(0, 74, card=8))
    assert "TurnEnded" not in kinds(events)
    assert p.state.turn == 0
    assert sorted(p.state.hands[0]) == [6, 8]
    p.play(Discard(0, 6))
    assert p.state.turn == 1


def test_R6_a_spell_goes_onto_its_stack_without_a_discard_point() -> None:
    """R6: Knowledge 73 lands on the empty element-7 stack; no R4.1 point."""
    p = Position().hand(0, 73).cabinet(6)
    events = p.play(Cast(0, 73, card=6))
    assert p.stack(7) == [73]
    assert points(events) == []
    assert p.state.scores == [0, 0]


def test_R6_only_a_spell_can_be_cast() -> None:
    """R6: Love Potion is no spell."""
    p = Position().hand(0, 6).cabinet(8)
    p.refuse(Cast(0, 6, card=8), SpellError, "R6")


def test_R6_a_spell_is_cast_from_your_own_hand() -> None:
    """R6: Boris's Knowledge cannot be cast by Ada."""
    p = Position().hand(1, 73).hand(0, 6).cabinet(8)
    p.refuse(Cast(0, 73, card=8), SpellError, "R6")


# ---- R6.1 Knowledge ----------------------------------------------------------


def test_R6_1_knowledge_takes_the_top_card_of_a_cabinet_stack_into_hand() -> None:
    """R6.1: Ada takes Love Potion 7 from the top of the element-3 stack."""
    p = Position().hand(0, 73).cabinet(6, 7)
    events = p.play(Cast(0, 73, card=7))
    (cast,) = of_kind(events, "SpellCast")
    assert (cast.kind, cast.card) == ("knowledge", 7)
    assert 7 in p.state.hands[0] and 73 not in p.state.hands[0]
    assert p.stack(3) == [6]
    assert of_kind(events, "ComponentsReturned")[0].cards == [73]


def test_R6_1_knowledge_takes_only_a_stack_top() -> None:
    """R6.1: Love Potion 6 lies under 7."""
    p = Position().hand(0, 73).cabinet(6, 7)
    p.refuse(Cast(0, 73, card=6), SpellError, "R6")
    p.refuse(Cast(0, 73), SpellError, "R6")


def test_R6_1_knowledge_cannot_take_a_spell() -> None:
    """R6.1: the Destruction spell on top of the element-9 stack is out of reach."""
    p = Position().hand(0, 73).cabinet(75)
    error = p.refuse(Cast(0, 73, card=75), SpellError, "R6.1")
    assert "cannot take a spell" in str(error)


def test_R6_1_knowledge_may_take_a_stone_which_can_then_be_placed_from_hand() -> None:
    """R6.1, R4.5, R3.2: a Stone is no spell: Ada takes the White Stone from the
    cabinet into her hand and places it in the same turn."""
    p = Position().hand(0, 73).cabinet(202).column(0, "albedo", 6, 14, 38, 44, 49, 67)
    p.refuse(Place(0, "albedo", 202), PlacementError, "R4.5")
    p.play(Cast(0, 73, card=202))
    events = p.play(Place(0, "albedo", 202))
    assert points(events) == [(0, 10, "R4.6")]
    assert "SequenceCompleted" in kinds(events)


# ---- R6.2 Transformation -----------------------------------------------------


def test_R6_2_transformation_takes_a_cabinet_recipe_and_gives_one_from_the_table() -> None:
    """R6.2, R4.3: Ada takes Infusion of Divination 9 (top of the element-4 stack)
    onto her table, no components, no points; she gives her Love Potion: its
    card, then its components go back — the element-4 component lands on the
    stack 9 was taken from; the spell goes last onto its own stack."""
    p = Position().hand(0, 71).table(0, 6, 8, 10).cabinet(9)
    events = p.play(Cast(0, 71, card=9, recipe=6))
    (cast,) = of_kind(events, "SpellCast")
    assert (cast.kind, cast.card, cast.recipe) == ("transformation", 9, 6)
    assert of_kind(events, "ComponentsReturned")[0].cards == [6, 8, 10, 71]
    assert p.state.tables[0] == {9: []}
    assert p.stack(3) == [6] and p.stack(4) == [8] and p.stack(5) == [10]
    assert p.stack(14) == [71]
    assert points(events) == []
    assert p.state.turn == 0


def test_R6_2_transformation_needs_another_recipe_on_your_table_to_give() -> None:
    """R6.2: cast only if the whole effect can be carried out."""
    p = Position().hand(0, 71).cabinet(9)
    p.refuse(Cast(0, 71, card=9), SpellError, "R6.2")
    p.refuse(Cast(0, 71, card=9, recipe=6), SpellError, "R6.2")


def test_R6_2_transformation_gives_only_from_your_own_table() -> None:
    """R6.2: Boris's Love Potion is not Ada's to give."""
    p = Position().hand(0, 71).table(1, 6, 8, 10).cabinet(9)
    p.refuse(Cast(0, 71, card=9, recipe=6), SpellError, "R6.2")


def test_R6_2_transformation_cannot_take_a_spell_or_a_stone() -> None:
    """R6.2: a recipe card: not a spell, not a Stone."""
    p = Position().hand(0, 71).table(0, 6, 8, 10).cabinet(73, 202)
    p.refuse(Cast(0, 71, card=73, recipe=6), SpellError, "R6.2")
    p.refuse(Cast(0, 71, card=202, recipe=6), SpellError, "R6.2")


# ---- R6.3 Destruction --------------------------------------------------------


def test_R6_3_destruction_keeps_one_recipe_component_and_returns_the_rest() -> None:
    """R6.3, R4.3: Ada destroys her Great Elixir of Eternal Love and keeps its
    Love Potion as an assembled recipe (no points); the elixir's card, then its
    other component, go to the cabinet, then the spell."""
    p = Position().hand(0, 75).table(0, 49, 6, 14)
    events = p.play(Cast(0, 75, card=6, recipe=49))
    (cast,) = of_kind(events, "SpellCast")
    assert (cast.kind, cast.card, cast.recipe) == ("destruction", 6, 49)
    assert of_kind(events, "ComponentsReturned")[0].cards == [49, 14, 75]
    assert p.state.tables[0] == {6: []}
    assert p.stack(0) == [49] and p.stack(7) == [14] and p.stack(9) == [75]
    assert points(events) == []


def test_R6_3_destruction_keeps_only_a_recipe_card_among_the_components() -> None:
    """R6.3: Ada's Love Potion was made with a Black Stone (element 5) and her
    Infusion of Divination with a Spell of Knowledge (element 7): neither can be
    kept; nor can a card that is no component, nor none at all."""
    p = Position().hand(0, 75).table(0, 6, 8, 201).table(0, 9, 203, 73)
    p.refuse(Cast(0, 75, card=201, recipe=6), SpellError, "R6.3")
    p.refuse(Cast(0, 75, card=73, recipe=9), SpellError, "R6.3")
    p.refuse(Cast(0, 75, card=14, recipe=6), SpellError, "R6.3")
    p.refuse(Cast(0, 75, recipe=6), SpellError, "R6.3")


def test_R6_3_destruction_works_only_on_your_own_recipes() -> None:
    """R6.3: Boris's Great Elixir is out of Ada's reach."""
    p = Position().hand(0, 75).table(1, 49, 6, 14)
    p.refuse(Cast(0, 75, card=6, recipe=49), SpellError, "R6.3")


# ---- R6.4 Transmutation ------------------------------------------------------


def test_R6_4_transmutation_fills_the_next_stage_with_itself_for_no_points() -> None:
    """R6.4: the spell stays in stage 2 of Ada's albedo column; the stage counts
    as completed and scores nothing; no card goes to the cabinet."""
    p = Position().hand(0, 206).column(0, "albedo", 6)
    events = p.play(Cast(0, 206, column="albedo"))
    (cast,) = of_kind(events, "SpellCast")
    assert (cast.kind, cast.column, cast.stage) == ("transmutation", "albedo", 2)
    assert "ComponentsReturned" not in kinds(events)
    assert p.state.columns[0]["albedo"][:3] == [6, 206, None]
    assert p.state.completed_stages(0) == 2
    assert points(events) == []
    assert p.stack(6) == []
    assert p.state.turn == 0  # R6: no main action, no placement


def test_R6_4_the_column_goes_on_after_a_transmutation() -> None:
    """R6.4: stage 3 follows the transmuted stage 2."""
    p = Position().hand(0, 206, 38).column(0, "albedo", 6)
    p.play(Cast(0, 206, column="albedo"))
    events = p.play(Place(0, "albedo", 38))
    assert points(events) == [(0, 4, "R4.6")]
    assert p.state.columns[0]["albedo"][:3] == [6, 206, 38]


def test_R6_4_transmutation_fills_stages_one_to_six_only() -> None:
    """R6.4: stage 7 takes only its Stone."""
    p = Position().hand(0, 206).column(0, "albedo", 6, 14, 38, 44, 49, 67)
    p.refuse(Cast(0, 206, column="albedo"), SpellError, "R6.4")


def test_R6_4_the_legal_moves_offer_transmutation_only_up_to_stage_six() -> None:
    """R6.4: Ada's albedo column is at stage 6 (its next stage is the Stone's),
    rubedo at stage 5: the legal moves offer Transmutation for rubedo (stage 6)
    and nigredo (stage 1), never for albedo; the engine accepts what is offered
    (held by ``Position.check`` on every position)."""
    p = Position().hand(0, 206).column(0, "albedo", 6, 14, 38, 44, 49, 67)
    p.column(0, "rubedo", 7, 15, 39, 45, 50)
    offered = {m.column for m in legal_moves(p.state, 0) if isinstance(m, Cast)}
    assert offered == {"nigredo", "rubedo"}
    p.refuse(Cast(0, 206, column="albedo"), SpellError, "R6.4")
    events = p.play(Cast(0, 206, column="rubedo"))
    assert of_kind(events, "SpellCast")[0].stage == 6


def test_R6_4_transmutation_needs_a_column_of_your_own() -> None:
    """R6.4: the column must be named, and exist."""
    p = Position().hand(0, 206)
    p.refuse(Cast(0, 206), SpellError, "R6")
    p.refuse(Cast(0, 206, column="citrinitas"), SpellError, "R6")

"""Legal-move enumeration: every move the engine would accept from a seat now.

Each generator yields candidates built from the same zone rules the engine
checks (R4.2, R4.5, R5.2, R6); the tests hold every yielded move to
``engine.decide`` accepting it.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from domain.catalog import STONES
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.state import CARDS, GAP, GameState


def legal_moves(state: GameState, seat: int) -> list[Move]:
    """All legal moves of ``seat``: spells, main actions and (when allowed) pass."""
    if state.status != "running" or seat != state.turn:
        return []
    moves: list[Move] = list(casts(state, seat))
    mains = list(main_actions(state, seat))
    moves.extend(mains)
    if not mains or state.deck_empty:  # R3.3
        moves.append(Pass(seat))
    return moves


def main_actions(state: GameState, seat: int) -> Iterator[Move]:
    yield from discards(state, seat)
    yield from assemblies(state, seat)
    yield from placements(state, seat)


def discards(state: GameState, seat: int) -> Iterator[Discard]:
    for card_id in state.hands[seat]:
        if not CARDS[card_id].stone:  # R4.1
            yield Discard(seat, card_id)


def takeable_recipes(state: GameState) -> dict[int, object]:
    """Assembled recipes that can be taken: table recipes and Sequence stages
    that are not their column's last (R4.2, R5.2); card id -> where."""
    found: dict[int, object] = {}
    for owner, table in enumerate(state.tables):
        for card_id in table:
            found[card_id] = ("table", owner)
    for owner, cols in enumerate(state.columns):
        for column, stages in cols.items():
            last = state.last_stage(owner, column)
            for i, stage_card in enumerate(stages[: last - 1]):
                if stage_card is None or stage_card == GAP:
                    continue
                card = CARDS[stage_card]
                if not (card.stone or card.spell):
                    found[stage_card] = ("sequence", owner, column, i + 1)
    return found


def assemblies(state: GameState, seat: int) -> Iterator[Assemble]:
    tops = state.cabinet_tops()
    recipes = takeable_recipes(state)
    seen: set[tuple[int, frozenset[int]]] = set()
    for card_id in state.hands[seat]:
        card = CARDS[card_id]
        if not card.is_recipe:
            continue
        options = []
        for req in card.requires:
            if req.is_element:
                options.append([t for t in tops if req.accepts_element(CARDS[t])])
            else:
                options.append([r for r in recipes if r in req.recipe_ids])
            if not options[-1]:
                break
        else:
            for combo in product(*options):
                key = (card_id, frozenset(combo))
                if len(key[1]) == len(combo) and key not in seen:
                    seen.add(key)
                    yield Assemble(seat, card_id, tuple(combo))


def placements(state: GameState, seat: int) -> Iterator[Place]:
    if not state.columns:
        return
    hand = state.hands[seat]
    recipes = takeable_recipes(state)
    for column in STONES:
        stage = state.last_stage(seat, column) + 1
        if stage > 7:
            continue  # R4.8
        if stage == 7:  # R4.5: the Stone, from hand only
            for card_id in hand:
                if CARDS[card_id].stone == column:
                    yield Place(seat, column, card_id)
            continue
        wanted = state.stage_name(seat, column, stage)
        for card_id in [*hand, *recipes]:
            if CARDS[card_id].name == wanted:
                yield Place(seat, column, card_id)


def casts(state: GameState, seat: int) -> Iterator[Cast]:
    tops = list(state.cabinet_tops())
    table = state.tables[seat]
    for spell_id in state.hands[seat]:
        kind = CARDS[spell_id].spell
        if kind == "knowledge":  # R6.1
            for top in tops:
                if not CARDS[top].spell:
                    yield Cast(seat, spell_id, card=top)
        elif kind == "transformation":  # R6.2
            for top in tops:
                if CARDS[top].is_recipe:
                    for give in table:
                        yield Cast(seat, spell_id, card=top, recipe=give)
        elif kind == "destruction":  # R6.3
            for recipe, components in table.items():
                for keep in components:
                    if CARDS[keep].is_recipe:
                        yield Cast(seat, spell_id, card=keep, recipe=recipe)
        elif kind == "transmutation" and state.columns:  # R6.4
            for column in STONES:
                if state.last_stage(seat, column) < 6:
                    yield Cast(seat, spell_id, column=column)

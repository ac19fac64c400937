"""The card catalog: base cards and Guild components as immutable values (R1).

Loaded once from the JSON files in ``domain/data`` (copied from the shared
catalog). University Course cards are out of scope and are not loaded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# R1.2: recipe kinds; spells and Stones are not recipes.
RECIPE_KINDS = frozenset(
    {"potion", "elixir", "powder", "great_elixir", "talisman", "creature", "supreme"}
)
SPELLS_BY_NAME = {
    "Spell of Transformation": "transformation",
    "Spell of Knowledge": "knowledge",
    "Spell of Destruction": "destruction",
    "Spell of Transmutation": "transmutation",
}
STONES = ("nigredo", "albedo", "rubedo")


@dataclass(frozen=True, slots=True)
class Requirement:
    """One component slot of a recipe (R4.2): an element or an assembled recipe."""

    elements: frozenset[int]  # element slot: any of these elements
    recipe_ids: frozenset[int]  # recipe slot: any of these cards, assembled
    label: str

    @property
    def is_element(self) -> bool:
        return bool(self.elements)

    def accepts_element(self, card: Card) -> bool:
        return not self.elements.isdisjoint(card.elements)

    def accepts_recipe(self, card: Card) -> bool:
        return card.id in self.recipe_ids


@dataclass(frozen=True, slots=True)
class Card:
    """A physical card: a top half (recipe, spell or Stone) and an element (R1.1)."""

    id: int
    name: str
    kind: str
    points: int
    elements: tuple[int, ...]  # one element, or three for supreme cards
    requires: tuple[Requirement, ...] = ()
    spell: str | None = None  # knowledge, transformation, destruction, transmutation
    stone: str | None = None  # nigredo, albedo, rubedo
    name_ru: str = ""  # the printed (Russian) name; ``name`` is the English one

    @property
    def is_recipe(self) -> bool:
        return self.kind in RECIPE_KINDS

    @property
    def stack(self) -> str:
        """The cabinet stack this card goes onto (R1.3): its element, or its own
        stack for a supreme card."""
        if len(self.elements) == 1:
            return str(self.elements[0])
        return f"supreme-{self.id}"


@dataclass(frozen=True, slots=True)
class Column:
    """One Great Work Sequence: seven stage names, the last a Stone (R1.4, S2)."""

    stone: str
    stages: tuple[str, ...]  # recipe names; stage 7 is "stone:<variant>"


@dataclass(frozen=True, slots=True)
class SequenceCard:
    id: str
    columns: tuple[Column, Column, Column]


@dataclass(frozen=True)
class Catalog:
    cards: dict[int, Card]
    sequence_cards: dict[str, SequenceCard]
    stage_points: tuple[int, ...]
    elements: dict[int, str]
    elements_ru: dict[int, str]

    @property
    def base_deck(self) -> tuple[int, ...]:
        return tuple(sorted(c.id for c in self.cards.values() if c.id < 200))

    @property
    def guild_deck(self) -> tuple[int, ...]:
        return tuple(sorted(c.id for c in self.cards.values() if c.id >= 200))

    def card(self, card_id: int) -> Card:
        return self.cards[card_id]


def _requirement(raw: dict[str, Any]) -> Requirement:
    kind = raw["type"]
    if kind == "element":
        element = int(raw["element"])
        return Requirement(frozenset({element}), frozenset(), f"element {element}")
    if kind == "element_any":
        elements = frozenset(int(e) for e in raw["elements"])
        return Requirement(elements, frozenset(), f"element {sorted(elements)}")
    if kind == "recipe":
        return Requirement(frozenset(), frozenset(raw["card_ids"]), str(raw["name_en"]))
    if kind == "recipe_kind":
        label = "any " + str(raw["kind"]).replace("_", " ")
        return Requirement(frozenset(), frozenset(raw["card_ids"]), label)
    raise ValueError(f"unknown requirement type {kind!r}")


@cache
def load_catalog() -> Catalog:
    """The catalog, read once from the packaged JSON files."""
    data = resources.files("domain") / "data"
    potions = json.loads((data / "potions.json").read_text(encoding="utf-8"))
    guild = json.loads((data / "guild.json").read_text(encoding="utf-8"))
    cards: dict[int, Card] = {}
    for raw in potions["cards"]:
        if raw["edition"] != "base":
            continue
        cards[raw["id"]] = Card(
            id=raw["id"],
            name=raw["name_en"],
            kind=raw["kind"],
            points=raw["points"],
            elements=tuple(raw["elements"]),
            requires=tuple(_requirement(r) for r in raw["requires"]),
            spell=SPELLS_BY_NAME.get(raw["name_en"]),
            name_ru=raw["name_ru"],
        )
    for raw in guild["cards"]:
        cards[raw["id"]] = Card(
            id=raw["id"],
            name=raw["name_en"],
            kind=raw["kind"],
            points=raw["points"],
            elements=(raw["element"],),
            spell=raw.get("spell"),
            stone=raw.get("stone"),
            name_ru=raw["name_ru"],
        )
    sequence_cards = {
        s["id"]: SequenceCard(
            id=s["id"],
            columns=tuple(  # type: ignore[arg-type]
                Column(stone=c["stone"], stages=tuple(c["stages"])) for c in s["columns"]
            ),
        )
        for s in guild["sequence_cards"]
    }
    base = [e for e in potions["elements"] if e["edition"] == "base"]
    elements = {e["id"]: e["name_en"] for e in base}
    elements_ru = {e["id"]: e["name_ru"] for e in base}
    return Catalog(cards, sequence_cards, tuple(guild["stage_points"]), elements, elements_ru)

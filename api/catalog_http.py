"""The card catalog over HTTP: what every card id in the API means.

``GET /cards`` lists every card of the base game and the Guild of Alchemists
(id, names in Russian and English, kind, points, element(s), the cabinet
stack it goes onto, what a recipe requires, a spell's or Stone's kind), the
elements, and the Sequence cards with their stages. It never changes while
the service runs, so it is built once and may be cached by clients.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.catalog import Card, Requirement, load_catalog
from domain.ruleset import RuleSet

blp = Blueprint("catalog", __name__, description="The cards: what each id means")


def _requirement(req: Requirement) -> dict[str, Any]:
    if req.is_element:
        return {"kind": "element", "label": req.label, "elements": sorted(req.elements)}
    return {"kind": "recipe", "label": req.label, "cards": sorted(req.recipe_ids)}


def _card(card: Card) -> dict[str, Any]:
    return {
        "id": card.id,
        "name": {"en": card.name, "ru": card.name_ru},
        "kind": card.kind,
        "points": card.points,
        "elements": list(card.elements),
        "stack": card.stack,
        "requires": [_requirement(r) for r in card.requires],
        "spell": card.spell,
        "stone": card.stone,
    }


@cache
def catalog_document() -> dict[str, Any]:
    catalog = load_catalog()
    return {
        "cards": [_card(catalog.cards[i]) for i in sorted(catalog.cards)],
        "elements": [
            {"id": i, "name": {"en": catalog.elements[i], "ru": catalog.elements_ru[i]}}
            for i in sorted(catalog.elements)
        ],
        "sequence_cards": [
            {
                "id": s.id,
                "columns": [{"stone": c.stone, "stages": list(c.stages)} for c in s.columns],
            }
            for s in sorted(catalog.sequence_cards.values(), key=lambda s: s.id)
        ],
        "stage_points": list(RuleSet().stage_points),
    }


@blp.route("/cards")
class CardsQuery(MethodView):
    @blp.response(200)
    def get(self) -> dict[str, Any]:
        """Every card (ids, names in Russian and English, kind, points,
        elements, requirements), the elements and the Sequence cards."""
        return catalog_document()

"""Moves as clients send them: what tests, bots over HTTP and benchmarks post."""

from __future__ import annotations

from typing import Any

from domain.moves import MOVE_TYPES, Assemble, Move


def move_request(move: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The path (under ``/games/{id}/``) and body that post a move as the
    legal-moves query lists it."""
    kind = move["move"]
    if kind == "assemble":
        return kind, {"card": move["card"], "components": [{"card": c} for c in move["components"]]}
    return kind, {k: v for k, v in move.items() if k not in ("move", "player")}


def move_from_dict(d: dict[str, Any]) -> Move:
    """A move back from ``domain.moves.move_to_dict``."""
    fields = dict(d)
    cls = MOVE_TYPES[fields.pop("move")]
    if cls is Assemble:
        fields["components"] = tuple(fields["components"])
        fields["sources"] = tuple(fields.get("sources", ()))
    return cls(**fields)

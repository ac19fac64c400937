"""Moves as clients send them: what tests, bots over HTTP and benchmarks post."""

from __future__ import annotations

from typing import Any

from domain.moves import MOVE_TYPES, Assemble, Move


def move_request(move: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The kind (the path's last part, under ``/games/{id}/``) and the body
    of a legal move as the legal-moves query lists it (a request)."""
    return kind_of(move), move["body"]


def kind_of(move: dict[str, Any]) -> str:
    """discard, assemble, place, cast or pass: the last part of its path."""
    return str(move["path"]).rsplit("/", 1)[1]


def move_from_dict(d: dict[str, Any]) -> Move:
    """A move back from ``domain.moves.move_to_dict``."""
    fields = dict(d)
    cls = MOVE_TYPES[fields.pop("move")]
    if cls is Assemble:
        fields["components"] = tuple(fields["components"])
        fields["sources"] = tuple(fields.get("sources", ()))
    return cls(**fields)

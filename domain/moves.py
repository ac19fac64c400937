"""The moves a player can make (RULES §3–§6), as plain values.

A move names the acting seat (R3.4) and the cards it uses by id; the engine
finds where each card is. Spells share one value: what ``card``, ``recipe``
and ``column`` mean depends on the spell (R6.1–R6.4).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Discard:
    """R4.1: put a card from hand onto its cabinet stack."""

    player: int
    card: int
    name: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Assemble:
    """R4.2: a recipe from hand, with the named components."""

    player: int
    card: int
    components: tuple[int, ...]
    # Where the player says each component lies (None: don't check), in the
    # order of ``components``; a wrong one refuses the move.
    sources: tuple[str | None, ...] = ()
    name: ClassVar[str] = "assemble"


@dataclass(frozen=True, slots=True)
class Place:
    """R4.5: a card into the next stage of one of the player's columns."""

    player: int
    column: str
    card: int
    source: str | None = None  # where the player says the card lies, if checked
    name: ClassVar[str] = "place"


@dataclass(frozen=True, slots=True)
class Cast:
    """R6: cast a spell from hand.

    Knowledge: ``card`` is the cabinet top to take. Transformation: ``card`` is
    the cabinet top to take, ``recipe`` the table recipe to give up.
    Destruction: ``recipe`` is the table recipe to destroy, ``card`` the
    component to keep. Transmutation: ``column`` to fill.
    """

    player: int
    spell: int
    card: int | None = None
    recipe: int | None = None
    column: str | None = None
    name: ClassVar[str] = "cast"


@dataclass(frozen=True, slots=True)
class Pass:
    """R3.3: no main action."""

    player: int
    name: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Withdraw:
    """R3.5: the seat is withdrawn (by its organiser or its tournament). No
    seat plays it and no legal-move list offers it; the engine decides it as
    it decides moves, so that the audit re-judges it like one."""

    player: int
    cause: str = "drop"  # R3.5: "drop", "inactivity" or "clock" (recorded from version "3")
    name: ClassVar[str] = "withdraw"


Move = Discard | Assemble | Place | Cast | Pass
MAIN_ACTIONS = (Discard, Assemble, Place, Pass)  # each ends the turn (R3.2)
MOVE_TYPES: dict[str, type[Move]] = {m.name: m for m in (Discard, Assemble, Place, Cast, Pass)}


UNSEATED = -1  # the player of a move whose seat the service decides (Opus.play)


def for_seat(move: Move, seat: int) -> Move:
    """The same move, made by ``seat``."""
    return move if move.player == seat else replace(move, player=seat)


def move_to_dict(move: Move) -> dict[str, Any]:
    d = asdict(move)
    d["move"] = move.name
    if isinstance(move, Assemble):
        d["components"] = list(move.components)
        d["sources"] = list(move.sources)
    return d

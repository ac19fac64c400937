"""Where a card can be (R1.3), as events and moves spell it.

``source`` strings in events are ``Location`` texts: "cabinet", "table:1",
"hand:0", "sequence:2:albedo:3". A Sequence stage holds a card id, ``GAP``
once its card was taken (R5.3), or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

GAP = -1  # R5.3: a taken stage stays completed but holds no card
Zone = Literal["deck", "hand", "cabinet", "table", "sequence"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a card is: in a zone, with the seat, column and stage (1..7) it needs."""

    zone: Zone
    seat: int = -1
    column: str = ""
    stage: int = 0

    def __str__(self) -> str:
        if self.zone == "sequence":
            return f"sequence:{self.seat}:{self.column}:{self.stage}"
        if self.zone in ("table", "hand"):
            return f"{self.zone}:{self.seat}"
        return self.zone

    @classmethod
    def parse(cls, text: str) -> Location:
        parts = text.split(":")
        zone: Any = parts[0]
        if zone == "sequence":
            return cls("sequence", int(parts[1]), parts[2], int(parts[3]))
        if len(parts) == 2:
            return cls(zone, int(parts[1]))
        return cls(zone)

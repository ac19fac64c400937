"""The rule set a game is played under: a value with a version and a digest (R10)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from domain.catalog import load_catalog
from domain.clock import Clock
from domain.errors import ClockError

# Bumped whenever the engine's reading of RULES.md changes, so that a game is
# always replayed under the rules it started with. "2": R7.4 (a stalled game
# ends); games started under "1" play on and re-judge without it. "3": a
# clock (R11) and SeatWithdrawn's cause (R3.5); an untimed game starts under
# "2" still, so that its log is what it was (our decision, README).
RULES_VERSION = "2"
CLOCK_VERSION = "3"
RULES_VERSIONS = ("1", "2", "3")  # every version a recorded game may have started under
WITHOUT_R7_4 = ("1",)  # the versions before R7.4
WITHOUT_CLOCKS = ("1", "2")  # the versions before R11
DRAW_VARIANTS = ("five", "one")  # R3.1
MIN_PLAYERS, MAX_PLAYERS = 2, 6  # R2.1


@dataclass(frozen=True)
class RuleSet:
    draw: str = "five"
    guild: bool = True
    stage_points: tuple[int, ...] = load_catalog().stage_points
    players: int = 0  # fixed when the game starts
    version: str = RULES_VERSION
    clock: Clock | None = None  # R11.1: from version "3"; None: untimed

    def __post_init__(self) -> None:
        if self.draw not in DRAW_VARIANTS:
            raise ValueError(f"draw must be one of {DRAW_VARIANTS}, not {self.draw!r}")
        if len(self.stage_points) != 7 or any(p < 0 for p in self.stage_points):
            raise ValueError("stage_points must be seven non-negative numbers")
        object.__setattr__(self, "stage_points", tuple(self.stage_points))
        if self.clock is not None and self.version in WITHOUT_CLOCKS:
            raise ClockError(
                f"a clock in a rule set of version {self.version!r} is refused "
                f"(clocks are version {CLOCK_VERSION!r}'s)"
            )

    @classmethod
    def timed(cls, clock: Clock | None, **fields: object) -> RuleSet:
        """The rule set with ``clock``: version "3" when there is one (R11.1)."""
        if clock is None:
            return cls(**fields)  # type: ignore[arg-type]
        return cls(**{**fields, "clock": clock, "version": CLOCK_VERSION})  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, object]:
        """Its recorded form (GameStarted's ``rules``): from version "3" with
        ``clock`` (null when untimed); before it, as it always was."""
        d = asdict(self)
        d["stage_points"] = list(self.stage_points)
        d["clock"] = self.clock.as_dict() if self.clock is not None else None
        if self.version in WITHOUT_CLOCKS:
            del d["clock"]
        return d

    @property
    def cause_recorded(self) -> bool:
        """Whether SeatWithdrawn records its cause (R3.5: from version "3")."""
        return self.version not in WITHOUT_CLOCKS

    @property
    def stalled_games_end(self) -> bool:
        """Whether R7.4 holds: for games started under version 2 or later (R10)."""
        return self.version not in WITHOUT_R7_4

    @property
    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the rule set (sorted keys, no spaces)."""
        text = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> RuleSet:
        clock = d.get("clock")
        fields = {**d, "clock": Clock.from_dict(clock) if isinstance(clock, dict) else None}
        return cls(**fields)  # type: ignore[arg-type]

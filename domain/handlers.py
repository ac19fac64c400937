"""The ``on_<Event>`` methods a state class evolves with, found once per
class, each checked at import to name an event there is: a handler whose
name is misspelt (or whose event was renamed) would otherwise never run."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Payload = Any
Handler = Callable[[Any, Payload], None]


def handlers_of(cls: type, events: Iterable[str]) -> dict[str, Handler]:
    """Event type -> the class's ``on_<Event>`` method; a TypeError naming
    every ``on_`` method whose event is not one of ``events``."""
    known = set(events)
    found = {name[3:]: getattr(cls, name) for name in dir(cls) if name.startswith("on_")}
    unknown = sorted(set(found) - known)
    if unknown:
        raise TypeError(
            f"{cls.__name__} handles events there are none of: "
            + ", ".join(f"on_{name}" for name in unknown)
        )
    return found

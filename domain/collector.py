"""Pausing Python's cyclic garbage collector for a pass that makes many
short-lived objects and no cycles.

Re-judging a game (domain/audit.py) makes a few dicts and lists per event
(the rules' facts, the fields compared) and drops them at once; reference
counting frees them. With the collector on, those allocations trigger its
collections, and each full one walks every object still alive: in ``opus
verify``, every record of the log. Verification ran 15 % slower so
(bench/verify.py). The projections' rebuilds and the analytics export pause
it for the same reason: they make a few objects per event, none in a cycle,
and keep many (the views' documents, the rows to write), which every
collection would walk again (with the collector on, the export took twice
as long).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The collector paused inside, unless it was paused already; a cycle
    made meanwhile (by another thread) waits for the next collection after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()

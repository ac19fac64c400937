"""Do the live views equal a clean rebuild? (DESIGN.md, Audit)

For each projection with a live view, the log is replayed into a scratch
generation up to the position the live view stands at, and the two are
compared value by value (``ViewStore.dump``): the first key that differs is
named. The scratch generation is dropped afterwards.

The check is an audit of what queries serve now, so a view must also stand
at the log's head: one with no position while the log has events is
missing, one below the head is behind (by how many positions is said; a
runner that has not caught up yet fails it too). Both fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eventsourcing.application import Application

from projections.ports import ViewStore, namespace
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS
from projections.view import APPLICATION_NAME


@dataclass
class ViewVerdict:
    projection: str
    position: int | None
    ok: bool
    reason: str = ""

    def line(self) -> str:
        if self.position is None and self.ok:
            return f"--   view {self.projection}: not built yet (the log is empty)"
        if self.position is None:
            return f"FAIL view {self.projection}: {self.reason}"
        if self.ok:
            return f"ok   view {self.projection} at position {self.position} equals a rebuild"
        return f"FAIL view {self.projection} at position {self.position}: {self.reason}"


def verify_views(store: ViewStore, app: Application[Any]) -> list[ViewVerdict]:
    head = app.recorder.max_notification_id() or 0
    return [_behind(_verify_view(store, app, name), head) for name in PROJECTIONS]


def _behind(verdict: ViewVerdict, head: int) -> ViewVerdict:
    """A view that equals a rebuild as of its position, but not of the head."""
    if not verdict.ok or head == 0:
        return verdict
    if verdict.position is None:
        return ViewVerdict(
            verdict.projection,
            None,
            False,
            f"missing: the log has events up to position {head}, the view has none",
        )
    if verdict.position < head:
        return ViewVerdict(
            verdict.projection,
            verdict.position,
            False,
            f"equals a rebuild, but is behind the log by {head - verdict.position} "
            f"(the log's head is at position {head})",
        )
    return verdict


def _verify_view(store: ViewStore, app: Application[Any], name: str) -> ViewVerdict:
    live = namespace(name, store.active_generation(name))
    for _ in range(3):
        position = store.position(live, APPLICATION_NAME)
        if position is None:
            return ViewVerdict(name, None, True)
        seen = store.dump(live)
        if store.position(live, APPLICATION_NAME) != position:
            continue  # a live runner committed while we read: read again
        scratch = namespace(
            name, rebuild(store, app, [PROJECTIONS[name]], as_of=position).generation
        )
        try:
            return _compare(name, position, seen, store.dump(scratch))
        finally:
            store.drop(scratch)
    return ViewVerdict(name, position, False, "the view kept moving; stop its runner to check it")


def _compare(
    name: str, position: int | None, live: dict[str, object], clean: dict[str, object]
) -> ViewVerdict:
    for key in sorted(set(live) | set(clean)):
        if live.get(key) != clean.get(key):
            if key not in clean:
                why = f"{key} is in the live view but not in a rebuild"
            elif key not in live:
                why = f"{key} is missing from the live view"
            else:
                why = f"{key} differs from a rebuild"
            return ViewVerdict(name, position, False, why)
    return ViewVerdict(name, position, True)

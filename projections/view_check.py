"""Do the live views equal a clean rebuild? (DESIGN.md, Audit)

For each projection with a live view, the log is replayed into a scratch
generation up to the position the live view stands at, and the two are
compared value by value (``ViewStore.dump``): the first key that differs is
named. The scratch generation is dropped afterwards.

The check is an audit of what queries serve now, so a view must also stand
at the log's head: one with no position while the log has events is
missing, one below the head is behind (by how many positions is said; a
runner that has not caught up yet fails it too). Both fail.

A sharded event store (a list of applications, index = shard): each view
is compared with a rebuild as of its position in every shard's log, and is
behind if it is behind any of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.application import Application

from domain.sharding import upstream_names
from projections.ports import ViewStore, namespace
from projections.rebuild import head_of, rebuild
from projections.registry import PROJECTIONS
from projections.view import APPLICATION_NAME


@dataclass
class ViewVerdict:
    projection: str
    position: int | None  # with shards, the home shard's
    ok: bool
    reason: str = ""
    positions: tuple[int | None, ...] = ()  # with shards, each shard's

    def line(self) -> str:
        if all(p is None for p in self.positions or (self.position,)):
            if self.ok:
                return f"--   view {self.projection}: not built yet (the log is empty)"
            return f"FAIL view {self.projection}: {self.reason}"
        at = f"at position {self.position}"
        if len(self.positions) > 1:
            at = "at " + ", ".join(f"{p or 0} of shard {k}" for k, p in enumerate(self.positions))
        if self.ok:
            return f"ok   view {self.projection} {at} equals a rebuild"
        return f"FAIL view {self.projection} {at}: {self.reason}"


def verify_views(
    store: ViewStore, app: Application[Any] | Sequence[Application[Any]]
) -> list[ViewVerdict]:
    """Each projection's live view against a rebuild as of its position;
    ``app``: the application, or each shard's (a list, shard 0 first)."""
    apps = list(app) if isinstance(app, Sequence) else [app]
    heads = [head_of(shard_app) for shard_app in apps]
    return [_behind(_verify_view(store, apps, name), heads) for name in PROJECTIONS]


def _behind(verdict: ViewVerdict, heads: list[int]) -> ViewVerdict:
    """A view that equals a rebuild as of its positions, but not of the heads."""
    if not verdict.ok or not any(heads):
        return verdict
    positions = verdict.positions or (verdict.position,)
    if all(p is None for p in positions):
        where = _where(heads)
        return ViewVerdict(
            verdict.projection,
            None,
            False,
            f"missing: the log has events up to {where}, the view has none",
            verdict.positions,
        )
    behind = sum(max(0, head - (p or 0)) for head, p in zip(heads, positions, strict=True))
    if behind:
        return ViewVerdict(
            verdict.projection,
            verdict.position,
            False,
            f"equals a rebuild, but is behind the log by {behind} "
            f"(the log's head is at {_where(heads)})",
            verdict.positions,
        )
    return verdict


def _where(heads: list[int]) -> str:
    if len(heads) == 1:
        return f"position {heads[0]}"
    return ", ".join(f"{head} of shard {k}" for k, head in enumerate(heads))


def _verify_view(store: ViewStore, apps: list[Application[Any]], name: str) -> ViewVerdict:
    live = namespace(name, store.active_generation(name))
    names = upstream_names(len(apps), APPLICATION_NAME)
    shown: tuple[int | None, ...] = ()
    for _ in range(3):
        positions = [store.position(live, upstream) for upstream in names]
        shown = tuple(positions) if len(apps) > 1 else ()
        if all(p is None for p in positions):
            return ViewVerdict(name, None, True, positions=shown)
        seen = store.dump(live)
        if [store.position(live, upstream) for upstream in names] != positions:
            continue  # a live runner committed while we read: read again
        ends = [p or 0 for p in positions]
        as_of: int | list[int] = ends[0] if len(apps) == 1 else ends
        target: Any = apps[0] if len(apps) == 1 else apps
        scratch = namespace(
            name, rebuild(store, target, [PROJECTIONS[name]], as_of=as_of).generation
        )
        try:
            return _compare(name, positions[0], seen, store.dump(scratch), shown)
        finally:
            store.drop(scratch)
    return ViewVerdict(
        name, positions[0], False, "the view kept moving; stop its runner to check it", shown
    )


def _compare(
    name: str,
    position: int | None,
    live: dict[str, object],
    clean: dict[str, object],
    positions: tuple[int | None, ...] = (),
) -> ViewVerdict:
    for key in sorted(set(live) | set(clean)):
        if live.get(key) != clean.get(key):
            if key not in clean:
                why = f"{key} is in the live view but not in a rebuild"
            elif key not in live:
                why = f"{key} is missing from the live view"
            else:
                why = f"{key} differs from a rebuild"
            return ViewVerdict(name, position, False, why, positions)
    return ViewVerdict(name, position, True, positions=positions)

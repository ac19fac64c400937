"""The view port: what a projection needs of a view store, and nothing more.

A view store holds namespaces; a namespace holds one generation of one
projection (``scoreboard.g0``) and its tracking position. Inside a
namespace there are three kinds of value, chosen because both Redis and
SQLite hold them natively:

- documents: a JSON text under a key (Redis string, SQLite row);
- lists: JSON texts appended in order, addressable by index (Redis list);
- sorted sets: integer scores by member (Redis sorted set).

Writes reach a store only through ``commit``: one batch of changes and the
new tracking position in one transaction, applied only if the stored
position is still the one the batch was built on. That compare-and-set is
what makes a projection exactly-once: a replayed event, a second runner or a
crash between write and acknowledgement can never apply a change twice.

Each projection has an *active* generation, the one queries read. A
blue/green rebuild fills a fresh generation and then switches the pointer
in one write (``activate``).

Beside the views, each projection's heartbeat: when a runner of it was last
alive (``beat``, written every few seconds while it runs, idle or busy),
which /readyz reads (``beats``) to tell a dead projector from an idle one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

DEFAULT_GENERATION = "g0"


class ViewStoreError(Exception):
    """Base of the errors a view store raises on purpose."""


class ViewStoreUnavailableError(ViewStoreError):
    """The store cannot be reached now (connection lost, server loading):
    nothing was written, or the caller cannot tell; retrying after reloading
    the tracking position is safe."""


class TrackingConflictError(ViewStoreError):
    """The stored position is not the one a batch was built on, or the
    generation written to is no longer active: another writer got there
    first. Nothing was written."""


class NoSuchItemError(ViewStoreError, IndexError):
    """A batch replaces a list's item that is not there (a projection's
    bug): nothing was written."""


@dataclass
class ListChange:
    """The list emptied first (``cleared``), then items appended, then items
    replaced by index (each must be in the list by then)."""

    appended: list[str] = field(default_factory=list)
    replaced: dict[int, str] = field(default_factory=dict)
    cleared: bool = False


def patched(change: ListChange, start: int) -> tuple[list[str], dict[int, str]]:
    """The items to append to a list now ``start`` long, the replacements of
    items among them made already, and the replacements left for items
    stored before: the same list, with fewer writes (a game's move log
    replaces its sealed entries when it ends, often in the batch that
    appended them)."""
    appended, replaced = change.appended, change.replaced
    end = start + len(appended)
    if not replaced or not any(start <= index < end for index in replaced):
        return appended, replaced
    appended = list(appended)
    left: dict[int, str] = {}
    for index, value in replaced.items():
        if start <= index < end:
            appended[index - start] = value
        else:
            left[index] = value
    return appended, left


@dataclass
class Changes:
    """One batch of writes to one namespace; ``None`` as a document deletes it.
    Sorted-set members in ``zset_removed`` are removed before ``zsets``'
    increments are applied."""

    docs: dict[str, str | None] = field(default_factory=dict)
    lists: dict[str, ListChange] = field(default_factory=dict)
    zsets: dict[str, dict[str, int]] = field(default_factory=dict)
    zset_removed: dict[str, set[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.docs or self.lists or self.zsets or self.zset_removed)


@dataclass(frozen=True)
class Commit:
    """One view's batch as ``ViewStore.commit`` takes it (its arguments)."""

    ns: str
    changes: Changes
    application_name: str
    expected: int | None
    position: int
    active: tuple[str, str] | None = None
    holds: Mapping[str, int | None] | None = None


def one_by_one(store: ViewStore, commits: Sequence[Commit]) -> list[Exception | None]:
    """``ViewStore.commit_many`` as one ``commit`` after another."""
    outcomes: list[Exception | None] = []
    for c in commits:
        try:
            store.commit(
                c.ns, c.changes, c.application_name, c.expected, c.position, c.active, holds=c.holds
            )
        except Exception as e:
            outcomes.append(e)
        else:
            outcomes.append(None)
    return outcomes


class ViewStore(Protocol):
    """A store of projection views: Redis or SQLite (projections/*_views.py)."""

    def position(self, ns: str, application_name: str) -> int | None:
        """The last position committed in ``ns``; None before the first."""
        ...

    def get(self, ns: str, key: str) -> str | None: ...

    def items(self, ns: str, key: str, start: int = 0) -> list[str]:
        """A list from index ``start`` on, in order; empty if there is none."""
        ...

    def items_and_doc(
        self, ns: str, key: str, start: int, doc: str
    ) -> tuple[list[str], str | None]:
        """``items(ns, key, start)`` and ``get(ns, doc)``, read together: one
        round trip, not one snapshot."""
        ...

    def scores(self, ns: str, key: str) -> dict[str, int]:
        """A sorted set, as member -> score; empty if there is none."""
        ...

    def commit(
        self,
        ns: str,
        changes: Changes,
        application_name: str,
        expected: int | None,
        position: int,
        active: tuple[str, str] | None = None,
        *,
        holds: Mapping[str, int | None] | None = None,
    ) -> None:
        """Apply ``changes`` and set the position to ``position``, atomically,
        if the stored position is ``expected``, every position of ``holds``
        (the view's other upstream logs: a sharded store's other shards) is
        as stored, and, when ``active`` is (projection, generation), that
        generation is still the active one; else raise TrackingConflictError
        and write nothing. A replaced list item that is not there raises
        NoSuchItemError, and nothing is written either."""
        ...

    def commit_many(self, commits: Sequence[Commit]) -> list[Exception | None]:
        """Each commit as ``commit`` makes it, each on its own (one may be
        refused while the others are applied), at once where the store can
        (Redis: one round trip for all): what each one raised, or None. A
        store that cannot be reached raises ViewStoreUnavailableError: then
        none of them, or some, may have been applied."""
        ...

    def active_generation(self, projection: str) -> str:
        """The generation queries read (DEFAULT_GENERATION until a swap)."""
        ...

    def activate(self, projection: str, generation: str) -> None:
        """Point queries and runners at ``generation``, in one atomic write."""
        ...

    def drop(self, ns: str) -> None:
        """Delete a namespace: every value and its tracking position."""
        ...

    def beat(self, projections: Sequence[str], at: float) -> None:
        """A runner of ``projections`` was alive at ``at`` (seconds since the
        epoch): each one's heartbeat, in one write."""
        ...

    def beats(self) -> dict[str, float]:
        """Each projection's last heartbeat (seconds since the epoch)."""
        ...

    def namespaces(self) -> list[str]:
        """Every namespace that holds something."""
        ...

    def dump(self, ns: str) -> dict[str, Any]:
        """Every value of a namespace exactly as stored, keyed by kind and
        key, with its position: what "byte-identical" compares."""
        ...

    def close(self) -> None: ...


def namespace(projection: str, generation: str) -> str:
    return f"{projection}.{generation}"


def moved(stored: Mapping[str, int | None], holds: Mapping[str, int | None]) -> str | None:
    """Which of the positions ``holds`` believes differs from the one stored
    (a commit's check of the view's other upstreams), said; None if none."""
    for name, believed in sorted(holds.items()):
        if stored.get(name) != believed:
            return f"{name} is at position {stored.get(name)}, not {believed}"
    return None

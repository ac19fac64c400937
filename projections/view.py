"""The view one projection writes through: a unit of work over a view store.

A ``View`` is an ``eventsourcing`` tracking recorder bound to one namespace.
Projections write through ``transaction(tracking)``; the changes of every
event in an open ``batch()`` are gathered in memory and committed at its end
with the last event's position, in one store transaction. A runner opens a
batch around each group of events it has at hand, so catching up costs one
commit per few hundred events and live events still land at once.

Documents read by a projection are kept (decoded) across batches: the view
is its namespace's only writer, and the tracking compare-and-set on every
commit proves it, so a cached document can only be stale after a failed
commit, when the whole cache is dropped.

A view of a sharded event store follows every shard's log (``shards``): it
tracks a position per shard, under ``domain.sharding.upstream_name(k)``,
and a batch holds one shard's events (``follow(k)`` before it). Its commit
sets that shard's position and checks every other shard's too, so the one
cache stays sound: no other writer can have moved any of them. A projection may also keep there
what it folds from its own values (``Transaction.keep``: never written,
dropped with the rest) and read its lists back (``Transaction.items``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson
from eventsourcing.persistence import Tracking, TrackingRecorder

from domain.sharding import upstream_names
from projections.ports import Changes, Commit, ListChange, ViewStore, namespace

APPLICATION_NAME = "Opus"  # the upstream application (domain.application.Opus.name)
MAX_CACHED_DOCS = 50_000
_ABSENT = object()
_SERIALS = itertools.count(1)


def dumps(value: Any) -> str:
    """The one serialisation of view values: the same value, the same bytes
    (compact, keys sorted, UTF-8 as is; orjson, ten times the standard
    library's speed on these small documents). A projection may keep a
    document as a model with a ``to_json()`` (projections/table.py).
    ``Transaction.append`` makes the same call inline (once per event)."""
    return _dumps(value, default=_to_json, option=_SORTED).decode()


_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS


def _to_json(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    if to_json is None:
        raise TypeError(f"{type(value).__name__} is not a view value")
    return to_json()


class Transaction:
    """The changes of one batch, with read-through of documents."""

    def __init__(self, view: View) -> None:
        self._view = view
        self._docs = view._docs  # its cache, read here first (the hot path)
        self.serial = next(_SERIALS)  # tells one batch from another, never reused
        self._dirty: set[str] = set()
        self._deleted: set[str] = set()
        self.lists: dict[str, ListChange] = {}
        self.zsets: dict[str, dict[str, int]] = {}
        self.zset_removed: dict[str, set[str]] = {}

    def doc(self, key: str, default: Any = None) -> Any:
        """The document under ``key`` (``default`` if none), to be changed in
        place: it is written back when the batch commits."""
        value = self._docs.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._view.cached(key)
        if value is _ABSENT:
            if default is None:
                raise KeyError(key)
            value = default
            self._view.cache(key, value)
        self._dirty.add(key)
        self._deleted.discard(key)
        return value

    def peek(self, key: str) -> Any:
        """The document under ``key`` or None, for reading only."""
        value = self._docs.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._view.cached(key)
        return None if value is _ABSENT else value

    def put(self, key: str, value: Any) -> None:
        self._view.cache(key, value)
        self._dirty.add(key)
        self._deleted.discard(key)

    def keep(self, key: str, value: Any) -> None:
        """Hold ``value`` under ``key`` for the batches to come, never writing
        it: state a projection folds from what it has written, so that it can
        fold it again when the cache has dropped it (a failed commit, a
        full cache, another process)."""
        self._view.cache(key, value)

    def delete(self, key: str) -> None:
        self._view.cache(key, _ABSENT)
        self._dirty.discard(key)
        self._deleted.add(key)

    def append(self, key: str, value: Any) -> None:
        change = self.lists.get(key)
        if change is None:
            change = self.lists[key] = ListChange()
        change.appended.append(_dumps(value, default=_to_json, option=_SORTED).decode())

    def replace(self, key: str, index: int, value: Any) -> None:
        """Replace a list item; applied after the batch's appends."""
        self._list(key).replaced[index] = dumps(value)

    def _list(self, key: str) -> ListChange:
        change = self.lists.get(key)
        if change is None:  # (not setdefault: a ListChange made per call costs)
            change = self.lists[key] = ListChange()
        return change

    def rewrite(self, key: str, values: list[Any]) -> None:
        """The list becomes ``values``; appends later in the batch follow them."""
        change = self.lists[key] = ListChange(cleared=True)
        change.appended.extend(dumps(value) for value in values)

    def items(self, key: str) -> list[Any]:
        """The list under ``key`` as the store holds it with this batch's
        changes applied, decoded (a projection folding its own list again)."""
        change = self.lists.get(key)
        texts = [] if change is not None and change.cleared else self._view.items(key)
        if change is not None:
            texts.extend(change.appended)
            for index, value in change.replaced.items():
                if index < len(texts):
                    texts[index] = value
        return [orjson.loads(text) for text in texts]

    def incr(self, key: str, member: str, amount: int) -> None:
        members = self.zsets.setdefault(key, {})
        members[member] = members.get(member, 0) + amount

    def zremove(self, key: str, member: str) -> None:
        """Remove a sorted set's member (an increment later in the batch adds it anew)."""
        self.zsets.get(key, {}).pop(member, None)
        self.zset_removed.setdefault(key, set()).add(member)

    def changes(self) -> Changes:
        docs: dict[str, str | None] = {key: None for key in self._deleted}
        for key in sorted(self._dirty):
            docs[key] = dumps(self._view.cached(key))
        return Changes(
            docs=docs, lists=self.lists, zsets=self.zsets, zset_removed=self.zset_removed
        )


class View(TrackingRecorder):
    """One generation of one projection in a view store.

    ``generation=None`` follows the active generation: every commit then
    also checks that it is still active, so a runner never writes into a
    generation that a blue/green swap has retired. ``fresh=True`` says the
    namespace is empty and this view its only writer (a rebuild): a document
    it has not written does not exist, so it is never read from the store.
    ``shards``: how many logs it follows (a sharded event store's); with one,
    the log of ``application_name``.
    """

    def __init__(
        self,
        store: ViewStore,
        projection: str,
        generation: str | None = None,
        *,
        application_name: str = APPLICATION_NAME,
        fresh: bool = False,
        shards: int = 1,
    ) -> None:
        if shards < 1:
            raise ValueError(f"{shards} shards: a view follows one log or more")
        self.store = store
        self.projection = projection
        self.follows_active = generation is None
        self.generation = store.active_generation(projection) if generation is None else generation
        self.shards = shards
        # the name each log's position is tracked under, by shard
        self.upstreams = upstream_names(shards, application_name)
        # the log whose events come now (``follow``)
        self.application_name = self.upstreams[0]
        self.ns = namespace(projection, self.generation)
        self._docs: dict[str, Any] = {}
        self._fresh = fresh
        self._evicted: set[str] = set()  # fresh: written, then dropped from the cache
        self._positions: dict[str, int | None] = {}  # by upstream, read from the store once
        # The open batch, if any, and the position of its last event.
        self.batch_tx: Transaction | None = None
        self.batch_position: int | None = None
        # A batch closed with ``deferred``, not yet committed (commit_pending).
        self.pending: Commit | None = None

    # ---- TrackingRecorder ----------------------------------------------------

    def max_tracking_id(self, application_name: str) -> int | None:
        return self.store.position(self.ns, application_name)

    def insert_tracking(self, tracking: Tracking) -> None:
        """Move the position without changing data (an event this view ignores)."""
        with self.transaction(tracking):
            pass

    # ---- reads for the projection ---------------------------------------------

    def cached(self, key: str) -> Any:
        value = self._docs.get(key, _ABSENT)
        if value is _ABSENT and key not in self._docs:
            if self._fresh and key not in self._evicted:
                return _ABSENT
            text = self.store.get(self.ns, key)
            value = _ABSENT if text is None else orjson.loads(text)
            self.cache(key, value)
        return value

    def cache(self, key: str, value: Any) -> None:
        self._docs[key] = value

    def items(self, key: str) -> list[str]:
        """A list as committed."""
        return self.store.items(self.ns, key)

    # ---- writes -----------------------------------------------------------------

    @property
    def position(self) -> int | None:
        """The position this view has committed of the log it follows now
        (read from the store once)."""
        return self.position_of(self.application_name)

    def position_of(self, application_name: str) -> int | None:
        """The position committed of one upstream log (read from the store once)."""
        if application_name not in self._positions:
            self._positions[application_name] = self.store.position(self.ns, application_name)
        return self._positions[application_name]

    def follow(self, shard: int) -> None:
        """The events to come are shard ``shard``'s: its position is the one
        checked, skipped below and committed."""
        if self.batch_tx is not None:
            raise RuntimeError(f"{self.ns}: a batch is one shard's events")
        self.application_name = self.upstreams[shard]

    def is_done(self, tracking: Tracking) -> bool:
        """True if this event was already projected here: replays are skipped."""
        done = self.batch_position if self.batch_tx is not None else self.position
        return done is not None and tracking.notification_id <= done

    @contextmanager
    def batch(self, *, deferred: bool = False) -> Iterator[None]:
        """Gather every transaction inside into one commit at the end; with
        ``deferred``, into ``pending``, for ``commit_pending`` to commit
        with other views' (the view believes nothing of it meanwhile)."""
        if self.batch_tx is not None:
            yield
            return
        self.batch_tx = Transaction(self)
        self.batch_position = self.position
        try:
            yield
        except BaseException:
            self.forget()
            raise
        else:
            if deferred:
                try:
                    self.pending = self._prepared(self.batch_tx, self.batch_position)
                except BaseException:
                    self.forget()  # its documents hold the batch, never committed
                    raise
            else:
                self._commit(self.batch_tx, self.batch_position)
        finally:
            self.batch_tx = None

    @contextmanager
    def transaction(self, tracking: Tracking) -> Iterator[Transaction]:
        """The changes of one event; committed with its position, or with the
        open batch. Callers skip events for which ``is_done`` is true."""
        if tracking.application_name != self.application_name:
            raise ValueError(f"{self.ns} follows {self.application_name}, not {tracking}")
        if self.is_done(tracking):
            raise ValueError(f"{self.ns} has already projected position {tracking.notification_id}")
        if self.batch_tx is not None:
            yield self.batch_tx
            self.batch_position = tracking.notification_id
            return
        tx = Transaction(self)
        try:
            yield tx
        except BaseException:
            self.forget()
            raise
        self._commit(tx, tracking.notification_id)

    def _prepared(self, tx: Transaction, position: int | None) -> Commit | None:
        """The batch's commit; None for an empty batch."""
        if position is None or position == self.position:
            return None
        active = (self.projection, self.generation) if self.follows_active else None
        holds = None
        if self.shards > 1:
            others = [name for name in self.upstreams if name != self.application_name]
            holds = {name: self.position_of(name) for name in others}
        return Commit(
            self.ns, tx.changes(), self.application_name, self.position, position, active, holds
        )

    def _commit(self, tx: Transaction, position: int | None) -> None:
        try:
            made = self._prepared(tx, position)
            if made is None:
                return
            self.store.commit(
                made.ns,
                made.changes,
                made.application_name,
                made.expected,
                made.position,
                made.active,
                holds=made.holds,
            )
        except BaseException:
            self.forget()
            raise
        self.committed(made)

    def committed(self, made: Commit) -> None:
        """The store has applied ``made``: the view believes it."""
        self._positions[made.application_name] = made.position
        if len(self._docs) > MAX_CACHED_DOCS:
            if self._fresh:
                self._evicted.update(self._docs)
            self._docs.clear()

    def forget(self) -> None:
        """Drop what this view believes about the store: after a failed or
        refused commit, everything is read again."""
        self._docs.clear()
        self._fresh = False
        self._positions.clear()
        self.pending = None


def commit_pending(views: Sequence[View]) -> list[tuple[View, Exception]]:
    """Commit the views' pending batches, those of one store at once
    (``ViewStore.commit_many``: one round trip on Redis, where each view's
    commit took one of its own). Each view's commit stands or fails on its
    own: a view whose commit failed forgets what it believed, and is
    returned with its error (a store that could not be reached: each of its
    views, with that error)."""
    by_store: dict[int, list[View]] = {}
    for view in views:
        if view.pending is not None:
            by_store.setdefault(id(view.store), []).append(view)
    failed: list[tuple[View, Exception]] = []
    for group in by_store.values():
        commits = [view.pending for view in group if view.pending is not None]
        for view in group:
            view.pending = None
        try:
            outcomes = group[0].store.commit_many(commits)
        except BaseException as e:  # unreachable: some may have been applied
            if not isinstance(e, Exception):
                for view in group:
                    view.forget()
                raise
            outcomes = [e] * len(group)
        for view, made, outcome in zip(group, commits, outcomes, strict=True):
            if outcome is None:
                view.committed(made)
            else:
                view.forget()
                failed.append((view, outcome))
    return failed

"""What every projection shares: the base class, the records it reads and
the decoder that makes them.

A projection reads each stored event as a *record*, a ``DecodedEvent``:
``(class, type name, key, fields)``, where ``fields`` is what
``vars(event)`` of the domain event would be (its own fields,
``originator_id``, ``originator_version``), but for the timestamp, kept as
the ISO 8601 text it is stored as (``datetime.isoformat()``'s).
``EventDecoder`` parses stored notifications straight into records, with
neither a domain event nor the library's mapper: a rebuild
(projections/rebuild.py) and a live runner (projections/runner.py) both
read them so.

Handlers are declared with ``@on(EventClass, ...)`` and called as
``handler(self, kind, key, fields, tx, position)``: ``kind`` the event's
type name, ``key`` its aggregate's id as view keys spell it (``game_key``).
An event is handled by the handler of the nearest class in its MRO (as
``functools.singledispatch`` would choose); an event with none only moves
the view's position.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar
from uuid import UUID

import orjson
from eventsourcing.persistence import JSONTranscoder, Mapper, Notification, Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import resolve_topic

from domain.collector import no_cyclic_gc as no_cyclic_gc
from domain.internals import Row, select_rows
from projections.view import Transaction, View

Fields = dict[str, Any]
# (the event's class, its type name, its aggregate's key, its fields)
DecodedEvent = tuple[type[Any], str, str, Fields]
Handler = Callable[[Any, str, str, Fields, Transaction, int], None]

F = TypeVar("F", bound=Callable[..., None])
_ON = "__projects__"


def on(*event_classes: type[Any]) -> Callable[[F], F]:
    """Declare a method the handler of these event classes (and of their
    subclasses that have no nearer handler)."""

    def mark(method: F) -> F:
        setattr(method, _ON, (*getattr(method, _ON, ()), *event_classes))
        return method

    return mark


class ViewProjection(Projection[View]):
    """A projection that writes through a ``View``.

    ``process_events`` projects records inside the view's open batch (the
    loop a rebuild and a live runner spend their time in); an event type
    with no handler only moves the tracking position. The library's
    one-domain-event interface, ``process_event``, is refused: every reader
    of the log here decodes records (``EventDecoder``).
    """

    name = ""
    # event class -> its handler, declared with @on, base classes' included
    declared: ClassVar[dict[type[Any], Handler]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # by name: a subclass that overrides a handler (decorated again or
        # not) has its own method called
        names: dict[type[Any], str] = {}
        for klass in reversed(cls.__mro__):
            for name, attribute in vars(klass).items():
                for event_class in getattr(attribute, _ON, ()):
                    names[event_class] = name
        cls.declared = {event_class: getattr(cls, name) for event_class, name in names.items()}

    def __init__(self, view: View) -> None:
        super().__init__(view)
        self._handlers: dict[type[Any], Handler | None] = {}

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        raise NotImplementedError(f"{self.name} projects records: process_events")

    def process_events(
        self,
        records: Sequence[DecodedEvent],
        positions: Sequence[int],
        shown: Sequence[int] | None = None,
    ) -> None:
        """Project records inside the view's open batch (``records[i]`` is at
        ``positions[i]`` of the log the view follows now, ascending), skipping
        those at or below its position. Only the records of the classes it
        handles are visited (``Batch`` indexes them by class). On an error,
        ``view.batch_position`` is the position of the last record done.
        ``shown``: the positions a client sees of the records, which the
        handlers get (a shard's events: domain.sharding.position_of); the
        log's own positions when None (one log)."""
        view = self.view
        tx = view.batch_tx
        if tx is None:
            raise RuntimeError("process_events needs an open batch")
        done = view.batch_position
        start = 0 if done is None else bisect.bisect_right(positions, done)
        end = len(records)
        if start >= end:
            return
        handlers = self._handlers
        given = positions if shown is None else shown
        todo = self._todo(records)
        if start:
            todo = todo[bisect.bisect_left(todo, start) :]
        i = start
        try:
            for i in todo:
                cls, kind, key, fields = records[i]
                handlers[cls](self, kind, key, fields, tx, given[i])  # type: ignore[misc]
        except BaseException:
            if i > start:
                view.batch_position = positions[i - 1]
            raise
        view.batch_position = positions[end - 1]

    def _todo(self, records: Sequence[DecodedEvent]) -> list[int]:
        """The indexes of the records this projection has a handler for, in order."""
        by_class = records.by_class if type(records) is Batch else Batch.indexes_of(records)
        handlers = self._handlers
        lists = [
            indexes
            for cls, indexes in by_class.items()
            if (handlers[cls] if cls in handlers else self.handler(cls)) is not None
        ]
        if len(lists) == 1:
            return lists[0]
        return sorted(itertools.chain.from_iterable(lists))

    @classmethod
    def handled_event_classes(cls) -> list[type[Any]]:
        """The event types this projection has a handler for."""
        return list(cls.declared)

    def handler(self, event_class: type[Any]) -> Handler | None:
        """The handler of an event class, None if there is none. Resolved
        once per class."""
        try:
            return self._handlers[event_class]
        except KeyError:
            pass
        handler: Handler | None = None
        declared = type(self).declared
        for klass in event_class.__mro__:
            if klass in declared:
                handler = declared[klass]
                break
        self._handlers[event_class] = handler
        return handler


class Batch(list[DecodedEvent]):
    """The records of one batch, with the indexes of each class's records
    (``by_class``): a projection visits only the records it handles."""

    __slots__ = ("by_class",)

    def __init__(self) -> None:
        super().__init__()
        self.by_class: dict[type[Any], list[int]] = {}

    @staticmethod
    def indexes_of(records: Sequence[DecodedEvent]) -> dict[type[Any], list[int]]:
        by_class: dict[type[Any], list[int]] = {}
        for i, record in enumerate(records):
            by_class.setdefault(record[0], []).append(i)
        return by_class


T = TypeVar("T")
_GAME_KEYS: dict[int, str] = {}


def game_key(game_id: UUID) -> str:
    """A game's id as view keys spell it. Cached by the id's integer: both
    str(UUID) and UUID's own hash are Python code, called for every event."""
    number = game_id.int
    key = _GAME_KEYS.get(number)
    if key is None:
        if len(_GAME_KEYS) > 10_000:
            _GAME_KEYS.clear()
        key = _GAME_KEYS[number] = str(game_id)
    return key


def key_of(originator_id: Any) -> str:
    return game_key(originator_id) if type(originator_id) is UUID else str(originator_id)


def record_of(event: Any) -> DecodedEvent:
    """A domain event as a record."""
    fields = dict(vars(event))
    fields["timestamp"] = event.timestamp.isoformat()
    cls = type(event)
    return cls, cls.__name__, key_of(event.originator_id), fields


def _index(
    records: Batch,
    batch: dict[str, tuple[type[Any], str, list[int]]],
    others: dict[type[Any], list[int]],
) -> None:
    """A batch's indexes by class, from its indexes by topic."""
    by_class = records.by_class
    for cls, indexes in [*((cls, indexes) for cls, _, indexes in batch.values()), *others.items()]:
        if cls in by_class:  # (two topics of one class, or some made by the mapper)
            by_class[cls] = sorted(by_class[cls] + indexes)
        else:
            by_class[cls] = indexes


def rows_of(notifications: Sequence[Notification]) -> list[Row]:
    """Notifications as rows (domain/internals.py's ``select_rows``)."""
    return [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notifications]


def read_rows(
    app: Any, after: int, limit: int, stop: int, topics: Sequence[str]
) -> tuple[list[Row], bool]:
    """A page of the log after ``after`` up to ``stop`` as rows, read by SQL
    (``select_rows``), or from a store without SQL as its notifications;
    and whether the rows' aggregate ids are text (``EventDecoder.decode``'s
    ``text_ids``)."""
    rows = select_rows(app, after, limit, stop, topics)
    if rows is not None:
        return rows, True
    notifications = app.recorder.select_notifications(
        start=after, limit=limit, stop=stop, topics=list(topics), inclusive_of_start=False
    )
    return rows_of(notifications), False


class EventDecoder:
    """Stored events straight to records.

    Rows (``domain.internals.select_rows``, or notifications as rows:
    ``rows_of``) whose stored state has no transcoded value but its
    timestamp (every game and tournament event: domain/chain.py) are parsed
    with a plain ``orjson.loads``, the timestamp kept as the text stored;
    anything else (another transcoded type, a class version, a cipher or
    compressor, an integer beyond 64 bits, a timestamp not in UTC, an
    aggregate id that is not a UUID) goes through the library's mapper, and
    the record is made from the domain event (``record_of``). Decoding is
    most of a rebuild's per-event cost, hence the care.
    """

    def __init__(self, mapper: Mapper[Any]) -> None:
        self.mapper = mapper
        self._plain = (
            mapper.cipher is None
            and mapper.compressor is None
            and isinstance(mapper.transcoder, JSONTranscoder)
        )
        self._topics: dict[str, tuple[type[Any], str]] = {}
        # an aggregate id as read (its text, or a UUID's integer) -> (key, UUID)
        self._ids: dict[Any, tuple[str, UUID]] = {}

    def decode(
        self, rows: Sequence[Row], *, text_ids: bool = True
    ) -> tuple[Batch, Exception | None]:
        """The records, up to the first row that cannot be decoded, and its
        error. ``text_ids``: an aggregate id given as text is a UUID's
        (``select_rows``); else it is the id itself, as the recorder read
        it (``rows_of``), and only a ``UUID`` is one."""
        records = Batch()
        append = records.append
        # this batch's topics: (class, type name, the indexes of its records)
        batch: dict[str, tuple[type[Any], str, list[int]]] = {}
        others: dict[type[Any], list[int]] = {}  # records the mapper made
        ids = self._ids
        plain = self._plain
        loads = orjson.loads
        for i, row in enumerate(rows):
            try:
                _, originator_id, version, topic, state = row
                ident: int | str | None
                if type(originator_id) is str:
                    ident = originator_id if text_ids else None
                else:
                    ident = originator_id.int if type(originator_id) is UUID else None
                known = ids.get(ident) if ident is not None else None
                if known is None:
                    known = self._id(ident, originator_id)
                if type(state) is not bytes:
                    state = bytes(state)
                fields = None
                if known is not None and plain and state.count(b'"_type_"') == 1:
                    try:
                        fields = loads(state)
                    except orjson.JSONDecodeError:
                        fields = None
                    else:
                        stamp = fields.get("timestamp") if type(fields) is dict else None
                        text = stamp.get("_data_") if type(stamp) is dict else None
                        # what datetime.isoformat() gives for a UTC time, and
                        # nothing else: then the text stored is the timestamp
                        if (
                            type(text) is str
                            and text[-6:] == "+00:00"
                            and (
                                len(text) == 25
                                or (len(text) == 32 and text[19] == "." and text[20:26] != "000000")
                            )
                            and stamp.get("_type_") == "datetime_iso"  # type: ignore[union-attr]
                            and "class_version" not in fields
                        ):
                            fields["timestamp"] = text
                        else:
                            fields = None
                if fields is None or known is None:
                    record = record_of(self._mapped(row, known))
                    others.setdefault(record[0], []).append(i)
                    append(record)
                    continue
                key, fields["originator_id"] = known
                fields["originator_version"] = version
                found = batch.get(topic)
                if found is None:
                    found = batch[topic] = (*self._topic(topic), [])
                found[2].append(i)
                append((found[0], found[1], key, fields))
            except Exception as e:
                _index(records, batch, others)
                return records, e
        _index(records, batch, others)
        return records, None

    def _topic(self, topic: str) -> tuple[type[Any], str]:
        found = self._topics.get(topic)
        if found is None:
            cls = resolve_topic(topic)
            found = self._topics[topic] = (cls, cls.__name__)
        return found

    def _id(self, ident: Any, originator_id: Any) -> tuple[str, UUID] | None:
        """The key and UUID of an aggregate id read for the first time; None
        if it is not a UUID."""
        if ident is None:
            return None
        try:
            uuid = originator_id if type(originator_id) is UUID else UUID(originator_id)
        except (TypeError, ValueError, AttributeError):
            return None
        if len(self._ids) > 10_000:
            self._ids.clear()
        known = self._ids[ident] = (str(uuid), uuid)
        return known

    def _mapped(self, row: Row, known: tuple[str, UUID] | None) -> Any:
        position, originator_id, version, topic, state = row
        if known is not None:
            originator_id = known[1]
        stored = Notification(
            id=position,
            originator_id=originator_id,
            originator_version=version,
            topic=topic,
            state=bytes(state),
        )
        return self.mapper.to_domain_event(stored)

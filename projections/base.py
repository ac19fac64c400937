"""What every projection shares: the base class and the event decoder."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import orjson
from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import JSONTranscoder, Mapper, Notification, Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import resolve_topic

from domain.internals import dispatcher_of, event_from_fields
from projections.view import Transaction, View


class ViewProjection(Projection[View]):
    """A projection that writes through a ``View``.

    ``process_event`` skips an event the view has already projected (so a
    replay after a crash is harmless), then runs ``project`` — dispatched on
    the event's type — inside the view's transaction for that event. An event
    type with no handler only moves the tracking position.
    """

    name = ""

    def __init__(self, view: View) -> None:
        super().__init__(view)
        self._handlers: dict[type[Any], Handler | None] = {}

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        view = self.view
        position = tracking.notification_id
        tx = view.batch_tx
        if tx is not None:
            # Inside a batch (catching up, rebuilding): the hot path, kept lean.
            done = view.batch_position
            if done is not None and position <= done:
                return
            handler = self.handler(type(domain_event))
            if handler is not None:
                handler(self, domain_event, tx, position)
            view.batch_position = position
            return
        if view.is_done(tracking):
            return
        with view.transaction(tracking) as tx:
            handler = self.handler(type(domain_event))
            if handler is not None:
                handler(self, domain_event, tx, position)

    def process_events(self, events: list[Any], positions: list[int]) -> None:
        """``process_event`` for many events inside an open batch, without a
        Tracking object each: the loop a rebuild spends its time in. On an
        error, ``view.batch_position`` is the position of the last event done."""
        view = self.view
        tx = view.batch_tx
        if tx is None:
            raise RuntimeError("process_events needs an open batch")
        done = -1 if view.batch_position is None else view.batch_position
        handlers = self._handlers
        for event, position in zip(events, positions, strict=False):
            if position <= done:
                continue
            cls = type(event)
            handler = handlers[cls] if cls in handlers else self.handler(cls)
            if handler is not None:
                handler(self, event, tx, position)
            view.batch_position = done = position

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events a projection does not read; it must do nothing here."""

    @classmethod
    def handled_event_classes(cls) -> list[type[Any]]:
        """The event types ``project`` has a handler for."""
        return [t for t in dispatcher_of(cls, "project").registry if t is not object]

    def handler(self, event_class: type[Any]) -> Handler | None:
        """The ``project`` implementation for an event type, None for the
        do-nothing default. Resolved once per type: singledispatchmethod's own
        lookup rebuilds a bound method on every call, which a rebuild of a
        million events feels."""
        try:
            return self._handlers[event_class]
        except KeyError:
            pass
        dispatcher = dispatcher_of(type(self), "project")
        found = dispatcher.dispatch(event_class)
        handler = None if found is dispatcher.registry[object] else found
        self._handlers[event_class] = handler
        return handler


Handler = Callable[[ViewProjection, Any, Transaction, int], None]


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


class EventDecoder:
    """Stored notifications back to domain events, as the application's
    mapper would, with a fast path for the common shape.

    Game events hold only JSON values besides their timestamp (domain/chain.py),
    so a stored state whose only transcoded value is that timestamp is decoded
    with a plain ``orjson.loads`` (less than half the time of the standard
    library's); anything else (another transcoded type, a class version, a
    cipher or compressor, an integer beyond 64 bits) goes through the mapper
    itself. Decoding is most of the cost of a rebuild, hence the care.
    """

    def __init__(self, mapper: Mapper[Any]) -> None:
        self.mapper = mapper
        self._plain = (
            mapper.cipher is None
            and mapper.compressor is None
            and isinstance(mapper.transcoder, JSONTranscoder)
        )
        self._classes: dict[str, type[Any]] = {}

    def __call__(self, notification: Notification) -> Any:
        state = notification.state
        if (
            not self._plain
            or not isinstance(notification.originator_id, UUID)
            or state.count(b'"_type_"') != 1
        ):
            return self.mapper.to_domain_event(notification)
        try:
            fields: dict[str, Any] = orjson.loads(state)
        except orjson.JSONDecodeError:
            return self.mapper.to_domain_event(notification)
        stamp = fields.get("timestamp")
        if (
            not isinstance(stamp, dict)
            or stamp.get("_type_") != "datetime_iso"
            or "class_version" in fields
        ):
            return self.mapper.to_domain_event(notification)
        fields["timestamp"] = datetime.fromisoformat(stamp["_data_"])
        fields["originator_id"] = notification.originator_id
        fields["originator_version"] = notification.originator_version
        cls = self._classes.get(notification.topic)
        if cls is None:
            cls = self._classes[notification.topic] = resolve_topic(notification.topic)
        return event_from_fields(cls, fields)

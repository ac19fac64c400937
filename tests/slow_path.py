"""The slow path the read side's fast one is held to, for tests only: one
notification decoded on its own, a record made back into the domain event
the library's mapper makes, and a domain event projected through a view
one at a time (the library's ``Projection.process_event`` interface, which
projections/base.py refuses: the service projects decoded records only)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from eventsourcing.persistence import Notification, Tracking

from projections.base import DecodedEvent, EventDecoder, Fields, ViewProjection, record_of, rows_of


def decoded(decoder: EventDecoder, notification: Notification) -> DecodedEvent:
    """One stored event as the decoder reads it in a page of the log; its
    error raised if it cannot be decoded."""
    records, error = decoder.decode(rows_of([notification]), text_ids=False)
    if error is not None:
        raise error
    return records[0]


def event_of(cls: type[Any], fields: Fields) -> Any:
    """The domain event a record was made from, as the library's mapper
    makes it: the timestamp a ``datetime`` again, the attributes set without
    running the dataclass ``__init__`` (the mapper's own way)."""
    made = dict(fields)
    made["timestamp"] = datetime.fromisoformat(fields["timestamp"])
    event = object.__new__(cls)
    object.__setattr__(event, "__dict__", made)
    return event


def project_event(projection: ViewProjection, domain_event: Any, tracking: Tracking) -> None:
    """Project one domain event, in a transaction of its own or in the
    view's open batch; skipped if the view has projected its position
    already (a replay after a crash is harmless)."""
    view = projection.view
    if view.is_done(tracking):
        return
    cls, kind, key, fields = record_of(domain_event)
    with view.transaction(tracking) as tx:
        handler = projection.handler(cls)
        if handler is not None:
            handler(projection, kind, key, fields, tx, tracking.notification_id)

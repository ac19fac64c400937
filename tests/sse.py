"""Server-sent events as a test reads them from a stream's chunks.

The stream writes the messages that arrive together in one chunk (a move's
events, then its turn offer): a reader splits each chunk into its messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def sse_messages(chunks: Iterable[Any]) -> Iterator[str]:
    """Each message of the stream (its text, without the blank line after it)."""
    pending = ""
    for chunk in chunks:
        pending += chunk.decode() if isinstance(chunk, bytes) else chunk
        *complete, pending = pending.split("\n\n")
        yield from complete


def fields(message: str) -> dict[str, str]:
    """A message's fields: ``id``, ``event``, ``data`` (the last of each)."""
    found: dict[str, str] = {}
    for line in message.split("\n"):
        name, sep, value = line.partition(": ")
        if sep and not line.startswith(":"):
            found[name] = value
    return found


def data(message: str) -> Any:
    """A message's data, decoded."""
    return json.loads(fields(message)["data"])

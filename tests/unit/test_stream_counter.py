"""The benches' and e2e tests' count of events on a raw stream: however the
socket splits the bytes, each event's id line is counted once."""

from __future__ import annotations

import random

from bench.streams import count_ids


def _stream(events: int) -> bytes:
    """A chunked server-sent-event body as the stream service writes it."""
    body = b""
    for version in range(1, events + 1):
        event = f'id: {version}\nevent: Moved\ndata: {{"version": {version}}}\n\n'.encode()
        body += f"{len(event):x}\r\n".encode() + event + b"\r\n"
    return b"\n" + body  # the client's start after the head: "\n" stands for its "\r\n\r\n"


def _counted(body: bytes, cuts: list[int]) -> int:
    total, tail, start = 0, b"", 0
    for cut in [*cuts, len(body)]:
        counted, tail = count_ids(tail, body[start:cut])
        total, start = total + counted, cut
    return total


def test_every_single_cut_counts_each_event_once() -> None:
    body = _stream(5)
    for cut in range(len(body) + 1):
        assert _counted(body, [cut]) == 5, cut


def test_cuts_on_every_byte_count_each_event_once() -> None:
    body = _stream(4)
    assert _counted(body, list(range(1, len(body)))) == 4


def test_random_cuts_count_each_event_once() -> None:
    rng = random.Random(7)
    body = _stream(60)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(body)), rng.randint(1, 40)))
        assert _counted(body, cuts) == 60, cuts

"""The running service's parts, as the request handlers reach them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from api.ratelimit import Limiter
from api.stream_backlog import Backlogs
from api.stream_slots import StreamSlots
from domain.application import Opus
from infra.broker import Broker
from infra.challenges import Challenges, InProcessChallenges
from infra.idempotency import ResponseCache
from infra.settings import (
    DEFAULT_INACTIVITY_SECONDS,
    DEFAULT_QUERY_WAIT_SECONDS,
    DEFAULT_READY_MAX_LAG,
    DEFAULT_READY_MAX_SILENCE,
)
from projections.queries import Queries


@dataclass
class Services:
    opus: Opus  # the application service: every command, and the decisions
    broker: Broker
    responses: ResponseCache
    views: Queries  # the read side
    query_wait_seconds: float = DEFAULT_QUERY_WAIT_SECONDS
    inactivity_seconds: float = DEFAULT_INACTIVITY_SECONDS  # R3.5: before a seat may be withdrawn
    ready_max_lag: int = DEFAULT_READY_MAX_LAG  # /readyz: 503 past this lag of a view
    # /readyz: 503 past this silence of a projection's runner (0: not looked at)
    ready_max_silence: float = DEFAULT_READY_MAX_SILENCE
    # the event streams this process serves at once (api/stream.py): none by default
    streams: StreamSlots = field(default_factory=lambda: StreamSlots(0))
    # the logs of the games it streams, as its streams first write them
    backlogs: Backlogs = field(default_factory=Backlogs)
    # passkey ceremonies' challenges and keys shown once (infra/challenges.py)
    challenges: Challenges = field(default_factory=InProcessChallenges)
    sign_in_limiter: Limiter | None = None  # the web client's sign-up and sign-in posts
    rp_id: str = ""  # WebAuthn's relying party ("": the request's host) and origin
    origin: str = ""
    closers: list[Any] = field(default_factory=list)
    receipts: Any = None  # infra/receipts/service.py's Receipts; None with OPUS_RECEIPTS=0

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def services() -> Services:
    return current_app.extensions["opus"]  # type: ignore[no-any-return]

"""A seat's turn offer: when its turn comes, its hand and every move it may
make, on its own live stream.

A client moving at its turn needs its cards and its legal moves. Asked with
``GET /games/{id}/legal-moves`` before every move, they were a request and a
read of the store per move, a fifth of the API's CPU (bench/live.py's
profile). The process that saved a move holds the game as saved, so it
decides the offer there and then, for the seat whose turn it now is, and
publishes it on that seat's own channel (``infra.broker.seat_key``); the
stream service writes it to the streams of that seat alone
(``domain.disclosure.sees_turn_offer``: api/stream.py subscribes a stream
to its seat's channel only when its token holds that seat). The GET stays:
the same moves, asked for.

The offer is the legal-moves answer with the seat's hand, in the game's
version it was decided at::

    {"seat": 0, "version": 7, "hand": [12, 40, …], "moves": [{"method": "POST",
     "path": "/games/<id>/discard", "body": {"card": 12}}, …], "reason": null}

A stream writes it as ``event: turn`` (no ``id``: it is no event of the log).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from uuid import UUID

import orjson

from api.commands_http import legal_moves_answer
from api.json_provider import OPTIONS
from api.runtime import Services
from domain import legal
from domain.application import LegalMoves, why_none
from domain.audit import Record
from domain.events import EVENT_TYPES
from domain.game import Game
from domain.state import GameState
from infra.broker import seat_key
from infra.logthrottle import LogThrottle

log = logging.getLogger(__name__)
_failures = LogThrottle(log)


def offer_of(game_id: UUID, state: GameState, version: int) -> tuple[int, str] | None:
    """The seat whose turn it is and its offer (JSON), or None when the game
    is not running (no seat has a turn)."""
    if state.status != "running":
        return None
    seat = state.turn
    moves = LegalMoves(seat, version, legal.legal_moves(state, seat), why_none(state, seat))
    document = {**legal_moves_answer(game_id, moves), "hand": list(state.hands[seat])}
    return seat, orjson.dumps(document, option=OPTIONS).decode()


def current_offer(svc: Services, game_id: UUID, seat: int) -> tuple[int, str] | None:
    """The offer of ``seat`` now, if it is its turn: (version, JSON), read from
    the game caught up with the store (a stream opening, or told to resync)."""
    with svc.opus.reading(game_id) as (state, version):
        made = offer_of(game_id, state, version)
    if made is None or made[0] != seat:
        return None
    return version, made[1]


def publisher(svc: Services) -> Callable[[list[Record]], None]:
    """The application listener that publishes, after each save of a running
    game, the offer of the seat whose turn it now is. It runs in the thread
    that saved, which holds the game's lock: the cached game is the one just
    saved, read without a store read. A game whose cached copy is not at the
    version just saved (another save went on meanwhile, in a save that holds
    no lock of the game) gets no offer from this save: the next save's, or
    the stream's own (``current_offer``), stands for it."""

    def publish(records: list[Record]) -> None:
        saved: dict[str, int] = {}
        for record in records:
            if record.type in EVENT_TYPES:
                saved[record.aggregate_id] = record.version
        for aggregate_id, version in saved.items():
            game_id = UUID(aggregate_id)
            try:
                game = svc.opus.runner.load(game_id, Game)
                if game.version != version:
                    continue
                made = offer_of(game_id, game.state, version)
                if made is None:
                    continue
                seat, offer = made
                svc.broker.publish(seat_key(aggregate_id, seat), offer)
            except Exception as e:  # saved already: the client may still ask (GET legal-moves)
                _failures.failed("turn offers not published", e)

    return publish

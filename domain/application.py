"""The application service: every command and query on games.

Commands load the Game, call one method, save, and return where the events
landed (position) and the game's new version. The aggregate cache keeps a
command cheap however long the game; a clash with another writer is retried
by reloading and re-deciding, unless the command said which version it
expected.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError, Recording

from domain import engine, legal
from domain.audit import Record
from domain.chained import Chained
from domain.errors import (
    GameNotFoundError,
    IdempotencyConflictError,
    NotAuthorisedError,
    NotOrganiserError,
    NotSeatedError,
    RuleError,
    SetupError,
    VersionClashError,
    WithdrawalError,
)
from domain.game import Game
from domain.internals import evict
from domain.moves import Move, for_seat
from domain.names import check_unique, player_name
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.tournaments.service import Tournaments

log = logging.getLogger(__name__)
RETRIES = 5
LOCK_STRIPES = 256


@dataclass(frozen=True)
class Outcome:
    position: int | None  # notification id of the command's last event
    version: int  # the game's version after the command
    seat: int | None = None  # for join
    # True when the command id was seen before: nothing was applied again, and
    # the position of the first outcome is not known here (None).
    replayed: bool = False
    game_id: UUID | None = None  # for create


COMMAND_IDS = uuid.UUID("6f1c9b54-3a0e-4f4e-9a65-0d8e8e0b6b1a")


def game_id_for(command: str) -> UUID:
    """A game created under a command id gets an id derived from it, so a
    retried create finds the game it made the first time."""
    return uuid.uuid5(COMMAND_IDS, command)


class Opus(Application[UUID]):
    name = "Opus"
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "1000",
        # Commands decide on the cached game as it is: if another process
        # wrote to the game meanwhile, saving clashes and the command is
        # re-decided on the reloaded game. Queries bring it up to date first
        # (``_game(fresh=True)``).
        "AGGREGATE_CACHE_FASTFORWARD": "n",
        # Commands mutate the cached game in place (no copy per command); a
        # command that fails after mutating it evicts it.
        "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
    }

    def __init__(self, env: dict[str, str] | None = None) -> None:
        super().__init__(env)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]
        # Called with the records of every command after it is saved, in the
        # auditor's form (the API's live streams listen here).
        self.listeners: list[Callable[[list[Record]], None]] = []
        self.tournaments = Tournaments(self)

    def tell_listeners(
        self, recordings: list[Recording[UUID]], aggregates: Sequence[Chained]
    ) -> None:
        """Tell the listeners what a command saved; it is saved already, so a
        listener's failure is logged and never turns its answer into an error."""
        if self.listeners:
            records = saved_records(aggregates, recordings)
            for listener in self.listeners:
                try:
                    listener(records)
                except Exception:
                    log.exception("a listener failed on saved events")
        for aggregate in aggregates:
            aggregate.sealed.clear()

    # ---- commands --------------------------------------------------------

    def create_game(self, variant: RuleSet | None = None, **kwargs: Any) -> UUID:
        """Shorthand for ``create(...).game_id``."""
        game_id = self.create(variant, **kwargs).game_id
        assert game_id is not None
        return game_id

    def create(
        self,
        variant: RuleSet | None = None,
        *,
        secret: bytes | None = None,
        organiser_hash: str = "",
        command: str = "",
    ) -> Outcome:
        """A new game; with a command id, a retry returns the same game, and
        the same key with another variant is an IdempotencyConflictError."""
        game_id = game_id_for(command.partition(":")[0]) if command else None
        variant = variant or RuleSet()
        game = Game.create(variant, id=game_id, secret=secret, organiser_hash=organiser_hash)
        try:
            recordings = self.save(game)
        except IntegrityError:
            if game_id is None:
                raise
            made = self._game(game_id).state.variant  # it exists: a retry of that create?
            if made != variant:
                raise IdempotencyConflictError(
                    "this Idempotency-Key created a game under another rule-set variant; "
                    "use a new key for a new game"
                ) from None
            return Outcome(None, 1, replayed=True, game_id=game_id)
        self.tell_listeners(recordings, [game])
        return Outcome(recordings[-1].notification.id, game.version, game_id=game.id)

    def join(
        self,
        game_id: UUID,
        name: str,
        contribution: str = "",
        *,
        token_hash: str = "",
        command: str = "",
    ) -> Outcome:
        """R2.1: the next seat, under a name ``domain.names`` accepts."""
        seat: list[int] = []
        recorded = player_name(name)

        def join(game: Game) -> None:
            check_unique(recorded, game.state.names)
            if token_hash and token_hash in game.state.token_hashes:
                raise SetupError("this token holds a seat in this game already")
            seat.append(game.join(recorded, contribution, token_hash, command))

        outcome = self._command(game_id, join, command)
        return Outcome(
            outcome.position, outcome.version, seat[-1] if seat else None, outcome.replayed
        )

    def start(
        self, game_id: UUID, *, command: str = "", organiser_hash: str | None = None
    ) -> Outcome:
        """R2.2: deal and begin. With ``organiser_hash`` (the caller's token
        hash), only the game's organiser may start it."""

        return self._command(
            game_id, lambda g: g.start(command), command, authorise=organiser(organiser_hash)
        )

    def play(
        self,
        game_id: UUID,
        move: Move,
        expected_version: int | None = None,
        *,
        command: str = "",
        token_hash: str | None = None,
    ) -> Outcome:
        """One move. With ``token_hash`` (the caller's token hash) the move is
        made for the seat that token holds, whatever its ``player`` says
        (NotSeatedError if it holds none): the seat is decided here, under
        the game's lock, for every entry point alike."""

        seat: list[int] = []

        def authorise(game: Game) -> None:
            if token_hash is not None:
                seat[:] = [seat_of(game.state, token_hash)]

        def play(game: Game) -> None:
            game.play(for_seat(move, seat[0]) if seat else move, command)

        return self._command(game_id, play, command, expected_version, authorise=authorise)

    def remove_seat(
        self,
        game_id: UUID,
        seat: int,
        *,
        command: str = "",
        organiser_hash: str | None = None,
    ) -> Outcome:
        """Before the start, remove a seat (its player never came, or left);
        with ``organiser_hash``, only the organiser may."""

        def remove(game: Game) -> None:
            check_not_tournament(game)
            game.remove_seat(seat, command)

        return self._command(
            game_id,
            remove,
            command,
            authorise=organiser(organiser_hash),
        )

    def withdraw(
        self,
        game_id: UUID,
        seat: int,
        *,
        command: str = "",
        organiser_hash: str | None = None,
        idle_seconds: float | None = None,
    ) -> Outcome:
        """R3.5: withdraw a seat. With ``organiser_hash``, only the organiser
        may; with ``idle_seconds``, only the seat whose turn it is, once the
        game has waited that long for it (a player who walked away)."""

        def withdraw(game: Game) -> None:
            check_not_tournament(game)
            if idle_seconds is not None:
                check_idle(game, seat, idle_seconds)
            game.withdraw(seat, command)

        return self._command(game_id, withdraw, command, authorise=organiser(organiser_hash))

    def _command(
        self,
        game_id: UUID,
        act: Callable[[Game], Any],
        command: str = "",
        expected_version: int | None = None,
        *,
        authorise: Callable[[Game], None] | None = None,
    ) -> Outcome:
        """Run ``act`` on the game and save. ``authorise`` checks the caller
        first, on every try and before a retried command is answered: a
        command id is public (it is in the log), a token is not."""
        with self._lock(game_id):
            for _ in range(RETRIES):
                game = self._game(game_id)
                if authorise is not None:
                    self._authorise(game, authorise)
                replayed = game.replay_of(command) if command else None
                if replayed is not None:
                    return Outcome(None, replayed, replayed=True)
                if expected_version is not None and game.version != expected_version:
                    if self._catch_up(game):
                        continue  # the cached game was behind: look again
                    raise VersionClashError(
                        f"game {game_id} is at version {game.version}, not {expected_version}"
                    )
                try:
                    act(game)
                    with self.tournaments.results_of(game) as tournaments:
                        recordings = self.save(game, *tournaments)
                except IntegrityError:
                    self._evict(game_id)
                    if expected_version is not None:
                        raise VersionClashError(
                            f"game {game_id} changed since version {expected_version}"
                        ) from None
                    continue
                except RuleError:
                    # Refused before anything was triggered. The cached game may
                    # be behind another process's writes: decide again on the
                    # latest before refusing.
                    if game.pending_events:
                        self._evict(game_id)
                        raise
                    if self._catch_up(game):
                        continue
                    raise
                except BaseException:
                    self._evict(game_id)
                    raise
                self.tell_listeners(recordings, [game, *tournaments])
                position = recordings[-1].notification.id if recordings else 0
                return Outcome(position, game.version)
            raise VersionClashError(f"game {game_id} kept changing; gave up after {RETRIES} tries")

    def _authorise(self, game: Game, authorise: Callable[[Game], None]) -> None:
        """``authorise``, once more on the latest game if it refuses the cached
        one (a seat taken through another process), then refused for good."""
        try:
            authorise(game)
        except NotAuthorisedError:
            if not self._catch_up(game):
                raise
            authorise(game)

    def locks_of(self, game_ids: list[UUID]) -> list[threading.Lock]:
        """The locks of several games, each once, in the one order."""
        stripes = sorted({game_id.int % len(self._locks) for game_id in game_ids})
        return [self._locks[i] for i in stripes]

    def _lock(self, game_id: UUID) -> threading.Lock:
        """One of a fixed set of locks: a game's commands and reads in this
        process take turns; memory stays bounded however many games."""
        return self._locks[game_id.int % len(self._locks)]

    def _catch_up(self, game: Chained) -> bool:
        """Apply the events other processes saved since ``game`` was cached;
        True if there were any."""
        new = list(self.events.get(game.id, gt=game.version))
        for event in new:
            event.mutate(game)  # type: ignore[attr-defined]
        return bool(new)

    def _evict(self, game_id: UUID) -> None:
        evict(self, game_id)

    def _game(self, game_id: UUID, *, fresh: bool = False) -> Game:
        try:
            game: Any = self.repository.get(game_id)
        except AggregateNotFoundError:
            raise GameNotFoundError(f"no game {game_id}") from None
        if not isinstance(game, Game):
            raise GameNotFoundError(f"no game {game_id}")
        if fresh:
            self._catch_up(game)
        return game

    # ---- queries -----------------------------------------------------------

    def state(self, game_id: UUID) -> GameState:
        """The full state, hidden information included: for bots, simulation and
        tests in one thread. It is the live object: threads use ``reading``."""
        with self._lock(game_id):
            return self._game(game_id, fresh=True).state

    @contextlib.contextmanager
    def reading(self, game_id: UUID) -> Iterator[tuple[GameState, int]]:
        """The game's state and version, held still while the caller reads."""
        with self._lock(game_id):
            game = self._game(game_id, fresh=True)
            yield game.state, game.version

    def version(self, game_id: UUID) -> int:
        with self._lock(game_id):
            return self._game(game_id, fresh=True).version

    def legal_moves(self, game_id: UUID, seat: int) -> list[Move]:
        with self.reading(game_id) as (state, _):
            return legal.legal_moves(state, seat)

    def legal_moves_of(self, game_id: UUID, token_hash: str) -> LegalMoves:
        """Every move the engine would accept now from the seat a token holds."""
        with self.reading(game_id) as (state, version):
            seat = seat_of(state, token_hash)
            return LegalMoves(seat, version, legal.legal_moves(state, seat), why_none(state, seat))


@dataclass(frozen=True)
class LegalMoves:
    seat: int
    version: int
    moves: list[Move]
    reason: str | None  # why there are none, when there are none


def why_none(state: GameState, seat: int) -> str | None:
    """Why a seat has no legal move now (None when it may move): what the
    engine would answer a move (R2.1 not started, R7.1 over, R3.4 not its turn)."""
    try:
        engine.check_turn(state, seat)
    except RuleError as e:
        return str(e)
    return None


def saved_records(aggregates: Sequence[Chained], recordings: list[Recording[UUID]]) -> list[Record]:
    """The records of events just saved, in the auditor's form
    (domain/disclosure.py): sealed as the chain sealed them (``sealed``), or
    sealed here should that be missing, never in clear while the game runs
    (or the tournament); whole once it has ended (R9.3, T9.3)."""
    by_id = {aggregate.id: aggregate for aggregate in aggregates}
    records = []
    for recording in recordings:
        aggregate = by_id[recording.domain_event.originator_id]
        record = Record.of_event(recording.domain_event, recording.notification.id)
        sealed = None if aggregate.ended else aggregate.sealed.get(record.version)
        if sealed is not None:
            records.append(record.sealed_as(sealed))
        else:
            records.append(record.for_auditor(aggregate.ended, aggregate.chain_secret))
    return records


def seat_of(state: GameState, token_hash: str) -> int:
    """The seat whose token has this hash; NotSeatedError if none has."""
    for seat, stored in enumerate(state.token_hashes):
        if stored and hmac.compare_digest(stored, token_hash):
            return seat
    raise NotSeatedError()


def check_idle(game: Game, seat: int, idle_seconds: float) -> None:
    """R3.5: the seat in turn has not moved for ``idle_seconds``."""
    state = game.state
    if not 0 <= seat < state.players:
        raise WithdrawalError(f"there is no seat {seat} in this game")
    if state.status == "running" and state.turn != seat:
        raise WithdrawalError(
            f"it is {state.names[state.turn]}'s turn: only the seat whose turn it is "
            "can be withdrawn for not moving"
        )
    waited = (datetime.now(UTC) - game.modified_on).total_seconds()
    if state.status == "running" and waited < idle_seconds:
        raise WithdrawalError(
            f"{state.names[seat]} has had the turn for {waited:.0f} s; a seat can be "
            f"withdrawn for not moving after {idle_seconds:.0f} s"
        )


def check_not_tournament(game: Game) -> None:
    """T2.2: in a tournament's games a seat is withdrawn only through its
    player's drop (and seats are the pairing's)."""
    if game.tournament:
        raise WithdrawalError(
            "in a tournament's game a seat is withdrawn only by its player's drop", "T2.2"
        )


def organiser(token_hash: str | None) -> Callable[[Game], None]:
    """The check that the caller is the game's organiser (none without a hash:
    the service's own callers)."""

    def authorise(game: Game) -> None:
        if token_hash is not None:
            check_organiser(game.state, token_hash)

    return authorise


def check_organiser(state: GameState, token_hash: str) -> None:
    if not (state.organiser_hash and hmac.compare_digest(state.organiser_hash, token_hash)):
        raise NotOrganiserError()

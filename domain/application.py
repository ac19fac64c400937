"""The application service: the one object every entry point uses.

``Opus`` is the eventsourcing application (the store, the aggregate cache)
with the command pipeline on it (``domain/pipeline.py``): the game
commands below and the tournament commands (``Opus.tournaments``,
``domain/tournaments/commands.py``) are each a ``Command`` handed to the
one ``Runner``, with the ``Caller`` the entry point read from its request.
The tournaments' claim on a game's end (T5.1, T9.1) is a save policy the
runner asks; games know nothing of tournaments.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import Recording

from domain import engine, legal
from domain.accounts.aggregate import ADMISSIONS, Admission, Private, admission_id
from domain.accounts.commands import AccountCommands
from domain.audit import Record
from domain.chained import Chained
from domain.errors import (
    AdmissionNotSetError,
    NotInvitedError,
    NotOrganiserError,
    NotSeatedError,
    RuleError,
    SetupError,
    WithdrawalError,
)
from domain.game import Game
from domain.moves import Move, for_seat
from domain.names import check_no_bot_claim, check_unique, player_name
from domain.pipeline import SERVICE, Caller, Command, CommandOutcome, Runner, Unit, holds, id_for
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.tournaments.aggregate import Tournament
from domain.tournaments.commands import TournamentCommands, TournamentResults

log = logging.getLogger(__name__)


class Opus(Application[UUID]):
    name = "Opus"
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "1000",
        # Commands decide on the cached aggregate as it is: if another process
        # wrote to it meanwhile, saving clashes and the command is decided
        # again on the reloaded one. Queries bring it up to date first.
        "AGGREGATE_CACHE_FASTFORWARD": "n",
        # Commands mutate the cached aggregate in place (no copy per command);
        # a command that fails after mutating it evicts it.
        "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
    }

    def __init__(self, env: dict[str, str] | None = None) -> None:
        super().__init__(env)
        self.runner = Runner(self)
        self.runner.policies.append(TournamentResults())
        self.runner.on_saved = self.tell_listeners
        # Called with the records of every command after it is saved, in the
        # auditor's form (the API's live streams listen here).
        self.listeners: list[Callable[[list[Record]], None]] = []
        self.tournaments = TournamentCommands(self.runner)
        self.accounts = AccountCommands(self.runner)

    def tell_listeners(
        self, recordings: list[Recording[UUID]], aggregates: Sequence[Chained]
    ) -> None:
        """Tell the listeners what a command saved; it is saved already, so a
        listener's failure is logged and never turns its answer into an error.
        A listener that can fail on every command (the live streams' publisher
        while Redis is down) catches and throttles its own failures."""
        if not self.listeners:
            return
        records = saved_records(aggregates, recordings)
        if not records:
            return
        for listener in self.listeners:
            try:
                listener(records)
            except Exception:
                log.exception("a listener failed on saved events")

    # ---- commands --------------------------------------------------------

    def create_game(
        self,
        variant: RuleSet | None = None,
        *,
        caller: Caller = SERVICE,
        secret: bytes | None = None,
    ) -> UUID:
        """Shorthand for ``create(...).aggregate_id``."""
        return self.create(variant, caller=caller, secret=secret).aggregate_id

    def create(
        self,
        variant: RuleSet | None = None,
        *,
        caller: Caller = SERVICE,
        secret: bytes | None = None,
        admission: str = "open",
    ) -> CommandOutcome:
        """A new game, its organiser the caller; with a command id, a retry
        returns the same game, and the same key with another variant is an
        IdempotencyConflictError. ``admission``: who may join, "open"
        (anyone) or "invitation" (with ``invitation_code``; the organiser too)."""
        if admission not in ADMISSIONS:
            raise SetupError(f"who may join: one of {', '.join(ADMISSIONS)}")
        variant = variant or RuleSet()
        game = Game.create(
            variant,
            id=id_for(caller.command) if caller.command else None,
            secret=secret,
            organiser_hash=caller.token_hash or "",
        )
        return self.runner.create(
            game,
            caller,
            lambda made: made.state.variant == variant,
            "this Idempotency-Key created a game under another rule-set variant; "
            "use a new key for a new game",
            also=[Admission.set(game.id, admission)] if admission != "open" else [],
        )

    def join(
        self,
        game_id: UUID,
        name: str,
        contribution: str = "",
        *,
        caller: Caller = SERVICE,
        invitation: str | None = None,
        bot: bool = False,
    ) -> CommandOutcome:
        """R2.1: the next seat, under a name ``domain.names`` accepts, holding
        the caller's token; the outcome's value is the seat. A game by
        invitation takes its organiser, and others with its invitation code.
        A caller with a token may not claim a bot (its name, a ``bot:``
        contribution) unless it is the service seating one (``bot``)."""
        recorded = player_name(name)
        if caller.token_hash is not None and not bot:
            check_no_bot_claim(recorded, contribution, SetupError)
        token = caller.token_hash or ""

        def join(game: Game, unit: Unit, caller: Caller) -> int:
            if not game.tournament:
                check_admitted(game, unit, caller, invitation)
            check_unique(recorded, game.state.names)
            if token and token in game.state.token_hashes:
                raise SetupError("this token holds a seat in this game already")
            return game.join(recorded, contribution, token, caller.command)

        def touches(game: Game) -> list[UUID]:
            return [] if game.tournament else [admission_id(game.id)]

        return self.runner.run(Command(game_id, Game, join, touches=touches), caller)

    def start(self, game_id: UUID, *, caller: Caller = SERVICE) -> CommandOutcome:
        """R2.2: deal and begin; only the game's organiser may."""

        def start(game: Game, unit: Unit, caller: Caller) -> None:
            game.start(caller.command)

        return self.runner.run(Command(game_id, Game, start, organiser), caller)

    def play(self, game_id: UUID, move: Move, *, caller: Caller = SERVICE) -> CommandOutcome:
        """One move, made for the seat the caller's token holds, whatever the
        move's ``player`` says (NotSeatedError if it holds none): the seat is
        decided here, under the game's lock, for every entry point alike. The
        service's own callers move for the seat the move names."""

        def play(game: Game, unit: Unit, caller: Caller) -> None:
            if caller.token_hash is not None:
                move_ = for_seat(move, seat_of(game.state, caller.token_hash))
            else:
                move_ = move
            game.play(move_, caller.command)

        return self.runner.run(Command(game_id, Game, play, seated), caller)

    def remove_seat(self, game_id: UUID, seat: int, *, caller: Caller = SERVICE) -> CommandOutcome:
        """Before the start, remove a seat (its player never came, or left);
        only the organiser may."""

        def remove(game: Game, unit: Unit, caller: Caller) -> None:
            check_not_tournament(game)
            game.remove_seat(seat, caller.command)

        return self.runner.run(Command(game_id, Game, remove, organiser), caller)

    def withdraw(
        self,
        game_id: UUID,
        seat: int,
        *,
        caller: Caller = SERVICE,
        idle_seconds: float | None = None,
    ) -> CommandOutcome:
        """R3.5: withdraw a seat; only the organiser may. With
        ``idle_seconds``, only the seat whose turn it is, once the game has
        waited that long for it (a player who walked away)."""

        def withdraw(game: Game, unit: Unit, caller: Caller) -> None:
            check_not_tournament(game)
            if idle_seconds is not None:
                check_idle(game, seat, idle_seconds)
            game.withdraw(seat, caller.command)

        return self.runner.run(Command(game_id, Game, withdraw, organiser), caller)

    # ---- clocks (R11) -------------------------------------------------------

    def expire(self, game_id: UUID, *, caller: Caller = SERVICE) -> CommandOutcome:
        """R11.4: record what a passed deadline owes (the scheduler's
        command; the organiser's too). Refused when nothing is owed."""

        def expire(game: Game, unit: Unit, caller: Caller) -> None:
            game.expire(caller.command)

        return self.runner.run(Command(game_id, Game, expire, organiser), caller)

    def add_time(
        self,
        game_id: UUID,
        seat: int,
        seconds: int,
        reason: str,
        by: str,
        *,
        caller: Caller = SERVICE,
    ) -> CommandOutcome:
        """R11.6: the organiser gives a seat more time."""

        def add(game: Game, unit: Unit, caller: Caller) -> None:
            game.add_time(seat, seconds, reason, by, caller.command)

        return self.runner.run(Command(game_id, Game, add, organiser), caller)

    def pause_clocks(
        self, game_id: UUID, reason: str, by: str, *, caller: Caller = SERVICE
    ) -> CommandOutcome:
        """R11.6: the organiser pauses the game's clocks."""

        def pause(game: Game, unit: Unit, caller: Caller) -> None:
            game.pause(reason, by, caller.command)

        return self.runner.run(Command(game_id, Game, pause, organiser), caller)

    def resume_clocks(
        self, game_id: UUID, reason: str, by: str, *, caller: Caller = SERVICE
    ) -> CommandOutcome:
        """R11.6: the organiser runs the game's clocks again."""

        def resume(game: Game, unit: Unit, caller: Caller) -> None:
            game.resume(reason, by, caller.command)

        return self.runner.run(Command(game_id, Game, resume, organiser), caller)

    # ---- queries -----------------------------------------------------------

    def organises(self, aggregate_id: UUID, token_hash: str) -> bool:
        """Whether the token hash is a game's or a tournament's organiser's.
        The organiser is recorded at creation and never changes, so the
        cached copy answers (no read of the store for a table page's every
        refresh)."""
        try:
            found: Any = self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return False
        if not isinstance(found, Game | Tournament):
            return False
        return holds(found.state.organiser_hash, token_hash)

    def invitation_code(self, game_id: UUID) -> str | None:
        """The code of a game by invitation (None for an open one): for its
        organiser's invitation link. It is derived from the game's secret
        (R9.1), so nothing more is kept, and it opens nothing once the game
        has started (no one joins then)."""
        if self.accounts.admission(game_id) == "open":
            return None
        with self.reading(game_id) as (state, _):
            return invitation_of(state)

    def game(self, game_id: UUID) -> Game:
        """The game, caught up with the store: for bots, simulation and tests
        in one thread. It is the live object: threads use ``reading``."""
        with self.runner.reading(game_id, Game) as game:
            return game

    def state(self, game_id: UUID) -> GameState:
        """The full state, hidden information included (``game``'s)."""
        return self.game(game_id).state

    @contextmanager
    def reading(self, game_id: UUID) -> Iterator[tuple[GameState, int]]:
        """The game's state and version, held still while the caller reads."""
        with self.runner.reading(game_id, Game) as game:
            yield game.state, game.version

    def version(self, game_id: UUID) -> int:
        with self.reading(game_id) as (_, version):
            return version

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
        if isinstance(aggregate, Private):
            continue  # the service's own: never told
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
        if holds(stored, token_hash):
            return seat
    raise NotSeatedError()


def check_idle(game: Game, seat: int, idle_seconds: float) -> None:
    """R3.5: the seat in turn has not moved for ``idle_seconds``."""
    state = game.state
    if not 0 <= seat < state.players:
        raise WithdrawalError(f"there is no seat index {seat} in this game")
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


def invitation_of(state: GameState) -> str:
    mac = hmac.new(bytes.fromhex(state.secret), b"opus:invitation", hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:18]).decode()


def check_admitted(game: Game, unit: Unit, caller: Caller, invitation: str | None) -> None:
    """Who may join a lobby game: anyone, unless it is by invitation
    (``Admission``); then its organiser, the service, and whoever brings its code."""
    unit.runner.placement(admission_id(game.id), game.id)
    try:
        mode = unit.get(admission_id(game.id), Admission).mode
    except AdmissionNotSetError:
        return
    if mode == "open" or caller.token_hash is None:
        return
    if holds(game.state.organiser_hash, caller.token_hash):
        return
    if invitation is None or not hmac.compare_digest(
        invitation.encode(), invitation_of(game.state).encode()
    ):
        raise NotInvitedError()


def organiser(game: Game, caller: Caller) -> None:
    """Only the game's organiser may (the service's own callers too)."""
    if caller.token_hash is not None:
        check_organiser(game.state, caller.token_hash)


def seated(game: Game, caller: Caller) -> None:
    """Only a seat's holder may (the service's own callers too)."""
    if caller.token_hash is not None:
        seat_of(game.state, caller.token_hash)


def check_organiser(state: GameState, token_hash: str) -> None:
    if not holds(state.organiser_hash, token_hash):
        raise NotOrganiserError()

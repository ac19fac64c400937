"""The tournaments' side of the application service (``Opus.tournaments``).

Every tournament command loads the Tournament, decides, and saves it with
the games it touches in one transaction: a pairing with the games it
creates and starts (T3, T4, T1.4), a drop with the seats it withdraws
(T2.2). A tournament game's end is recorded the other way round: the game
command that ends it saves the result (T5.1) and, for the round's last game,
the seal (T9.1), in the same transaction as GameEnded
(``Opus._command`` asks ``results_of``). So a result is recorded exactly
once, whatever crashes: both are stored, or neither is, and the retried
command decides again on what was stored.

Locks, in this one order: the games' (``Opus._lock``), then the
tournaments' own. Writers in other processes are met with the store's
optimistic concurrency: a clash is retried on reloaded aggregates.
"""

from __future__ import annotations

import contextlib
import hmac
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain import engine
from domain.errors import (
    CreationError,
    IdempotencyConflictError,
    NotTournamentOrganiserError,
    RuleError,
    TournamentNotFoundError,
    VersionClashError,
)
from domain.game import Game
from domain.internals import evict
from domain.ruleset import RuleSet
from domain.tournaments.aggregate import Tournament
from domain.tournaments.decide import TableGame
from domain.tournaments.tables import TableSizes

if TYPE_CHECKING:
    from domain.application import Opus, Outcome

RETRIES = 5
T = TypeVar("T")


class Tournaments:
    def __init__(self, app: Opus) -> None:
        self.app = app
        self._lock = threading.RLock()

    # ---- commands ------------------------------------------------------------

    def create(
        self,
        name: str,
        organiser_hash: str,
        *,
        rules: RuleSet | None = None,
        sizes: tuple[int, int, int] | None = None,
        command: str = "",
        **options: Any,
    ) -> tuple[UUID, Outcome]:
        """T1.1: a new tournament; returns its id and where it was saved."""
        from domain.application import Outcome, game_id_for

        try:
            table_sizes = TableSizes(*sizes) if sizes else TableSizes()
        except ValueError as e:
            raise CreationError(str(e)) from None
        tournament_id = game_id_for("tournament:" + command.partition(":")[0]) if command else None
        tournament = Tournament.create(
            name, organiser_hash, rules=rules, sizes=table_sizes, id=tournament_id, **options
        )
        try:
            recordings = self.app.save(tournament)
        except IntegrityError:
            if tournament_id is None:
                raise
            made = self.get(tournament_id)  # it exists: a retry of that create?
            if settings_of(made) != settings_of(tournament):
                raise IdempotencyConflictError(
                    "this Idempotency-Key created a tournament with other settings; "
                    "use a new key for a new tournament"
                ) from None
            return tournament_id, Outcome(None, 1, replayed=True)
        return tournament.id, Outcome(recordings[-1].notification.id, tournament.version)

    def register(
        self, tournament_id: UUID, name: str, contribution: str, token_hash: str, command: str = ""
    ) -> tuple[int, Outcome]:
        """T2.1: returns the registration number (on a retry, the first's,
        found by its token; 0 for a retry without one)."""
        number: list[int] = []

        def act(t: Tournament) -> list[Game]:
            number.append(t.register(name, contribution, token_hash, command))
            return []

        outcome = self._command(tournament_id, act, command)
        if not number:  # a retry: the registration the token made
            found = self.player_of(tournament_id, token_hash) if token_hash else None
            number.append(found or 0)
        return number[0], outcome

    def drop(
        self,
        tournament_id: UUID,
        player: int,
        *,
        token_hash: str | None = None,
        command: str = "",
        expected_version: int | None = None,
    ) -> Outcome:
        """T2.2: by the organiser, or by the player (``token_hash``: the
        caller's; none for the service's own callers). The player's running
        seats are withdrawn in the same transaction."""

        def authorise(t: Tournament) -> None:
            if token_hash is not None and t.state.player_of(token_hash) != player:
                check_organiser(t, token_hash)

        def act(t: Tournament) -> list[Game]:
            t.drop(player, command)
            games = []
            for game_id in t.state.running_games_of(player):
                game = self.app._game(game_id, fresh=True)
                game.withdraw(t.state.games[game_id][1].players.index(player), command)
                self.record_if_ended(t, game)
                games.append(game)
            return games

        return self._command(
            tournament_id,
            act,
            command,
            authorise=authorise,
            games=lambda t: t.state.running_games_of(player),
            expected_version=expected_version,
        )

    def pair(
        self, tournament_id: UUID, *, beacon: str | None = None, **caller: Any
    ) -> tuple[int | None, Outcome]:
        """T3, T4: pair the next round, create and start its games; returns
        the round's number (None for a retried command) and the outcome."""
        paired: list[int] = []

        def act(t: Tournament) -> list[Game]:
            games = t.pair(beacon, caller.get("command", ""))
            paired.append(t.state.paired)
            return [self._start_game(t, g) for g in games]

        outcome = self._as_organiser(tournament_id, act, **caller)
        return (paired[0] if paired else None), outcome

    def call(
        self,
        tournament_id: UUID,
        game_id: UUID,
        by: str,
        *,
        now: datetime | None = None,
        **caller: Any,
    ) -> Outcome:
        """T8.1: the game ends after its last seat's next turn."""

        def act(t: Tournament) -> list[Game]:
            game = self.app._game(game_id, fresh=True)
            moment = now or datetime.now(UTC)
            t.check_call(game_id, moment, bool(game.state.withdrawn))
            game.call(moment, by, caller.get("command", ""))
            return [game]

        def replay(t: Tournament) -> int | None:  # the call is recorded in the game
            command = caller.get("command", "")
            return self.app._game(game_id, fresh=True).replay_of(command) if command else None

        return self._as_organiser(
            tournament_id, act, games=lambda t: [game_id], replay=replay, **caller
        )

    def correct(
        self,
        tournament_id: UUID,
        game_id: UUID,
        places: list[int],
        reason: str,
        by: str,
        **caller: Any,
    ) -> Outcome:
        """T7.1: the game's places from now on, with the reason."""

        def act(t: Tournament) -> list[Game]:
            t.correct(game_id, places, reason, by, caller.get("command", ""))
            return []

        return self._as_organiser(tournament_id, act, **caller)

    def penalise(
        self,
        tournament_id: UUID,
        player: int,
        points: Fraction,
        reason: str,
        by: str,
        **caller: Any,
    ) -> Outcome:
        """T7.2: match points subtracted, with the reason."""

        def act(t: Tournament) -> list[Game]:
            t.penalise(player, points, reason, by, caller.get("command", ""))
            return []

        return self._as_organiser(tournament_id, act, **caller)

    def finish(self, tournament_id: UUID, **caller: Any) -> Outcome:
        """T9.3: the standings' digest, the secret revealed."""

        def act(t: Tournament) -> list[Game]:
            t.finish(caller.get("command", ""))
            return []

        return self._as_organiser(tournament_id, act, **caller)

    # ---- a game's end (T5.1) -------------------------------------------------

    @contextlib.contextmanager
    def results_of(self, game: Game) -> Iterator[list[Tournament]]:
        """Around the save of a game command: if the command ended a
        tournament's game, the tournament with its result recorded (and the
        round closed, if it was the last), to be saved with the game."""
        if not game.tournament or game.state.status != "ended":
            yield []
            return
        tournament_id = UUID(game.tournament)
        with self._lock:
            tournament = self.get(tournament_id)
            try:
                self.record_if_ended(tournament, game)
                yield [tournament]
            except BaseException:
                evict(self.app, tournament_id)
                raise

    @staticmethod
    def record_if_ended(tournament: Tournament, game: Game) -> None:
        if game.state.status == "ended":
            state = game.state
            tournament.record_result(
                game.id, engine.rank_keys(state), list(state.scores), game.chain
            )

    # ---- queries -------------------------------------------------------------

    def get(self, tournament_id: UUID) -> Tournament:
        """The tournament, brought up to date with the store."""
        try:
            tournament: Any = self.app.repository.get(tournament_id)
        except AggregateNotFoundError:
            raise TournamentNotFoundError(f"no tournament {tournament_id}") from None
        if not isinstance(tournament, Tournament):
            raise TournamentNotFoundError(f"no tournament {tournament_id}")
        self.app._catch_up(tournament)
        return tournament

    def organiser_of(self, tournament_id: UUID, token_hash: str) -> None:
        """NotTournamentOrganiserError unless the token is the organiser's."""
        with self._lock:
            check_organiser(self.get(tournament_id), token_hash)

    def player_of(self, tournament_id: UUID, token_hash: str) -> int | None:
        """The registration number a token holds, None if none."""
        with self._lock:
            return self.get(tournament_id).state.player_of(token_hash)

    # ---- the one way a tournament command runs ------------------------------

    def _as_organiser(
        self,
        tournament_id: UUID,
        act: Callable[[Tournament], list[Game]],
        *,
        organiser_hash: str | None = None,
        command: str = "",
        expected_version: int | None = None,
        games: Callable[[Tournament], list[UUID]] | None = None,
        replay: Callable[[Tournament], int | None] | None = None,
    ) -> Outcome:
        """An organiser's command: with ``organiser_hash`` (the caller's token
        hash), only the tournament's organiser may (none: the service's own
        callers)."""

        def authorise(t: Tournament) -> None:
            if organiser_hash is not None:
                check_organiser(t, organiser_hash)

        return self._command(
            tournament_id,
            act,
            command,
            authorise=authorise,
            games=games,
            expected_version=expected_version,
            replay=replay,
        )

    def _start_game(self, tournament: Tournament, planned: TableGame) -> Game:
        """T1.4: a pairing's game, its seats taken in T4.3's order, started."""
        state = tournament.state
        game = Game.create(
            state.rules,
            id=planned.game,
            secret=planned.secret,
            organiser_hash=state.organiser_hash,
            tournament=(tournament.id, planned.round, planned.table),
        )
        for player in planned.players:
            r = state.registration(player)
            game.join(r.name, r.contribution, r.token_hash)
        game.start()
        return game

    def _command(
        self,
        tournament_id: UUID,
        act: Callable[[Tournament], list[Game]],
        command: str = "",
        *,
        authorise: Callable[[Tournament], None] | None = None,
        games: Callable[[Tournament], list[UUID]] | None = None,
        expected_version: int | None = None,
        replay: Callable[[Tournament], int | None] | None = None,
    ) -> Outcome:
        """Run ``act`` on the tournament and save it with the games it
        returns. ``games`` names the existing games it will change: their
        locks are taken first (the one lock order), and the tournament is
        read again under its own lock to check they are still the same.
        ``expected_version``: refused (VersionClashError) unless the
        tournament is at that version (If-Match); a retried command is
        answered first, found by ``replay`` (the tournament's own command
        ids, unless the command is recorded elsewhere: a call, in its game)."""
        from domain.application import Outcome

        for _ in range(RETRIES):
            with self._lock:
                tournament = self.get(tournament_id)
                touched = games(tournament) if games else []
            with contextlib.ExitStack() as stack:
                for lock in self.app.locks_of(touched):
                    stack.enter_context(lock)
                with self._lock:
                    tournament = self.get(tournament_id)
                    if authorise is not None:
                        authorise(tournament)
                    replayed = None
                    if command:
                        replayed = replay(tournament) if replay else tournament.replay_of(command)
                    if replayed is not None:
                        return Outcome(None, replayed, replayed=True)
                    if expected_version is not None and tournament.version != expected_version:
                        raise VersionClashError(
                            f"tournament {tournament_id} is at version {tournament.version}, "
                            f"not {expected_version}"
                        )
                    if games and games(tournament) != touched:
                        continue
                    changed: list[Game] = []
                    try:
                        changed = act(tournament)
                        recordings = self.app.save(tournament, *changed)
                    except IntegrityError:
                        self._forget(tournament_id, changed, touched)
                        continue
                    except BaseException as e:
                        if (
                            isinstance(e, RuleError)
                            and not tournament.pending_events
                            and not changed
                        ):
                            raise
                        self._forget(tournament_id, changed, touched)
                        raise
                    for game in changed:
                        game.sealed.clear()
                    self.app.tell_listeners(recordings, [tournament, *changed])
                    position = recordings[-1].notification.id if recordings else 0
                    return Outcome(position, tournament.version)
        raise VersionClashError(
            f"tournament {tournament_id} kept changing; gave up after {RETRIES} tries"
        )

    def _forget(self, tournament_id: UUID, games: list[Game], touched: list[UUID]) -> None:
        evict(self.app, tournament_id)
        for game_id in {g.id for g in games} | set(touched):
            evict(self.app, game_id)


def settings_of(tournament: Tournament) -> tuple[Any, ...]:
    """What a create command asked for (not the secret it drew)."""
    s = tournament.state
    return (
        s.name,
        s.organiser_hash,
        s.rules,
        s.sizes,
        s.weight,
        s.late_until,
        s.time_limit,
        s.asked_rounds,
        s.beacon,
    )


def check_organiser(tournament: Tournament, token_hash: str) -> None:
    stored = tournament.state.organiser_hash
    if not (stored and hmac.compare_digest(stored, token_hash)):
        raise NotTournamentOrganiserError()

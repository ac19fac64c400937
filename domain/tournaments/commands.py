"""The tournament commands (``Opus.tournaments``), on the command pipeline.

Each command is a ``Command`` on the Tournament run by the one ``Runner``
(domain/pipeline.py): the tournament is saved with the games it touches in
one transaction, a pairing with the games it creates and starts (T3, T4,
T1.4), a drop with the seats it withdraws (T2.2). A tournament game's end
is recorded the other way round: ``TournamentResults``, a save policy, has
the result (T5.1) and, for the round's last game, the seal (T9.1) join the
save of the game command that ended it (GameEnded). So a result is
recorded exactly once, whatever crashes: both are stored, or neither is,
and the retried command decides again on what was stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any
from uuid import UUID

from domain import engine
from domain.chained import Chained
from domain.errors import CallError, CreationError, NotTournamentOrganiserError
from domain.events import GameEnded
from domain.game import Game
from domain.moves import Withdraw
from domain.pipeline import (
    SERVICE,
    Caller,
    Command,
    CommandOutcome,
    Runner,
    Unit,
    anyone,
    holds,
    id_for,
    nothing_else,
)
from domain.ruleset import RuleSet
from domain.text import check_text
from domain.tournaments.aggregate import Tournament
from domain.tournaments.decide import TableGame
from domain.tournaments.tables import TableSizes


def withdraw_at(game: Game, seat: int, command: str, moment: datetime) -> None:
    """R3.5's withdrawal (``Game.withdraw``), its events stamped ``moment``."""

    def apply(facts: list[Any]) -> None:
        game._trigger_all(facts, command, moment)

    engine.run_move(game, Withdraw(seat), apply)


class TournamentCommands:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    # ---- commands ------------------------------------------------------------

    def create(
        self,
        name: str,
        *,
        caller: Caller = SERVICE,
        rules: RuleSet | None = None,
        sizes: tuple[int, int, int] | None = None,
        **options: Any,
    ) -> CommandOutcome:
        """T1.1: a new tournament, its organiser the caller."""
        try:
            table_sizes = TableSizes(*sizes) if sizes else TableSizes()
        except ValueError as e:
            raise CreationError(str(e)) from None
        tournament = Tournament.create(
            name,
            caller.token_hash or "",
            rules=rules,
            sizes=table_sizes,
            id=id_for(caller.command, "tournament:") if caller.command else None,
            **options,
        )
        asked = settings_of(tournament)
        return self.runner.create(
            tournament,
            caller,
            lambda made: settings_of(made) == asked,
            "this Idempotency-Key created a tournament with other settings; "
            "use a new key for a new tournament",
        )

    def register(
        self,
        tournament_id: UUID,
        name: str,
        contribution: str = "",
        *,
        caller: Caller = SERVICE,
        team: str = "",
    ) -> CommandOutcome:
        """T2.1, T11.1: the caller's registration, with a team ("" for none);
        the outcome's value is its number (on a retry, the first's, found by
        the caller's token; 0 without one)."""
        token = caller.token_hash or ""

        def register(t: Tournament, unit: Unit, caller: Caller) -> int:
            return t.register(name, contribution, token, caller.command, team)

        outcome = self.runner.run(on_tournament(tournament_id, register, anyone), caller)
        if outcome.replayed:
            found = self.player_of(tournament_id, token) if token else None
            return CommandOutcome(
                outcome.position, outcome.version, tournament_id, True, found or 0
            )
        return outcome

    def drop(self, tournament_id: UUID, player: int, *, caller: Caller = SERVICE) -> CommandOutcome:
        """T2.2: by the organiser, or by the player themselves. The player's
        running seats are withdrawn in the same transaction (their games'
        ends, if any, recorded by ``TournamentResults``)."""

        def authorise(t: Tournament, caller: Caller) -> None:
            if caller.token_hash is not None and t.state.player_of(caller.token_hash) != player:
                check_organiser(t, caller)

        def drop(t: Tournament, unit: Unit, caller: Caller) -> None:
            # T2.2 on timestamps: the drop and the seats it withdraws are one
            # moment, never before the last record of the tournament or of a
            # game it touches (a clock stepped back, another host's).
            games = [(g, unit.get(g, Game)) for g in t.state.running_games_of(player)]
            moment = max([datetime.now(UTC), t.modified_on, *(g.modified_on for _, g in games)])
            t.drop(player, caller.command, moment)
            for game_id, game in games:
                seat = t.state.games[game_id][1].players.index(player)
                withdraw_at(game, seat, caller.command, moment)

        def touches(t: Tournament) -> list[UUID]:
            return t.state.running_games_of(player)

        return self.runner.run(on_tournament(tournament_id, drop, authorise, touches), caller)

    def constrain(
        self,
        tournament_id: UUID,
        players: list[int],
        reason: str,
        by: str,
        *,
        caller: Caller = SERVICE,
    ) -> CommandOutcome:
        """T11.1: two players who must not share a table (organiser), until
        round 1 is paired."""

        def constrain(t: Tournament, unit: Unit, caller: Caller) -> None:
            t.constrain(players, reason, by, caller.command)

        return self.runner.run(on_tournament(tournament_id, constrain), caller)

    def pair(
        self, tournament_id: UUID, *, caller: Caller = SERVICE, beacon: str | None = None
    ) -> CommandOutcome:
        """T3, T4, T11, T12: pair the next round (after the last Swiss round,
        the cut's), create and start its games; the outcome's value is the
        round's number."""

        def pair(t: Tournament, unit: Unit, caller: Caller) -> int:
            for planned in t.pair(beacon, caller.command):
                unit.add(start_game(t, planned))
            return t.state.paired

        return self.runner.run(on_tournament(tournament_id, pair), caller)

    def call(
        self,
        tournament_id: UUID,
        game_id: UUID,
        by: str,
        *,
        caller: Caller = SERVICE,
        now: datetime | None = None,
    ) -> CommandOutcome:
        """T8.1: the game ends after its last seat's next turn. The call is
        recorded in the game, and so is its command id."""

        def call(t: Tournament, unit: Unit, caller: Caller) -> None:
            check_text("who calls", by, CallError)  # new commands only (domain/text.py)
            game = unit.get(game_id, Game)
            moment = now or datetime.now(UTC)
            t.check_call(game_id, moment, bool(game.state.withdrawn))
            game.call(moment, by, caller.command)

        def replay(t: Tournament, unit: Unit, command: str) -> int | None:
            """The tournament's version, as the call answered, if the game
            recorded this call."""
            return t.version if unit.get(game_id, Game).replay_of(command) is not None else None

        command = on_tournament(tournament_id, call, touches=lambda t: [game_id], replay=replay)
        return self.runner.run(command, caller)

    def correct(
        self,
        tournament_id: UUID,
        game_id: UUID,
        places: list[int],
        reason: str,
        by: str,
        *,
        caller: Caller = SERVICE,
    ) -> CommandOutcome:
        """T7.1: the game's places from now on, with the reason."""

        def correct(t: Tournament, unit: Unit, caller: Caller) -> None:
            t.correct(game_id, places, reason, by, caller.command)

        return self.runner.run(on_tournament(tournament_id, correct), caller)

    def penalise(
        self,
        tournament_id: UUID,
        player: int,
        points: Fraction,
        reason: str,
        by: str,
        *,
        caller: Caller = SERVICE,
    ) -> CommandOutcome:
        """T7.2: match points subtracted, with the reason."""

        def penalise(t: Tournament, unit: Unit, caller: Caller) -> None:
            t.penalise(player, points, reason, by, caller.command)

        return self.runner.run(on_tournament(tournament_id, penalise), caller)

    def finish(self, tournament_id: UUID, *, caller: Caller = SERVICE) -> CommandOutcome:
        """T9.3: the standings' digest, the secret revealed."""

        def finish(t: Tournament, unit: Unit, caller: Caller) -> None:
            t.finish(caller.command)

        return self.runner.run(on_tournament(tournament_id, finish), caller)

    # ---- queries -------------------------------------------------------------

    def get(self, tournament_id: UUID) -> Tournament:
        """The tournament, caught up with the store. It is the live object:
        for one thread (the CLI, simulation, tests)."""
        with self.runner.reading(tournament_id, Tournament) as tournament:
            return tournament

    def player_of(self, tournament_id: UUID, token_hash: str) -> int | None:
        """The registration number a token holds, None if none."""
        with self.runner.reading(tournament_id, Tournament) as tournament:
            return tournament.state.player_of(token_hash)


class TournamentResults:
    """T5.1, T9.1: a save policy. The command that ends a tournament's game
    (GameEnded) saves the game's result in its tournament, and the round's
    seal if it was the last, in the same transaction."""

    def touches(self, aggregate: Chained) -> Iterable[UUID]:
        if isinstance(aggregate, Game) and aggregate.tournament:
            return [UUID(aggregate.tournament)]
        return []

    def join(self, changed: Chained, unit: Unit) -> None:
        if not (isinstance(changed, Game) and changed.tournament):
            return
        if not any(isinstance(event, GameEnded) for event in changed.pending_events):
            return
        tournament = unit.get(UUID(changed.tournament), Tournament)
        state = changed.state
        tournament.record_result(
            changed.id, engine.rank_keys(state), list(state.scores), changed.chain
        )


def on_tournament(
    tournament_id: UUID,
    act: Callable[[Tournament, Unit, Caller], int | None],
    authorise: Callable[[Tournament, Caller], None] | None = None,
    touches: Callable[[Tournament], Iterable[UUID]] = nothing_else,
    replay: Callable[[Tournament, Unit, str], int | None] | None = None,
) -> Command[Tournament]:
    """A tournament command: the organiser's unless it says who may, and
    decided on the tournament as stored (``Command.fresh``: a call changes
    only its game, so no clash would show a stale tournament)."""
    return Command(
        tournament_id,
        Tournament,
        act,
        authorise or check_organiser,
        touches,
        replay,
        fresh=True,
    )


def start_game(tournament: Tournament, planned: TableGame) -> Game:
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
        s.procedure,
        s.cut,
    )


def check_organiser(tournament: Tournament, caller: Caller) -> None:
    """Only the tournament's organiser may (the service's own callers too)."""
    if caller.token_hash is None:
        return
    stored = tournament.state.organiser_hash
    if not holds(stored, caller.token_hash):
        raise NotTournamentOrganiserError()

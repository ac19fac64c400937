"""``opus tournament``: run a tournament from the command line (TOURNAMENT.md).

Each command opens the configured store, makes one call on the application
service (``Opus.tournaments``) and prints what it returned. Organiser
commands take the organiser's ``--token``: its hash is checked by the
service, as over HTTP. A refused command prints its rule and exits 1.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from uuid import UUID

import click

from api.cli.read_side import project_views
from api.cli.receipts import cli_receipts
from api.identity import new_token, token_hash
from domain.accounts.commands import key_account
from domain.application import Opus
from domain.bots import BOTS
from domain.errors import OpusError
from domain.pipeline import Caller
from domain.ruleset import DRAW_VARIANTS, RuleSet
from domain.simulation import simulate_tournament
from domain.tournaments import exact
from domain.tournaments.cut import CUT_TABLES, ranking
from domain.tournaments.standings import Row
from domain.tournaments.state import PROCEDURES, REGROUP_1, TournamentState
from infra.bootstrap import open_application
from infra.settings import Settings

TOURNAMENT = click.option("--tournament", "tournament_id", required=True, type=click.UUID)
TOKEN = click.option("--token", required=True, help="The organiser's token.")
BY = click.option("--by", default="organiser", show_default=True, help="Who does it.")


ACCOUNT_KEY = click.option(
    "--key",
    "account_key",
    default=None,
    envvar="OPUS_ACCOUNT_KEY",
    help="Your account key: the command is your account's (README, Accounts).",
)


@click.group()
def tournament() -> None:
    """Swiss tournaments: create, register, pair, call, correct, finish, standings."""


@contextlib.contextmanager
def opened() -> Iterator[Opus]:
    """The application on the configured store; a refused command is an
    error message (with its rule id), not a traceback. Each command's
    receipt is written to a file, its path printed (api/cli/receipts.py)."""
    settings = Settings.from_env()
    app = open_application(settings)
    try:
        with cli_receipts(settings, app):
            yield app
    except OpusError as e:
        raise click.ClickException(str(e)) from None
    finally:
        app.close()


# T1.1's settings that `create` and `simulate` both take
TABLES = click.option(
    "--tables", default="3/4/5", show_default=True, help="min/preferred/max (T1.1)."
)
WEIGHT = click.option("--weight", default=6, show_default=True, type=int, help="T4.2's W.")
PROCEDURE = click.option(
    "--procedure",
    default=REGROUP_1,
    show_default=True,
    type=click.Choice(PROCEDURES),
    help="The pairing procedure (T4.2, T4.2b).",
)
CUT = click.option(
    "--cut",
    default=None,
    type=click.IntRange(1, max(CUT_TABLES)),
    help="A top cut of k tables after the Swiss rounds (T12.1: 1, 3, 4 or 5).",
)


@tournament.command()
@click.option("--name", required=True)
@click.option("--draw", default="five", show_default=True, type=click.Choice(DRAW_VARIANTS))
@click.option("--guild/--no-guild", default=True, show_default=True)
@TABLES
@WEIGHT
@click.option("--late-until", default=1, show_default=True, type=int, help="T2.3's L.")
@click.option("--time-limit", default=None, type=int, help="Seconds per round (T8.1).")
@click.option("--rounds", default=None, type=int, help="Fixed at round 1's pairing if absent.")
@click.option("--beacon", default="", help="Names the public value round 1 takes (T1.3).")
@PROCEDURE
@CUT
@ACCOUNT_KEY
def create(
    name: str,
    draw: str,
    guild: bool,
    tables: str,
    weight: int,
    late_until: int,
    time_limit: int | None,
    rounds: int | None,
    beacon: str,
    procedure: str,
    cut: int | None,
    account_key: str | None,
) -> None:
    """Create a tournament; print its id and the organiser's token (shown
    once), or, with an account key, make it the account's."""
    token, digest = new_token()
    with opened() as app:
        if account_key is not None:
            token, digest = "", holder_or_hash(app, account_key)
        tournament_id = app.tournaments.create(
            name,
            caller=Caller(digest),
            rules=RuleSet(draw=draw, guild=guild),
            sizes=_sizes(tables),
            weight=weight,
            late_until=late_until,
            time_limit=time_limit,
            rounds=rounds,
            beacon=beacon,
            procedure=procedure,
            cut=cut,
        ).aggregate_id
    click.echo(f"tournament: {tournament_id}")
    click.echo(f"organiser token: {token}" if token else "organiser: your account")


def caller(app: Opus, token: str) -> Caller:
    """The caller a command-line token makes (the organiser's or a player's):
    an account key (domain/accounts) stands for its account."""
    return Caller(holder_or_hash(app, token))


def holder_or_hash(app: Opus, token: str) -> str:
    """An account key's account holder hash, or the token's hash."""
    if key_account(token) is None:
        return token_hash(token)
    account = app.accounts.by_key(token)
    if account is None:
        raise click.ClickException("this account key is not one an account holds now (rotated?)")
    return account.holder_hash


def _sizes(text: str) -> tuple[int, int, int]:
    parts = text.split("/")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise click.BadParameter("write the table sizes as min/preferred/max, like 3/4/5")
    low, preferred, high = (int(p) for p in parts)
    return low, preferred, high


@tournament.command()
@TOURNAMENT
@click.option("--name", required=True)
@click.option("--contribution", default="", help="Your part of the tournament seed (T1.3).")
@click.option("--team", default="", help="Your team, if any (T11.1).")
@ACCOUNT_KEY
def register(
    tournament_id: UUID, name: str, contribution: str, team: str, account_key: str | None
) -> None:
    """Register a player; print the registration number and its token (shown
    once), or, with an account key, register the account."""
    token, digest = new_token()
    with opened() as app:
        if account_key is not None:
            token, digest = "", holder_or_hash(app, account_key)
        player = app.tournaments.register(
            tournament_id, name, contribution, caller=Caller(digest), team=team
        ).value
    click.echo(f"player: {player}")
    click.echo(f"token: {token}" if token else "registered: your account")


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--players", required=True, help="Two registration numbers, like 3,7.")
@click.option("--reason", required=True)
@BY
def constrain(tournament_id: UUID, token: str, players: str, reason: str, by: str) -> None:
    """Record that two players must not share a table (T11.1), until round 1 is paired."""
    try:
        pair_ = [int(p) for p in players.split(",")]
    except ValueError:
        raise click.BadParameter("players are two registration numbers, like 3,7") from None
    with opened() as app:
        outcome = app.tournaments.constrain(
            tournament_id, pair_, reason, by, caller=caller(app, token)
        )
    recorded = " and ".join(map(str, sorted(pair_)))  # T11.1: recorded ascending
    click.echo(f"players {recorded} kept apart; version {outcome.version}")


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--beacon", default=None, help="Round 1: the value of the beacon named.")
def pair(tournament_id: UUID, token: str, beacon: str | None) -> None:
    """Pair the next round (after the Swiss rounds, the cut's) and start its
    games; print its tables, each with its shares of the objective (T11.3)."""
    with opened() as app:
        app.tournaments.pair(tournament_id, caller=caller(app, token), beacon=beacon)
        state = app.tournaments.get(tournament_id).state
    for line in round_lines(state):
        click.echo(line)


def round_lines(state: TournamentState) -> list[str]:
    """The last round as text: its number (and stage, in the cut), each
    table's game and players in seat order, with its shares as recorded
    (T11.3: repeats Σ m², spread, pairs sharing a team or constrained seated
    together), and
    the byes."""
    round_ = state.rounds[-1]
    stage = ""
    if round_.cut:
        semifinal = state.cut is not None and state.cut > 1 and round_ is state.cut_rounds[0]
        stage = " (cut: semifinals)" if semifinal else " (cut: final)"
    lines = [f"round {round_.number}{stage}"]
    for seat in round_.tables:
        players = ", ".join(state.registration(p).name for p in seat.players)
        line = f"table {seat.table}: game {seat.game}: {players}"
        if seat.shares:
            shares = {k: _number(exact.parse(v)) for k, v in seat.shares.items()}
            together = shares["c"]  # (c) counts the pairs seated together (T11.2)
            line += f" (repeats {shares['a']}, spread {shares['b']}, seated together {together})"
        lines.append(line)
    if round_.byes:
        lines.append("byes: " + ", ".join(state.registration(p).name for p in round_.byes))
    return lines


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--player", required=True, type=int, help="The registration number.")
def drop(tournament_id: UUID, token: str, player: int) -> None:
    """Drop a player (T2.2; the organiser's or the player's own token)."""
    with opened() as app:
        outcome = app.tournaments.drop(tournament_id, player, caller=caller(app, token))
    click.echo(f"dropped player {player}; version {outcome.version}")


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--game", "game_id", required=True, type=click.UUID)
@BY
def call(tournament_id: UUID, token: str, game_id: UUID, by: str) -> None:
    """Call a game (T8.1): it ends after the last seat's next turn."""
    with opened() as app:
        outcome = app.tournaments.call(tournament_id, game_id, by, caller=caller(app, token))
    click.echo(f"called game {game_id}; version {outcome.version}")


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--game", "game_id", required=True, type=click.UUID)
@click.option("--places", required=True, help="New places in seat order, like 1,2,2,4.")
@click.option("--reason", required=True)
@BY
def correct(
    tournament_id: UUID, token: str, game_id: UUID, places: str, reason: str, by: str
) -> None:
    """Correct a game's places (T7.1)."""
    try:
        new_places = [int(p) for p in places.split(",")]
    except ValueError:
        raise click.BadParameter("places are whole numbers, like 1,2,2,4") from None
    with opened() as app:
        outcome = app.tournaments.correct(
            tournament_id, game_id, new_places, reason, by, caller=caller(app, token)
        )
    click.echo(f"corrected game {game_id}; version {outcome.version}")


@tournament.command()
@TOURNAMENT
@TOKEN
@click.option("--player", required=True, type=int, help="The registration number.")
@click.option("--points", required=True, help='Match points to subtract, "p/q" (like 1/2).')
@click.option("--reason", required=True)
@BY
def penalise(
    tournament_id: UUID, token: str, player: int, points: str, reason: str, by: str
) -> None:
    """Give a player a penalty (T7.2)."""
    try:
        subtracted = exact.parse(points)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    with opened() as app:
        outcome = app.tournaments.penalise(
            tournament_id, player, subtracted, reason, by, caller=caller(app, token)
        )
    click.echo(f"penalised player {player}; version {outcome.version}")


@tournament.command()
@TOURNAMENT
@TOKEN
def finish(tournament_id: UUID, token: str) -> None:
    """Finish the tournament (T9.3); print the final standings."""
    with opened() as app:
        app.tournaments.finish(tournament_id, caller=caller(app, token))
        state = app.tournaments.get(tournament_id).state
    _echo_standings(state.standings())
    if state.cut is not None:
        for text in ranking_lines(state):
            click.echo(text)


def ranking_lines(state: TournamentState) -> list[str]:
    """T12.4's final ranking as text, after the Swiss standings."""
    lines = ["", "final ranking (T12.4)"]
    for row in ranking(state):
        name = state.registration(row["player"]).name
        where = (
            row["reached"] if row["place"] is None else f"{row['reached']}, place {row['place']}"
        )
        lines.append(f"{row['rank']:>4}  {name} ({where})")
    return lines


@tournament.command()
@TOURNAMENT
def standings(tournament_id: UUID) -> None:
    """Print the standings now (T6)."""
    with opened() as app:
        rows = app.tournaments.get(tournament_id).state.standings()
    _echo_standings(rows)


@tournament.command()
@click.option("--players", default=9, show_default=True, type=click.IntRange(min=2))
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--bot", default="greedy", show_default=True, type=click.Choice(sorted(BOTS)))
@click.option("--drop-rate", default=0.0, show_default=True, type=click.FloatRange(0, 1))
@click.option("--seed", default=1, show_default=True, type=int)
@click.option(
    "--teams",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="T11.1: bots in N teams.",
)
@click.option(
    "--constraints",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="T11.1: N pairs, drawn with the seed, kept apart.",
)
@CUT
@TABLES
@WEIGHT
@PROCEDURE
def simulate(
    players: int,
    rounds: int,
    bot: str,
    drop_rate: float,
    seed: int,
    teams: int,
    constraints: int,
    cut: int | None,
    tables: str,
    weight: int,
    procedure: str,
) -> None:
    """Play a whole tournament of bots into the configured store; print the
    final standings (and the final ranking, with a cut), the tournament's
    id, its games, moves and time; then bring the views up to it, as 'opus
    simulate' does."""
    settings = Settings.from_env()
    started = time.perf_counter()
    with opened() as app:
        run = simulate_tournament(
            app,
            players,
            rounds,
            bot,
            seed,
            drop_rate,
            teams=teams,
            constraints=constraints,
            cut=cut,
            sizes=_sizes(tables),
            weight=weight,
            procedure=procedure,
        )
        state = app.tournaments.get(run.tournament).state
    elapsed = time.perf_counter() - started
    click.echo(f"store: {settings.describe_events()}")
    _echo_standings(run.standings)
    if state.cut is not None:
        for text in ranking_lines(state):
            click.echo(text)
    click.echo(f"tournament: {run.tournament}")
    click.echo(f"games: {len(run.games)}")
    click.echo(f"moves: {run.moves}")
    click.echo(f"time: {elapsed:.2f} s")
    project_views(settings)  # as `opus simulate`: `opus verify` then passes


# ---- the standings table ---------------------------------------------------------

COLUMNS = (
    "rank",
    "player",
    "name",
    "dropped",
    "match points",
    "penalties",
    "opponents",
    "game points",
    "games",
    "byes",
    "corrections",
)


def _number(value: Fraction) -> str:
    """Exact, as T6.2 keeps it: a whole number plainly, else "p/q"."""
    return str(value.numerator) if value.denominator == 1 else exact.text(value)


def standings_table(rows: Sequence[Row]) -> list[str]:
    """The standings as text lines: a header, then one line per row in rank
    order; numbers right-aligned, the name left-aligned."""
    cells = [
        [
            str(r.rank),
            str(r.player),
            r.name,
            "dropped" if r.dropped else "",
            _number(r.match_points),
            _number(r.penalties),
            _number(r.opponents),
            str(r.game_points),
            str(r.games),
            str(r.byes),
            str(r.corrections),
        ]
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [list(COLUMNS), *cells]) for i in range(len(COLUMNS))]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if column in ("name", "dropped") else v.rjust(w)
            for column, v, w in zip(COLUMNS, values, widths, strict=True)
        ]
        return "  ".join(parts).rstrip()

    return [line(COLUMNS), *(line(c) for c in cells)]


def _echo_standings(rows: Sequence[Row]) -> None:
    for text in standings_table(rows):
        click.echo(text)

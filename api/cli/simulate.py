"""``opus simulate``: bot games into the configured store, then the views
brought up to them (``api/cli/read_side.py``'s ``project_views``)."""

from __future__ import annotations

import click

from api.cli.read_side import project_views
from domain.bots import BOTS
from domain.ruleset import DRAW_VARIANTS, MAX_PLAYERS, MIN_PLAYERS, RuleSet
from domain.simulation import simulate as run_simulation
from infra.bootstrap import open_application
from infra.settings import Settings


@click.command()
@click.option("--games", default=10, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--players", default=4, show_default=True, type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS)
)
@click.option("--bot", default="greedy", show_default=True, type=click.Choice(sorted(BOTS)))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--draw", default="five", show_default=True, type=click.Choice(DRAW_VARIANTS))
@click.option("--guild/--no-guild", default=True, show_default=True)
def simulate(games: int, players: int, bot: str, seed: int, draw: str, guild: bool) -> None:
    """Play complete games with bots into the configured store; print a
    summary; then bring the views up to them, as 'opus serve' would (unless
    OPUS_RUN_PROJECTIONS=0 leaves them to 'opus project'), so that 'opus
    verify' passes."""
    settings = Settings.from_env()
    app = open_application(settings)
    try:
        summary = run_simulation(app, games, players, bot, seed, RuleSet(draw=draw, guild=guild))
    finally:
        app.close()
    click.echo(f"store: {settings.describe_events()}")
    for line in summary.lines():
        click.echo(line)
    project_views(settings)

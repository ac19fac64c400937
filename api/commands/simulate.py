"""``opus simulate``: bot games into the configured store."""

from __future__ import annotations

import click

from domain.application import Opus
from domain.bots import BOTS
from domain.ruleset import DRAW_VARIANTS, MAX_PLAYERS, MIN_PLAYERS, RuleSet
from domain.simulation import simulate as run_simulation
from infra.config import store_env


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
    """Play complete games with bots into the configured store; print a summary."""
    env = store_env()
    app = Opus(env=env)
    summary = run_simulation(app, games, players, bot, seed, RuleSet(draw=draw, guild=guild))
    click.echo(f"store: {env['PERSISTENCE_MODULE']} {env.get('SQLITE_DBNAME', '')}".rstrip())
    for line in summary.lines():
        click.echo(line)

"""The ``opus`` command line: entry points over the application service.

Each group of commands lives in ``api/cli/`` and is registered here.
"""

from __future__ import annotations

import click

from api.cli.analytics import analytics
from api.cli.clocks import clocks
from api.cli.log import export, verify
from api.cli.ratings import ratings
from api.cli.read_side import project, rebuild, view
from api.cli.receipts import receipts
from api.cli.serve import serve
from api.cli.simulate import simulate
from api.cli.tournament import tournament
from api.cli.witness import witness


@click.group()
def main() -> None:
    """Opus: Potion-Making with the Guild of Alchemists, event-sourced.

    The event store is chosen by eventsourcing's own variables:
    PERSISTENCE_MODULE (eventsourcing.sqlite by default, eventsourcing.postgres,
    eventsourcing.popo), SQLITE_DBNAME (./var/opus.db) and POSTGRES_*.
    """


main.add_command(simulate)
main.add_command(serve)
main.add_command(verify)
main.add_command(export)
main.add_command(project)
main.add_command(rebuild)
main.add_command(view)
main.add_command(tournament)
main.add_command(analytics)
main.add_command(ratings)
main.add_command(receipts)
main.add_command(witness)
main.add_command(clocks)

"""Every projection, by name: what ``opus project`` runs and ``opus rebuild`` rebuilds."""

from __future__ import annotations

from projections.accounts import AccountsView
from projections.base import ViewProjection
from projections.clocks import ClocksView
from projections.hands import Hands
from projections.leaderboard import Leaderboard
from projections.lobby import Lobby
from projections.move_log import MoveLog
from projections.ratings import RatingsView
from projections.scoreboard import Scoreboard
from projections.seats import Seats
from projections.table import TableView
from projections.tournaments import TournamentView

PROJECTIONS: dict[str, type[ViewProjection]] = {
    cls.name: cls
    for cls in (
        TableView,
        Hands,
        Scoreboard,
        MoveLog,
        Leaderboard,
        Seats,
        TournamentView,
        Lobby,
        AccountsView,
        RatingsView,
        ClocksView,
    )
}


def select(names: tuple[str, ...] | list[str]) -> list[type[ViewProjection]]:
    """The projections named (all when none is), in registry order."""
    unknown = sorted(set(names) - set(PROJECTIONS))
    if unknown:
        raise KeyError(f"no projection {', '.join(unknown)}; there are {', '.join(PROJECTIONS)}")
    return [cls for name, cls in PROJECTIONS.items() if not names or name in names]

"""Read models of the game log: scoreboards, table views, hands, move logs, leaderboard.

Each projection (``registry.PROJECTIONS``) is an ``eventsourcing`` Projection
that writes through a ``View`` onto a view store — Redis or SQLite, behind
one port (``ports.py``). ``runner.py`` keeps them live, ``rebuild.py``
replays them from the log, ``queries.py`` is what readers call.
"""

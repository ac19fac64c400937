"""A report over 2,000 simulated 6-player games (greedy bots) shows seat 0's
share of the wins with its 95 % Wilson interval (RULES R2.1: about 20 %
against a fair 16.7 %): the interval covers the share measured by a plain
count of the GameEnded events, and the report's files are there.

The games are simulated once in memory by two processes and kept for
later runs, in the user's cache (``$XDG_CACHE_HOME/opus-tests``, else
``~/.cache/opus-tests``; ``OPUS_TEST_CACHE`` names another folder), under
a name that carries a digest of everything that decides them: the domain's
code and data, the library's version and the games' parameters. Changed
rules or bots make another name, and so a new store (a minute and a half of
two cores; one unused for a day is removed); a clone of the same code
reuses it."""

from __future__ import annotations

import hashlib
import importlib.metadata
import math
import os
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from multiprocessing import get_context
from pathlib import Path
from typing import cast

import pytest
from eventsourcing.utils import get_topic

from domain.application import Opus
from domain.events import GameEnded
from domain.simulation import simulate
from projections.analytics.engines import DuckDBEngine
from projections.analytics.export import data_files, export
from projections.analytics.report import build_report
from tests.apps import copy_events

ROOT = Path(__file__).resolve().parents[2]
GAMES, PLAYERS, WORKERS, SEED = 2000, 6, 2, 6000


def cache_folder() -> Path:
    named = os.environ.get("OPUS_TEST_CACHE")
    if named:
        return Path(named)
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "opus-tests"


def made_of() -> str:
    """A digest of what decides the simulated games: the domain package's
    files (its rules, bots, catalog and events), the event store library's
    version (the stored form), the games' parameters."""
    digest = hashlib.sha256(repr((GAMES, PLAYERS, WORKERS, SEED)).encode())
    digest.update(importlib.metadata.version("eventsourcing").encode())
    domain = ROOT / "domain"
    files = [p for p in domain.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for path in sorted(files):
        digest.update(str(path.relative_to(domain)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CACHE = cache_folder() / f"analytics-seats-{PLAYERS}p-{GAMES}-{made_of()}.db"


def sqlite(path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}


def simulate_part(path: str, games: int, seed: int) -> str:
    """One worker's games, played in memory, then saved to its own file."""
    memory = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(memory, games, PLAYERS, "greedy", seed)
    target = Opus(env=sqlite(Path(path)))
    copy_events(memory, target)
    memory.close()
    target.close()
    return path


def game_ends(app: Opus) -> Iterator[GameEnded]:
    """Every GameEnded of the log (the store skips the other events)."""
    position = 0
    while True:
        page = app.recorder.select_notifications(
            position, 1000, topics=[get_topic(GameEnded)], inclusive_of_start=False
        )
        for notification in page:
            yield cast(GameEnded, app.mapper.to_domain_event(notification))
        if len(page) < 1000:
            return
        position = page[-1].id


def ended_games(path: Path) -> int:
    app = Opus(env=sqlite(path))
    try:
        return sum(1 for _ in game_ends(app))
    finally:
        app.close()


@pytest.fixture(scope="session")
def six_player_store() -> Path:
    if CACHE.exists() and ended_games(CACHE) == GAMES:
        CACHE.touch()  # in use: kept
        return CACHE
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    for made in CACHE.parent.glob(f"analytics-seats-{PLAYERS}p-{GAMES}-*"):
        # made of other code and unused for a day, or left by a run stopped midway
        unused = time.time() - made.stat().st_mtime
        if made != CACHE and unused > (86400 if made.suffixes == [".db"] else 3600):
            made.unlink(missing_ok=True)
    mine = f"{CACHE.stem}.{os.getpid()}"  # this run's files, while it builds
    parts = [CACHE.with_name(f"{mine}.part{k}.db") for k in range(WORKERS)]
    with ProcessPoolExecutor(WORKERS, mp_context=get_context("spawn")) as pool:
        done = pool.map(
            simulate_part,
            [str(p) for p in parts],
            [GAMES // WORKERS] * WORKERS,
            [SEED + k for k in range(WORKERS)],
        )
        files = list(done)
    building = CACHE.with_name(f"{mine}.building.db")
    for part in files:
        source, target = Opus(env=sqlite(Path(part))), Opus(env=sqlite(building))
        copy_events(source, target)
        source.close()
        target.close()
        Path(part).unlink()
    building.rename(CACHE)
    return CACHE


def test_the_seat_advantage_interval_covers_the_measured_share(
    six_player_store: Path, tmp_path: Path
) -> None:
    app = Opus(env=sqlite(six_player_store))
    # the measure, by a plain count: seat 0's share of the wins (a win
    # shared by k seats counts 1/k)
    credit: Counter[int] = Counter()
    games = 0
    for ended in game_ends(app):
        games += 1
        for seat in ended.winners:
            credit[seat] += Fraction(1, len(ended.winners))
    assert games == GAMES
    measured = float(credit[0] / games)

    export(app, tmp_path / "parquet")
    app.close()
    engine = DuckDBEngine(data_files(tmp_path / "parquet"))
    try:
        report = build_report(engine, tmp_path / "parquet", tmp_path / "report")
    finally:
        engine.close()
    rows = report.results["seat_advantage"].dicts()
    seat0 = next(r for r in rows if r["players"] == PLAYERS and r["seat"] == 0)
    assert seat0["games"] == GAMES
    assert math.isclose(seat0["share"], measured, rel_tol=1e-12)
    assert seat0["wilson_low"] <= measured <= seat0["wilson_high"]
    # a 95 % interval of n = 2,000 is about ±1.7 points wide around the share
    assert 0.02 < seat0["wilson_high"] - seat0["wilson_low"] < 0.04
    assert math.isclose(seat0["fair_share"], 1 / 6)
    assert sum(r["wins"] for r in rows if r["players"] == PLAYERS) == pytest.approx(GAMES)
    for name in ("index.html", "report.json", "charts/seat_advantage.png"):
        assert (tmp_path / "report" / name).stat().st_size > 0
    print(
        f"\nseat 0 at {PLAYERS} players: {measured:.4f} of the wins over {games} games, "
        f"95 % Wilson [{seat0['wilson_low']:.4f}, {seat0['wilson_high']:.4f}], fair 0.1667"
    )

"""Ratings measured against players of known strength (issue 22), in memory.

A population of ``--players`` (60) accounts, each an ε-greedy bot of
known strength: the greedy bot, playing a random legal move with
probability ε, ε evenly from 0 (the strongest) to 1 (a random bot). Each
round seats every player once, at random tables of 2–5 with random seats,
and plays the games through the application service (an in-memory store,
every move by its seat's holder hash). After ``--rounds`` rounds of
training, ``--held-out`` rounds more are played and never rated. Printed,
every figure from this one run:

- **rank agreement**: Spearman's ρ between each model's order (the number
  shown: μ − 3σ; Elo's rating) and the true order, after 10, 30 and 100
  games per player;
- **held-out log-loss** of the winner (−ln of the probability a model gave
  the seat that won; a shared win: the sum over the seats that shared it),
  with the ratings as they stood after 10, 30 and 100 games, for the model
  (domain/ratings.py: openskill's Plackett–Luce, a seat a team of its
  player and "seat k at a table of s"), the same model without the seat
  pseudo-players, and BGA-style rank Elo (every pair of a table a
  two-player result by their places, K / (n − 1) a pair; K 16, 32 and 64);
  the model's ratio to Elo with K = 32, to the best of the three Elos on
  the held-out games themselves (a choice that flatters Elo), and to the
  model without seats;
- **the seat effects** learned, each seat's share of the wins the model
  predicts on the games played (with every rating as training left it), and
  the share the analytics report measures on the same games (its
  seat_advantage SQL on their Parquet export) with its 95 % Wilson
  interval: inside it or not, and the model without seats beside it;
- **the projection**: the whole log written to a SQLite file, each
  projection rebuilt alone into SQLite views, its rate against the raw read
  of the same log (bench/rebuild.py's measure), the best of ``--repeat``
  rounds each (the machine may be busy); and the ratings view so rebuilt
  against the ratings recomputed from the log (domain.ratings.Ledger).

Each figure for today's model ("model") beside the model as recorded
before issue 35 ("before issue 35": the seats at σ₀ 1 on each game's own
scale). Then, from synthetic players of known strength at seats of known
edge (bench/ratings_synthetic.py), in three seatings, the seat models
against the truth and the oracle that knows it: the first seat's learned
share against its true share, the seats' σ against their prior, and each
model's held-out log-loss against the oracle's and rank Elo's.

Run: ``python bench/ratings.py [--players 60] [--rounds 100] [--held-out 30]
[--seed 1] [--repeat 3] [--no-rebuild] [--synthetic-seeds 6]
[--synthetic-only]``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.rating_models import (
    Hindsight,
    Model,
    RankElo,
    Seated,
    Unseated,
    log_loss,
    spearman,
)
from bench.ratings_synthetic import SEATINGS, WIDER
from bench.ratings_synthetic import run as run_synthetic
from domain.application import Opus
from domain.bots import BOTS, Bot
from domain.engine import rank_keys
from domain.internals import select_rows
from domain.moves import Move
from domain.pipeline import Caller
from domain.ratings import (
    BEFORE_ISSUE_35,
    PARAMETERS,
    RatedGame,
    differences,
    equal_table_shares,
    rated_game,
)
from domain.simulation import play_out
from domain.state import GameState
from projections.analytics.engines import open_engine
from projections.analytics.export import data_files, export
from projections.analytics.report import sql_of
from projections.queries import Queries
from projections.ratings import ledger_from_log
from projections.rebuild import BATCH_SIZE, rebuild
from projections.registry import PROJECTIONS, select
from projections.sqlite_views import SQLiteViewStore

CHECKPOINTS = (10, 30, 100)
ELO_K = (16.0, 32.0, 64.0)
TABLE_SIZES = (2, 3, 4, 5)
SPREAD = 8.0  # the synthetic players' true strengths span this many μ: luck-heavy
HELD_OUT_SYNTHETIC = 20  # rounds of each synthetic population held out


def say(text: str = "") -> None:
    print(text, flush=True)


# ---- the population and its games ---------------------------------------------------------


def epsilon_bot(epsilon: float, rng: random.Random) -> Bot:
    """The greedy bot, but a random legal move with probability ε."""
    greedy, random_move = BOTS["greedy"](rng), BOTS["random"](rng)

    def choose(state: GameState, seat: int) -> Move:
        return random_move(state, seat) if rng.random() < epsilon else greedy(state, seat)

    return choose


@dataclass
class Population:
    app: Opus
    epsilons: list[float]
    accounts: list[str]
    holders: list[str]
    rng: random.Random
    games: list[RatedGame] = field(default_factory=list)

    @classmethod
    def open(cls, app: Opus, players: int, seed: int) -> Population:
        epsilons = [i / (players - 1) for i in range(players)]
        accounts, holders = [], []
        for i in range(players):
            account = app.accounts.open(f"Strength {i + 1:02d}").account
            accounts.append(str(account))
            holders.append(app.accounts.view(account).holder_hash)
        return cls(app, epsilons, accounts, holders, random.Random(seed))

    def round(self, number: int) -> list[RatedGame]:
        """Every player once, at random tables of 2–5, in random seats."""
        order = list(range(len(self.accounts)))
        self.rng.shuffle(order)
        tables: list[list[int]] = []
        while order:
            size = self.rng.choice(TABLE_SIZES)
            if len(order) - size == 1:  # no table of one
                size += 1 if size < 5 else -1
            tables.append(order[:size])
            order = order[size:]
        return [self.play(table, number, n) for n, table in enumerate(tables)]

    def play(self, seated: list[int], round_: int, table: int) -> RatedGame:
        app = self.app
        secret = hashlib.sha256(f"bench-ratings:{round_}:{table}".encode()).digest()
        game = app.create_game(secret=secret)
        hashes = [self.holders[p] for p in seated]
        for p, digest in zip(seated, hashes, strict=True):
            app.join(game, f"Strength {p + 1:02d}", caller=Caller(digest))
        app.start(game)
        bots = [epsilon_bot(self.epsilons[p], random.Random(self.rng.random())) for p in seated]
        play_out(app, game, hashes, lambda state, seat: bots[seat](state, seat))
        state = app.state(game)
        rated = rated_game(
            str(game),
            app.recorder.max_notification_id() or 0,
            [self.accounts[p] for p in seated],
            rank_keys(state),
            state.withdrawn,
        )
        assert rated is not None
        self.games.append(rated)
        return rated


# ---- the seats: learned against measured ------------------------------------------------


def measured_shares(app: Opus, folder: Path) -> dict[tuple[int, int], dict[str, Any]]:
    """The analytics report's seat advantage on this log: (players, seat) ->
    its row (share, Wilson interval)."""
    export(app, folder)
    engine = open_engine("duckdb", data_files(folder))
    try:
        answer = engine.run(sql_of("seat_advantage"))
    finally:
        engine.close()
    return {(row["players"], row["seat"]): row for row in answer.dicts()}


def predicted_shares(model: Model, games: Sequence[RatedGame]) -> dict[tuple[int, int], float]:
    """Each seat's mean predicted probability of the win over these games."""
    sums: dict[tuple[int, int], float] = defaultdict(float)
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for game in games:
        for s, p in zip(game.seats, model.predict(game), strict=True):
            sums[(game.players, s.seat)] += p
            counts[(game.players, s.seat)] += 1
    return {key: sums[key] / counts[key] for key in sums}


# ---- the projection ---------------------------------------------------------------------


def rebuild_rates(
    app: Opus, folder: Path, repeat: int
) -> tuple[int, dict[str, float], float, float, list[str]]:
    """Each projection rebuilt alone from a SQLite copy of the log into
    SQLite views: events of the log per second, the best of ``repeat``
    rebuilds each; the raw read's rate, the best of one before each round
    and one after them all (the machine may be busy: the best of each is
    the figure least disturbed); and how the rebuilt ratings view differs
    from the ratings recomputed."""
    events = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "e.db")}
    copy = Opus(env=events)
    from tests.apps import copy_events  # here: it builds the web app, which the rest need not

    copy_events(app, copy)
    end = copy.recorder.max_notification_id() or 0

    def raw_read() -> tuple[int, float]:
        started, position, count = time.perf_counter(), 0, 0
        while position < end:
            page = copy.recorder.select_notifications(
                start=position, limit=BATCH_SIZE, stop=end, inclusive_of_start=False
            )
            count += len(page)
            position = page[-1].id
        return count, count / (time.perf_counter() - started)

    count, raw = raw_read()
    rates: dict[str, float] = {}
    found: list[str] = []
    for round_ in range(repeat):
        if round_:
            raw = max(raw, raw_read()[1])
        for name in PROJECTIONS:
            store = SQLiteViewStore(str(folder / f"views-{name}-{round_}.db"))
            try:
                done = rebuild(store, copy, select([name]))
                rates[name] = max(rates.get(name, 0.0), count / done.seconds)
                if name == "ratings":
                    recorded = Queries(store).ratings_record(history=True)
                    found = differences(recorded, ledger_from_log(copy))
            finally:
                store.close()
    raw = max(raw, raw_read()[1])
    started, position = time.perf_counter(), 0
    while position < end:
        rows = select_rows(copy, position, BATCH_SIZE, end)
        assert rows is not None
        position = rows[-1][0]
    rows_rate = count / (time.perf_counter() - started)
    copy.close()
    return count, rates, raw, rows_rate, found


# ---- the run ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=max(CHECKPOINTS), help="training rounds")
    parser.add_argument("--held-out", type=int, default=30, help="rounds never rated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rebuild", action="store_true", help="leave the projection out")
    parser.add_argument("--repeat", type=int, default=3, help="rebuild rounds (the best counts)")
    parser.add_argument(
        "--synthetic-seeds", type=int, default=6, help="synthetic populations (0: none)"
    )
    parser.add_argument("--synthetic-only", action="store_true", help="no bot games")
    args = parser.parse_args()
    started = time.perf_counter()
    if not args.synthetic_only:
        bot_games(args, started)
    for seating in SEATINGS if args.synthetic_seeds else ():
        run_synthetic(seating, args.synthetic_seeds, args.players, SPREAD, HELD_OUT_SYNTHETIC, say)
    say(f"\ntime: {time.perf_counter() - started:.0f} s")


def bot_games(args: argparse.Namespace, started: float) -> None:
    """The bot games' figures (the module's docstring), every one from this run."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    population = Population.open(app, args.players, args.seed)
    truth = [-e for e in population.epsilons]  # a smaller ε is stronger
    models: list[Model] = [
        Seated(PARAMETERS, "model"),
        Seated(BEFORE_ISSUE_35, "before issue 35"),
        Seated(WIDER, f"seats σ₀ {WIDER.seat_sigma:g}"),
        Unseated(PARAMETERS, "no seats"),
        *(RankElo(k) for k in ELO_K),
    ]
    kept: dict[int, list[Model]] = {}
    checkpoints = [c for c in CHECKPOINTS if c <= args.rounds] or [args.rounds]
    for number in range(1, args.rounds + 1):
        for game in population.round(number):
            for model in models:
                model.update(game)
        if number in checkpoints:
            kept[number] = [model.snapshot() for model in models]
            say(
                f"  {number} games a player: {len(population.games):,} games, "
                f"{time.perf_counter() - started:.0f} s"
            )
    training = list(population.games)
    held_out = [g for n in range(args.held_out) for g in population.round(args.rounds + 1 + n)]
    say(f"  held out: {len(held_out):,} games, {time.perf_counter() - started:.0f} s")

    say(
        f"\n{args.players} players of ε = 0 … 1; {len(training):,} games rated, "
        f"{len(held_out):,} held out (seed {args.seed})\n"
    )
    say("Spearman ρ, the rating's order against the true order (aim: ≥ 0.9 at 30):")
    say(f"  {'games a player':<16}" + "".join(f"{m.name:>18}" for m in models))
    for number, snapshot in kept.items():
        rhos = [spearman([m.score(a) for a in population.accounts], truth) for m in snapshot]
        say(f"  {number:<16}" + "".join(f"{rho:>18.3f}" for rho in rhos))

    say("\nHeld-out log-loss of the winner (lower is better; aim: ≥ 5 % below rank Elo):")
    say(
        f"  {'games a player':<16}"
        + "".join(f"{m.name:>18}" for m in models)
        + f"{'vs Elo K=32':>13}{'vs best Elo':>13}{'vs no seats':>13}{'vs before':>11}"
    )
    for number, snapshot in kept.items():
        loss = {m.name: log_loss(m, held_out) for m in snapshot}
        mine = loss["model"]
        best_elo = min(loss[m.name] for m in snapshot if isinstance(m, RankElo))
        say(
            f"  {number:<16}"
            + "".join(f"{loss[m.name]:>18.4f}" for m in snapshot)
            + f"{mine / loss['rank Elo K=32'] - 1:>+13.1%}{mine / best_elo - 1:>+13.1%}"
            + f"{mine / loss['no seats'] - 1:>+13.1%}{mine / loss['before issue 35'] - 1:>+11.1%}"
        )

    hindsight = log_loss(Hindsight(training + held_out), held_out)
    say(
        f"\nThe oracle, where the true strengths are not known: {Hindsight.name}, "
        f"log-loss {hindsight:.4f} on the held-out games; above it:"
    )
    names = ["model", "before issue 35", "rank Elo K=32"]
    say(f"  {'games a player':<16}" + "".join(f"{name:>18}" for name in names))
    for number, snapshot in kept.items():
        loss = {m.name: log_loss(m, held_out) for m in snapshot}
        say(f"  {number:<16}" + "".join(f"{loss[n] / hindsight - 1:>+18.1%}" for n in names))

    final = {m.name: m for m in kept[checkpoints[-1]]}
    seated, before, wider = final["model"], final["before issue 35"], final[models[2].name]
    unseated = final["no seats"]
    assert isinstance(seated, Seated)
    with tempfile.TemporaryDirectory() as tmp:
        measured = measured_shares(app, Path(tmp) / "parquet")
        every = training + held_out
        shares = [predicted_shares(m, every) for m in (seated, before, wider, unseated)]
        say("\nSeat effects (μ of 'seat k at a table of s', less its table's mean) and win shares,")
        say("predicted on every game played against the analytics report's measure of them;")
        say("'at equals': the share at a table of settled equals, as /players shows it:")
        say(
            f"  {'table':>5} {'seat':>4} {'effect':>8} {'σ':>6} {'at equals':>10} "
            f"{'predicted':>10} {'before':>7} {'σ₀ ' + format(WIDER.seat_sigma, 'g'):>7} "
            f"{'no seats':>9} {'measured':>9} {'95 % interval':>17}  inside (now, before, σ₀)"
        )
        inside = [0, 0, 0]
        for players in TABLE_SIZES:
            effects = [seated.seat(k, players) for k in range(players)]
            mean = sum(mu for mu, _ in effects) / players
            equals = equal_table_shares(seated.params, effects)
            for k, (mu, sigma) in enumerate(effects):
                row = measured[(players, k)]
                now, then, wide, plain = (found[(players, k)] for found in shares)
                ok = [row["wilson_low"] <= p <= row["wilson_high"] for p in (now, then, wide)]
                inside = [a + b for a, b in zip(inside, ok, strict=True)]
                say(
                    f"  {players:>5} {k + 1:>4} {mu - mean:>+8.3f} {sigma:>6.3f} "
                    f"{equals[k]:>10.1%} {now:>10.1%} {then:>7.1%} {wide:>7.1%} {plain:>9.1%} "
                    f"{row['share']:>9.1%}   [{row['wilson_low']:.1%}, {row['wilson_high']:.1%}]"
                    "  " + ", ".join("yes" if x else "NO" for x in ok)
                )
        say(
            f"  inside the interval: {inside[0]} of {sum(TABLE_SIZES)} seats "
            f"({inside[1]} before issue 35, {inside[2]} with σ₀ {WIDER.seat_sigma:g})"
        )
        if not args.no_rebuild:
            count, rates, raw, rows_rate, found = rebuild_rates(app, Path(tmp), args.repeat)
            say(
                f"\nRebuild, each projection alone, SQLite events -> SQLite views ({count:,} "
                f"events, the best of {args.repeat}):"
            )
            say(f"  {'raw read of the notifications':<34} {raw:>10,.0f} events/s")
            say(f"  {'(the rebuild reading rows itself)':<34} {rows_rate:>10,.0f} events/s")
            for name, rate in sorted(rates.items(), key=lambda item: -item[1]):
                say(f"  {'rebuild ' + name:<34} {rate:>10,.0f} events/s  {rate / raw:>6.1%} of raw")
            say(
                "  the ratings view rebuilt = the ratings recomputed from the log: "
                + ("yes" if not found else f"NO: {found[:3]}")
            )


if __name__ == "__main__":
    main()

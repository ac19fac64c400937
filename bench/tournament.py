"""Tournaments: pairing speed, and a tournament's overhead on its games.

From one run it prints:
- the time to pair round 5 (T3, T4.2b `regroup-1`, the default, and T4.2
  `swap-1`, T4.3 seats, with the standings it needs, each table's shares)
  for 1,000 and 10,000 players after four rounds of random results
  (targets: under 1 s and under 10 s), without teams and with the players
  in 4 and in 50 teams (T11.2: (c) first), with the peak memory the
  pairing allocates (tracemalloc, a run of its own);
- a 64-player, 5-round tournament of greedy bots through the application
  service on SQLite (register, pair, every move by its seat's token, every
  result and seal, finish) against the same games played outside a
  tournament (same secrets, seats and moves), and the ratio (aim ≤ 1.10).

The moves are recorded once in memory (bot choices excluded from both
timings), then replayed. Run: ``python bench/tournament.py [--players 64]
[--rounds 5] [--sizes 1000,10000] [--teams 4,50] [--pairing-only]``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.bots import BOTS
from domain.moves import Move
from domain.pipeline import Caller
from domain.simulation import enter_tournament, token_hash, token_of
from domain.tournaments.decide import decide_pairing, pair_round
from domain.tournaments.seeds import game_secret
from domain.tournaments.state import REGROUP_1, SWAP_1, TournamentState

Moves = dict[tuple[int, int], list[Move]]
Plan = dict[tuple[int, int], tuple[int, ...]]


# ---- pairing ------------------------------------------------------------------


def state_after_random_rounds(
    players: int, rounds: int, seed: int, procedure: str = REGROUP_1, teams: int = 0
) -> TournamentState:
    """A tournament's state after ``rounds`` paired rounds of random results,
    paired by ``procedure``, the players in ``teams`` teams (none for 0)."""
    rng = random.Random(seed)
    state = TournamentState.from_created(
        {
            "name": "Bench",
            "commitment": "",
            "secret": bytes(32).hex(),
            "rules": {"draw": "five", "guild": True, "stage_points": [2, 2, 4, 4, 6, 8, 10]},
            "tables": {"min": 3, "preferred": 4, "max": 5},
            "weight": 6,
            "late_until": 1,
            "time_limit": None,
            "rounds": None,
            "beacon": "",
            "unicode_version": "",
            "procedure": procedure,
            "cut": None,
        }
    )
    for n in range(1, players + 1):
        team = f"T{n % teams}" if teams else ""
        state.evolve(
            "PlayerRegistered", {"player": n, "name": f"P{n}", "contribution": str(n), "team": team}
        )
    tournament_seed = rng.randbytes(32)
    for r in range(1, rounds + 1):
        pairing, seats = pair_round(state, r, tournament_seed)
        tables: list[dict[str, Any]] = [
            {"table": t, "game": str(uuid.uuid4()), "players": players_}
            for t, players_ in enumerate(seats, start=1)
        ]
        state.evolve(
            "RoundPaired",
            {
                "round": r,
                "tables": tables,
                "byes": pairing.byes,
                "rounds": 5,
                "beacon": "",
                "seed": tournament_seed.hex(),
                "timestamp": "",
            },
        )
        for table in tables:
            size = len(table["players"])
            places = list(range(1, size + 1))
            rng.shuffle(places)
            state.evolve(
                "GameResultRecorded",
                {"game": table["game"], "places": places, "scores": [0] * size, "head": ""},
            )
        state.evolve("RoundClosed", {"round": r})
    return state


def time_pairing(players: int, procedure: str = REGROUP_1, teams: int = 0) -> float:
    """Round 5's whole pairing decision (standings, T3, the procedure, T4.3,
    the shares, the games' ids and secrets), as the service makes it."""
    state = state_after_random_rounds(players, 4, seed=players, procedure=procedure, teams=teams)
    assert state.seed is not None
    started = time.perf_counter()
    decide_pairing(state, uuid.UUID(int=players))
    return time.perf_counter() - started


def pairing_memory(players: int, teams: int) -> float:
    """The peak memory, in MB, that round 5's pairing decision allocates
    (tracemalloc: slower, so timed apart)."""
    state = state_after_random_rounds(players, 4, seed=players, teams=teams)
    tracemalloc.start()
    decide_pairing(state, uuid.UUID(int=players))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


# ---- a tournament against its games alone ------------------------------------


def record(players: int, rounds: int, seed: int) -> tuple[Moves, Plan]:
    """The tournament played in memory: every game's moves, and who sat
    where, by (round, table)."""
    app = Opus({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    run = enter_tournament(app, players, rounds, seed)
    choose = BOTS["greedy"](random.Random(seed))
    moves: Moves = {}
    plan: Plan = {}
    for _ in range(rounds):
        app.tournaments.pair(run.tournament)
        round_ = app.tournaments.get(run.tournament).state.rounds[-1]
        for seat in round_.tables:
            plan[(round_.number, seat.table)] = seat.players
            played = moves[(round_.number, seat.table)] = []
            state = app.state(seat.game)
            while state.status == "running":
                move = choose(state, state.turn)
                played.append(move)
                app.play(seat.game, move)
                state = app.state(seat.game)
    return moves, plan


def sqlite_app(folder: str, name: str) -> Opus:
    return Opus(
        {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{folder}/{name}.db"}
    )


def replay_tournament(folder: str, players: int, rounds: int, seed: int, moves: Moves) -> float:
    app = sqlite_app(folder, "tournament")
    started = time.perf_counter()
    run = enter_tournament(app, players, rounds, seed)
    hashes = {n: token_hash(token_of(seed, n)) for n in range(1, players + 1)}
    for _ in range(rounds):
        app.tournaments.pair(run.tournament)
        round_ = app.tournaments.get(run.tournament).state.rounds[-1]
        for seat in round_.tables:
            for move in moves[(round_.number, seat.table)]:
                app.play(seat.game, move, caller=Caller(hashes[seat.players[move.player]]))
    app.tournaments.finish(run.tournament)
    seconds = time.perf_counter() - started
    app.close()
    return seconds


def replay_games(folder: str, seed: int, moves: Moves, plan: Plan) -> float:
    """The same games, each created, joined, started and played on its own."""
    secret = _secret(seed)
    app = sqlite_app(folder, "games")
    started = time.perf_counter()
    for (r, t), seated in plan.items():
        game_id = app.create_game(secret=game_secret(secret, r, t))
        for p in seated:
            app.join(game_id, f"Bot {p}", f"c{p}", caller=Caller(token_hash(token_of(seed, p))))
        app.start(game_id)
        for move in moves[(r, t)]:
            app.play(game_id, move, caller=Caller(token_hash(token_of(seed, seated[move.player]))))
    seconds = time.perf_counter() - started
    app.close()
    return seconds


def _secret(seed: int) -> bytes:
    """The simulated tournament's secret (domain/tournaments/simulation.py)."""
    return hashlib.sha256(f"opus-tournament-secret:{seed}".encode()).digest()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--teams", default="4,50")
    parser.add_argument("--pairing-only", action="store_true")
    args = parser.parse_args(argv)
    teamed = [int(s) for s in args.teams.split(",") if s]
    print("pairing round 5 after four random rounds (T3, T4.2b / T4.2, T4.3, T11.3 shares)")
    heads = "".join(f" {f'{n} teams':>20}" for n in teamed)
    print(f"  {'':>14} {REGROUP_1:>10} {SWAP_1:>8}{heads}")
    for size in (int(s) for s in args.sizes.split(",") if s):
        regroup = time_pairing(size)
        swap = time_pairing(size, SWAP_1)
        cells = ""
        for n in teamed:
            seconds = time_pairing(size, REGROUP_1, teams=n)
            cells += f" {seconds:7.3f} s {pairing_memory(size, n):7.1f} MB"
        print(f"  {size:>6} players: {regroup:8.3f} s {swap:6.3f} s{cells}")
    if args.pairing_only:
        return
    moves, plan = record(args.players, args.rounds, args.seed)
    games = len(moves)
    count = sum(len(m) for m in moves.values())
    print(f"\n{args.players} players, {args.rounds} rounds: {games} games, {count} moves (SQLite)")
    with tempfile.TemporaryDirectory() as folder:
        results: dict[str, list[float]] = {"games": [], "tournament": []}
        for attempt in range(2):  # alternate, best of two each
            sub = f"{folder}/{attempt}"
            Path(sub).mkdir()
            results["games"].append(replay_games(sub, args.seed, moves, plan))
            results["tournament"].append(
                replay_tournament(sub, args.players, args.rounds, args.seed, moves)
            )
    alone, within = min(results["games"]), min(results["tournament"])
    print(f"  games alone:         {alone:6.2f} s ({count / alone:,.0f} moves/s)")
    print(f"  as a tournament:     {within:6.2f} s ({count / within:,.0f} moves/s)")
    print(f"  overhead ratio:      {within / alone:6.3f} (aim ≤ 1.10)")


if __name__ == "__main__":
    main(sys.argv[1:])

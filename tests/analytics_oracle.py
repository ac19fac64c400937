"""The analytics' figures by a plain Python pass over the log's records: the
reference every SQL answer is held to (tests/integration/test_analytics_*),
and the baseline of bench/analytics.py.

Nothing here is shared with projections/analytics/: each game is replayed
in a full ``GameState`` (domain/state.py: hands, deck and cabinet included,
from the ended games' records in clear), and every figure is computed
from the records' own fields, in exact fractions where SQL sums integers.
Rows come out as the SQL's columns, in its order.

Also here: games of mixed bots (each seat's contribution names its bot,
"bot:<kind>:...", as the analytics read it) for the tests.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any
from uuid import UUID

from domain.application import Opus
from domain.audit import Record
from domain.bots import BOTS
from domain.catalog import load_catalog
from domain.ruleset import RuleSet
from domain.state import GameState

CATALOG = load_catalog()
Z = 1.959963984540054
Row = dict[str, Any]


# ---- games for the tests -----------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    bots: tuple[str, ...]  # one per seat
    draw: str = "five"
    guild: bool = True


def play_mixed(app: Opus, spec: GameSpec, seed: int, moves: int | None = None) -> UUID:
    """One game of the spec's bots (to its end, or ``moves`` moves)."""
    rng = random.Random(seed)
    choose = {kind: BOTS[kind](rng) for kind in set(spec.bots)}
    secret = hashlib.sha256(f"analytics:{seed}".encode()).digest()
    game = app.create_game(RuleSet(draw=spec.draw, guild=spec.guild), secret=secret)
    for seat, kind in enumerate(spec.bots):
        app.join(game, f"P{seat}-{kind}", contribution=f"bot:{kind}:{seed}:{seat}")
    app.start(game)
    state = app.state(game)
    played = 0
    while state.status == "running" and (moves is None or played < moves):
        app.play(game, choose[spec.bots[state.turn]](state, state.turn))
        played += 1
        state = app.state(game)
    return game


# ---- one pass over the records ----------------------------------------------------


@dataclass
class OracleSeat:
    game: str
    seat: int
    name: str
    player_id: str
    bot: str | None
    players: int
    score: int
    stages: int
    recipes: int
    columns_done: int
    place: int
    credit: Fraction


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # turn times in whole microseconds since it


@dataclass
class OracleGame:
    game: str
    draw: str
    guild: bool
    players: int
    reason: str
    turns: int
    events: int
    position: int
    took: list[tuple[int, int]]  # each turn's seat and microseconds, in order
    tournament: str | None
    round: int | None
    seats: list[OracleSeat] = field(default_factory=list)


@dataclass
class OracleLog:
    games: list[OracleGame] = field(default_factory=list)
    awards: list[tuple[OracleGame, Mapping[str, Any], Mapping[str, Any] | None]] = field(
        default_factory=list
    )  # (game, award, its cause's payload)
    assemblies: list[tuple[OracleGame, Mapping[str, Any]]] = field(default_factory=list)
    # placed and cast
    fills: list[tuple[OracleGame, str, Mapping[str, Any]]] = field(default_factory=list)
    results: dict[str, tuple[int, list[int]]] = field(default_factory=dict)  # game -> latest


def read_log(records: Iterable[Record]) -> OracleLog:
    """Group the records by aggregate and read every ended game and every
    tournament result."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[record.aggregate_id].append(record)
    log = OracleLog()
    for aggregate, group in groups.items():
        group.sort(key=lambda r: r.version)
        if group[0].type == "TournamentCreated":
            for r in group:
                if r.type in ("GameResultRecorded", "ResultCorrected"):
                    assert r.payload is not None
                    log.results[str(r.payload["game"])] = (r.version, list(r.payload["places"]))
        elif group[-1].type == "GameEnded":
            _read_game(aggregate, group, log)
    return log


def player_id(token_hash: str, name: str) -> str:
    identity = f"token:{token_hash}" if token_hash else f"name:{name}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def _read_game(game_id: str, records: Sequence[Record], log: OracleLog) -> None:
    created = records[0].payload or {}
    state = GameState(
        commitment=created["commitment"],
        secret=created["secret"],
        variant=RuleSet(
            draw=created["draw"], guild=created["guild"], stage_points=created["stage_points"]
        ),
    )
    by_version = {r.version: r for r in records}
    contributions: list[str] = []
    hashes: list[str] = []
    columns_done: Counter[int] = Counter()
    turns = 0
    took: list[tuple[int, int]] = []
    started = 0
    for r in records[1:]:
        p = r.payload or {}
        state.evolve(r.type, p)
        if r.type in ("GameStarted", "TurnEnded"):
            at = datetime.fromisoformat(r.timestamp)
            micro = (at - EPOCH) // timedelta(microseconds=1)
            if r.type == "TurnEnded":
                took.append((p["player"], micro - started))
            started = micro
        if r.type == "PlayerJoined":
            contributions.append(p["contribution"])
            hashes.append(p["token_hash"])
        elif r.type == "PlayerLeft":
            del contributions[p["player"]], hashes[p["player"]]
        elif r.type == "SequenceCompleted":
            columns_done[p["player"]] += 1
        elif r.type == "TurnEnded":
            turns += 1
    end = records[-1]
    ended = end.payload or {}
    players = len(state.names)
    game = OracleGame(
        game=game_id,
        draw=created["draw"],
        guild=created["guild"],
        players=players,
        reason=ended["reason"],
        turns=turns,
        events=end.version,
        position=end.position or 0,
        took=took,
        tournament=created.get("tournament"),
        round=created.get("round"),
    )
    keys = [
        (
            ended["scores"][s],
            state.completed_stages(s) if state.columns else 0,
            len(state.tables[s]),
        )
        for s in range(players)
    ]
    assert [state.scores[s] for s in range(players)] == ended["scores"]
    winners = ended["winners"]
    for s in range(players):
        contribution = contributions[s]
        bot = contribution.split(":")[1] if contribution.startswith("bot:") else None
        game.seats.append(
            OracleSeat(
                game=game_id,
                seat=s,
                name=state.names[s],
                player_id=player_id(hashes[s], state.names[s]),
                bot=bot or None,
                players=players,
                score=ended["scores"][s],
                stages=keys[s][1],
                recipes=keys[s][2],
                columns_done=columns_done[s],
                place=1 + sum(k > keys[s] for k in keys),
                credit=Fraction(1, len(winners)) if s in winners else Fraction(0),
            )
        )
    log.games.append(game)
    for r in records:
        p = r.payload or {}
        if r.type == "PointsAwarded":
            cause = by_version.get(p["cause_version"])
            log.awards.append((game, {**p, "version": r.version}, cause.payload if cause else None))
        elif r.type == "RecipeAssembled":
            log.assemblies.append((game, {**p, "version": r.version}))
        elif r.type == "RecipePlaced" or (r.type == "SpellCast" and p["kind"] == "transmutation"):
            log.fills.append((game, r.type, {**p, "version": r.version}))


# ---- the questions -----------------------------------------------------------------


def figures(records: Iterable[Record]) -> dict[str, list[Row]]:
    log = read_log(records)
    return {
        "seat_advantage": seat_advantage(log),
        "card_strength": card_strength(log),
        "points_by_rule": points_by_rule(log),
        "steal_graph": steal_graph(log),
        "sequence_progress": sequence_progress(log),
        "sequence_wins": sequence_wins(log),
        "game_ends": game_ends(log),
        "game_length": game_length(log),
        "length_histogram": length_histogram(log),
        "time_per_move": time_per_move(log),
        "bot_head_to_head": bot_head_to_head(log),
        "player_history": player_history(log),
        "tournament_seats": tournament_seats(log),
        "tournament_match_points": tournament_match_points(log),
    }


def _seats(log: OracleLog) -> list[OracleSeat]:
    return [s for g in log.games for s in g.seats]


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of ``wins`` in ``n``. In exact
    arithmetic its lower bound is 0 when there is no win and its upper bound
    1 when every game is won (the square root is then exactly z / 2n):
    those two are taken exactly, the others from the formula."""
    p = wins / n
    centre = p + Z * Z / (2 * n)
    spread = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    low = 0.0 if wins == 0 else (centre - spread) / (1 + Z * Z / n)
    high = 1.0 if wins == n else (centre + spread) / (1 + Z * Z / n)
    return low, high


def seat_advantage(log: OracleLog) -> list[Row]:
    groups: dict[tuple[int, int], list[OracleSeat]] = defaultdict(list)
    for s in _seats(log):
        groups[(s.players, s.seat)].append(s)
    rows = []
    for (players, seat), seats in sorted(groups.items()):
        wins = float(sum((s.credit for s in seats), Fraction(0)))
        share = wins / len(seats)
        low, high = wilson(wins, len(seats))
        rows.append(
            {
                "players": players,
                "seat": seat,
                "games": len(seats),
                "wins": wins,
                "share": share,
                "wilson_low": low,
                "wilson_high": high,
                "fair_share": 1 / players,
                "edge": share - 1 / players,
            }
        )
    return rows


def _location(source: str) -> tuple[str, int | None]:
    parts = source.split(":")
    return parts[0], int(parts[1]) if len(parts) > 1 else None


def _taken_from_others(
    log: OracleLog,
) -> list[tuple[OracleGame, int, int, int, str, Mapping[str, Any]]]:
    """(game, action version, taker, victim, zone, card) of every card taken
    from another player's table or Sequence."""
    taken = []
    for game, a in log.assemblies:
        for card, source in zip(a["components"], a["sources"], strict=True):
            zone, seat = _location(source)
            if zone in ("table", "sequence") and seat != a["player"]:
                assert seat is not None
                taken.append((game, a["version"], a["player"], seat, zone, {"card": card}))
    for game, kind, f in log.fills:
        if kind == "RecipePlaced":
            zone, seat = _location(f["source"])
            if zone in ("table", "sequence") and seat != f["player"]:
                assert seat is not None
                taken.append((game, f["version"], f["player"], seat, zone, {"card": f["card"]}))
    return taken


def card_strength(log: OracleLog) -> list[Row]:
    seats = {(s.game, s.seat): s for s in _seats(log)}
    total_credit = sum((s.credit for s in seats.values()), Fraction(0))
    owners: dict[str, set[tuple[str, int]]] = defaultdict(set)
    assemblies: Counter[str] = Counter()
    for game, a in log.assemblies:
        name = CATALOG.cards[a["card"]].name
        owners[name].add((game.game, a["player"]))
        assemblies[name] += 1
    brought: Counter[tuple[str, int, str]] = Counter()
    for game, award, cause in log.awards:
        if award["rule"] in ("R4.4", "R4.6") and cause is not None:
            brought[(game.game, award["player"], CATALOG.cards[cause["card"]].name)] += award[
                "points"
            ]
    stolen: Counter[str] = Counter(
        CATALOG.cards[t[5]["card"]].name for t in _taken_from_others(log)
    )
    rows = []
    for name, who in owners.items():
        credit = sum((seats[k].credit for k in who), Fraction(0))
        others = len(seats) - len(who)
        mine = float(credit / len(who))
        theirs = float((total_credit - credit) / others) if others else None
        card = next(c for c in CATALOG.cards.values() if c.name == name)
        rows.append(
            {
                "name": name,
                "kind": card.kind,
                "printed_points": card.points,
                "assemblies": assemblies[name],
                "assembled_seats": len(who),
                "assembled_win_share": mine,
                "other_seats": others,
                "other_win_share": theirs,
                "win_share_delta": None if theirs is None else mine - theirs,
                "mean_points": sum(brought[(g, s, name)] for g, s in who) / len(who),
                "stolen": stolen[name],
                "stolen_per_assembly": stolen[name] / assemblies[name],
            }
        )
    rows.sort(key=lambda r: (-(r["win_share_delta"] or -math.inf), r["name"]))
    return rows


def points_by_rule(log: OracleLog) -> list[Row]:
    points: Counter[tuple[int, str, bool, str]] = Counter()
    awards: Counter[tuple[int, str, bool, str]] = Counter()
    for game, award, _ in log.awards:
        key = (game.players, game.draw, game.guild, award["rule"])
        points[key] += award["points"]
        awards[key] += 1
    totals: Counter[tuple[int, str, bool]] = Counter()
    for key, value in points.items():
        totals[key[:3]] += value
    return [
        {
            "players": key[0],
            "draw": key[1],
            "guild": key[2],
            "rule": key[3],
            "points": points[key],
            "awards": awards[key],
            "share": points[key] / totals[key[:3]] if totals[key[:3]] else None,
        }
        for key in sorted(points)
    ]


def steal_graph(log: OracleLog) -> list[Row]:
    gained: Counter[tuple[str, int, int]] = Counter()  # (game, action, player) -> points
    halves: Counter[tuple[str, int, int]] = Counter()
    for game, award, _ in log.awards:
        key = (game.game, award["cause_version"], award["player"])
        if award["rule"].endswith("/half"):
            halves[key] += award["points"]
        else:
            gained[key] += award["points"]
    pairs: dict[tuple[int, int, int], Counter[str]] = defaultdict(Counter)
    actions: dict[tuple[int, int, int], set[tuple[str, int]]] = defaultdict(set)
    for game, version, taker, victim, zone, _ in _taken_from_others(log):
        key = (game.players, taker, victim)
        pairs[key]["cards"] += 1
        pairs[key][zone] += 1
        if (game.game, version) not in actions[key]:
            actions[key].add((game.game, version))
            pairs[key]["taker_points"] += gained[(game.game, version, taker)]
            pairs[key]["victim_points"] += halves[(game.game, version, victim)]
    return [
        {
            "players": key[0],
            "taker": key[1],
            "victim": key[2],
            "cards": c["cards"],
            "actions": len(actions[key]),
            "from_tables": c["table"],
            "from_sequences": c["sequence"],
            "taker_points": c["taker_points"],
            "victim_points": c["victim_points"],
            "net_points": c["taker_points"] - c["victim_points"],
        }
        for key, c in sorted(pairs.items())
    ]


def sequence_progress(log: OracleLog) -> list[Row]:
    guild_seats = sum(g.players for g in log.games if g.guild)
    stage_points: Counter[tuple[str, int]] = Counter()
    for game, award, _ in log.awards:
        if award["rule"] == "R4.6":
            stage_points[(game.game, award["cause_version"])] += award["points"]
    counts: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    for game, kind, f in log.fills:
        c = counts[(f["column"], f["stage"])]
        c["fills"] += 1
        if kind == "SpellCast":
            c["transmutations"] += 1
            continue
        zone, seat = _location(f["source"])
        if zone == "hand":
            c["from_hand"] += 1
        elif zone in ("table", "sequence"):
            c["from_own" if seat == f["player"] else "from_others"] += 1
        c["points"] += stage_points[(game.game, f["version"])]
    return [
        {
            "sequence_column": column,
            "stage": stage,
            "fills": c["fills"],
            "from_hand": c["from_hand"],
            "from_own": c["from_own"],
            "from_others": c["from_others"],
            "transmutations": c["transmutations"],
            "points": c["points"],
            "reach_share": c["fills"] / guild_seats,
        }
        for (column, stage), c in sorted(counts.items())
    ]


def sequence_wins(log: OracleLog) -> list[Row]:
    groups: dict[tuple[int, int], list[OracleSeat]] = defaultdict(list)
    for g in log.games:
        if g.guild:
            for s in g.seats:
                groups[(s.players, s.columns_done)].append(s)
    rows = []
    for (players, done), seats in sorted(groups.items()):
        wins = float(sum((s.credit for s in seats), Fraction(0)))
        rows.append(
            {
                "players": players,
                "sequences_completed": done,
                "seats": len(seats),
                "wins": wins,
                "win_share": wins / len(seats),
                "mean_stages": sum(s.stages for s in seats) / len(seats),
                "mean_score": sum(s.score for s in seats) / len(seats),
            }
        )
    return rows


def game_ends(log: OracleLog) -> list[Row]:
    groups: dict[tuple[int, str, bool, str], list[OracleGame]] = defaultdict(list)
    for g in log.games:
        groups[(g.players, g.draw, g.guild, g.reason)].append(g)
    variant: Counter[tuple[int, str, bool]] = Counter()
    for key, games in groups.items():
        variant[key[:3]] += len(games)
    return [
        {
            "players": key[0],
            "draw": key[1],
            "guild": key[2],
            "end_reason": key[3],
            "games": len(games),
            "share": len(games) / variant[key[:3]],
            "mean_turns": sum(g.turns for g in games) / len(games),
        }
        for key, games in sorted(groups.items())
    ]


def game_length(log: OracleLog) -> list[Row]:
    groups: dict[int, list[OracleGame]] = defaultdict(list)
    for g in log.games:
        groups[g.players].append(g)
    return [
        {
            "players": players,
            "games": len(games),
            "mean_turns": sum(g.turns for g in games) / len(games),
            "min_turns": min(g.turns for g in games),
            "max_turns": max(g.turns for g in games),
            "mean_events": sum(g.events for g in games) / len(games),
            "min_events": min(g.events for g in games),
            "max_events": max(g.events for g in games),
            "mean_turns_per_seat": sum(g.turns for g in games) / (players * len(games)),
        }
        for players, games in sorted(groups.items())
    ]


def time_per_move(log: OracleLog) -> list[Row]:
    """Each turn's time, from the command that gave it (or the start) to
    its end, grouped by its seat and its third of the game's turns."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for g in log.games:
        for number, (seat, micro) in enumerate(g.took):
            groups[(seat, 3 * number // g.turns + 1)].append(micro)
    return [
        {
            "seat": seat,
            "phase": phase,
            "turns": len(times),
            "mean_seconds": sum(times) / len(times) / 1_000_000,
            "max_seconds": max(times) / 1_000_000,
        }
        for (seat, phase), times in sorted(groups.items())
    ]


def length_histogram(log: OracleLog) -> list[Row]:
    bins = Counter((g.players, g.turns // 10 * 10) for g in log.games)
    return [
        {"players": players, "turns_from": start, "games": n}
        for (players, start), n in sorted(bins.items())
    ]


def bot_head_to_head(log: OracleLog) -> list[Row]:
    pairs: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for g in log.games:
        for a in g.seats:
            for b in g.seats:
                if a.seat == b.seat or a.bot is None or b.bot is None:
                    continue
                c = pairs[(a.bot, b.bot)]
                c["meetings"] += 1
                c["ahead" if a.place < b.place else "behind" if a.place > b.place else "level"] += 1
    return [
        {
            "bot": bot,
            "opponent": opponent,
            "meetings": c["meetings"],
            "ahead": c["ahead"],
            "behind": c["behind"],
            "level": c["level"],
            "score_share": (2 * c["ahead"] + c["level"]) / (2 * c["meetings"]),
        }
        for (bot, opponent), c in sorted(pairs.items())
    ]


def player_history(log: OracleLog) -> list[Row]:
    groups: dict[str, list[tuple[OracleGame, OracleSeat]]] = defaultdict(list)
    for g in log.games:
        for s in g.seats:
            groups[s.player_id].append((g, s))
    rows = []
    for player, played in groups.items():
        latest = max(played, key=lambda gs: (gs[0].position, -gs[1].seat))
        wins = float(sum((s.credit for _, s in played), Fraction(0)))
        rows.append(
            {
                "player_id": player,
                "name": latest[1].name,
                "games": len(played),
                "wins": wins,
                "win_share": wins / len(played),
                "mean_score": sum(s.score for _, s in played) / len(played),
                "mean_place": sum(s.place for _, s in played) / len(played),
                "first_position": min(g.position for g, _ in played),
                "last_position": max(g.position for g, _ in played),
            }
        )
    rows.sort(key=lambda r: (-r["games"], r["player_id"]))
    return rows


def tournament_seats(log: OracleLog) -> list[Row]:
    games: dict[str, list[OracleGame]] = defaultdict(list)
    for g in log.games:
        if g.tournament is not None:
            games[g.tournament].append(g)
    rows = []
    for tournament, played in sorted(games.items()):
        per: dict[str, list[OracleSeat]] = defaultdict(list)
        for g in played:
            for s in g.seats:
                per[s.player_id].append(s)
        firsts = [sum(s.seat == 0 for s in seats) for seats in per.values()]
        lateness = [
            sum(s.seat for s in seats) / sum(s.players - 1 for s in seats) for seats in per.values()
        ]
        rows.append(
            {
                "tournament": tournament,
                "rounds": max(g.round or 0 for g in played),
                "games": len(played),
                "players": len(per),
                "first_seats_min": min(firsts),
                "first_seats_max": max(firsts),
                "lateness_min": min(lateness),
                "lateness_max": max(lateness),
            }
        )
    return rows


def match_points(places: Sequence[int]) -> list[Fraction]:
    """T5.2, written out again: place k of s gets 12(s-k)/(s-1); a shared
    place shares the places it covers."""
    s = len(places)
    return [
        Fraction(sum(12 * (s - k) for k in range(p, p + places.count(p))), (s - 1))
        / places.count(p)
        for p in places
    ]


def tournament_match_points(log: OracleLog) -> list[Row]:
    groups: dict[tuple[int, int], list[tuple[int, Fraction]]] = defaultdict(list)
    for _, (_, places) in log.results.items():
        for seat, points in enumerate(match_points(places)):
            groups[(len(places), seat)].append((places[seat], points))
    return [
        {
            "players": players,
            "seat": seat,
            "results": len(got),
            "mean_match_points": float(sum((p for _, p in got), Fraction(0)) / len(got)),
            "first_places": sum(place == 1 for place, _ in got),
        }
        for (players, seat), got in sorted(groups.items())
    ]

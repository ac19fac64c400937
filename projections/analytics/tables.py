"""The analytics tables and their row builders: one pass over an ended game.

One row per:

- ``game``: variant (draw, guild, stage points, rules digest), players, how
  it ended (R7.1, R7.2, "stalled" R7.4, "withdrawn" R3.5, "called" T8.1), turns, events (its
  last version), winners, its tournament, round and table when it has one;
- ``seat``: game, seat, name, player id (the leaderboard's: a hash of the
  seat's token hash, or of its name without one), bot kind (``bot_kind``),
  place (T5.1 = R7.3's order, ties sharing), score, completed stages (R7.3:
  gaps, Transmutations and Stones count), table recipes at the end,
  Sequences completed, whether it won and its share of the win in sixtieths
  (``win_units``: 60 for a win alone, 60/k for a win shared by k seats, so
  sums stay exact integers whatever the engine);
- ``award``: every PointsAwarded (player, points, rule label, cause event
  type and version) with the card of its cause and the seat that acted;
- ``assembly``: every RecipeAssembled (recipe card, name, kind, printed
  points, components and their sources, how many came from the cabinet,
  from the assembler's own table or Sequences, from other players');
- ``placement``: every Sequence stage filled (RecipePlaced, and a
  Transmutation cast into a stage), with where the card came from and the
  stage points it scored (R4.6);
- ``steal``: every card taken from another player's table or Sequence (an
  assembly's component or a placed card): taker, victim, zone, column and
  stage, card, and on the first card the action took from that victim the
  points the action gave the taker and the half-share the victim got (R4.4,
  R4.6, S15: once per action and victim), 0 on the others;
- ``spell``: every SpellCast;
- ``turn``: every TurnEnded, numbered from 1, with the main action taken
  (discard, assemble, place, pass), the spells cast, the points the player
  scored in it and the time it took (``took_us``: microseconds from the
  command that gave the turn, or the start, to the TurnEnded; RULES R11.2's
  reading of a turn, in every game, timed or not);
- ``result``: a tournament's GameResultRecorded and ResultCorrected, one row
  per seat: place and match points (T5.2, exact halves) — the latest row of
  a game (highest version) counts (T7.1).

The open part of the table (recipes on tables, Sequence stages, scores) is
``domain.table.Table`` evolved with the game's events, the cabinet left out:
the events that only deal or draw cards or return them to the cabinet
(CardsDealt, CardsDrawn, ComponentsReturned) are not read at all, so no row
holds hidden information (R9.3). Rows are built only for ended games
(GameEnded read), so everything in them is final.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

import pyarrow as pa  # type: ignore[import-untyped]

from domain.clock import micros
from domain.engine import rank_keys
from domain.table import CARDS, Table
from domain.tournaments.standings import match_points, places
from domain.zones import Location
from projections.leaderboard import player_id

WIN_UNITS = 60  # a win alone; a win shared by k seats (R7.3) is 60/k (k <= 6 divides 60)
BOT_PREFIX = "bot:"  # a seat whose contribution reads "bot:<kind>[:...]" is that bot

# The event types the tables are built from; the others (CardsDealt,
# CardsDrawn, ComponentsReturned) touch only hands, deck and cabinet.
GAME_TYPES = (
    "GameCreated",
    "TournamentGameCreated",
    "PlayerJoined",
    "PlayerLeft",
    "GameStarted",
    "CardDiscarded",
    "StageStolen",
    "StageTaken",
    "RecipeAssembled",
    "RecipePlaced",
    "SpellCast",
    "PointsAwarded",
    "SequenceCompleted",
    "TurnEnded",
    "SeatWithdrawn",
    "GameCalled",
    "GameEnded",
)
RESULT_TYPES = ("GameResultRecorded", "ResultCorrected")

S, I32, I64, B, F64 = pa.string(), pa.int32(), pa.int64(), pa.bool_(), pa.float64()

SCHEMAS: dict[str, Any] = {
    "game": pa.schema(
        [
            ("game_id", S),
            ("draw", S),
            ("guild", B),
            ("stage_points", S),
            ("rules_digest", S),
            ("players", I32),
            ("end_reason", S),
            ("turns", I32),
            ("events", I32),
            ("winners", S),
            ("winner_count", I32),
            ("called", B),
            ("withdrawn", I32),
            ("tournament", S),
            ("tournament_round", I32),
            ("tournament_table", I32),
            ("created_at", S),
            ("ended_at", S),
            ("end_position", I64),
        ]
    ),
    "seat": pa.schema(
        [
            ("game_id", S),
            ("seat", I32),
            ("name", S),
            ("player_id", S),
            ("bot_kind", S),
            ("players", I32),
            ("sequence_card", S),
            ("score", I32),
            ("stages", I32),
            ("recipes", I32),
            ("sequences_completed", I32),
            ("place", I32),
            ("won", B),
            ("win_units", I32),
            ("withdrawn", B),
        ]
    ),
    "award": pa.schema(
        [
            ("game_id", S),
            ("version", I32),
            ("player", I32),
            ("points", I32),
            ("rule", S),
            ("cause", S),
            ("cause_version", I32),
            ("card", I32),
            ("name", S),
            ("actor", I32),
        ]
    ),
    "assembly": pa.schema(
        [
            ("game_id", S),
            ("version", I32),
            ("player", I32),
            ("card", I32),
            ("name", S),
            ("kind", S),
            ("points", I32),
            ("components", pa.list_(I32)),
            ("sources", pa.list_(S)),
            ("from_cabinet", I32),
            ("from_own", I32),
            ("from_others", I32),
        ]
    ),
    "placement": pa.schema(
        [
            ("game_id", S),
            ("version", I32),
            ("player", I32),
            ("sequence_column", S),
            ("stage", I32),
            ("card", I32),
            ("name", S),
            ("kind", S),
            ("source_zone", S),
            ("source_player", I32),
            ("points", I32),
        ]
    ),
    "steal": pa.schema(
        [
            ("game_id", S),
            ("version", I32),
            ("via", S),
            ("taker", I32),
            ("victim", I32),
            ("zone", S),
            ("sequence_column", S),
            ("stage", I32),
            ("card", I32),
            ("name", S),
            ("first_card", B),
            ("taker_points", I32),
            ("victim_points", I32),
        ]
    ),
    "spell": pa.schema(
        [
            ("game_id", S),
            ("version", I32),
            ("player", I32),
            ("spell", I32),
            ("kind", S),
            ("card", I32),
            ("recipe", I32),
            ("sequence_column", S),
            ("stage", I32),
        ]
    ),
    "turn": pa.schema(
        [
            ("game_id", S),
            ("turn", I32),
            ("version", I32),
            ("player", I32),
            ("passed", B),
            ("action", S),
            ("spells", I32),
            ("points", I32),
            ("took_us", I64),
        ]
    ),
    "result": pa.schema(
        [
            ("tournament", S),
            ("game_id", S),
            ("version", I32),
            ("position", I64),
            ("kind", S),
            ("seat", I32),
            ("players", I32),
            ("place", I32),
            ("match_points", F64),
        ]
    ),
}
TABLES = tuple(SCHEMAS)
# where rows filled in later (by the PointsAwarded after their event) keep it
_FIRST, _TAKER_POINTS, _VICTIM_POINTS = (
    SCHEMAS["steal"].get_field_index(name)
    for name in ("first_card", "taker_points", "victim_points")
)
_STAGE_POINTS = SCHEMAS["placement"].get_field_index("points")


@dataclass
class PendingRows:
    """Rows waiting to be written: per table, lists in schema order."""

    rows: dict[str, list[list[Any]]] = field(default_factory=lambda: {t: [] for t in TABLES})

    def __len__(self) -> int:
        return sum(len(r) for r in self.rows.values())

    def arrow(self, table: str) -> Any:
        """One table's rows as an Arrow table of its schema."""
        schema = SCHEMAS[table]
        rows = self.rows[table]
        if any(len(row) != len(schema) for row in rows):
            raise ValueError(f"a {table} row without the schema's {len(schema)} columns")
        # a column at a time (a list made by index is a few times faster
        # than transposing the rows with zip)
        arrays = [
            pa.array([row[i] for row in rows], type=column.type) for i, column in enumerate(schema)
        ]
        return pa.Table.from_arrays(arrays, schema=schema)

    def clear(self) -> None:
        for rows in self.rows.values():
            rows.clear()


@dataclass(kw_only=True)
class OpenTable(Table):
    """``Table`` without the cabinet and the hands: what the analytics need of
    it (tables, Sequences, scores) from the events it reads."""

    hand_changes: ClassVar[dict[str, Any]] = {}

    def push(self, card: int) -> None:
        """The cabinet is not followed."""

    def pop(self, card: int) -> None:
        """The cabinet is not followed."""

    def hand_counts(self) -> list[int]:
        return []

    def deck_count(self) -> int:
        return 0


# the Table's handlers of the events that change what the rows read of it
# (seats, recipes on tables, Sequence stages); the others are not applied
OPEN_HANDLERS = {
    t: OpenTable.handlers[t]
    for t in (
        "PlayerJoined",
        "PlayerLeft",
        "GameStarted",
        "StageStolen",
        "StageTaken",
        "RecipeAssembled",
        "RecipePlaced",
        "SpellCast",
    )
}


def bot_kind(contribution: str) -> str | None:
    """The bot a seat was played by, when its contribution says so
    ("bot:greedy", "bot:random:..."), else None."""
    if not contribution.startswith(BOT_PREFIX):
        return None
    return contribution[len(BOT_PREFIX) :].split(":", 1)[0] or None


def _time(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _name(card: int) -> str:
    found = CARDS.get(card)
    return found.name if found is not None else str(card)


@dataclass
class _Seen:
    """What one pass has gathered of a game besides the open table."""

    created: Mapping[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    contributions: list[str] = field(default_factory=list)
    token_hashes: list[str] = field(default_factory=list)
    digest: str = ""
    completed: list[int] = field(default_factory=list)  # Sequences, by seat
    withdrawn: set[int] = field(default_factory=set)
    called: bool = False
    turns: int = 0
    turn_started: int = 0  # the turn in progress's start, microseconds since the epoch


def game_rows(
    game_id: str,
    events: Iterable[tuple[str, Mapping[str, Any]]],
    end_position: int,
    batch: PendingRows,
) -> None:
    """Add the rows of one ended game to ``batch``. ``events`` are its events
    in version order, as (type, own fields with ``originator_version`` and
    ``timestamp``), ending with GameEnded; other types are ignored."""
    rows = batch.rows
    award_rows, turn_rows = rows["award"].append, rows["turn"].append
    seen = _Seen()
    table = OpenTable(commitment="")
    causes: dict[int, tuple[int | None, int]] = {}  # version -> (card, actor)
    placed: dict[int, list[Any]] = {}  # version -> its placement row
    stolen: dict[int, dict[int, list[Any]]] = {}  # version -> victim -> its first steal row
    action, spells, points = "pass", 0, 0
    turn_player = 0
    for type_, p in events:  # the commonest first
        version = p["originator_version"]
        if type_ == "PointsAwarded":
            player, gained, rule, cause = p["player"], p["points"], p["rule"], p["cause_version"]
            card, actor = causes.get(cause, (None, None))
            award_rows(
                [
                    game_id,
                    version,
                    player,
                    gained,
                    rule,
                    p["cause"],
                    cause,
                    card,
                    None if card is None else _name(card),
                    actor,
                ]
            )
            if player == turn_player:
                points += gained
            if rule == "R4.6" and cause in placed:
                placed[cause][_STAGE_POINTS] = gained
            taken = stolen.get(cause)
            if taken is not None and rule.endswith("/half"):  # R4.4/half, R4.6/half
                if player in taken:
                    taken[player][_VICTIM_POINTS] = gained
            elif taken is not None:
                for row in taken.values():
                    row[_TAKER_POINTS] = gained
        elif type_ == "TurnEnded":
            seen.turns += 1
            passed = bool(p["passed"])  # R3.3
            ended_at = micros(p["timestamp"])
            turn_rows(
                [
                    game_id,
                    seen.turns,
                    version,
                    p["player"],
                    passed,
                    "pass" if passed else action,
                    spells,
                    points,
                    ended_at - seen.turn_started,
                ]
            )
            seen.turn_started = ended_at  # the next turn starts (R11.2's reading)
            action, spells, points = "pass", 0, 0
            turn_player = p["next_player"]
        elif type_ == "GameCreated" or type_ == "TournamentGameCreated":
            seen.created = p
        elif type_ == "PlayerJoined":
            seen.names.append(p["name"])
            seen.contributions.append(p["contribution"])
            seen.token_hashes.append(p["token_hash"])
        elif type_ == "PlayerLeft":
            seat = p["player"]
            del seen.names[seat], seen.contributions[seat], seen.token_hashes[seat]
        elif type_ == "GameStarted":
            seen.digest = p["rules_digest"]
            seen.turn_started = micros(p["timestamp"])
            seen.completed = [0] * len(seen.names)
        elif type_ == "CardDiscarded":
            causes[version] = (p["card"], p["player"])
            action = "discard"
        elif type_ == "RecipeAssembled":
            player, card = p["player"], p["card"]
            causes[version] = (card, player)
            action = "assemble"
            known = CARDS[card]
            cabinet = own = others = 0
            victims: dict[int, list[Any]] = {}
            for component, source in zip(p["components"], p["sources"], strict=True):
                if source == "cabinet":
                    cabinet += 1
                    continue
                where = Location.parse(source)
                if where.seat == player:  # R4.4: one's own card is no steal
                    own += 1
                else:
                    others += 1
                    row = _steal(game_id, version, "assembly", player, where, component)
                    rows["steal"].append(row)
                    if where.seat not in victims:
                        victims[where.seat] = row
                        row[_FIRST] = True
            if victims:
                stolen[version] = victims
            rows["assembly"].append(
                [
                    game_id,
                    version,
                    player,
                    card,
                    known.name,
                    known.kind,
                    known.points,
                    list(p["components"]),
                    list(p["sources"]),
                    cabinet,
                    own,
                    others,
                ]
            )
        elif type_ == "RecipePlaced":
            player, card = p["player"], p["card"]
            causes[version] = (card, player)
            action = "place"
            where = Location.parse(p["source"])
            source_player = where.seat if where.zone in ("table", "sequence", "hand") else None
            row = [
                game_id,
                version,
                player,
                p["column"],
                p["stage"],
                card,
                _name(card),
                "stone" if CARDS[card].stone else "recipe",
                where.zone,
                source_player,
                0,  # the stage points, from its PointsAwarded
            ]
            rows["placement"].append(row)
            placed[version] = row
            if where.zone in ("table", "sequence") and where.seat != player:  # R4.6, S8
                steal = _steal(game_id, version, "placement", player, where, card)
                rows["steal"].append(steal)
                steal[_FIRST] = True
                stolen[version] = {where.seat: steal}
        elif type_ == "SpellCast":
            spells += 1
            _spell(game_id, version, p, rows)
        elif type_ == "SequenceCompleted":
            seen.completed[p["player"]] += 1  # R4.8
        elif type_ == "SeatWithdrawn":
            seen.withdrawn.add(p["player"])
        elif type_ == "GameCalled":
            seen.called = True
        elif type_ == "GameEnded":
            _ended(game_id, version, p, end_position, table, seen, rows)
            return
        handler = OPEN_HANDLERS.get(type_)
        if handler is not None:
            handler(table, p)
    raise ValueError(f"game {game_id}: its events end without GameEnded")


def _spell(
    game_id: str, version: int, p: Mapping[str, Any], rows: dict[str, list[list[Any]]]
) -> None:
    player, kind = p["player"], p["kind"]
    rows["spell"].append(
        [
            game_id,
            version,
            player,
            p["spell"],
            kind,
            p["card"],
            p["recipe"],
            p["column"],
            p["stage"],
        ]
    )
    if kind == "transmutation":  # R6.4: the spell fills the stage, for 0 points
        rows["placement"].append(
            [
                game_id,
                version,
                player,
                p["column"],
                p["stage"],
                p["spell"],
                _name(p["spell"]),
                "transmutation",
                "spell",
                player,
                0,
            ]
        )


def _steal(
    game_id: str, version: int, via: str, taker: int, where: Location, card: int
) -> list[Any]:
    sequence = where.zone == "sequence"
    return [
        game_id,
        version,
        via,
        taker,
        where.seat,
        where.zone,
        where.column if sequence else None,
        where.stage if sequence else None,
        card,
        _name(card),
        False,  # the first card the action took from this victim
        0,
        0,
    ]


def _ended(
    game_id: str,
    version: int,
    p: Mapping[str, Any],
    end_position: int,
    table: OpenTable,
    seen: _Seen,
    rows: dict[str, list[list[Any]]],
) -> None:
    """The game's row and its seats': R7.3's keys are the engine's
    (``engine.rank_keys``) on the open table, with GameEnded's scores (the
    table does not follow PointsAwarded)."""
    names, created = seen.names, seen.created
    players = len(names)
    scores = list(p["scores"])
    winners = list(p["winners"])
    table.scores = scores
    keys = rank_keys(table) if players else []
    ranks = places(keys) if players else []
    rows["game"].append(
        [
            game_id,
            created.get("draw"),
            created.get("guild"),
            ",".join(str(x) for x in created.get("stage_points", [])),
            seen.digest,
            players,
            p["reason"],
            seen.turns,
            version,
            ",".join(str(w) for w in winners),
            len(winners),
            seen.called,
            len(seen.withdrawn),
            created.get("tournament"),
            created.get("round"),
            created.get("table"),
            _time(created.get("timestamp", "")),
            _time(p["timestamp"]),
            end_position,
        ]
    )
    share = WIN_UNITS // len(winners) if winners else 0  # R7.3: shared wins
    for seat in range(players):
        rows["seat"].append(
            [
                game_id,
                seat,
                names[seat],
                player_id(seen.token_hashes[seat], names[seat]),
                bot_kind(seen.contributions[seat]),
                players,
                table.sequence_cards[seat] if seat < len(table.sequence_cards) else None,
                scores[seat],
                keys[seat][1],
                keys[seat][2],
                seen.completed[seat] if seat < len(seen.completed) else 0,
                ranks[seat],
                seat in winners,
                share if seat in winners else 0,
                seat in seen.withdrawn,
            ]
        )


def result_rows(
    tournament: str, type_: str, p: Mapping[str, Any], position: int, batch: PendingRows
) -> None:
    """A tournament's GameResultRecorded or ResultCorrected, one row per seat."""
    seat_places = list(p["places"])
    kind = "recorded" if type_ == "GameResultRecorded" else "corrected"
    points = match_points(seat_places)
    for seat, place in enumerate(seat_places):
        batch.rows["result"].append(
            [
                tournament,
                str(p["game"]),
                int(p["originator_version"]),
                position,
                kind,
                seat,
                len(seat_places),
                place,
                float(points[seat]),
            ]
        )

"""Verifying a tournament from its records and its games' (TOURNAMENT.md T10.1).

``verify_tournament`` walks the tournament's records in version order,
evolving a fresh ``TournamentState`` as the aggregate does, and checks each
event against what the tournament's own decisions (domain/tournaments/decide.py)
give at that point, stopping at the first difference, which it names with
its T… rule:

1. the records: versions without a gap, the hash chain (T1.2, as a game's:
   domain/audit.py), and the revealed secret against its commitment (T1.3);
2. every game a RoundPaired names: present, whole in its chain, created as
   this tournament's game at that round and table, seated with the paired
   players' registrations in seat order, its secret the tournament's for
   that table (T1.4), its id the one its round and table give (T1.2); at
   its result, its log ends exactly at the recorded head (T9.2), it is
   re-judged by the rules (domain/audit.py), its seats withdrew only by
   their players' drops, on the timestamps the chains cover (T2.2), it was
   called only when T8.1 allows, and its places and scores are the game's
   own (T5.1, T5.3);
3. every registration (a team too, T11.1), constraint (T11.1), drop,
   pairing (tables, byes, seats and objective, T3, T4, re-run with the
   recorded procedure: `swap-1`, `regroup-1` or the cut's, T12; (c) and each
   table's shares, T11.2, T11.3), correction, penalty and seal (heads,
   Merkle root, standings digests: T6, T7, T9.1, T9.3), round 1's seed
   (T1.3) and the final ranking (T12.4); each event compared whole with the
   one the rules give (every field, nested ones too, and no other: T10.1),
   the creation with the settings it records (T1.1). A tournament created
   before revision 4 (no procedure recorded) is judged by its rules and its
   events' shape, as before.

Names and teams are judged with the running Python's Unicode tables; where
TournamentCreated recorded another version, a refusal says both (our
decision: README, Tournament decisions).

A running tournament's export has its secret and round 1's seed sealed
(T1.3): then the pairings' order, the games' secrets and the standings'
digests cannot be re-derived (they hang on the seed); everything else is
checked (the rest of each event whole), and the verdict says it was not
fully judged (``judged=False``), as a running game's does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any
from uuid import UUID

from domain import engine
from domain.audit import (
    Failure,
    Record,
    Verdict,
    check_chain,
    check_sequence,
    judge_game,
)
from domain.chain import canonical_json
from domain.chained import Fact
from domain.errors import RuleError
from domain.events import EVENT_TYPES, TournamentGameCreated
from domain.game import Game
from domain.text import refused_character
from domain.tournaments import cut, decide, exact
from domain.tournaments.aggregate import check_creation, created_fields
from domain.tournaments.entrants import UNICODE_VERSION
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from domain.tournaments.guards import check_beacon, check_pairing
from domain.tournaments.pairing import conflicts_at, objective
from domain.tournaments.seeds import game_secret
from domain.tournaments.state import CUT, PROCEDURES, TournamentState
from domain.tournaments.tables import TableSizes, fewest_byes

# A stand-in for round 1's seed while it is sealed: nothing that depends on
# the seed is compared then.
UNKNOWN_SEED = "00" * 32


@dataclass
class TournamentVerdict:
    """The verdict on one tournament: its own, and each of its games' (in
    round and table order). ``reason`` starts with the T… rule of the first
    difference; ``aggregate_id``, ``position`` and ``version`` name the
    record where it shows, the tournament's or a game's."""

    tournament_id: str
    events: int
    games: list[Verdict] = field(default_factory=list)
    status: str = "registering"  # registering, playing, between, finished
    rounds: int = 0  # paired
    ok: bool = True
    judged: bool = True  # False while the secret and the seed are sealed
    reason: str = ""
    aggregate_id: str | None = None
    position: int | None = None
    version: int | None = None

    @property
    def rule(self) -> str:
        """The T… rule of the first difference ("" when none)."""
        return self.reason.split(":", 1)[0] if not self.ok else ""

    def line(self) -> str:
        if not self.ok:
            where = f"position {self.position}" if self.position is not None else "the log"
            whose = "" if self.aggregate_id == self.tournament_id else f"game {self.aggregate_id} "
            return (
                f"FAIL tournament {self.tournament_id} at {where} "
                f"({whose}version {self.version}): {self.reason}"
            )
        how = (
            "re-derived"
            if self.judged
            else "chain, games and what needs no secret (secret and seed sealed)"
        )
        return (
            f"ok   tournament {self.tournament_id} {self.status}, {self.events} events, "
            f"{self.rounds} rounds, {len(self.games)} games, {how}"
        )


def named_games(records: Sequence[Record]) -> list[tuple[int, int, str]]:
    """(round, table, game id) of every game the RoundPaired records name, in
    round and table order as recorded; a malformed table is left out (the
    verification names it)."""
    named: list[tuple[int, int, str]] = []
    for record in records:
        if record.type != "RoundPaired" or not isinstance(record.payload, dict):
            continue
        round_ = record.payload.get("round")
        tables = record.payload.get("tables")
        if not isinstance(round_, int) or not isinstance(tables, list):
            continue
        for table in tables:
            if isinstance(table, dict) and isinstance(table.get("game"), str):
                number = table.get("table")
                named.append((round_, number if isinstance(number, int) else 0, table["game"]))
    return named


def is_tournament(records: Sequence[Record]) -> bool:
    """Whether an aggregate's records are a tournament's (not a game's)."""
    return any(r.type in TOURNAMENT_EVENT_TYPES and r.type not in EVENT_TYPES for r in records)


def verify_tournament(
    records: Sequence[Record], games: Mapping[str, Sequence[Record]]
) -> TournamentVerdict:
    """T10.1: the tournament's records (version order) and its games', from
    ``games`` (records by aggregate id; others there are left alone but for
    a game that names this tournament and no pairing names)."""
    if not records:
        raise ValueError("no records of the tournament")
    check = _Check(records, games)
    verdict = TournamentVerdict(records[0].aggregate_id, len(records))
    try:
        check.run()
    except Failure as failure:
        verdict.ok = False
        verdict.reason = failure.reason
        verdict.aggregate_id = failure.record.aggregate_id
        verdict.position = failure.record.position
        verdict.version = failure.record.version
    verdict.judged = check.judged
    if check.state is not None:
        verdict.status = check.state.status
        verdict.rounds = check.state.paired
    for _, _, game in named_games(records):
        if games.get(game):
            verdict.games.append(check.game_verdict(game)[0])
        else:
            verdict.games.append(
                Verdict(game, 0, ok=False, reason="T1.4: the game is not in the log")
            )
    return verdict


def _fields(record: Record) -> dict[str, Any]:
    """A record's own fields but the command id."""
    return {k: v for k, v in (record.payload or {}).items() if k != "command"}


def _same(recorded: Any, expected: Any) -> bool:
    """T10.1: whether a recorded value is the one the rules give, compared
    as the chain's canonical JSON (domain/chain.py), never with Python's
    ``==``: 1, 1.0 and true are three values."""
    return canonical_json(recorded) == canonical_json(expected)


def _differs(
    rule: str, type_: str, recorded: Mapping[str, Any], expected: Mapping[str, Any]
) -> str:
    shown = ", ".join(
        f"{k} recorded {recorded.get(k)!r}, the rules give {v!r}"
        for k, v in expected.items()
        if not _same(recorded.get(k), v)
    )
    extra = sorted(set(recorded) - set(expected))
    if extra:
        shown = ", ".join(filter(None, [shown, f"fields {extra} are not the event's"]))
    return f"{rule}: {type_} differs: {shown}"


def _created_fields(state: TournamentState, recorded: Mapping[str, Any]) -> dict[str, Any]:
    """T1.1: the whole TournamentCreated that records ``state``'s settings
    (``created_fields``, as the aggregate writes it), its commitment and
    secret (sealed or not) as recorded: checked against the secret apart (T1.3)."""
    return created_fields(
        state.name,
        state.organiser_hash,
        recorded.get("commitment"),
        recorded.get("secret"),
        state.rules,
        state.sizes,
        weight=state.weight,
        late_until=state.late_until,
        time_limit=state.time_limit,
        rounds=state.asked_rounds,
        beacon=state.beacon,
        unicode_version=state.unicode_version,
        procedure=state.procedure if state.revised else None,
        cut=state.cut,
    )


def _ranking_differs(recorded: Any, expected: list[dict[str, Any]]) -> str:
    """T12.4: where a recorded final ranking first differs from the rules'."""
    rows = recorded if isinstance(recorded, list) else []
    for k, row in enumerate(expected):
        if k >= len(rows) or not _same(rows[k], row):
            found = rows[k] if k < len(rows) else None
            return (
                f"T12.4: the final ranking's row {k + 1} is recorded {found!r}, "
                f"the rules give {row!r}"
            )
    return f"T12.4: the final ranking records {len(rows)} rows, the rules give {len(expected)}"


def _integers(values: Any) -> bool:
    return isinstance(values, list) and all(type(v) is int for v in values)


def _numbered(tables: Any, byes: Any) -> bool:
    """T1.2: a RoundPaired's tables and byes as the rules write them: each
    table a number, a game id and its players, registration numbers (JSON
    integers, never 1.0 or true)."""
    return (
        isinstance(tables, list)
        and all(
            isinstance(t, dict)
            and type(t.get("table")) is int
            and isinstance(t.get("game"), str)
            and _integers(t.get("players"))
            for t in tables
        )
        and _integers(byes)
    )


def _time(text: Any) -> datetime:
    moment = datetime.fromisoformat(text) if isinstance(text, str) else None
    if moment is None or moment.tzinfo is None:
        raise ValueError(f"{text!r} is not a time with its offset")
    return moment


class _Check:
    def __init__(self, records: Sequence[Record], games: Mapping[str, Sequence[Record]]) -> None:
        self.records = records
        self.games = games
        self.id = records[0].aggregate_id
        self.judged = not any(r.redacted for r in records)
        self.state: TournamentState | None = None
        self.drops: dict[int, Record] = {}  # player -> their PlayerDropped
        self.verdicts: dict[str, tuple[Verdict, Game | None]] = {}

    def game_verdict(self, game: str) -> tuple[Verdict, Game | None]:
        if game not in self.verdicts:
            self.verdicts[game] = judge_game(self.games[game])
        return self.verdicts[game]

    # ---- the walk ------------------------------------------------------------

    def run(self) -> None:
        records = self.records
        first = records[0]
        try:
            check_sequence(records, TOURNAMENT_EVENT_TYPES)
            if first.type != "TournamentCreated":
                raise Failure(first, "a tournament's log starts with TournamentCreated")
            check_chain(records)
        except Failure as failure:
            raise Failure(failure.record, f"T1.2: {failure.reason}") from None
        self.state = state = self._created(first)
        pending_close = False
        for record in records[1:]:
            if state.finished:
                raise Failure(record, "T9.3: no event follows TournamentFinished")
            if pending_close and record.type != "RoundClosed":
                raise Failure(
                    record,
                    f"T9.1: every game of round {state.paired} has its result, so the round "
                    f"closes by itself: {record.type} is recorded where RoundClosed must be",
                )
            handler: Callable[[Record, dict[str, Any]], None] = getattr(self, "_" + record.type)
            payload = dict(record.payload or {})
            try:
                handler(record, payload)
                self._evolve(record, payload)
                if record.type == "RoundPaired":
                    self._paired_games(record)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                raise Failure(
                    record, f"T1.2: the payload does not fit {record.type}: {type(e).__name__}: {e}"
                ) from None
            except RuleError as e:
                raise Failure(record, str(e)) from None
            pending_close = record.type == "GameResultRecorded" and self._round_done()
        if pending_close:
            raise Failure(
                records[-1],
                f"T9.1: every game of round {state.paired} has its result, "
                "but no RoundClosed follows",
            )
        self._open_games()
        self._strays()

    def _created(self, record: Record) -> TournamentState:
        p = dict(record.payload or {})
        try:
            tables = p["tables"]
            check_creation(
                p["name"],
                p["weight"],
                p["late_until"],
                p["time_limit"],
                p["rounds"],
                p["beacon"],
                p.get("procedure"),
                p.get("cut"),
                TableSizes(tables["min"], tables["preferred"], tables["max"]),
            )
            if self.judged:
                secret = bytes.fromhex(p["secret"])
                if hashlib.sha256(secret).hexdigest() != p["commitment"]:
                    raise Failure(record, "T1.3: the secret does not match its commitment")
            else:
                p["secret"] = ""  # sealed: nothing that needs it is checked
            state = TournamentState.from_created(p)
        except RuleError as e:
            raise Failure(record, str(e)) from None
        except (KeyError, TypeError, ValueError) as e:
            raise Failure(
                record, f"T1.1: TournamentCreated does not fit: {type(e).__name__}: {e}"
            ) from None
        recorded = dict(record.payload or {})  # no command id: a create has none
        expected = _created_fields(state, recorded)
        if not _same(recorded, expected):
            raise Failure(record, _differs("T1.1", record.type, recorded, expected))
        return state

    def _evolve(self, record: Record, payload: dict[str, Any]) -> None:
        assert self.state is not None
        payload["timestamp"] = record.timestamp  # T8.1: RoundPaired's time, read by the state
        if record.type == "RoundPaired" and payload.get("round") == 1 and not self.judged:
            payload["seed"] = UNKNOWN_SEED
        try:
            self.state.evolve(record.type, payload)
        except Exception as e:  # a payload no check above read
            raise Failure(
                record, f"T1.2: {record.type} cannot be replayed: {type(e).__name__}: {e}"
            ) from None

    def _round_done(self) -> bool:
        assert self.state is not None
        rounds = self.state.rounds
        return (
            bool(rounds)
            and not rounds[-1].closed
            and all(seat.game in self.state.results for seat in rounds[-1].tables)
        )

    def _whole(self, record: Record, rule: str, expected: Mapping[str, Any]) -> None:
        """T10.1: the record is the whole event the rules give, every field
        (nested ones too) and no other, but for its command id."""
        recorded = _fields(record)
        if not _same(recorded, expected):
            raise Failure(record, _differs(rule, record.type, recorded, expected))

    def _compare(self, record: Record, rule: str, facts: list[Fact]) -> None:
        recorded = _fields(record)
        if not facts:
            raise Failure(record, f"{rule}: the rules record no {record.type} here")
        cls, expected = facts[0]
        if cls.__name__ != record.type or not _same(recorded, expected):
            raise Failure(record, _differs(rule, record.type, recorded, expected))

    # ---- the tournament's events ------------------------------------------------

    def _PlayerRegistered(self, record: Record, p: dict[str, Any]) -> None:  # T2.1, T2.3, T11.1
        state = self.state
        assert state is not None
        try:
            facts = decide.decide_register(
                state, p["name"], p["contribution"], p["token_hash"], p.get("team") or ""
            )
        except RuleError as e:
            texts = (p["name"], p.get("team") or "")
            policy = any(isinstance(t, str) and refused_character(t) for t in texts)
            if policy and e.rule in ("T2.1", "T11.1") and state.unicode_version != UNICODE_VERSION:
                # Our decision: names and teams are judged by the running
                # Python's Unicode tables, and a text-policy refusal (a
                # character refused by its category) says when they are not
                # the ones the tournament recorded.
                raise Failure(
                    record,
                    f"{e} (judged with Unicode {UNICODE_VERSION}; the tournament recorded "
                    f"{state.unicode_version}: verify with a Python of that version to tell)",
                ) from None
            raise
        self._compare(record, "T2.1", facts)

    def _PairingConstraintAdded(self, record: Record, p: dict[str, Any]) -> None:  # T11.1
        assert self.state is not None
        facts = decide.decide_constraint(self.state, list(p["players"]), p["reason"], p["by"])
        self._compare(record, "T11.1", facts)

    def _PlayerDropped(self, record: Record, p: dict[str, Any]) -> None:  # T2.2
        state = self.state
        assert state is not None
        self._compare(record, "T2.2", decide.decide_drop(state, p["player"]))
        player = p["player"]
        self.drops[player] = record
        for game in state.running_games_of(player):
            seat = state.games[game][1].players.index(player)
            withdrawn = [
                r
                for r in self.games.get(str(game), ())
                if r.type == "SeatWithdrawn" and (r.payload or {}).get("player") == seat
            ]
            if not withdrawn:
                raise Failure(
                    record,
                    f"T2.2: player {player} dropped while their game {game} was running, "
                    f"but that game records no SeatWithdrawn of their seat index {seat}",
                )

    def _RoundPaired(self, record: Record, p: dict[str, Any]) -> None:  # T3, T4, T11, T12
        state = self.state
        assert state is not None
        # T9.3, T9.1, T2.4, T12.2, T1.3, the lowest named (T10.3), as the decision's
        beacon = (p["beacon"] or "") if state.paired == 0 else ""  # later rounds: T1.2 below
        number = check_pairing(state, beacon)
        self._games_before(record)
        stage = cut.stage(state, number)
        rule = "T4.1" if number == 1 else "T4.2"
        if stage != "swiss":
            rule = "T12.2"
        expected = CUT if stage != "swiss" else state.procedure
        if p["procedure"] != expected:
            known = (*PROCEDURES, CUT)
            what = "unknown" if p["procedure"] not in known else "not this round's"
            raise Failure(
                record,
                f"{'T4.2' if stage == 'swiss' else 'T12.2'}: the pairing procedure "
                f"{p['procedure']!r} is {what} "
                f"(this tournament's round {number} is paired by {expected!r})",
            )
        if p["round"] != number:
            raise Failure(
                record, f"T9.1: round {p['round']} is paired where round {number} is next"
            )
        tables = p["tables"]
        if not _numbered(tables, p["byes"]):
            raise Failure(
                record,
                "T1.2: a RoundPaired's tables (numbered, each with its game) and byes name "
                f"players by their registration numbers, integers: tables {tables!r}, "
                f"byes {p['byes']!r}",
            )
        players = [list(t["players"]) for t in tables]
        byes = list(p["byes"])
        if [t["table"] for t in tables] != list(range(1, len(tables) + 1)):
            raise Failure(record, "T3.1: tables are numbered 1, 2, 3, … from the top table")
        seated = [q for table in players for q in table] + byes
        if stage == "swiss" and sorted(seated) != state.active:
            raise Failure(
                record,
                f"{rule}: the paired players and byes {sorted(seated)} are not "
                f"the active players {state.active}, each once",
            )
        if stage != "swiss" and (byes or len(set(seated)) != len(seated)):
            raise Failure(record, "T12.2: a cut round has no byes and seats each player once")
        if stage == "first":
            self._cut_size_checked(record, number, len(seated))
        games = [t["game"] for t in tables]
        if len(set(games)) != len(games) or any(UUID(g) in state.games for g in games):
            raise Failure(record, "T1.2: each table of each round has a game of its own")
        self._games_named(record, number, tables)
        if stage == "swiss":  # a cut round's players are checked first (T12.1, T12.3)
            self._c_checked(record, p, players)
        if self.judged:
            self._rederive(record, p, players, byes, rule)
        else:
            self._unseeded(record, p, players, byes, rule)

    def _c_checked(self, record: Record, p: dict[str, Any], players: list[list[int]]) -> None:
        """T11.2, on the recorded tables (nothing here needs the seed): (c),
        recorded exactly where the tournament has a team or a constraint, is
        theirs under the teams and constraints recorded before the pairing."""
        state = self.state
        assert state is not None
        number = state.paired + 1
        if not (state.revised and state.has_conflicts):
            if "objective_c" in p:
                raise Failure(
                    record,
                    f"T11.2: round {number} records (c) = {p['objective_c']!r}, but the "
                    "tournament has no team and no constraint recorded before it",
                )
            return
        given = exact.text(conflicts_at(players, state.apart()))
        if p.get("objective_c") != given:
            raise Failure(
                record,
                f"T11.2: round {number}'s (c) is recorded {p.get('objective_c')!r}, its "
                f"tables give {given!r} (teams and constraints as recorded before it)",
            )

    def _shares_checked(
        self, record: Record, p: dict[str, Any], players: list[list[int]], inputs: decide.Inputs
    ) -> None:
        """T11.3: from revision 4 on, each table's shares of (a), (b) and (c),
        as "p/q", are its own."""
        state = self.state
        assert state is not None
        number = state.paired + 1
        for t, (table, seated) in enumerate(zip(p["tables"], players, strict=True), start=1):
            if not state.revised:
                if "shares" in table:
                    raise Failure(
                        record,
                        f"T11.3: round {number} table {t} records shares, but the tournament "
                        "was created before revision 4",
                    )
                continue
            given = decide.shares_text(seated, inputs)
            if table.get("shares") != given:
                raise Failure(
                    record,
                    f"T11.3: round {number} table {t}'s shares are recorded "
                    f"{table.get('shares')!r}, its players give {given!r}",
                )

    def _rederive(
        self,
        record: Record,
        p: dict[str, Any],
        players: list[list[int]],
        byes: list[int],
        rule: str,
    ) -> None:
        """With the secret: the whole pairing, again, by the recorded procedure."""
        state = self.state
        assert state is not None
        number = state.paired + 1
        beacon = p["beacon"] if number == 1 else None
        facts, planned = decide.decide_pairing(state, UUID(self.id), beacon or None)
        expected = facts[0][1]
        for key, what in (("rounds", "T1.1"), ("beacon", "T1.3"), ("seed", "T1.3")):
            if p[key] != expected[key]:
                raise Failure(
                    record, _differs(what, "RoundPaired", {key: p[key]}, {key: expected[key]})
                )
        given = [list(g.players) for g in planned]
        if expected["procedure"] == CUT:
            self._cut_checked(record, number, players, given)
            self._c_checked(record, p, players)
        if byes != expected["byes"]:
            raise Failure(
                record, f"T3.2: round {number}'s byes are {byes}, the rules give {expected['byes']}"
            )
        if [len(t) for t in players] != [len(t) for t in given]:
            raise Failure(
                record,
                f"T3.1: round {number}'s tables seat {[len(t) for t in players]}, "
                f"the rules give {[len(t) for t in given]}",
            )
        for t, (table, derived) in enumerate(zip(players, given, strict=True), start=1):
            if sorted(table) != sorted(derived):
                raise Failure(
                    record,
                    f"{rule}: round {number} table {t} seats {sorted(table)}, "
                    f"the pairing gives {sorted(derived)}",
                )
        for t, (table, derived) in enumerate(zip(players, given, strict=True), start=1):
            if table != derived:
                raise Failure(
                    record,
                    f"T4.3: round {number} table {t}'s seats are {table}, the rules give {derived}",
                )
        if p["objective"] != expected["objective"]:
            raise Failure(
                record,
                f"{rule}: round {number}'s objective is recorded {p['objective']!r}, "
                f"the pairing reaches {expected['objective']!r}",
            )
        self._shares_checked(record, p, players, decide.pairing_inputs(state))
        self._whole(record, rule, expected)

    def _cut_checked(
        self, record: Record, number: int, players: list[list[int]], given: list[list[int]]
    ) -> None:
        """T12.1–T12.3: a cut round's players are those the rules send (the
        qualifiers, or the semifinal winners), dealt and seated by seed."""
        assert self.state is not None
        flat = sorted(q for table in players for q in table)
        expected = sorted(q for table in given for q in table)
        if flat != expected:
            first = cut.stage(self.state, number) == "first"
            rule = "T12.1" if first else "T12.3"
            whose = (
                "the top of the standings after the last Swiss round are"
                if first
                else "the semifinal tables send"
            )
            raise Failure(
                record, f"{rule}: round {number} seats {flat} in the cut, {whose} {expected}"
            )
        if players != given:
            raise Failure(
                record,
                f"T12.2: round {number}'s cut tables are {players}, dealt snake-wise and "
                f"seated by seed they are {given}",
            )

    def _cut_size_checked(self, record: Record, number: int, seated: int) -> None:
        """T12.1's k·s, read from the text here rather than asked of the code
        that decided the cut (domain/tournaments/cut.py): s is the preferred
        size if k·s fits the active players, else the largest size in [min,
        max] that fits."""
        state = self.state
        assert state is not None and state.cut is not None
        k, sizes, active = state.cut, state.sizes, len(state.active)
        fits = [
            s for s in (sizes.preferred, *range(sizes.max, sizes.min - 1, -1)) if k * s <= active
        ]
        if fits and seated != k * fits[0]:
            raise Failure(
                record,
                f"T12.1: round {number}'s cut seats {seated} players; {active} active players "
                f"and {k} tables of {sizes.min} to {sizes.max} (preferred {sizes.preferred}) "
                f"give {k * fits[0]}",
            )

    def _games_named(self, record: Record, number: int, tables: list[dict[str, Any]]) -> None:
        """T1.2: each table's game is named by its place, the UUID version 5
        of "round r table t" in the tournament's namespace (decide.game_id)."""
        for t, table in enumerate(tables, start=1):
            named = str(decide.game_id(UUID(self.id), number, t))
            if table["game"] != named:
                raise Failure(
                    record,
                    f"T1.2: round {number} table {t}'s game is recorded {table['game']}, "
                    f"the pairing names {named}",
                )

    def _unseeded(
        self,
        record: Record,
        p: dict[str, Any],
        players: list[list[int]],
        byes: list[int],
        rule: str,
    ) -> None:
        """Without the seed: what a pairing must be whoever sits where. The
        pairing guards are the decision's (domain/tournaments/guards.py): a
        rule error they raise fails the record with its rule id (``run``)."""
        state = self.state
        assert state is not None
        number = state.paired + 1
        if number == 1:
            rounds = decide.round_count(state)
            if p["rounds"] != rounds:
                raise Failure(
                    record, f"T1.1: {p['rounds']} rounds recorded, the rules give {rounds}"
                )
            check_beacon(state, number, p["beacon"] or "")  # T1.3
        elif p["rounds"] is not None or p["beacon"] is not None:
            raise Failure(record, "T1.2: only round 1 records the rounds and the beacon")
        stage = cut.stage(state, number)
        if stage == "swiss":
            count, parts = fewest_byes(len(state.active), state.sizes)
        elif stage == "first":  # who qualifies hangs on the standings' sealed tie-break
            assert state.cut is not None
            size = len(cut.qualifiers(state)) // state.cut  # T12.1: refused when none fits
            count, parts = 0, (size,) * state.cut
            active = set(state.active)
            if any(q not in active for table in players for q in table):
                raise Failure(record, f"T12.1: round {number} seats a dropped player in the cut")
        else:  # the final: the semifinal tables' winners, seated by seed
            given = cut.final_players(state)
            count, parts = 0, (len(given),)
            self._cut_checked(record, number, players, [given])
        if stage != "swiss":
            self._c_checked(record, p, players)
        if len(byes) != count:
            raise Failure(record, f"T3.2: {len(byes)} byes recorded, the rules give {count}")
        if byes != sorted(byes):
            raise Failure(record, f"T3.2: round {number}'s byes {byes} are not in ascending order")
        if tuple(len(t) for t in players) != parts:
            raise Failure(
                record,
                f"T3.1: round {number}'s tables seat {[len(t) for t in players]}, "
                f"the rules give {list(parts)}",
            )
        if stage == "first":
            self._seeds_checked(record, number, players)
        inputs = decide.pairing_inputs(state)
        value = exact.text(objective(players, inputs.met, inputs.points, state.weight))
        if p["objective"] != value:
            raise Failure(
                record,
                f"{rule}: round {number}'s objective is recorded {p['objective']!r}, "
                f"its tables give {value!r}",
            )
        self._shares_checked(record, p, players, inputs)
        # T10.1: the whole event: each field the rules give without the seed;
        # the tables' players, the byes (ascending) and the seed as recorded.
        tables: list[dict[str, Any]] = [
            {"table": t, "game": str(decide.game_id(UUID(self.id), number, t)), "players": q}
            for t, q in enumerate(players, start=1)
        ]
        if state.revised:
            for table in tables:
                table["shares"] = decide.shares_text(table["players"], inputs)
        expected = dict(
            round=number,
            tables=tables,
            byes=sorted(byes),
            objective=value,
            procedure=CUT if stage != "swiss" else state.procedure,
            rounds=decide.round_count(state) if number == 1 else None,
            beacon=(p["beacon"] or "") if number == 1 else None,
            seed=p["seed"] if number == 1 or record.redacted else None,  # sealed: unread
        )
        if inputs.conflicts is not None:
            expected["objective_c"] = exact.text(conflicts_at(players, inputs.conflicts))
        self._whole(record, rule, expected)

    def _seeds_checked(self, record: Record, number: int, players: list[list[int]]) -> None:
        """T12.1, T12.2 without the seed: the seeds the tables give back
        (``cut.seeds_at``, the inverse of the snake deal and seat order) are
        the top active players by T6.1 (1)–(3), no active player left out
        standing above the last of them, and seed after seed never stands
        higher than the one before. Where only (4), the rank key, tells two
        players apart, the secret decides: the verdict is ``judged=False``."""
        state = self.state
        assert state is not None and state.cut is not None
        seeds = cut.seeds_at(players, state.cut)
        ordered = sorted(seeds, key=lambda q: seeds[q])
        keys = cut.standing_keys(state)
        last = max(ordered, key=lambda q: keys[q])
        above = [q for q in state.active if q not in seeds and keys[q] < keys[last]]
        if above:
            raise Failure(
                record,
                f"T12.1: round {number} seats {sorted(ordered)} in the cut, but players "
                f"{above}, left out, stand above its last qualifier (player {last}) in the "
                "standings after the last Swiss round (T6.1 (1)–(3))",
            )
        for seed, (better, worse) in enumerate(pairwise(ordered), start=1):
            if keys[better] > keys[worse]:
                raise Failure(
                    record,
                    f"T12.2: round {number}'s cut tables are {players}, dealt snake-wise and "
                    f"seated by seed: seed {seed} (player {better}) stands below seed "
                    f"{seed + 1} (player {worse}) in the standings (T6.1 (1)–(3))",
                )

    def _GameResultRecorded(self, record: Record, p: dict[str, Any]) -> None:  # T5.1, T9.2
        state = self.state
        assert state is not None
        game = UUID(p["game"])
        if game not in state.games:
            raise Failure(record, f"T5.1: game {game} is not a game of this tournament")
        if game in state.results:
            raise Failure(record, f"T5.1: game {game}'s result is recorded once")
        found = self._game_checked(game, p["head"], record)
        self._result_after_game(record, game)
        keys = engine.rank_keys(found.state)
        facts = decide.decide_result(state, game, keys, list(found.state.scores), found.chain)
        expected = facts[0][1]
        if p["places"] != expected["places"]:
            raise Failure(
                record,
                f"T5.1: game {game}'s places are recorded {p['places']}, "
                f"its final state gives {expected['places']}",
            )
        if p["scores"] != expected["scores"]:
            raise Failure(
                record,
                f"T5.3: game {game}'s scores are recorded {p['scores']}, "
                f"the game's own are {expected['scores']}",
            )
        self._compare(record, "T5.1", facts)

    def _result_after_game(self, record: Record, game: UUID) -> None:
        """T10.2: a result is recorded after its game: every record of the
        game is stamped at or before the result."""
        recorded = self._moment(record)
        for r in self._game_records(game, record):
            if self._moment(r) > recorded:
                raise Failure(
                    record,
                    f"T10.2: game {game}'s version {r.version} is stamped {r.timestamp}, after "
                    f"its result (stamped {record.timestamp}): a result is recorded after its game",
                )

    def _games_before(self, record: Record) -> None:
        """T10.2: every game of the rounds paired so far has its last record
        stamped before this pairing (``record``, the next round's)."""
        paired = self._moment(record)
        assert self.state is not None
        for round_ in self.state.rounds:
            for seat in round_.tables:
                last = self._game_records(seat.game, record)[-1]
                if self._moment(last) >= paired:
                    raise Failure(
                        record,
                        f"T10.2: game {seat.game} of round {round_.number} has version "
                        f"{last.version} stamped {last.timestamp}, not before round "
                        f"{(record.payload or {}).get('round')}'s pairing "
                        f"(stamped {record.timestamp})",
                    )

    def _ResultCorrected(self, record: Record, p: dict[str, Any]) -> None:  # T7.1
        assert self.state is not None
        facts = decide.decide_correction(
            self.state, UUID(p["game"]), p["places"], p["reason"], p["by"]
        )
        self._compare(record, "T7.1", facts)

    def _PenaltyGiven(self, record: Record, p: dict[str, Any]) -> None:  # T7.2
        assert self.state is not None
        try:
            points = exact.parse(p["points"])
        except ValueError as e:
            raise Failure(record, f"T7.2: {e}") from None
        facts = decide.decide_penalty(self.state, p["player"], points, p["reason"], p["by"])
        self._compare(record, "T7.2", facts)

    def _RoundClosed(self, record: Record, p: dict[str, Any]) -> None:  # T9.1
        state = self.state
        assert state is not None
        if not self._round_done():
            raise Failure(
                record, "T9.1: a round closes when every game in it has a result, not before"
            )
        expected = decide.decide_close(state)[0][1]
        for key in ("round", "heads", "root"):
            if p[key] != expected[key]:
                raise Failure(
                    record, _differs("T9.1", "RoundClosed", {key: p[key]}, {key: expected[key]})
                )
        if self.judged and p["standings"] != expected["standings"]:
            raise Failure(
                record,
                f"T9.1: round {p['round']}'s standings digest is recorded {p['standings']}, "
                f"the standings after the round (T6, T7) give {expected['standings']}",
            )
        if not self.judged:  # the standings' last tie-break hangs on the sealed seed
            expected = {**expected, "standings": p["standings"]}
        self._whole(record, "T9.1", expected)

    def _TournamentFinished(self, record: Record, p: dict[str, Any]) -> None:  # T9.3
        state = self.state
        assert state is not None
        facts = decide.decide_finish(state)
        expected = facts[0][1]
        if p["secret"] != state.secret:
            raise Failure(record, "T1.3: the revealed secret is not the one committed at creation")
        if p["standings"] != expected["standings"]:
            raise Failure(
                record,
                f"T9.3: the final standings digest is recorded {p['standings']}, "
                f"the standings (T6, T7) give {expected['standings']}",
            )
        if not _same(p.get("ranking"), expected.get("ranking")):
            if "ranking" not in expected:
                raise Failure(record, "T12.4: a final ranking is recorded, but no cut is named")
            raise Failure(record, _ranking_differs(p.get("ranking"), expected["ranking"]))
        self._compare(record, "T9.3", facts)

    def _TournamentCreated(self, record: Record, p: dict[str, Any]) -> None:
        raise Failure(record, "T1.2: a tournament is created once, by its first event")

    # ---- its games ---------------------------------------------------------------

    def _paired_games(self, record: Record) -> None:
        """T1.4, once a RoundPaired is applied: each of its games is in the
        log, chained, created as this tournament's at that round and table
        with its rule set (T1.1), seated by the pairing with the players'
        registrations, and its secret is the tournament's for that table."""
        state = self.state
        assert state is not None
        round_ = state.rounds[-1]
        rules = state.rules
        for seat in round_.tables:
            game = seat.game
            records = self._game_records(game, record)
            try:
                check_sequence(records, EVENT_TYPES)
                check_chain(records)
            except Failure as failure:
                raise Failure(
                    failure.record, f"T10.1: game {game} fails: {failure.reason}"
                ) from None
            earliest = min(records, key=self._moment)
            if self._moment(earliest) < self._moment(record):
                raise Failure(
                    record,
                    f"T10.2: game {game}'s version {earliest.version} is stamped "
                    f"{earliest.timestamp}, before its round's pairing "
                    f"(stamped {record.timestamp})",
                )
            first = records[0]
            p = first.payload or {}
            where = f"round {round_.number}, table {seat.table}"
            if first.type != TournamentGameCreated.__name__ or not _same(
                [p.get("tournament"), p.get("round"), p.get("table")],
                [self.id, round_.number, seat.table],
            ):
                raise Failure(
                    first, f"T1.4: game {game} is not created as this tournament's game at {where}"
                )
            if not _same(
                [p.get("draw"), p.get("guild"), p.get("stage_points")],
                [rules.draw, rules.guild, list(rules.stage_points)],
            ):
                raise Failure(
                    first, f"T1.1: game {game} is not played under the tournament's rules"
                )
            self._seats_checked(game, seat.players, records, where)
            if self.judged and not first.redacted:
                expected = game_secret(bytes.fromhex(state.secret), round_.number, seat.table)
                if p.get("secret") != expected.hex():
                    raise Failure(
                        first,
                        f"T1.4: game {game}'s secret is not HMAC-SHA256 of the tournament's "
                        f'secret and "game:{round_.number}:{seat.table}"',
                    )

    def _seats_checked(
        self, game: UUID, players: Sequence[int], records: Sequence[Record], where: str
    ) -> None:
        """T1.4: the game's seats, in order, are the paired players'
        registrations: name, contribution and token."""
        state = self.state
        assert state is not None
        joined: list[Record] = []
        for record in records[1:]:
            if record.type == "PlayerLeft":
                raise Failure(record, f"T1.4: a seat of game {game} is the pairing's to fill")
            if record.type != "PlayerJoined":
                break
            joined.append(record)
        for k, player in enumerate(players):
            r = state.registration(player)
            expected = {"name": r.name, "contribution": r.contribution, "token_hash": r.token_hash}
            if k >= len(joined):
                at = records[min(len(joined) + 1, len(records) - 1)]
                raise Failure(
                    at, f"T1.4: game {game} ({where}) has no seat index {k} for player {player}"
                )
            p = joined[k].payload or {}
            if not _same({key: p.get(key) for key in expected}, expected) or not _same(
                p.get("player"), k
            ):
                raise Failure(
                    joined[k],
                    f"T1.4: seat index {k} of game {game} ({where}) is not player {player}'s "
                    f"registration ({r.name!r})",
                )
        if len(joined) > len(players):
            raise Failure(
                joined[len(players)],
                f"T1.4: game {game} ({where}) seats more players than the pairing",
            )

    def _open_games(self) -> None:
        """The games of a round still open: re-judged; none has ended
        without its result (T5.1); T2.2 and T8.1 as at a result."""
        state = self.state
        assert state is not None
        if not state.rounds or state.rounds[-1].closed:
            return
        for seat in state.rounds[-1].tables:
            if seat.game in state.results:
                continue
            records = self._game_records(seat.game, self.records[-1])
            verdict, _ = self.game_verdict(str(seat.game))
            self._verdict_holds(verdict, records)
            if verdict.status == "ended":
                raise Failure(
                    records[-1],
                    f"T5.1: game {seat.game} has ended, but the tournament records no result",
                )
            self._play_checked(seat.game, records)

    def _strays(self) -> None:
        """T1.4: a game naming this tournament is one its pairings name."""
        state = self.state
        assert state is not None
        named = {str(game) for game in state.games}
        for game, records in self.games.items():
            if not records or game in named or records[0].type != TournamentGameCreated.__name__:
                continue
            p = records[0].payload or {}
            if p.get("tournament") == self.id:
                raise Failure(
                    records[0],
                    f"T1.4: game {game} names this tournament (round {p.get('round')}, "
                    f"table {p.get('table')}), but no pairing names it",
                )

    def _game_records(self, game: UUID, at: Record) -> Sequence[Record]:
        records = self.games.get(str(game))
        if not records:
            raise Failure(at, f"T1.4: game {game} is not in the log")
        return records

    def _game_checked(self, game: UUID, head: str, at: Record) -> Game:
        """T9.2, then the re-judging, then T2.2 and T8.1: the game whose
        result ``at`` records, with ``head`` recorded as its last chain value."""
        records = self._game_records(game, at)
        last = records[-1]
        if head != last.chain:
            cut = next((r for r in records if r.chain == head), None)
            if cut is None:
                raise Failure(
                    at,
                    f"T9.2: game {game} stops at version {last.version}, short of its "
                    f"recorded head {head} (not in its log: cut short, or altered)",
                )
            raise Failure(
                at,
                f"T9.2: game {game} goes on past its recorded head: the head is version "
                f"{cut.version}'s chain value, its log runs to version {last.version}",
            )
        verdict, found = self.game_verdict(str(game))
        self._verdict_holds(verdict, records)
        if found is None or found.state.status != "ended":
            raise Failure(at, f"T5.1: a result is recorded for game {game}, which has not ended")
        self._play_checked(game, records)
        return found

    def _verdict_holds(self, verdict: Verdict, records: Sequence[Record]) -> None:
        if verdict.ok:
            return
        where = records[-1]
        if verdict.version is not None and 1 <= verdict.version <= len(records):
            where = records[verdict.version - 1]
        raise Failure(where, f"T10.1: game {verdict.aggregate_id} fails: {verdict.reason}")

    def _play_checked(self, game: UUID, records: Sequence[Record]) -> None:
        """T2.2: a seat withdraws only after its player's drop; T8.1: a call
        only once the round's time is up or a seat has withdrawn."""
        state = self.state
        assert state is not None
        _, seat = state.games[game]
        withdrawn = False
        latest: tuple[datetime, Record] | None = None  # the latest record so far, by timestamp
        for record in records:
            p = record.payload or {}
            if record.type == "SeatWithdrawn":
                player = seat.players[p["player"]]
                drop = self.drops.get(player)
                if drop is None:
                    raise Failure(
                        record,
                        f"T2.2: seat index {p['player']} of game {game} (player {player}) is "
                        "withdrawn, but not by their player's drop",
                    )
                self._withdrawn_with(game, player, drop, record, latest)
                withdrawn = True
            elif record.type == "GameCalled":
                try:
                    now = _time(p["time"])
                except ValueError as e:
                    raise Failure(record, f"T8.1: the call's time: {e}") from None
                if p["time"] != record.timestamp:  # the command's time is when it was recorded
                    raise Failure(
                        record,
                        f"T8.1: the call names the time {p['time']}, but it was recorded "
                        f"at {record.timestamp}",
                    )
                try:
                    decide.check_call(state, game, now, withdrawn)
                except RuleError as e:
                    raise Failure(record, str(e)) from None
            moment = self._moment(record)
            if latest is None or moment > latest[0]:
                latest = (moment, record)

    @staticmethod
    def _moment(record: Record) -> datetime:
        try:
            return _time(record.timestamp)
        except ValueError as e:
            raise Failure(record, f"T1.2: the record's timestamp: {e}") from None

    def _withdrawn_with(
        self,
        game: UUID,
        player: int,
        drop: Record,
        withdrawn: Record,
        latest: tuple[datetime, Record] | None,
    ) -> None:
        """T2.2, on the timestamps the chains cover (never on export order):
        the SeatWithdrawn has its player's PlayerDropped's timestamp or a
        later one, and every record before it in the game's chain has the
        drop's timestamp or an earlier one: nothing comes between the two."""
        dropped_at = self._moment(drop)
        if self._moment(withdrawn) < dropped_at:
            raise Failure(
                withdrawn,
                f"T2.2: game {game} withdraws player {player}'s seat at {withdrawn.timestamp}, "
                f"before their drop at {drop.timestamp}: the two are one transaction",
            )
        if latest is not None and latest[0] > dropped_at:
            between = latest[1]
            raise Failure(
                between,
                f"T2.2: game {game} records {between.type} (version {between.version}) at "
                f"{between.timestamp}, after player {player}'s drop at {drop.timestamp} and "
                "before the SeatWithdrawn it makes: nothing comes between the two",
            )

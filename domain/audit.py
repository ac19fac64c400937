"""Re-judging recorded games from their events alone (DESIGN.md, Audit).

A game's records are checked in three steps, stopping at the first failure:
1. versions run 1, 2, 3, … with nothing missing or out of order;
2. the hash chain (domain/chain.py) holds over every record;
3. every recorded move is decided again by the rules engine, under the rule
   set the game recorded at its start, and the recorded events must be
   exactly the events the rules produce: same types, same fields, same
   points, same draws from the deck the revealed secret gives (R9.3).

Works on records from the live store or from an exported NDJSON file: no
database and no server needed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from domain import clock_rules, engine
from domain.chain import GENESIS, SEALED, event_record, next_chain, sealed_payload
from domain.clock import micros
from domain.collector import no_cyclic_gc
from domain.disclosure import HIDING, hidden_fields, own_fields
from domain.errors import RuleError
from domain.events import (
    EVENT_TYPES,
    CardDiscarded,
    ClocksPaused,
    ClocksResumed,
    GameCalled,
    GameCreated,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    RecipeAssembled,
    RecipePlaced,
    SeatWithdrawn,
    SpellCast,
    StageStolen,
    StageTaken,
    TimeAdded,
    TimeExpired,
    TournamentGameCreated,
    TurnEnded,
)
from domain.game import Game
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place, Withdraw

GAME_TOPIC = get_topic(Game)
# the first events of a seat's own moves (R11.3: a seat's event)
SEAT_MOVES = frozenset(
    {"CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast", "StageStolen", "StageTaken"}
    | {"TurnEnded"}
)
CREATED = frozenset({GameCreated.__name__, TournamentGameCreated.__name__})
# the first events that hold an aggregate's secret, and the last that reveal it
HOLDING_SECRET = CREATED | {"TournamentCreated"}
REVEALING = frozenset({"GameEnded", "TournamentFinished"})


@dataclass(frozen=True)
class Record:
    """One stored event as the log holds it: an exported NDJSON line."""

    position: int | None
    aggregate_id: str
    version: int
    type: str
    timestamp: str
    payload: dict[str, Any] | None
    chain: str
    redacted: bool = False
    error: str | None = None  # the stored event could not be read

    def to_line(self) -> dict[str, Any]:
        line: dict[str, Any] = {
            "position": self.position,
            "aggregate_id": self.aggregate_id,
            "version": self.version,
            "type": self.type,
            "timestamp": self.timestamp,
            "payload": self.payload,
            "chain": self.chain,
        }
        if self.redacted:
            line["redacted"] = True
        return line

    @classmethod
    def of_event(cls, event: Any, position: int | None) -> Record:
        """The record of a Game event object (from the store or just saved)."""
        fields = vars(event)
        return cls(
            position=position,
            aggregate_id=str(event.originator_id),
            version=event.originator_version,
            type=type(event).__name__,
            timestamp=event.timestamp.isoformat(),
            payload=own_fields(fields),
            chain=str(fields.get("chain", "")),
        )

    @classmethod
    def from_line(cls, line: dict[str, Any]) -> Record:
        return cls(
            position=line.get("position"),
            aggregate_id=str(line["aggregate_id"]),
            version=int(line["version"]),
            type=str(line["type"]),
            timestamp=str(line["timestamp"]),
            payload=line["payload"],
            chain=str(line["chain"]),
            redacted=bool(line.get("redacted", False)),
        )

    def for_auditor(self, ended: bool, secret: str) -> Record:
        """The record as anyone checking the log may see it (the auditor's
        form, domain/disclosure.py): whole once the game has ended (R9.3),
        else with its hidden fields sealed as the chain sees them
        (domain/chain.py), so the chain still checks. ``secret`` is the
        game's (``secret_in``)."""
        if ended or not hidden_fields(self.type) or self.payload is None:
            return self
        payload = sealed_payload(secret, self.aggregate_id, self.version, self.type, self.payload)
        return self.sealed_as(payload)

    def sealed_as(self, payload: dict[str, Any]) -> Record:
        """This record with its hidden fields sealed (``payload``)."""
        return Record(
            self.position,
            self.aggregate_id,
            self.version,
            self.type,
            self.timestamp,
            payload,
            self.chain,
            redacted=True,
        )

    def line(self) -> str:
        """The record as one exported NDJSON line."""
        return json.dumps(self.to_line(), ensure_ascii=False, separators=(",", ":"))


def secret_in(records: Sequence[Record]) -> str:
    """A game's secret, from its GameCreated (the first of its records); a
    tournament's, from its TournamentCreated."""
    secret = _secret(records)
    if secret is None:
        raise ValueError(f"the records of game {records[0].aggregate_id} lack its GameCreated")
    return secret


@dataclass
class Verdict:
    aggregate_id: str
    events: int
    status: str = "open"  # open, running, ended
    ok: bool = True
    judged: bool = True  # False when hidden information was redacted
    position: int | None = None  # of the first record that fails
    version: int | None = None
    reason: str = ""
    winners: list[int] = field(default_factory=list)

    def line(self) -> str:
        if not self.ok:
            where = f"position {self.position}" if self.position is not None else "the log"
            return f"FAIL {self.aggregate_id} at {where} (version {self.version}): {self.reason}"
        how = "re-judged" if self.judged else "chain only (hidden information redacted)"
        return f"ok   {self.aggregate_id} {self.status}, {self.events} events, {how}"


class Failure(Exception):
    def __init__(self, record: Record, reason: str) -> None:
        super().__init__(reason)
        self.record = record
        self.reason = reason


def group_by_game(records: Iterable[Record]) -> dict[str, list[Record]]:
    """Records per game, in log order."""
    games: dict[str, list[Record]] = {}
    for record in records:
        games.setdefault(record.aggregate_id, []).append(record)
    return games


def verify_log(records: Iterable[Record]) -> Iterator[Verdict]:
    """A verdict per game, in the order the games first appear in the log."""
    for records_of_game in group_by_game(records).values():
        yield verify_game(records_of_game)


def verify_game(records: Sequence[Record]) -> Verdict:
    return judge_game(records)[0]


def judge_game(records: Sequence[Record]) -> tuple[Verdict, Game | None]:
    """The game's verdict, and the Game re-judged from its records (None when
    it could not be: a failure, or hidden information redacted). The cyclic
    garbage collector waits meanwhile (domain/collector.py)."""
    verdict = Verdict(records[0].aggregate_id, len(records))
    game = None
    try:
        with no_cyclic_gc():
            check_sequence(records, EVENT_TYPES)
            check_chain(records)
            if any(r.redacted for r in records):
                verdict.judged = False
                verdict.status = _status(records)
            else:
                game = _judge(records)
                verdict.status = game.state.status
                verdict.winners = list(game.state.winners)
    except Failure as failure:
        verdict.ok = False
        verdict.position = failure.record.position
        verdict.version = failure.record.version
        verdict.reason = failure.reason
        game = None
    return verdict, game


def _status(records: Sequence[Record]) -> str:
    types = {r.type for r in records}
    return "ended" if "GameEnded" in types else "running" if "GameStarted" in types else "open"


def check_sequence(records: Sequence[Record], known: Mapping[str, Any]) -> None:
    """Versions 1, 2, 3, … with nothing missing, every type one of ``known``."""
    for expected, record in enumerate(records, start=1):
        if record.error:
            raise Failure(record, f"the stored event cannot be read: {record.error}")
        if record.version != expected:
            raise Failure(
                record,
                f"version {record.version} where {expected} was expected: "
                "an event is missing or out of order",
            )
        if record.type not in known:
            raise Failure(record, f"unknown event type {record.type!r}")


def check_chain(records: Sequence[Record]) -> None:
    """Every chain value, over the payload as the chain sees it. A redacted
    record carries its hidden fields sealed already; a full one is sealed
    here with the aggregate's secret. Only hidden information may be
    redacted, and only while the game runs (or the tournament): an ended
    game's log is whole (R9.3), and a finished tournament's (T9.3)."""
    secret = _secret(records)
    ended = any(r.type in REVEALING for r in records)
    previous = GENESIS
    for record in records:
        payload = record.payload
        if not isinstance(payload, dict):
            raise Failure(record, "the payload is not an object")
        if record.redacted:
            hidden = hidden_fields(record.type)
            if ended or not hidden:
                raise Failure(record, "only a running game's hidden fields may be redacted")
            if not all(str(payload.get(k, "")).startswith(SEALED) for k in hidden):
                raise Failure(record, "a redacted field is not sealed")
        elif record.type in HIDING:
            if secret is None:
                raise Failure(record, "hidden fields in clear, but the secret is not in the log")
            payload = sealed_payload(
                secret, record.aggregate_id, record.version, record.type, payload
            )
        rec = event_record(
            record.aggregate_id, record.version, record.type, record.timestamp, payload
        )
        if next_chain(previous, rec) != record.chain:
            raise Failure(
                record, "the chain value does not match: this event was altered or replaced"
            )
        previous = record.chain


def _secret(records: Sequence[Record]) -> str | None:
    """The secret, if the aggregate's first event is in the log in clear."""
    first = records[0]
    if first.type not in HOLDING_SECRET or first.redacted or not first.payload:
        return None
    secret = first.payload.get("secret")
    if not isinstance(secret, str) or not re.fullmatch(r"[0-9a-f]{64}", secret):
        raise Failure(first, "R9.1: the secret is not 32 bytes of hex")
    return secret


def _event(record: Record) -> Any:
    """The domain event of a game's first record, which creates the game."""
    cls = EVENT_TYPES[record.type]
    extra = {"originator_topic": GAME_TOPIC} if record.type in CREATED else {}
    try:
        return cls(
            **extra,
            originator_id=UUID(record.aggregate_id),
            originator_version=record.version,
            timestamp=datetime.fromisoformat(record.timestamp),
            chain=record.chain,
            **(record.payload or {}),
        )
    except (TypeError, ValueError) as e:
        raise Failure(record, f"the payload does not fit {record.type}: {e}") from None


def _judge(records: Sequence[Record]) -> Game:
    first = records[0]
    if first.type not in CREATED:
        raise Failure(first, "a game's log starts with GameCreated")
    created = _event(first)
    if hashlib.sha256(bytes.fromhex(created.secret)).hexdigest() != created.commitment:
        raise Failure(first, "R9.1: the secret does not match the commitment")
    game: Game = _replayable(first, lambda: created.mutate(None))
    if game.timed:
        _check_command_times(records)
    i = 1
    while i < len(records):
        if game.state.status == "ended":
            raise Failure(records[i], "R7.1: the game is over; no event may follow GameEnded")
        start = i

        def apply(facts: list[Any]) -> None:
            nonlocal i
            i = _match(game, records, i, facts)

        try:
            _rejudge(game, records, i, apply)
        except Failure:
            raise
        except Exception as e:  # a forged payload the rules cannot even read
            raise Failure(records[start], f"cannot be replayed: {type(e).__name__}: {e}") from None
    game.modified_on = datetime.fromisoformat(records[-1].timestamp)  # (each checked: _replay)
    return game


def _replayable(record: Record, replay: Any) -> Any:
    try:
        return replay()
    except Exception as e:
        raise Failure(record, f"cannot be replayed: {type(e).__name__}: {e}") from None


def _rejudge(
    game: Game, records: Sequence[Record], i: int, apply: Callable[[list[Any]], None]
) -> None:
    """Decide again the command that the record at ``i`` begins, and apply
    the rules' facts (``apply`` matches them with the records)."""
    record = records[i]
    p = record.payload or {}
    state = game.state
    try:
        if game.timed and _clock_rejudged(game, record, apply):
            return
        if record.type == PlayerJoined.__name__:
            apply(engine.decide_join(state, p["name"], p["contribution"], p["token_hash"]))
            return
        if record.type == GameStarted.__name__:  # under the rules version it recorded (R10)
            apply(engine.decide_start(state, game.version, str(p["rules"]["version"])))
            return
        if record.type == PlayerLeft.__name__:
            apply(engine.decide_leave(state, p["player"]))
            return
        if record.type == GameCalled.__name__:
            apply(engine.decide_call(state, p["time"], p["by"]))
            return
        move = _move_of(records, i)
        if move is None:
            raise Failure(record, _no_move_reason(record))
        if game.timed and not isinstance(move, Withdraw):  # a seat's event (R11.3)
            clock_rules.check_on_time(state, move.player, micros(record.timestamp))
        engine.run_move(game, move, apply)
    except RuleError as e:
        raise Failure(record, f"{e} (the recorded move is illegal)") from None
    except (KeyError, TypeError) as e:
        raise Failure(record, f"the payload does not fit {record.type}: {e}") from None


def _micros(record: Record) -> int:
    try:
        return micros(record.timestamp)
    except (TypeError, ValueError) as e:
        raise Failure(record, f"the record's timestamp: {e}") from None


def _check_command_times(records: Sequence[Record]) -> None:
    """R11.2, R11.7: in a timed game every event names its command, a
    command's events are consecutive and carry one timestamp, and the
    timestamps never decrease."""
    seen: set[str] = set()
    previous: Record | None = None
    for record in records:
        command = (record.payload or {}).get("command", "")
        if record.type not in CREATED and not command:
            raise Failure(record, "R11.2: in a timed game every event names its command")
        if previous is not None:
            before = (previous.payload or {}).get("command", "")
            if _micros(record) < _micros(previous):
                raise Failure(
                    record,
                    f"R11.2: stamped {record.timestamp}, before the event before it "
                    f"({previous.timestamp}): a game's timestamps never decrease",
                )
            if command == before and record.timestamp != previous.timestamp:
                raise Failure(
                    record,
                    f"R11.2: command {command}'s events carry one timestamp, "
                    f"not {previous.timestamp} and {record.timestamp}",
                )
            if command != before and command in seen:
                raise Failure(
                    record, f"R11.2: command {command}'s events are not consecutive versions"
                )
        seen.add(command)
        previous = record


def _clock_rejudged(game: Game, record: Record, apply: Callable[[list[Any]], None]) -> bool:
    """A timed game's record, before it is decided again: R11.4 (nothing
    but the seat's TimeExpired after its deadline), and the clocks' own
    events decided again (R11.4–R11.6). True when the record was one."""
    state, p, at = game.state, record.payload or {}, micros(record.timestamp)
    if record.type == TimeExpired.__name__:
        if not clock_rules.run_expiry(game, at, apply):
            raise Failure(
                record,
                "R11.7: TimeExpired is recorded for a seat whose deadline had not passed, "
                "or whose turn had ended or expired already",
            )
        return True
    if record.type in SEAT_MOVES and p.get("player") == state.turn:
        clock_rules.check_on_time(state, p["player"], at)  # R11.3 names a seat's late move
    deadline = clock_rules.deadline_passed(state, at)
    if deadline is not None:
        raise Failure(
            record,
            f"R11.4: {record.type} is recorded after seat index {state.turn}'s deadline "
            f"with no TimeExpired before it",
        )
    if record.type == TimeAdded.__name__:
        facts = clock_rules.decide_add_time(
            state, p["player"], p["seconds"], p["reason"], p["by"], at
        )
        apply(facts)
        return True
    if record.type == ClocksPaused.__name__:
        apply(clock_rules.decide_pause(state, p["reason"], p["by"]))
        return True
    if record.type == ClocksResumed.__name__:
        apply(clock_rules.decide_resume(state, p["reason"], p["by"]))
        return True
    return False


def _move_of(records: Sequence[Record], i: int) -> Move | Withdraw | None:
    record = records[i]
    p = record.payload or {}
    kind = record.type
    if kind in (StageStolen.__name__, StageTaken.__name__):
        # Taking a stage is the first event of the assembly or placement it serves.
        for later in records[i + 1 :]:
            if later.type in (RecipeAssembled.__name__, RecipePlaced.__name__):
                return _move_of([later], 0)
            if later.type not in (StageStolen.__name__, StageTaken.__name__):
                break
        return None
    if kind == CardDiscarded.__name__:
        return Discard(p["player"], p["card"])
    if kind == RecipeAssembled.__name__:
        return Assemble(p["player"], p["card"], tuple(p["components"]))
    if kind == RecipePlaced.__name__:
        return Place(p["player"], p["column"], p["card"])
    if kind == SpellCast.__name__:
        return Cast(p["player"], p["spell"], p["card"], p["recipe"], p["column"])
    if kind == TurnEnded.__name__ and p.get("passed"):
        return Pass(p["player"])
    if kind == SeatWithdrawn.__name__:
        return Withdraw(p["player"], p.get("cause", "drop"))
    return None


def _no_move_reason(record: Record) -> str:
    p = record.payload or {}
    if record.type == "PointsAwarded":
        return (
            f"{p.get('points')} points to seat index {p.get('player')} under {p.get('rule')}, "
            "but no move here earns them (R8.1: every point comes from a move and a rule)"
        )
    return f"no move begins with {record.type} here; the rules produce no such event"


def _match(game: Game, records: Sequence[Record], i: int, facts: list[Any]) -> int:
    """Compare the decided facts with the records from ``i``; apply them."""
    for cls, expected in facts:  # the engine's facts hold only JSON values
        if i >= len(records):
            raise Failure(
                records[-1], f"the log ends where the rules give {cls.__name__} {expected}"
            )
        record = records[i]
        recorded = dict(record.payload or {})
        command = recorded.pop("command", None)
        if record.type != cls.__name__ or recorded != expected:
            raise Failure(record, _difference(record, cls.__name__, expected))
        _replay(game, record, command)
        i += 1
    return i


def _replay(game: Game, record: Record, command: Any) -> None:
    """Apply a record just found equal to the rules' fact: what the library's
    ``mutate`` of its event does (``ChainedEvent.apply``: the state evolved
    with the event's fields, the chain's head and the command noted; then
    the version and the time), without making the event object, the
    replay's largest cost. Its fields are the fact's, which fit its class;
    its version is the next (``check_sequence``); its command and timestamp
    are checked as making the event would (the game's time is set from the
    last, ``_judge``)."""
    if command is None:
        raise Failure(record, f"the payload does not fit {record.type}: no command")
    try:
        datetime.fromisoformat(record.timestamp)
    except (TypeError, ValueError) as e:
        raise Failure(record, f"the payload does not fit {record.type}: {e}") from None
    try:
        game.state.evolve(record.type, record.payload or {})
        if game.timed:
            game.state.timed_step(record.type, record.payload or {}, micros(record.timestamp))
        game.noted(record.chain, command, record.version)
    except Exception as e:
        raise Failure(record, f"cannot be replayed: {type(e).__name__}: {e}") from None
    game.version = record.version


def _difference(record: Record, type_: str, expected: dict[str, Any]) -> str:
    rule = ""
    if "PointsAwarded" in (record.type, type_):
        label = (record.payload or {}).get("rule") or expected.get("rule")
        rule = f"R8.1, {label}: " if label else "R8.1: "
    elif type_ in ("CardsDrawn", "CardsDealt", "GameStarted"):
        rule = "R9.2: "
    elif type_ == "TimeExpired":
        rule = "R11.7: "
    elif "GameEnded" in (record.type, type_):  # the rule that ends the game, or would
        ending = expected if type_ == "GameEnded" else record.payload or {}
        rule = f"{engine.END_RULES.get(str(ending.get('reason')), 'R7')}: "
    if record.type != type_:
        return f"{rule}recorded {record.type} {record.payload}, the rules give {type_} {expected}"
    diffs = {
        k: ((record.payload or {}).get(k), v)
        for k, v in expected.items()
        if (record.payload or {}).get(k) != v
    }
    shown = ", ".join(f"{k} recorded {a!r}, rules give {b!r}" for k, (a, b) in diffs.items())
    return f"{rule}{type_} differs: {shown or 'extra fields recorded'}"

"""What a tournament's events say so far, as one value (TOURNAMENT.md).

``TournamentState.evolve(event_type, payload)`` applies an event, one
``on_<Event>`` method each, as ``domain.table.Table`` does for a game: the
aggregate, the standings projection and the verifier all evolve this same
model, so each rule's reading of the log is written once.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Literal
from uuid import UUID

from domain.handlers import handlers_of
from domain.ruleset import RuleSet
from domain.tournaments import exact
from domain.tournaments.entrants import name_key
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from domain.tournaments.pairing import Apart
from domain.tournaments.seeds import tournament_seed
from domain.tournaments.standings import Entrant, Outcome, Row, standings
from domain.tournaments.tables import TableSizes

Payload = dict[str, Any]
Status = Literal["registering", "playing", "between", "finished"]

SWAP_1 = "swap-1"  # T4.2: every tournament created before revision 4 pairs by it
REGROUP_1 = "regroup-1"  # T4.2b: the default from revision 4 on
CUT = "cut"  # T12.2: the procedure a cut round records
PROCEDURES = (SWAP_1, REGROUP_1)  # what TournamentCreated may name (T1.1)


@dataclass
class Registration:
    number: int
    name: str
    key: str  # T2.1
    contribution: str
    token_hash: str
    round: int  # the rounds paired when it was made (T1.3, T2.3)
    dropped: bool = False
    team: str = ""  # T11.1: as given; "" for none
    team_key: str = ""  # T11.1: keyed as T2.1 keys names


@dataclass
class Seat:
    """One table of a round: its game and players in seat order."""

    table: int
    game: UUID
    players: tuple[int, ...]
    shares: dict[str, str] | None = None  # T11.3 as recorded (revision 4): a, b, c as "p/q"


@dataclass
class Round:
    number: int
    tables: list[Seat]
    byes: list[int]
    paired_at: str  # the RoundPaired's timestamp (T8.1)
    closed: bool = False
    procedure: str = "swap-1"  # as recorded (T1.2); "cut" for a cut round (T12.2)

    @property
    def cut(self) -> bool:
        """Whether it is a round of the top cut (T12.2)."""
        return self.procedure == CUT


@dataclass
class Result:
    places: tuple[int, ...]  # as recorded (T5.1)
    scores: tuple[int, ...]
    head: str
    corrected: tuple[int, ...] | None = None  # the latest correction (T7.1)
    corrections: int = 0

    @property
    def counted(self) -> tuple[int, ...]:
        return self.corrected if self.corrected is not None else self.places


@dataclass(kw_only=True)
class TournamentState:
    name: str
    organiser_hash: str
    commitment: str
    secret: str  # hex; revealed by TournamentFinished (T9.3)
    rules: RuleSet
    sizes: TableSizes
    weight: int
    late_until: int
    time_limit: int | None
    planned_rounds: int | None  # T1.1: fixed at round 1's pairing when None
    asked_rounds: int | None  # as TournamentCreated named them
    beacon: str  # T1.3: the beacon named, "" for none
    unicode_version: str
    # T1.1 (revision 4): the pairing procedure and the cut's tables (T12.1).
    # ``revised`` is whether TournamentCreated records them: a tournament
    # created before revision 4 pairs by `swap-1`, has no cut, takes no team
    # and no constraint, and its events keep their shape.
    procedure: str = SWAP_1
    cut: int | None = None
    revised: bool = False
    registrations: list[Registration] = field(default_factory=list)
    constraints: list[tuple[int, int]] = field(default_factory=list)  # T11.1, as recorded
    rounds: list[Round] = field(default_factory=list)
    results: dict[UUID, Result] = field(default_factory=dict)
    penalties: dict[int, list[Fraction]] = field(default_factory=dict)
    seed: bytes | None = None  # T1.3: fixed when round 1 is paired
    beacon_value: str | None = None
    finished: bool = False
    games: dict[UUID, tuple[Round, Seat]] = field(default_factory=dict)

    handlers: ClassVar[dict[str, Callable[[Any, Payload], None]]] = {}

    @classmethod
    def from_created(cls, p: Payload) -> TournamentState:
        rules = p["rules"]
        return cls(
            name=p["name"],
            organiser_hash=p.get("organiser_hash", ""),
            commitment=p["commitment"],
            secret=p.get("secret", ""),  # the read side never holds it
            rules=RuleSet(
                draw=rules["draw"], guild=rules["guild"], stage_points=tuple(rules["stage_points"])
            ),
            sizes=TableSizes(p["tables"]["min"], p["tables"]["preferred"], p["tables"]["max"]),
            weight=p["weight"],
            late_until=p["late_until"],
            time_limit=p["time_limit"],
            planned_rounds=p["rounds"],
            asked_rounds=p["rounds"],
            beacon=p["beacon"],
            unicode_version=p["unicode_version"],
            procedure=p.get("procedure") or SWAP_1,
            cut=p.get("cut"),
            revised=p.get("procedure") is not None,
        )

    # ---- reading -----------------------------------------------------------

    @property
    def status(self) -> Status:
        if self.finished:
            return "finished"
        if not self.rounds:
            return "registering"
        return "between" if self.rounds[-1].closed else "playing"

    @property
    def paired(self) -> int:
        """The number of rounds paired so far."""
        return len(self.rounds)

    @property
    def active(self) -> list[int]:
        """Registration numbers of the players not dropped, ascending."""
        return [r.number for r in self.registrations if not r.dropped]

    def registration(self, player: int) -> Registration:
        return self.registrations[player - 1]

    @property
    def swiss(self) -> list[Round]:
        """The Swiss rounds paired so far (every round but the cut's)."""
        return [r for r in self.rounds if not r.cut]

    @property
    def cut_rounds(self) -> list[Round]:
        """The rounds of the top cut paired so far (T12.2)."""
        return [r for r in self.rounds if r.cut]

    def conflicts(self) -> set[tuple[int, int]]:
        """T11.1, T11.2: every pair (lower number first) that shares a team
        key or is constrained, over every registration and constraint
        recorded so far, dropped players included; a pair both is one pair."""
        pairs = set(self.constraints)
        by_team: dict[str, list[int]] = {}
        for r in self.registrations:
            if r.team_key:
                by_team.setdefault(r.team_key, []).append(r.number)
        for members in by_team.values():
            pairs.update((p, q) for i, p in enumerate(members) for q in members[i + 1 :])
        return pairs

    def apart(self) -> Apart:
        """``conflicts()`` without listing a team's pairs: each player's team
        key and the constraints (``pairing.Apart``), dropped players too."""
        teams = {r.number: r.team_key for r in self.registrations if r.team_key}
        return Apart(teams, frozenset(self.constraints))

    @property
    def has_conflicts(self) -> bool:
        """T11.2: whether the tournament has a team or a constraint (as of
        now: every registration and constraint recorded, dropped players too)."""
        return bool(self.constraints) or any(r.team_key for r in self.registrations)

    def player_of(self, token_hash: str) -> int | None:
        """The registration number a token holds (T2.1), None if none."""
        for r in self.registrations:
            if r.token_hash and hmac.compare_digest(r.token_hash, token_hash):
                return r.number
        return None

    def current_seed(self) -> bytes:
        """T1.3's seed; before round 1 is paired, the one it would give now
        (the beacon as the empty text), for T6.1's last tie-break. The read
        side, which never holds the secret, takes the empty seed until round
        1's RoundPaired gives it the seed (our decision: its standings before
        round 1 are marked provisional)."""
        if self.seed is not None:
            return self.seed
        if not self.secret:
            return b""
        return tournament_seed(
            bytes.fromhex(self.secret), [r.contribution for r in self.registrations], ""
        )

    def outcomes(self, cut: bool = False) -> list[Outcome]:
        """Every Swiss game's result as it counts now; the cut's games
        instead with ``cut`` (T12.3: they never enter the Swiss standings)."""
        out = []
        for game, result in self.results.items():
            round_, seat = self.games[game]
            if round_.cut != cut:
                continue
            out.append(
                Outcome(
                    game=game,
                    round=round_.number,
                    table=seat.table,
                    players=seat.players,
                    places=result.counted,
                    scores=result.scores,
                    corrections=result.corrections,
                )
            )
        return out

    def byes(self) -> dict[int, list[int]]:
        byes: dict[int, list[int]] = {}
        for round_ in self.rounds:
            for player in round_.byes:
                byes.setdefault(player, []).append(round_.number)
        return byes

    def standings(self, up_to_round: int | None = None) -> list[Row]:
        """T6: the standings from everything recorded so far (games and byes
        of rounds up to ``up_to_round`` only, when given)."""
        entrants = [Entrant(r.number, r.name, r.dropped) for r in self.registrations]
        return standings(
            entrants,
            self.outcomes(),
            self.byes(),
            self.penalties,
            self.current_seed(),
            up_to_round,
        )

    def history(self) -> dict[int, list[tuple[int, int]]]:
        """Each player's earlier tournament games as (seat, table size) (T4.3)."""
        seen: dict[int, list[tuple[int, int]]] = {}
        for round_ in self.rounds:
            for seat in round_.tables:
                for k, player in enumerate(seat.players):
                    seen.setdefault(player, []).append((k, len(seat.players)))
        return seen

    def running_games_of(self, player: int) -> list[UUID]:
        """The player's games with no result yet (T2.2)."""
        if not self.rounds:
            return []
        return [
            seat.game
            for seat in self.rounds[-1].tables
            if player in seat.players and seat.game not in self.results
        ]

    # ---- changing ------------------------------------------------------------

    def evolve(self, event_type: str, p: Payload) -> None:
        handler = self.handlers.get(event_type)
        if handler is not None:
            handler(self, p)

    def on_PlayerRegistered(self, p: Payload) -> None:  # T2.1, T11.1
        team = p.get("team") or ""
        self.registrations.append(
            Registration(
                p["player"],
                p["name"],
                name_key(p["name"]),
                p["contribution"],
                p.get("token_hash", ""),  # the read side never holds it
                self.paired,
                team=team,
                team_key=name_key(team) if team else "",
            )
        )

    def on_PairingConstraintAdded(self, p: Payload) -> None:  # T11.1
        low, high = sorted(p["players"])
        self.constraints.append((low, high))

    def on_PlayerDropped(self, p: Payload) -> None:  # T2.2
        self.registration(p["player"]).dropped = True

    def on_RoundPaired(self, p: Payload) -> None:  # T3, T4
        if p["round"] == 1:  # T1.3: the seed, over the registrations so far
            self.beacon_value = p["beacon"]
            self.planned_rounds = p["rounds"]
            self.seed = bytes.fromhex(p["seed"])
        stamp: Any = p.get("timestamp")
        round_ = Round(
            p["round"],
            [
                Seat(t["table"], UUID(t["game"]), tuple(t["players"]), t.get("shares"))
                for t in p["tables"]
            ],
            list(p["byes"]),
            stamp.isoformat() if hasattr(stamp, "isoformat") else str(stamp or ""),
            procedure=p.get("procedure") or SWAP_1,
        )
        self.rounds.append(round_)
        for seat in round_.tables:
            self.games[seat.game] = (round_, seat)

    def on_GameResultRecorded(self, p: Payload) -> None:  # T5.1
        self.results[UUID(p["game"])] = Result(tuple(p["places"]), tuple(p["scores"]), p["head"])

    def on_ResultCorrected(self, p: Payload) -> None:  # T7.1
        result = self.results[UUID(p["game"])]
        result.corrected = tuple(p["places"])
        result.corrections += 1

    def on_PenaltyGiven(self, p: Payload) -> None:  # T7.2
        self.penalties.setdefault(p["player"], []).append(exact.parse(p["points"]))

    def on_RoundClosed(self, p: Payload) -> None:  # T9.1
        self.rounds[p["round"] - 1].closed = True

    def on_TournamentFinished(self, p: Payload) -> None:  # T9.3
        self.finished = True
        self.secret = p["secret"]  # revealed: the read side has it from now on


TournamentState.handlers = handlers_of(TournamentState, TOURNAMENT_EVENT_TYPES)

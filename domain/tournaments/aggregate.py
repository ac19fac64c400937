"""The Tournament aggregate: one tournament's registrations, rounds,
results, corrections and seals (TOURNAMENT.md), chained like a Game.

Each command asks ``domain.tournaments.decide`` for the facts and triggers
them; a refused command raises before anything is triggered. The games a
pairing creates, and the seats a drop withdraws, are the application's to
save with the tournament, in one transaction (domain/application.py).
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from fractions import Fraction
from typing import Any, ClassVar
from uuid import UUID, uuid4

from domain.chained import Chained
from domain.errors import (
    CorrectionError,
    CreationError,
    OpusError,
    PairingError,
    PenaltyError,
    RegistrationError,
    TournamentNotFoundError,
    TournamentRuleError,
)
from domain.names import check_new_entrant, check_visible
from domain.ruleset import RuleSet
from domain.shuffle import commitment, new_secret
from domain.text import check_text
from domain.tournaments import decide
from domain.tournaments.cut import check_cut
from domain.tournaments.events import TournamentCreated
from domain.tournaments.state import PROCEDURES, REGROUP_1, TournamentState
from domain.tournaments.tables import TableSizes

DEFAULT_WEIGHT = 6  # T1.1
MAX_TOURNAMENT_NAME = 100  # our decision


class Tournament(Chained):
    noun: ClassVar[str] = "tournament"
    missing: ClassVar[type[OpusError]] = TournamentNotFoundError

    def __init__(
        self,
        name: str,
        organiser_hash: str,
        commitment: str,
        secret: str,
        rules: dict[str, Any],
        tables: dict[str, int],
        weight: int,
        late_until: int,
        time_limit: int | None,
        rounds: int | None,
        beacon: str,
        unicode_version: str,
        procedure: str | None = None,  # revision 4: absent before it
        cut: int | None = None,
    ) -> None:
        created = {name: value for name, value in locals().items() if name != "self"}
        self.state = TournamentState.from_created(created)
        self._start_chain()

    @classmethod
    def create(
        cls,
        name: str,
        organiser_hash: str,
        *,
        rules: RuleSet | None = None,
        sizes: TableSizes | None = None,
        weight: int = DEFAULT_WEIGHT,
        late_until: int = 1,
        time_limit: int | None = None,
        rounds: int | None = None,
        beacon: str = "",
        procedure: str = REGROUP_1,
        cut: int | None = None,
        secret: bytes | None = None,
        id: UUID | None = None,
    ) -> Tournament:
        """T1.1, T1.3: a new tournament; its secret is drawn here and only its
        commitment is public (the secret itself is sealed in the chain).
        Revision 4: the pairing procedure (T4.2, T4.2b) and the cut (T12.1)."""
        rules = rules or RuleSet()
        sizes = sizes or TableSizes()
        check_text("a tournament's name", name, CreationError)  # new commands only (domain/text.py)
        check_visible("a tournament's name", name, CreationError)  # new commands only
        check_text("the beacon's name", beacon, CreationError)
        if procedure is None:  # only a tournament created before revision 4 records none
            raise CreationError(
                f"a new tournament names its pairing procedure, one of {list(PROCEDURES)}",
                "T1.1",
            )
        check_creation(name, weight, late_until, time_limit, rounds, beacon, procedure, cut, sizes)
        secret = new_secret() if secret is None else secret
        fields = created_fields(
            name,
            organiser_hash,
            commitment(secret),
            secret.hex(),
            rules,
            sizes,
            weight=weight,
            late_until=late_until,
            time_limit=time_limit,
            rounds=rounds,
            beacon=beacon,
            unicode_version=unicodedata.unidata_version,
            procedure=procedure,
            cut=cut,
        )
        return cls._create_chained(  # type: ignore[no-any-return]
            TournamentCreated, id or uuid4(), secret.hex(), fields
        )

    @property
    def chain_secret(self) -> str:
        return self.state.secret

    @property
    def ended(self) -> bool:
        return self.state.finished

    def register(
        self, name: str, contribution: str, token_hash: str, command: str = "", team: str = ""
    ) -> int:
        """T2.1, T11.1: returns the registration number. A new command's name
        may not look like another's, nor a person's claim a bot (domain/names.py)."""
        facts = decide.decide_register(self.state, name, contribution, token_hash, team)
        registered = [r.name for r in self.state.registrations]
        person = bool(token_hash)
        check_new_entrant(name, contribution, registered, person=person, error=RegistrationError)
        self._trigger_all(facts, command)
        return len(self.state.registrations)

    def constrain(self, players: list[int], reason: str, by: str, command: str = "") -> None:
        """T11.1: two players who must not share a table."""

        def refused(why: str) -> TournamentRuleError:
            return TournamentRuleError(why, "T11.1")

        check_text("the reason", reason, refused)  # new commands only (domain/text.py)
        check_text("who records it", by, refused)
        self._trigger_all(decide.decide_constraint(self.state, players, reason, by), command)

    def drop(self, player: int, command: str = "", timestamp: datetime | None = None) -> None:
        """T2.2; ``timestamp``: the moment of the drop and its withdrawals."""
        self._trigger_all(decide.decide_drop(self.state, player), command, timestamp)

    def pair(self, beacon: str | None = None, command: str = "") -> list[decide.TableGame]:
        """T3, T4: the next round; returns the games to create and start."""
        check_text("the beacon's value", beacon or "", lambda why: PairingError(why, "T1.3"))
        facts, games = decide.decide_pairing(self.state, self.id, beacon)
        self._trigger_all(facts, command)
        return games

    def record_result(
        self, game: UUID, keys: list[tuple[int, int, int]], scores: list[int], head: str
    ) -> None:
        """T5.1, then T9.1 if it was the round's last game."""
        self._trigger_all(decide.decide_result(self.state, game, keys, scores, head), "")
        self._trigger_all(decide.decide_close(self.state), "")

    def correct(
        self, game: UUID, places: list[int], reason: str, by: str, command: str = ""
    ) -> None:
        check_text("the reason", reason, CorrectionError)  # new commands only (domain/text.py)
        check_text("who corrects", by, CorrectionError)
        self._trigger_all(decide.decide_correction(self.state, game, places, reason, by), command)

    def penalise(
        self, player: int, points: Fraction, reason: str, by: str, command: str = ""
    ) -> None:
        check_text("the reason", reason, PenaltyError)  # new commands only (domain/text.py)
        check_text("who gives it", by, PenaltyError)
        self._trigger_all(decide.decide_penalty(self.state, player, points, reason, by), command)

    def check_call(self, game: UUID, now: datetime, withdrawn: bool) -> None:
        decide.check_call(self.state, game, now, withdrawn)

    def finish(self, command: str = "") -> None:
        self._trigger_all(decide.decide_finish(self.state), command)


def created_fields(
    name: str,
    organiser_hash: str,
    commitment: Any,
    secret: Any,
    rules: RuleSet,
    sizes: TableSizes,
    *,
    weight: int,
    late_until: int,
    time_limit: int | None,
    rounds: int | None,
    beacon: str,
    unicode_version: str,
    procedure: str | None,
    cut: int | None,
) -> dict[str, Any]:
    """T1.1: a TournamentCreated's fields, in the order they are recorded:
    how a tournament's settings are written, for the aggregate and for
    verify (which rebuilds the event from the settings it records). A
    tournament created before revision 4 records no procedure and no cut
    (``procedure`` None): its event is rebuilt as it was."""
    fields = dict(
        name=name,
        organiser_hash=organiser_hash,
        commitment=commitment,
        secret=secret,
        rules={
            "draw": rules.draw,
            "guild": rules.guild,
            "stage_points": list(rules.stage_points),
        },
        tables={"min": sizes.min, "preferred": sizes.preferred, "max": sizes.max},
        weight=weight,
        late_until=late_until,
        time_limit=time_limit,
        rounds=rounds,
        beacon=beacon,
        unicode_version=unicode_version,
    )
    if procedure is not None:
        fields |= dict(procedure=procedure, cut=cut)
    return fields


def check_creation(
    name: str,
    weight: int,
    late_until: int,
    time_limit: int | None,
    rounds: int | None,
    beacon: str,
    procedure: str | None = None,
    cut: int | None = None,
    sizes: TableSizes | None = None,
) -> None:
    """T1.1's bounds, and ours where it is silent; revision 4's procedure
    (T4.2, T4.2b) and cut (T12.1) when given."""
    try:
        name.encode("utf-8")
        beacon.encode("utf-8")
    except UnicodeEncodeError:
        raise CreationError("the name and the beacon must be valid text") from None
    if not name.strip() or len(name) > MAX_TOURNAMENT_NAME:
        raise CreationError(f"a tournament's name has 1 to {MAX_TOURNAMENT_NAME} characters")
    if weight < 1:
        raise CreationError("the pairing weight W is a positive integer")
    if late_until < 1:
        raise CreationError("late registration runs until round L is paired, L ≥ 1")
    if time_limit is not None and time_limit < 1:
        raise CreationError("a round time limit is a positive number of seconds")
    if rounds is not None and rounds < 1:
        raise CreationError("the number of rounds is positive")
    if len(beacon) > MAX_TOURNAMENT_NAME:
        raise CreationError(f"the beacon is named in at most {MAX_TOURNAMENT_NAME} characters")
    if procedure is not None and procedure not in PROCEDURES:
        raise CreationError(
            f"the pairing procedure is one of {', '.join(PROCEDURES)}, not {procedure!r}", "T4.2"
        )
    if cut is not None or procedure is not None:
        check_cut(cut, sizes or TableSizes())

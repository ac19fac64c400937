"""The Tournament's events (TOURNAMENT.md T1.2): past-tense facts, chained by
hash exactly as a Game's are (domain/chain.py), from 32 zero bytes.

Fractions are "p/q" text (domain/tournaments/exact.py); players are
registration numbers, counted from 1; tables are numbered from 1, the top
table first. ``hidden`` and ``identity`` fields are declared as the Game's
events declare theirs (domain/events.py) and applied by the same policy
(domain/disclosure.py): the tournament's secret is sealed until
TournamentFinished reveals it; token hashes and command ids are for the
chain, never for a view.
"""

from __future__ import annotations

from typing import Any, ClassVar

from eventsourcing.domain import Aggregate

from domain.events import ChainedEvent, Hidden


class TournamentCreated(Aggregate.Created):
    chain: str
    name: str
    organiser_hash: str  # SHA-256 of the organiser's token
    commitment: str  # T1.3: SHA-256 of the secret
    secret: str  # hidden: revealed by TournamentFinished (T9.3)
    rules: dict[str, Any]  # RULES §10: draw, guild, stage_points, one for all its games
    tables: dict[str, int]  # T1.1: min, preferred, max
    weight: int  # T4.2's W
    late_until: int  # T2.3: registrations until round L is paired
    time_limit: int | None  # T8.1: seconds per round, or none
    rounds: int | None  # fixed at round 1's pairing when none (T1.1)
    beacon: str  # T1.3: the public value to come, named; "" for none
    unicode_version: str  # T2.1

    hidden: ClassVar[dict[str, Hidden]] = {"secret": Hidden()}
    identity: ClassVar[tuple[str, ...]] = ("organiser_hash",)

    def apply(self, aggregate: Any) -> None:
        aggregate.chain = self.chain


class TournamentEvent(ChainedEvent):
    """A Tournament's event (the tournaments projection dispatches on it)."""


class PlayerRegistered(TournamentEvent):
    """T2.1: ``player`` is the registration number."""

    player: int
    name: str
    contribution: str  # T1.3
    token_hash: str  # SHA-256 of the player's token, shown once

    identity: ClassVar[tuple[str, ...]] = ("command", "token_hash")


class PlayerDropped(TournamentEvent):
    """T2.2: from the next pairing on; their running games withdraw the seat."""

    player: int


class RoundPaired(TournamentEvent):
    """T1.2, T3, T4. ``tables``: [{table, game, players (seat order)}];
    ``rounds`` and ``beacon`` (its value) in round 1's only, else null.
    Round 1's also holds the tournament seed (T1.3), hidden as the secret
    is (our decision): the standings' last tie-break needs it (T6.1), and
    the read side, which never holds the secret, reads it here."""

    round: int
    tables: list[dict[str, Any]]
    byes: list[int]
    objective: str
    procedure: str
    rounds: int | None
    beacon: str | None
    seed: str | None

    hidden: ClassVar[dict[str, Hidden]] = {"seed": Hidden()}


class GameResultRecorded(TournamentEvent):
    """T5.1: places and scores in seat order, and the game's head."""

    game: str
    places: list[int]
    scores: list[int]
    head: str


class ResultCorrected(TournamentEvent):
    """T7.1: the game's places from now on; its scores never change."""

    game: str
    places: list[int]
    reason: str
    by: str


class PenaltyGiven(TournamentEvent):
    """T7.2: match points subtracted from the player ("p/q", > 0)."""

    player: int
    points: str
    reason: str
    by: str


class RoundClosed(TournamentEvent):
    """T9.1: the round's seal: every game's head in table order, their
    Merkle root, and the digest of the standings after the round."""

    round: int
    heads: list[dict[str, str]]
    root: str
    standings: str


class TournamentFinished(TournamentEvent):
    """T9.3: the standings' digest as of the command; the secret revealed."""

    standings: str
    secret: str


TOURNAMENT_EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerRegistered,
        PlayerDropped,
        RoundPaired,
        GameResultRecorded,
        ResultCorrected,
        PenaltyGiven,
        RoundClosed,
        TournamentFinished,
    )
}

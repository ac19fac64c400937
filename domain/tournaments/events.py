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

from domain.events import ABSENT, ChainedEvent, Hidden, _drop_absent


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
    # Revision 4 (absent from a tournament created before it, which pairs by
    # `swap-1` and has no cut):
    procedure: str = ABSENT  # T1.1, T4.2: "swap-1" or "regroup-1"
    cut: int | None = ABSENT  # T12.1: k tables, or null for none

    hidden: ClassVar[dict[str, Hidden]] = {"secret": Hidden()}
    identity: ClassVar[tuple[str, ...]] = ("organiser_hash",)

    def __post_init__(self) -> None:
        super().__post_init__()
        _drop_absent(self)

    def apply(self, aggregate: Any) -> None:
        aggregate.chain = self.chain


class TournamentEvent(ChainedEvent):
    """A Tournament's event (the tournaments projection dispatches on it).
    A field defaulting to ``ABSENT`` is one revision 4 added: an event
    recorded without it has no such field."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _drop_absent(self)


class PlayerRegistered(TournamentEvent):
    """T2.1: ``player`` is the registration number."""

    player: int
    name: str
    contribution: str  # T1.3
    token_hash: str  # SHA-256 of the player's token, shown once
    team: str = ABSENT  # T11.1 (revision 4): "" for none

    identity: ClassVar[tuple[str, ...]] = ("command", "token_hash")


class PairingConstraintAdded(TournamentEvent):
    """T11.1 (revision 4): two players who must not share a table, by
    registration number (ascending, our decision), with the reason and who
    recorded it. Never removed."""

    players: list[int]
    reason: str
    by: str


class PlayerDropped(TournamentEvent):
    """T2.2: from the next pairing on; their running games withdraw the seat."""

    player: int


class RoundPaired(TournamentEvent):
    """T1.2, T3, T4. ``tables``: [{table, game, players (seat order)}, and
    from revision 4 ``shares`` {a, b, c}: the table's share of each term as
    "p/q" (T11.3)]; ``rounds`` and ``beacon`` (its value) in round 1's only,
    else null. ``procedure``: "swap-1", "regroup-1" or "cut" (T12.2).
    ``objective_c``: (c) as "p/q", only where the tournament has a team or a
    constraint (T11.2). Round 1's also holds the tournament seed (T1.3),
    hidden as the secret is (our decision): the standings' last tie-break
    needs it (T6.1), and the read side, which never holds the secret, reads
    it here."""

    round: int
    tables: list[dict[str, Any]]
    byes: list[int]
    objective: str
    procedure: str
    rounds: int | None
    beacon: str | None
    seed: str | None
    objective_c: str = ABSENT

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
    """T9.3: the standings' digest as of the command; the secret revealed.
    ``ranking``: T12.4's final ranking rows, whenever a cut is named."""

    standings: str
    secret: str
    ranking: list[dict[str, Any]] = ABSENT


TOURNAMENT_EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerRegistered,
        PlayerDropped,
        PairingConstraintAdded,
        RoundPaired,
        GameResultRecorded,
        ResultCorrected,
        PenaltyGiven,
        RoundClosed,
        TournamentFinished,
    )
}

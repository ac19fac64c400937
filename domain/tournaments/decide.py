"""The tournament's decisions: given its state and a command, the facts to
record, or a rule error naming its T… rule. Pure, like the game's engine
(domain/engine.py): ``verify --tournament`` re-derives every pairing, seat,
result and seal with these same functions (domain/tournaments/verify.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any
from uuid import UUID

from domain import errors as E
from domain.chained import Fact
from domain.engine import MAX_CONTRIBUTION
from domain.tournaments import cut, exact
from domain.tournaments.entrants import check_name, check_team
from domain.tournaments.events import (
    GameResultRecorded,
    PairingConstraintAdded,
    PenaltyGiven,
    PlayerDropped,
    PlayerRegistered,
    ResultCorrected,
    RoundClosed,
    RoundPaired,
    TournamentFinished,
)
from domain.tournaments.guards import check_open, check_pairing, lowest_refusal
from domain.tournaments.pairing import (
    Apart,
    Pairing,
    conflicts_at,
    objective,
    pair_first_round,
    pair_later_round,
    pairs_met,
    table_shares,
)
from domain.tournaments.seating import seat_order, seat_table
from domain.tournaments.seeds import game_secret, merkle_root, round_seed, tournament_seed
from domain.tournaments.standings import Row, digest, is_competition_ranking, places
from domain.tournaments.state import CUT, TournamentState

MIN_ROUNDS = 3  # T1.1
MAX_TEXT = 200  # a reason's length (our decision)
MAX_BY = 40  # who corrects, penalises, calls or constrains (our decision)


@dataclass(frozen=True)
class TableGame:
    """A game a pairing creates: its id, table, players in seat order and
    secret (T1.4)."""

    game: UUID
    round: int
    table: int
    players: tuple[int, ...]
    secret: bytes


def game_id(tournament: UUID, round_: int, table: int) -> UUID:
    """A tournament game's id, derived from its place, so a retried pairing
    names the same games."""
    return uuid.uuid5(tournament, f"round {round_} table {table}")


def decide_register(
    state: TournamentState, name: str, contribution: str, token_hash: str, team: str = ""
) -> list[Fact]:
    """T2.1, T2.3, T11.1: a new registration, numbered from 1, with its team
    ("" for none) from revision 4 on."""

    def in_time() -> None:
        if state.paired >= state.late_until:
            raise E.LateRegistrationError(
                f"registration closed when round {state.late_until} was paired"
            )
        last = state.planned_rounds
        if state.revised and last is not None and state.paired >= last:
            raise E.LateRegistrationError(
                f"registration closed when the last round ({last}) was paired"
            )

    def entrant() -> None:
        check_name(name, {r.key for r in state.registrations})
        if token_hash and any(r.token_hash == token_hash for r in state.registrations):
            raise E.RegistrationError("this token is registered in this tournament already")
        try:
            contribution.encode("utf-8")
        except UnicodeEncodeError:
            raise E.RegistrationError("the contribution is not valid text") from None
        if len(contribution) > MAX_CONTRIBUTION:  # it seeds every game of the player's (R9.1)
            raise E.RegistrationError(
                f"a seed contribution has at most {MAX_CONTRIBUTION} characters"
            )

    def teamed() -> None:
        if team and not state.revised:
            raise E.TournamentRuleError(
                "this tournament was created before revision 4: it has no teams", "T11.1"
            )
        check_team(team)

    lowest_refusal(lambda: check_open(state), in_time, entrant, teamed)  # T10.3
    player = len(state.registrations) + 1
    fields: dict[str, Any] = dict(
        player=player, name=name, contribution=contribution, token_hash=token_hash
    )
    if state.revised:
        fields["team"] = team
    return [(PlayerRegistered, fields)]


def decide_constraint(
    state: TournamentState, players: list[int], reason: str, by: str
) -> list[Fact]:
    """T11.1: two registered players who must not share a table, recorded
    until round 1 is paired (players ascending: our decision)."""
    check_open(state)
    if not state.revised:
        raise E.TournamentRuleError(
            "this tournament was created before revision 4: it takes no pairing constraints",
            "T11.1",
        )
    if state.paired:
        raise E.TournamentRuleError(
            "pairing constraints are recorded until round 1 is paired", "T11.1"
        )
    registered = range(1, len(state.registrations) + 1)
    numbers = all(type(p) is int for p in players)  # not 3.0, not true (T10.1)
    if (
        not numbers
        or len(players) != 2
        or len(set(players)) != 2
        or any(p not in registered for p in players)
    ):
        raise E.TournamentRuleError(
            f"a constraint names two different registered players (1 to {len(registered)}), "
            f"not {players}",
            "T11.1",
        )
    _check_text("reason", reason, rule="T11.1")
    _check_text("name of who records it", by, MAX_BY, rule="T11.1")
    return [(PairingConstraintAdded, dict(players=sorted(players), reason=reason, by=by))]


def decide_drop(state: TournamentState, player: int) -> list[Fact]:
    """T2.2: the drop; the application withdraws the player's running seats
    in the same transaction."""
    check_open(state)
    if not 1 <= player <= len(state.registrations):
        raise E.DropError(f"there is no player {player} in this tournament")
    if state.registration(player).dropped:
        raise E.DropError(f"{state.registration(player).name} has dropped already")
    return [(PlayerDropped, dict(player=player))]


def rounds_for(players: int, preferred: int) -> int:
    """T1.1: the smallest r ≥ 3 with preferred^r ≥ the active players."""
    rounds = MIN_ROUNDS
    while preferred**rounds < players:
        rounds += 1
    return rounds


def round_count(state: TournamentState) -> int:
    """T1.1: the rounds the tournament plays: as created, else fixed when
    round 1 is paired for the players active then."""
    return state.planned_rounds or rounds_for(len(state.active), state.sizes.preferred)


def decide_pairing(
    state: TournamentState, tournament: UUID, beacon: str | None = None
) -> tuple[list[Fact], list[TableGame]]:
    """T3, T4, T11, T12: the next round's tables, byes and seats, and its
    games, once the guards allow it (domain/tournaments/guards.py: T9.3,
    T9.1, T2.4, T1.3); after the last Swiss round, the cut's (T12)."""
    value = beacon or ""
    number = check_pairing(state, value)
    extra: dict[str, Any] = {"rounds": None, "beacon": None, "seed": None}
    if number == 1:
        seed = _seed_with(state, value)
        extra = {"rounds": round_count(state), "beacon": value, "seed": seed.hex()}
    else:
        assert state.seed is not None
        seed = state.seed
    procedure = state.procedure
    inputs = pairing_inputs(state)
    if cut.stage(state, number) == "swiss":
        pairing, seats = pair_round(state, number, seed, inputs)
    else:
        pairing, seats = pair_cut(state, number, inputs)
        procedure = CUT
    secret = bytes.fromhex(state.secret)
    games = [
        TableGame(
            game_id(tournament, number, t),
            number,
            t,
            tuple(players),
            game_secret(secret, number, t),
        )
        for t, players in enumerate(seats, start=1)
    ]
    tables: list[dict[str, Any]] = [
        {"table": g.table, "game": str(g.game), "players": list(g.players)} for g in games
    ]
    fields: dict[str, Any] = dict(
        round=number,
        tables=tables,
        byes=pairing.byes,
        objective=exact.text(pairing.objective),
        procedure=procedure,
        **extra,
    )
    if state.revised:  # T11.3: every table's share of each term
        for table, seated in zip(tables, seats, strict=True):
            table["shares"] = shares_text(seated, inputs)
        if inputs.conflicts is not None:  # T11.2: (c) where there is a team or a constraint
            fields["objective_c"] = exact.text(pairing.conflicts)
    return [(RoundPaired, fields)], games


@dataclass(frozen=True)
class Inputs:
    """What a pairing reads, as of the pairing (T4.2, T11.2): the standings
    now (cut games left out, T12.3), m over every earlier round (cut rounds
    included), match points after penalties, and the pairs that share a
    team or are constrained, None where the tournament has no team and no
    constraint (a tournament created before revision 4 has neither)."""

    rows: list[Row]
    met: dict[tuple[int, int], int]
    points: dict[int, Fraction]
    conflicts: Apart | None


def pairing_inputs(state: TournamentState) -> Inputs:
    rows = state.standings()
    return Inputs(
        rows,
        pairs_met([seat.players for seat in r.tables] for r in state.rounds),
        {row.player: row.match_points for row in rows},
        state.apart() if state.revised and state.has_conflicts else None,
    )


def shares_text(table: list[int], inputs: Inputs) -> dict[str, str]:
    """T11.3: a table's share of (a), (b) and (c) as "p/q"."""
    shares = table_shares(table, inputs.met, inputs.points, inputs.conflicts)
    return {"a": exact.text(shares.a), "b": exact.text(shares.b), "c": exact.text(shares.c)}


def pair_cut(
    state: TournamentState, number: int, inputs: Inputs | None = None
) -> tuple[Pairing, list[list[int]]]:
    """T12.1–T12.3: the cut's first round (its qualifiers dealt snake-wise)
    or the final (the semifinal winners), each table in seed order, which
    is its seat order; the objective of those tables as T4.2 and T11 count
    it. Teams and constraints move nothing here (our decision, T12.1)."""
    if cut.stage(state, number) == "first":
        assert state.cut is not None
        tables = cut.deal(cut.qualifiers(state), state.cut)
    else:
        tables = [cut.final_players(state)]
    inputs = inputs or pairing_inputs(state)
    value = objective(tables, inputs.met, inputs.points, state.weight)
    pairing = Pairing(tables, [], value, conflicts_at(tables, inputs.conflicts))
    return pairing, [list(t) for t in tables]


def _seed_with(state: TournamentState, beacon: str) -> bytes:
    contributions = [r.contribution for r in state.registrations]
    return tournament_seed(bytes.fromhex(state.secret), contributions, beacon)


def pair_round(
    state: TournamentState, number: int, seed: bytes, inputs: Inputs | None = None
) -> tuple[Pairing, list[list[int]]]:
    """T4.1 (round 1) or T4.2 (later), by the tournament's procedure (T4.2,
    T4.2b) under T11.2's objective where it has a team or a constraint,
    then T4.3's seats: the pairing and each table's players in seat order.
    ``state`` is as of the pairing."""
    active = state.active
    inputs = inputs or pairing_inputs(state)
    rows, met, points, conflicts = inputs.rows, inputs.met, inputs.points, inputs.conflicts
    seed_r = round_seed(seed, number)
    procedure = state.procedure
    if number == 1:
        pairing = pair_first_round(
            active, seed_r, state.sizes, state.weight, points, met, conflicts, procedure
        )
    else:
        active_set = set(active)
        ranked = [row.player for row in rows if row.player in active_set]
        byes = {p: len(rounds) for p, rounds in state.byes().items()}
        pairing = pair_later_round(
            ranked, byes, met, points, state.sizes, state.weight, conflicts, procedure
        )
    order = seat_order(active, seed_r)
    history = state.history()
    seats = [seat_table(table, history, order) for table in pairing.tables]
    return pairing, seats


def decide_result(
    state: TournamentState,
    game: UUID,
    keys: list[tuple[int, int, int]],
    scores: list[int],
    head: str,
) -> list[Fact]:
    """T5.1: a tournament game has ended; ``keys`` are R7.3's by seat.
    When it is the round's last, the round closes (T9.1)."""
    if game not in state.games:
        raise E.TournamentRuleError(f"game {game} is not this tournament's", "T5.1")
    if game in state.results:
        return []  # recorded once (T5.1)
    return [
        (GameResultRecorded, dict(game=str(game), places=places(keys), scores=scores, head=head))
    ]


def decide_close(state: TournamentState) -> list[Fact]:
    """T9.1: the open round closes once every game in it has a result; its
    seal: the heads in table order, their Merkle root, the standings' digest."""
    if not state.rounds or state.rounds[-1].closed:
        return []
    round_ = state.rounds[-1]
    if any(seat.game not in state.results for seat in round_.tables):
        return []
    heads = [(seat.game, state.results[seat.game].head) for seat in round_.tables]
    return [
        (
            RoundClosed,
            dict(
                round=round_.number,
                heads=[{"game": str(g), "head": h} for g, h in heads],
                root=merkle_root(heads),
                standings=digest(state.standings(round_.number)),
            ),
        )
    ]


def _check_text(what: str, value: str, limit: int = MAX_TEXT, rule: str = "T7.3") -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise E.TournamentRuleError(f"the {what} is not valid text", rule) from None
    if not value.strip() or len(value) > limit:
        raise E.TournamentRuleError(f"the {what} needs 1 to {limit} characters", rule)


def decide_correction(
    state: TournamentState, game: UUID, places: list[int], reason: str, by: str
) -> list[Fact]:
    """T7.1: new places for a game with a result; scores stay."""
    check_open(state)
    result = state.results.get(game)
    if result is None:
        raise E.CorrectionError("only a game with a result can be corrected")
    if len(places) != len(result.places) or not is_competition_ranking(places):
        raise E.CorrectionError(
            f"places must be a competition ranking (like 1, 2, 2, 4) of the game's "
            f"{len(result.places)} seats, in seat order"
        )
    _check_text("reason", reason)
    _check_text("name of who corrects", by, MAX_BY)
    return [(ResultCorrected, dict(game=str(game), places=list(places), reason=reason, by=by))]


def decide_penalty(
    state: TournamentState, player: int, points: Fraction, reason: str, by: str
) -> list[Fact]:
    """T7.2: match points subtracted: a positive multiple of 1/2."""
    check_open(state)
    if not 1 <= player <= len(state.registrations):
        raise E.PenaltyError(f"there is no player {player} in this tournament")
    if points <= 0 or (points * 2).denominator != 1:
        raise E.PenaltyError("a penalty is a positive multiple of 1/2 match points")
    _check_text("reason", reason)
    _check_text("name of who gives it", by, MAX_BY)
    return [(PenaltyGiven, dict(player=player, points=exact.text(points), reason=reason, by=by))]


def check_call(state: TournamentState, game: UUID, now: datetime, withdrawn: bool) -> None:
    """T8.1: the organiser may call an unfinished game once the round's time
    is up, or once a seat at its table has withdrawn."""
    check_open(state)
    if game not in state.games:
        raise E.CallError(f"game {game} is not this tournament's")
    if game in state.results:
        raise E.CallError("the game has ended")
    round_, _ = state.games[game]
    if withdrawn:
        return
    if state.time_limit is None:
        raise E.CallError("no seat has withdrawn and the tournament has no round time limit")
    due = datetime.fromisoformat(round_.paired_at) + timedelta(seconds=state.time_limit)
    if now < due:
        raise E.CallError(f"round {round_.number}'s time is up at {due.isoformat()}, not before")


def decide_finish(state: TournamentState) -> list[Fact]:
    """T9.3: whenever no round is open; the standings' digest, the secret;
    and T12.4's final ranking whenever a cut is named."""
    check_open(state)
    if state.rounds and not state.rounds[-1].closed:
        raise E.FinishError(f"round {state.paired} is open: every game needs a result first")
    fields: dict[str, Any] = dict(standings=digest(state.standings()), secret=state.secret)
    if state.cut is not None:
        fields["ranking"] = cut.ranking(state)
    return [(TournamentFinished, fields)]

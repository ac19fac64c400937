"""The top cut (TOURNAMENT.md T12, revision 4): who qualifies, how they are
dealt and seated, who reaches the final, and the final ranking. Pure
functions of a tournament's state, for the decision and the verification
alike (domain/tournaments/decide.py, verify.py).

Seeds are T12.1's: 1…k·s, in the order of the standings after the last Swiss
round as of the cut's pairing. They are not recorded apart: the first cut
round's tables give them back (``seeds_of``), since T12.2 deals them
snake-wise and seats each table in seed order."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal

from domain.errors import CreationError, TournamentRuleError
from domain.tournaments.state import Round, TournamentState
from domain.tournaments.tables import TableSizes

CUT_TABLES = (1, 3, 4, 5)  # T12.1: the k a cut may name
Reached = Literal["final", "semifinal", "swiss"]


def check_cut(k: int | None, sizes: TableSizes) -> None:
    """T12.1: k ∈ {1, 3, 4, 5}, with min ≤ k ≤ max when k > 1 (the k
    semifinal winners play one table)."""
    if k is None:
        return
    if k not in CUT_TABLES:
        raise CreationError("a cut has 1, 3, 4 or 5 tables", "T12.1")
    if k > 1 and not sizes.min <= k <= sizes.max:
        raise CreationError(
            f"a cut of {k} tables sends {k} winners to one final table: "
            f"it needs {sizes.min} ≤ {k} ≤ {sizes.max} (the table sizes)",
            "T12.1",
        )


def cut_size(k: int, sizes: TableSizes, active: int) -> int | None:
    """T12.1's s: the preferred size if k·s ≤ the active players, else the
    largest size in [min, max] with k·s ≤ them; None when there is none."""
    if k * sizes.preferred <= active:
        return sizes.preferred
    fitting = [s for s in range(sizes.min, sizes.max + 1) if k * s <= active]
    return max(fitting) if fitting else None


def deal(qualifiers: Sequence[int], k: int) -> list[list[int]]:
    """T12.2: the qualifiers (seed 1 first) dealt snake-wise to k tables:
    seeds 1…k to tables 1…k, k+1…2k to tables k…1, and so on; each table in
    seed order, which is its seat order (the best seed at seat 0)."""
    tables: list[list[int]] = [[] for _ in range(k)]
    for index, player in enumerate(qualifiers):
        row, column = divmod(index, k)
        tables[column if row % 2 == 0 else k - 1 - column].append(player)
    return tables


def seeds_of(first: Round, k: int) -> dict[int, int]:
    """Each cut player's seed, from the first cut round's tables (players in
    seat order): the inverse of ``deal``."""
    return seeds_at([seat.players for seat in first.tables], k)


def seeds_at(tables: Sequence[Sequence[int]], k: int) -> dict[int, int]:
    """``seeds_of`` on tables as lists of players in seat order."""
    seeds: dict[int, int] = {}
    for t, players in enumerate(tables):
        for row, player in enumerate(players):
            column = t if row % 2 == 0 else k - 1 - t
            seeds[player] = row * k + column + 1
    return seeds


StandingKey = tuple[Fraction, Fraction, int]


def standing_keys(state: TournamentState) -> dict[int, StandingKey]:
    """T6.1 (1)–(3) for each active player (the standings as of now, the
    cut's games left out, T12.3), lower first: what orders the standings
    but for (4), the rank key, which hangs on the secret's seed."""
    active = set(state.active)
    return {
        row.player: (-row.match_points, -row.opponents, -row.game_points)
        for row in state.standings()
        if row.player in active
    }


def stage(state: TournamentState, number: int) -> Literal["swiss", "first", "final", "over"]:
    """Which round ``number`` is: a Swiss round, the cut's first (the
    semifinals, or the final table when k = 1), the final after semifinals,
    or none (every round played)."""
    planned = state.planned_rounds
    if planned is None or number <= planned:
        return "swiss"
    if state.cut is None:
        return "over"
    if number == planned + 1:
        return "first"
    if number == planned + 2 and state.cut > 1:
        return "final"
    return "over"


def qualifiers(state: TournamentState) -> list[int]:
    """T12.1: the top k·s active players by the standings as of now (the
    standings leave the cut's games out, T12.3), seed 1 first;
    TournamentRuleError (T12.1) when no size fits."""
    assert state.cut is not None
    active = set(state.active)
    ranked = [row.player for row in state.standings() if row.player in active]
    s = cut_size(state.cut, state.sizes, len(ranked))
    if s is None:
        raise TournamentRuleError(
            f"{len(ranked)} active players cannot fill {state.cut} cut tables of at least "
            f"{state.sizes.min}: the tournament can only be finished",
            "T12.1",
        )
    return ranked[: state.cut * s]


def winners(state: TournamentState) -> list[int]:
    """T12.3: from each semifinal table, its best active player by (place
    after the corrections recorded so far, then seed): the place 1 unless
    they dropped; none from a table whose players all dropped. Seed order."""
    assert state.cut is not None
    semis = state.cut_rounds[0]
    seeds = seeds_of(semis, state.cut)
    active = set(state.active)
    chosen = []
    for seat in semis.tables:
        places = dict(zip(seat.players, state.results[seat.game].counted, strict=True))
        left = [p for p in seat.players if p in active]
        if left:
            chosen.append(min(left, key=lambda p: (places[p], seeds[p])))
    return sorted(chosen, key=lambda p: seeds[p])


def final_players(state: TournamentState) -> list[int]:
    """T12.3: the final table, seated by seed; TournamentRuleError (T12.3)
    when fewer than min players reach it."""
    chosen = winners(state)
    if len(chosen) < state.sizes.min:
        raise TournamentRuleError(
            f"{len(chosen)} semifinal winners still active, fewer than a table's "
            f"{state.sizes.min}: the final is refused and the tournament can only be finished",
            "T12.3",
        )
    return chosen


def ranking(state: TournamentState) -> list[dict[str, Any]]:
    """T12.4: the final ranking rows, one per registered player: the final
    table by place (shared places by seed), then the semifinalists by their
    semifinal place, then by seed, then everyone else in Swiss standings
    order (as of now). Places are T5.1's at that cut table after every
    correction recorded so far; a cut table without a result counts no one."""
    assert state.cut is not None
    rows: list[tuple[int, Reached, int | None]] = []
    cut_rounds = [r for r in state.cut_rounds if all(s.game in state.results for s in r.tables)]
    if cut_rounds:
        k = state.cut
        seeds = seeds_of(state.cut_rounds[0], k)
        final = cut_rounds[-1] if (k == 1 or len(cut_rounds) == 2) else None
        semis = cut_rounds[0] if k > 1 else None

        def placed(round_: Round) -> list[tuple[int, int]]:
            out: list[tuple[int, int]] = []
            for seat in round_.tables:
                counted = state.results[seat.game].counted
                out.extend(zip(seat.players, counted, strict=True))
            return sorted(out, key=lambda pair: (pair[1], seeds[pair[0]]))

        finalists: set[int] = set()
        if final is not None:
            for player, place in placed(final):
                rows.append((player, "final", place))
                finalists.add(player)
        if semis is not None:
            for player, place in placed(semis):
                if player not in finalists:
                    rows.append((player, "semifinal", place))
    listed = {player for player, _, _ in rows}
    swiss = [row.player for row in state.standings() if row.player not in listed]
    rows.extend((player, "swiss", None) for player in swiss)
    return [
        {"rank": rank, "player": player, "reached": reached, "place": place}
        for rank, (player, reached, place) in enumerate(rows, start=1)
    ]

"""The report's seat effects: what the ratings learned of each seat
(domain/ratings.py's seat pseudo-players, "seat k at a table of s"), beside
the seat advantage the SQL measures (its share and 95 % Wilson interval).

``opus analytics report`` recomputes the ratings from the log up to the
export's position (with shards, each shard's log up to the manifest's
position in it, in the order the ratings view rates games across shards:
projections.ratings.ledger_from_log), so both figures
come from the same ended games (the ratings from those of them with two
accounts or more). Not a SQL question: the ratings are a sequential fold no
SQL engine runs; the answer is added to the report's results as one more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.ratings import Parameters, seat_effects
from projections.analytics.engines import Answer

# the model's parameters and its seat pseudo-players ("k/s": μ, σ, games)
Ratings = tuple[Parameters, Mapping[str, Mapping[str, Any]]]
QUESTION = "seat_effects"
TITLE = "Seat effects, from the ratings"
DESCRIPTION = (
    "What the ratings (Weng-Lin Plackett-Luce, a seat a team of its player and 'seat k at a "
    "table of s'; README, Ratings) learned of each seat, recomputed from the log up to the "
    "export's position: the seat's effect (its mu less the mean of its table's seats), mu, "
    "sigma, the rated games it was in, and its share of the wins at a table of equally rated "
    "players (rated_share); beside the seat advantage measured on the same games (share, "
    "its 95 % Wilson interval) and whether rated_share lies inside that interval."
)
COLUMNS = (
    "players",
    "seat",
    "rated_games",
    "effect",
    "mu",
    "sigma",
    "rated_share",
    "share",
    "wilson_low",
    "wilson_high",
    "inside",
)


def answer(params: Parameters, seats: Mapping[str, Mapping[str, Any]], measured: Answer) -> Answer:
    """One row per seat the ratings know, with the measured share of the
    same player count and seat (None where the export has none)."""
    shares = {(r["players"], r["seat"]): r for r in measured.dicts()}
    rows = []
    for effect in seat_effects(params, seats):
        found = shares.get((effect["players"], effect["seat"]))
        low = found["wilson_low"] if found else None
        high = found["wilson_high"] if found else None
        rows.append(
            (
                effect["players"],
                effect["seat"],
                effect["games"],
                effect["effect"],
                effect["mu"],
                effect["sigma"],
                effect["share"],
                found["share"] if found else None,
                low,
                high,
                None if low is None or high is None else low <= effect["share"] <= high,
            )
        )
    return Answer(COLUMNS, tuple(rows))


def with_seat_effects(
    results: Mapping[str, Answer], params: Parameters, seats: Mapping[str, Mapping[str, Any]]
) -> dict[str, Answer]:
    """The report's results with the seat effects right after the seat
    advantage."""
    added: dict[str, Answer] = {}
    for question, result in results.items():
        added[question] = result
        if question == "seat_advantage":
            added[QUESTION] = answer(params, seats, result)
    return added

"""The pairing guards (domain/tournaments/guards.py): a pairing the decision
refuses is one the verification fails, with the same rule and words, whether
the export is whole (``verify`` re-runs the decision) or has its secret and
seed sealed (``verify`` checks the guards alone)."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.audit import Record
from domain.chain import sealed_payload
from domain.errors import PairingError, TooFewPlayersError, TournamentRuleError
from domain.shuffle import commitment
from domain.tournaments.decide import decide_pairing
from domain.tournaments.state import TournamentState
from domain.tournaments.verify import verify_tournament
from tests.forgery import rechain

SECRET = bytes(range(32))
STAMP = "2025-01-01T00:00:00+00:00"


def created(sizes: tuple[int, int, int], beacon: str) -> dict[str, Any]:
    return {
        "name": "Guards",
        "organiser_hash": "0" * 64,
        "commitment": commitment(SECRET),
        "secret": SECRET.hex(),
        "rules": {"draw": "five", "guild": True, "stage_points": [1, 1, 2, 2, 3, 3, 4]},
        "tables": dict(zip(("min", "preferred", "max"), sizes, strict=True)),
        "weight": 6,
        "late_until": 1,
        "time_limit": None,
        "rounds": 3,
        "beacon": beacon,
        "unicode_version": unicodedata.unidata_version,
    }


def registered(n: int) -> dict[str, Any]:
    return {"player": n, "name": f"P{n}", "contribution": f"c{n}", "token_hash": f"{n:064x}"}


def export(
    tournament: UUID, events: list[tuple[str, dict[str, Any]]], sealed: bool
) -> list[Record]:
    """The tournament's records, chained; ``sealed``: its secret sealed, as
    a running tournament's export has it (T1.3)."""
    records = rechain(
        [
            Record(None, str(tournament), v, type_, STAMP, payload, "")
            for v, (type_, payload) in enumerate(events, start=1)
        ]
    )
    if not sealed:
        return records
    out = []
    for r in records:  # the chain covers the sealed form: it stays as it is
        assert r.payload is not None
        hidden = sealed_payload(SECRET.hex(), r.aggregate_id, r.version, r.type, r.payload)
        out.append(replace(r, payload=hidden, redacted=True) if hidden != r.payload else r)
    return out


@pytest.mark.parametrize("sealed", [False, True], ids=["whole", "sealed"])
@pytest.mark.parametrize(
    ("sizes", "beacon", "players", "refusal"),
    [
        ((3, 4, 5), "", 2, TooFewPlayersError),  # T2.4: two players fill no table of 3
        ((2, 2, 3), "drand round 1", 4, PairingError),  # T1.3: no beacon value given
    ],
    ids=["T2.4", "T1.3"],
)
def test_a_pairing_the_decision_refuses_fails_verification_with_the_same_rule(
    sealed: bool,
    sizes: tuple[int, int, int],
    beacon: str,
    players: int,
    refusal: type[TournamentRuleError],
) -> None:
    tournament = uuid4()
    events = [("TournamentCreated", created(sizes, beacon))]
    events += [("PlayerRegistered", registered(n)) for n in range(1, players + 1)]
    state = TournamentState.from_created(events[0][1])
    for type_, payload in events[1:]:
        state.evolve(type_, payload)
    with pytest.raises(refusal) as refused:
        decide_pairing(state, tournament, None)
    paired = {
        "round": 1,
        "tables": [{"table": 1, "game": str(uuid4()), "players": list(range(1, players + 1))}],
        "byes": [],
        "objective": "0",
        "procedure": "swap-1",
        "rounds": 3,
        "beacon": "",
        "seed": "00" * 32,
    }
    records = export(tournament, [*events, ("RoundPaired", paired)], sealed)
    verdict = verify_tournament(records, {})
    assert verdict.judged is not sealed
    assert not verdict.ok and verdict.version == len(records)
    assert verdict.rule == refused.value.rule
    assert verdict.reason == str(refused.value)

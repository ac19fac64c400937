"""T10.1: verify compares each re-derived event whole (every field, nested
ones too, and no other), in a finished export and in a running one (secret
and seed sealed); forgeries as tests/forgery.py makes them, the chain
recomputed, so that only the comparison can catch them."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any
from uuid import UUID, uuid5

import pytest

from domain.application import Opus
from domain.pipeline import Caller
from domain.tournaments.seeds import merkle_root
from domain.tournaments.verify import TournamentVerdict
from infra.eventlog import tournament_lines
from tests.forgery import rechain
from tests.unit.test_tournament_verify import (
    POPO,
    TournamentExport,
    organised_export,
    play,
    player_hash,
    read_back,
)

Change = Callable[[dict[str, Any]], Any]


@cache
def running_lines() -> tuple[UUID, tuple[str, ...]]:
    """Seven players at tables of 4–5 (two byes a round): round 1 played and
    closed, round 2 paired and under way; the secret and seed sealed."""
    app = Opus(env=POPO)
    t = app.tournaments
    tournament = t.create(
        "Running with byes", caller=Caller(player_hash(0)), sizes=(4, 4, 5), secret=bytes(32)
    ).aggregate_id
    for n in range(1, 8):
        t.register(tournament, f"P{n}", f"c{n}", caller=Caller(player_hash(n)))
    rng = random.Random(7)
    t.pair(tournament)
    for game in t.get(tournament).state.rounds[-1].tables:
        play(app, game.game, game.players, rng)
    t.pair(tournament)
    game = t.get(tournament).state.rounds[-1].tables[0]
    play(app, game.game, game.players, rng, 6)
    return tournament, tuple(tournament_lines(app, tournament))


def running_export() -> TournamentExport:
    log = read_back(*running_lines())
    assert log.records[0].redacted and not log.verify().judged
    return log


EXPORTS = {"finished": organised_export, "running": running_export}


def failure(log: TournamentExport) -> TournamentVerdict:
    verdict = log.verify()
    assert not verdict.ok, "the forgery verifies"
    return verdict


def test_the_exports_verify_as_they_are() -> None:
    for name, export in EXPORTS.items():
        verdict = export().verify()
        assert verdict.ok, (name, verdict.reason)
    byes = [(r.payload or {})["byes"] for r in running_export().records if r.type == "RoundPaired"]
    assert [len(b) for b in byes] == [2, 2]


# ---- T3.2: byes in ascending order --------------------------------------------------


@pytest.mark.parametrize("round_", [1, 2])
def test_T3_2_byes_out_of_order_fail_a_running_export(round_: int) -> None:
    log = running_export()
    log.rewrite("RoundPaired", lambda p: p["byes"].reverse(), round=round_)
    paired = log.first("RoundPaired", round=round_)
    byes = (paired.payload or {})["byes"]
    assert byes != sorted(byes)
    verdict = failure(log)
    assert verdict.reason == f"T3.2: round {round_}'s byes {byes} are not in ascending order"
    assert verdict.version == paired.version


def test_T3_2_byes_out_of_order_fail_a_finished_export() -> None:
    log = organised_export()
    log.rewrite("RoundPaired", lambda p: p["byes"].reverse(), round=2)
    assert failure(log).reason.startswith("T3.2: round 2's byes are")


# ---- T9.1: the seal, whole ------------------------------------------------------------


@pytest.mark.parametrize("export", sorted(EXPORTS))
@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (lambda p: p.update(forged="1"), "T9.1"),
        (lambda p: p["heads"][0].update(forged="1"), "T9.1"),
        (lambda p: p.pop("standings"), "T1.2"),  # the payload does not fit the event
    ],
    ids=["a field more", "a field more in a head", "a field less"],
)
def test_T9_1_a_round_closed_with_a_field_more_or_less_fails(
    export: str, change: Change, rule: str
) -> None:
    log = EXPORTS[export]()
    log.rewrite("RoundClosed", change, round=1)
    verdict = failure(log)
    assert verdict.rule == rule, verdict.reason
    assert verdict.version == log.first("RoundClosed", round=1).version


# ---- T10.1: every other re-derived event, whole ----------------------------------------

FINISHED_CASES: list[tuple[str, dict[str, Any], Change, str]] = [
    ("TournamentCreated", {}, lambda p: p.update(forged=1), "T1.1"),
    ("TournamentCreated", {}, lambda p: p["rules"].update(forged=1), "T1.1"),
    ("TournamentCreated", {}, lambda p: p["tables"].update(forged=1), "T1.1"),
    ("TournamentCreated", {}, lambda p: p.pop("unicode_version"), "T1.1"),
    ("PlayerRegistered", {"player": 2}, lambda p: p.update(forged=1), "T2.1"),
    ("PlayerDropped", {}, lambda p: p.update(forged=1), "T2.2"),
    ("RoundPaired", {"round": 1}, lambda p: p.update(forged=1), "T4.1"),
    ("RoundPaired", {"round": 2}, lambda p: p.update(forged=1), "T4.2"),
    ("RoundPaired", {"round": 2}, lambda p: p["tables"][0].update(forged=1), "T4.2"),
    ("RoundPaired", {"round": 3}, lambda p: p.update(seed="00" * 32), "T1.3"),
    ("GameResultRecorded", {}, lambda p: p.update(forged=1), "T5.1"),
    ("ResultCorrected", {}, lambda p: p.update(forged=1), "T7.1"),
    ("PenaltyGiven", {}, lambda p: p.update(forged=1), "T7.2"),
    ("TournamentFinished", {}, lambda p: p.update(forged=1), "T9.3"),
]

RUNNING_CASES: list[tuple[str, dict[str, Any], Change, str]] = [
    ("TournamentCreated", {}, lambda p: p.update(forged=1), "T1.1"),
    ("TournamentCreated", {}, lambda p: p["tables"].update(forged=1), "T1.1"),
    ("PlayerRegistered", {"player": 3}, lambda p: p.update(forged=1), "T2.1"),
    ("RoundPaired", {"round": 1}, lambda p: p.update(forged=1), "T4.1"),
    ("RoundPaired", {"round": 1}, lambda p: p["tables"][0].update(forged=1), "T4.1"),
    ("RoundPaired", {"round": 1}, lambda p: p.update(beacon=None), "T4.1"),
    ("RoundPaired", {"round": 2}, lambda p: p.update(forged=1), "T4.2"),
    ("RoundPaired", {"round": 2}, lambda p: p["tables"][0].pop("table"), "T1.2"),
    ("GameResultRecorded", {}, lambda p: p.update(forged=1), "T5.1"),
]


def case_id(case: tuple[str, dict[str, Any], Change, str]) -> str:
    return f"{case[0]}{case[1] or ''}-{case[3]}"


@pytest.mark.parametrize(
    ("export", "case"),
    [("finished", c) for c in FINISHED_CASES] + [("running", c) for c in RUNNING_CASES],
    ids=lambda v: v if isinstance(v, str) else case_id(v),
)
def test_T10_1_a_re_derived_event_not_whole_fails(
    export: str, case: tuple[str, dict[str, Any], Change, str]
) -> None:
    kind, where, change, rule = case
    log = EXPORTS[export]()
    log.rewrite(kind, change, **where)
    verdict = failure(log)
    assert verdict.rule == rule, verdict.reason
    assert verdict.version == log.first(kind, **where).version
    assert verdict.aggregate_id == log.tournament


# ---- T1.2: a game's id is its place's ------------------------------------------------------


@pytest.mark.parametrize("export", sorted(EXPORTS))
def test_T1_2_a_game_renamed_throughout_fails(export: str) -> None:
    """Round 1 table 1's game given another id everywhere (the pairing, its
    result, the seal and root, its own records, re-chained): the pairing
    names each table's game by its place (round, table)."""
    log = EXPORTS[export]()
    old = log.game(1, 1)
    new = str(uuid5(UUID(old), "forged"))
    records = []
    for r in log.records:
        p = copy.deepcopy(r.payload) or {}
        if r.type == "RoundPaired" and p["round"] == 1:
            p["tables"][0]["game"] = new
        if r.type in ("GameResultRecorded", "ResultCorrected") and p["game"] == old:
            p["game"] = new
        if r.type == "RoundClosed" and p["round"] == 1:
            p["heads"][0]["game"] = new
            p["root"] = merkle_root([(UUID(h["game"]), h["head"]) for h in p["heads"]])
        records.append(replace(r, payload=p))
    log.records = rechain(records)
    log.games[new] = rechain([replace(r, aggregate_id=new) for r in log.games.pop(old)])
    log.rehead(new, log.games[new][-1].chain)
    verdict = failure(log)
    assert verdict.reason.startswith(f"T1.2: round 1 table 1's game is recorded {new}"), (
        verdict.reason
    )

"""The replay's steps (api/web/replay.py), each made from the nearest copy
it keeps, equal the game evolved from its first event, at every step of
whole games; the replays a process keeps are bounded and found by key."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from api.web.replay import WINDOW, Replay, ReplayCache, RevealedHands, Step, entry_of
from domain.application import Opus
from domain.audit import Record
from domain.hands import evolve_hands
from domain.ruleset import RuleSet
from domain.simulation import play_game
from domain.table import PublicTable
from infra.eventlog import game_export


def finished_game(players: int, seed: int, variant: RuleSet | None = None) -> list[Record]:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    secret = seed.to_bytes(32, "big")  # the same deal every run
    game_id, _ = play_game(app, players, "greedy", random.Random(seed), variant, secret)
    return game_export(app, game_id)


def from_the_start(records: list[Record]) -> Iterator[Step]:
    """Step 1, 2, … in one walk from the game's first event: each what
    evolving the first n events gives (the replay's reference)."""
    created = entry_of(records[0])
    table = PublicTable(commitment=created["commitment"])
    hands = RevealedHands()
    awards: list[dict[str, Any]] = []
    total = len(records)
    for n in range(1, total + 1):
        if n > 1:
            record = records[n - 1]
            entry = entry_of(record)
            table.evolve(record.type, entry)
            if record.type == "GameStarted":
                hands.cards = [[] for _ in table.names]
            evolve_hands(hands, record.type, entry)
            if record.type == "PointsAwarded":
                awards.append(
                    {
                        "seat": entry["player"],
                        "points": entry["points"],
                        "rule": entry["rule"],
                        "cause": entry["cause"],
                        "cause_version": entry["cause_version"],
                        "version": record.version,
                    }
                )
        window = range(max(0, n - 1 - WINDOW), min(total, n + WINDOW))
        yield Step(
            game=records[0].aggregate_id,
            n=n,
            total=total,
            table=table.to_doc(),
            stacks={stack: list(cards) for stack, cards in table.cabinet.items()},
            hands=copy.deepcopy(hands.cards),
            awards=list(awards),
            entries=[entry_of(records[i]) for i in window],
            rules={k: created[k] for k in ("draw", "guild", "stage_points")},
        )


@pytest.mark.parametrize(
    ("players", "seed", "variant"),
    [(4, 3, None), (2, 8, RuleSet(draw="one")), (6, 5, RuleSet(guild=False))],
)
def test_every_step_equals_the_game_evolved_from_its_first_event(
    players: int, seed: int, variant: RuleSet | None
) -> None:
    records = finished_game(players, seed, variant)
    assert records[-1].type == "GameEnded" and len(records) > 100
    replays = [Replay(records), Replay(records, every=1), Replay(records, every=7)]
    expected = list(from_the_start(records))
    for replay in replays:
        # walked forwards, backwards and at random, as the page's slider and keys do
        order = [*range(1, len(records) + 1), *range(len(records), 0, -1)]
        order += random.Random(seed).sample(range(1, len(records) + 1), 50)
        for n in order:
            assert replay.step(n) == expected[n - 1], (replay.every, n)
    # out of range: clamped to the first and the last step
    assert replays[0].step(0) == expected[0] and replays[0].step(10**6) == expected[-1]


def test_a_step_evolves_fewer_events_than_a_replay_keeps_copies_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = finished_game(3, 4)
    replay = Replay(records, every=10)
    assert len(replay.snapshots) == (len(records) - 1) // 10 + 1
    applied: list[int] = []
    original = Replay._apply

    def counted(self: Replay, table: PublicTable, hands: RevealedHands, i: int) -> None:
        applied.append(i)
        original(self, table, hands, i)

    monkeypatch.setattr(Replay, "_apply", counted)
    for n in range(1, len(records) + 1):
        applied.clear()
        replay.step(n)
        assert len(applied) == (n - 1) % 10 < 10


def test_the_replays_kept_are_bounded_and_found_by_their_key() -> None:
    records = finished_game(2, 1)
    made: list[str] = []

    def make(name: str) -> Replay:
        made.append(name)
        return Replay(records)

    cache = ReplayCache(size=2)
    first = cache.get("a", lambda: make("a"))
    assert cache.get("a", lambda: make("a")) is first
    cache.get("b", lambda: make("b"))
    cache.get("a", lambda: make("a"))  # a is now the most recently used
    cache.get("c", lambda: make("c"))  # b goes
    assert cache.get("a", lambda: make("a")) is first
    cache.get("b", lambda: make("b"))
    assert made == ["a", "b", "c", "b"]

    export = "\n".join(json.dumps(r.to_line()) for r in records).encode()
    uploaded = cache.uploaded(export)
    assert cache.uploaded(export) is uploaded and uploaded.step(5) == Replay(records).step(5)
    assert cache.uploaded(export + b"\n") is not uploaded  # other bytes, another replay

"""The stream service's kept logs (api/stream_backlog.py), on the real
stores: a kept log is always the store's log in the auditor's form as it
stands when asked, whoever saved since (another process), and it is read
whole again when the game ends, every hidden field then shown (R9.3)."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID, uuid4

import pytest

from api.stream_backlog import Backlogs, GameLog, sse
from domain.application import Opus
from domain.bots import BOTS
from infra.eventlog import game_export


def exported(app: Opus, game_id: UUID) -> list[tuple[int, str, str]]:
    """The game's log as the export reads it now, each record as a stream writes it."""
    return [
        (r.version, r.type, sse(r.line(), r.version, r.type)) for r in game_export(app, game_id)
    ]


def kept(log: GameLog | None) -> list[tuple[int, str, str]]:
    assert log is not None
    return [tuple(m) for m in log.messages]  # type: ignore[misc]


def started(app: Opus) -> UUID:
    game_id = app.create_game()
    for name in ("Ada", "Boris"):
        app.join(game_id, name)
    app.start(game_id)
    return game_id


def moves(app: Opus, game_id: UUID, count: int, rng: random.Random) -> None:
    choose = BOTS["random"](rng)
    for _ in range(count):
        state = app.state(game_id)
        if state.status != "running":
            return
        app.play(game_id, choose(state, state.turn))


@pytest.fixture
def writer(env: dict[str, str]) -> Any:
    """Another process's application on the same store: the one that saves."""
    other = Opus(env=env)
    yield other
    other.close()


def test_a_kept_log_is_the_stores_whoever_saved_since(app: Opus, writer: Opus) -> None:
    backlogs = Backlogs()
    rng = random.Random(3)
    game_id = started(writer)
    assert kept(backlogs.log(app, game_id)) == exported(app, game_id)
    for _ in range(4):
        moves(writer, game_id, 3, rng)
        log = backlogs.log(app, game_id)
        assert kept(log) == exported(app, game_id)
        assert log is not None and not log.ended
        assert any(m.text.count('"redacted":true') for m in log.messages)  # R9.1: sealed


def test_the_end_reads_the_whole_log_again_revealed(app: Opus, writer: Opus) -> None:
    backlogs = Backlogs()
    game_id = started(writer)
    moves(writer, game_id, 5, random.Random(4))
    sealed = backlogs.log(app, game_id)
    assert sealed is not None and not sealed.ended
    moves(writer, game_id, 10_000, random.Random(5))  # to its end

    whole = backlogs.log(app, game_id)
    assert whole is not None and whole.ended
    assert whole.messages[-1].type == "GameEnded"
    assert kept(whole) == exported(app, game_id)
    assert not any('"redacted":true' in m.text for m in whole.messages)
    # the records kept sealed are shown now, at the same versions
    assert [m.version for m in whole.messages[: sealed.version]] == [
        m.version for m in sealed.messages
    ]
    assert whole.messages[: sealed.version] != sealed.messages
    assert backlogs.log(app, game_id) is whole  # final: read no more


def test_only_what_was_saved_since_is_read(
    app: Opus, writer: Opus, monkeypatch: pytest.MonkeyPatch
) -> None:
    backlogs = Backlogs()
    game_id = started(writer)
    backlogs.log(app, game_id)
    moves(writer, game_id, 2, random.Random(6))
    asked: list[dict[str, Any]] = []
    get = app.events.get

    def counting(aggregate_id: UUID, **kwargs: Any) -> Any:
        asked.append(kwargs)
        return get(aggregate_id, **kwargs)

    monkeypatch.setattr(app.events, "get", counting)
    before = backlogs.log(app, game_id)
    assert before is not None
    again = backlogs.log(app, game_id)
    assert again is before  # nothing new: the same log
    assert asked and all(kwargs.get("gt", 0) > 0 for kwargs in asked)
    assert kept(again) == exported(app, game_id)


def test_unknown_and_private_ids_have_no_log(app: Opus) -> None:
    backlogs = Backlogs()
    assert backlogs.log(app, uuid4()) is None
    account = app.accounts.open("Ada").account  # the service's own aggregate
    assert backlogs.log(app, account) is None
    assert len(backlogs) == 0


def test_past_its_capacity_the_least_recently_opened_go(app: Opus, writer: Opus) -> None:
    games = [started(writer) for _ in range(3)]
    size = len(exported(app, games[0]))
    backlogs = Backlogs(capacity=2 * size)
    for game_id in games[:2]:
        backlogs.log(app, game_id)
    backlogs.log(app, games[0])  # opened again: the most recent
    backlogs.log(app, games[2])
    assert len(backlogs) == 2
    kept_ids = set(backlogs._logs)
    assert kept_ids == {games[0], games[2]}
    moves(writer, games[1], 4, random.Random(8))
    assert kept(backlogs.log(app, games[1])) == exported(app, games[1])  # read whole again

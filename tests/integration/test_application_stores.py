"""The application service on the real stores: SQLite and PostgreSQL.

Ids are random, so tests on the shared PostgreSQL database need no clean-up.
"""

from __future__ import annotations

import random
import threading

import pytest

from domain.application import Opus
from domain.errors import GameNotFoundError, OutOfTurnError, RuleError, VersionClashError
from domain.legal import legal_moves
from domain.moves import Discard, Pass
from domain.pipeline import Caller
from domain.simulation import play_game


def max_position(app: Opus) -> int:
    return app.recorder.max_notification_id() or 0


def test_a_whole_game_is_stored_and_reloads_identically(env: dict[str, str]) -> None:
    app = Opus(env=env)
    game_id, moves = play_game(app, 4, "greedy", random.Random(7))
    live = app.state(game_id)
    assert live.status == "ended" and live.winners and moves > 20
    fresh = Opus(env=env)  # empty cache: replays the stored events
    assert fresh.state(game_id) == live
    assert fresh.version(game_id) == app.version(game_id)
    fresh.close()
    app.close()


def test_commands_return_increasing_positions_and_versions(app: Opus) -> None:
    game_id = app.create_game()
    first = app.join(game_id, "Ada", "my contribution")
    second = app.join(game_id, "Boris")
    assert (first.value, second.value) == (0, 1)
    assert second.position > first.position and second.version == first.version + 1
    started = app.start(game_id)
    assert second.position < started.position <= max_position(app)
    state = app.state(game_id)
    move = legal_moves(state, 0)[-1]
    outcome = app.play(game_id, move)
    assert outcome.version == app.version(game_id) > started.version
    assert outcome.position > started.position


def test_a_refused_move_stores_nothing(app: Opus) -> None:
    """R3.4: Boris acting on Ada's turn is refused and nothing is recorded."""
    game_id = app.create_game()
    app.join(game_id, "Ada")
    app.join(game_id, "Boris")
    app.start(game_id)
    version = app.version(game_id)
    card = app.state(game_id).hands[1][0]
    with pytest.raises(OutOfTurnError, match=r"^R3\.4: it is Ada's turn, not Boris's"):
        app.play(game_id, Discard(1, card))
    with pytest.raises(RuleError, match=r"^R3\.3:"):
        app.play(game_id, Pass(0))
    assert app.version(game_id) == version
    stored = list(app.repository.event_store.get(game_id))
    assert stored[-1].originator_version == version


def test_unknown_game_is_reported(app: Opus) -> None:
    import uuid

    with pytest.raises(GameNotFoundError):
        app.start(uuid.uuid4())


def test_expected_version_clash_is_refused(app: Opus) -> None:
    game_id = app.create_game()
    app.join(game_id, "Ada")
    with pytest.raises(VersionClashError):
        app.play(game_id, Pass(0), caller=Caller(expected_version=99))


def test_a_stale_second_writer_reloads_and_redecides(env: dict[str, str]) -> None:
    """Two application instances on one store: the one with a stale cached
    game hits a clash on save, reloads and applies its move on the new state."""
    one, two = Opus(env=env), Opus(env=env)
    game_id = one.create_game()
    one.join(game_id, "Ada")
    two.join(game_id, "Boris")  # two loads the game and caches it
    one.join(game_id, "Chloe")  # two's cached copy is now stale
    outcome = two.join(game_id, "Dmitri")
    assert outcome.value == 3
    assert Opus(env=env).state(game_id).names == ["Ada", "Boris", "Chloe", "Dmitri"]
    with pytest.raises(VersionClashError):
        one.play(game_id, Pass(0), caller=Caller(expected_version=3))


def test_concurrent_commands_on_one_game_apply_once_each(app: Opus) -> None:
    """Threads joining one game at once: every join lands exactly once."""
    game_id = app.create_game()
    names = ["Ada", "Boris", "Chloe", "Dmitri", "Elena", "Farid"]
    threads = [threading.Thread(target=app.join, args=(game_id, n)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(app.state(game_id).names) == sorted(names)
    assert app.version(game_id) == 1 + len(names)


def test_queries_see_what_another_process_wrote(env: dict[str, str]) -> None:
    """A game cached by one instance is brought up to date before a query."""
    one, two = Opus(env=env), Opus(env=env)
    game_id = one.create_game()
    one.join(game_id, "Ada")
    assert two.state(game_id).names == ["Ada"]  # two caches the game
    one.join(game_id, "Boris")
    assert two.state(game_id).names == ["Ada", "Boris"]
    assert two.version(game_id) == one.version(game_id)


def test_a_stale_instance_decides_on_the_latest_game_before_refusing(
    env: dict[str, str],
) -> None:
    """Another process moved the game on: a legal move, and an If-Match naming
    the true version, are accepted, not refused on the stale cached copy."""
    one, two = Opus(env=env), Opus(env=env)
    game_id = one.create_game()
    one.join(game_id, "Ada")
    one.join(game_id, "Boris")
    one.start(game_id)
    two.version(game_id)  # two caches the game with seat 0 to play
    first = legal_moves(one.state(game_id), 0)
    one.play(game_id, next(m for m in first if isinstance(m, Discard)))
    seat_1 = next(m for m in legal_moves(one.state(game_id), 1) if isinstance(m, Discard))
    two.play(game_id, seat_1)  # two's copy says seat 0 is to play
    again = next(m for m in legal_moves(two.state(game_id), 0) if isinstance(m, Discard))
    one.play(game_id, again)  # and now two is behind once more
    version = one.version(game_id)
    seat_1 = next(m for m in legal_moves(one.state(game_id), 1) if isinstance(m, Discard))
    outcome = two.play(game_id, seat_1, caller=Caller(expected_version=version))
    assert outcome.version > version

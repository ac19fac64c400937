"""The application service in memory: command ids, identity hashes, queries."""

from __future__ import annotations

from domain.application import Opus
from domain.audit import verify_game
from domain.internals import evict
from domain.legal import legal_moves
from domain.pipeline import Caller
from infra.eventlog import read_records


def new_app() -> Opus:
    return Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def test_a_retried_command_is_answered_and_never_applied_twice() -> None:
    app = new_app()
    game_id = app.create_game(caller=Caller(command="create-1"))
    assert app.create_game(caller=Caller(command="create-1")) == game_id
    first = app.join(game_id, "Ada", caller=Caller(command="join-ada"))
    again = app.join(game_id, "Ada", caller=Caller(command="join-ada"))
    assert again.replayed and again.version == first.version
    assert app.state(game_id).names == ["Ada"]
    app.join(game_id, "Boris", caller=Caller(command="join-boris"))
    app.start(game_id, caller=Caller(command="start"))
    assert app.start(game_id, caller=Caller(command="start")).replayed
    state = app.state(game_id)
    move = legal_moves(state, 0)[0]
    played = app.play(game_id, move, caller=Caller(command="move-1"))
    version = app.version(game_id)
    replay = app.play(game_id, move, caller=Caller(command="move-1"))
    assert replay.replayed and replay.version == played.version == version
    assert app.version(game_id) == version


def test_command_ids_survive_a_reload_from_the_store() -> None:
    """The ids live in the events, so a fresh process also refuses to repeat."""
    app = new_app()
    game_id = app.create_game()
    app.join(game_id, "Ada", caller=Caller(command="c1"))
    evict(app, game_id)
    assert app.join(game_id, "Ada", caller=Caller(command="c1")).replayed
    assert app.state(game_id).names == ["Ada"]


def test_token_hashes_are_kept_per_seat_and_events_still_re_judge() -> None:
    app = new_app()
    game_id = app.create_game(caller=Caller("o" * 64, command="x"))
    app.join(game_id, "Ada", caller=Caller("a" * 64, command="j1"))
    app.join(game_id, "Boris", caller=Caller("b" * 64))
    state = app.state(game_id)
    assert state.token_hashes == ["a" * 64, "b" * 64]
    assert state.organiser_hash == "o" * 64
    app.start(game_id)
    assert verify_game(list(read_records(app))).ok


def test_a_name_that_is_not_unicode_text_is_refused_and_records_nothing() -> None:
    """JSON can carry a lone surrogate; no event can hold it (R2.1)."""
    import pytest

    from domain.errors import SetupError

    app = new_app()
    game_id = app.create_game()
    version = app.version(game_id)
    with pytest.raises(SetupError, match=r"^R2\.1: .*U\+D800"):
        app.join(game_id, "Ada\ud800")
    with pytest.raises(SetupError):
        app.join(game_id, "Ada", "\udfff")
    assert app.version(game_id) == version


def test_the_service_decides_the_seat_and_checks_the_caller_before_a_replay() -> None:
    import pytest

    from domain.errors import NotOrganiserError, NotSeatedError
    from domain.moves import UNSEATED, Discard, for_seat

    app = new_app()
    game_id = app.create_game(caller=Caller("o" * 64))
    app.join(game_id, "Ada", caller=Caller("a" * 64))
    app.join(game_id, "Boris", caller=Caller("b" * 64))
    with pytest.raises(NotOrganiserError):
        app.start(game_id, caller=Caller("b" * 64, command="start"))
    app.start(game_id, caller=Caller("o" * 64, command="start"))
    with pytest.raises(NotOrganiserError):  # a public command id is no key
        app.start(game_id, caller=Caller("x" * 64, command="start"))
    assert app.start(game_id, caller=Caller("o" * 64, command="start")).replayed
    move = next(m for m in legal_moves(app.state(game_id), 0) if isinstance(m, Discard))
    with pytest.raises(NotSeatedError):
        app.play(game_id, for_seat(move, UNSEATED), caller=Caller("x" * 64))
    played = app.play(game_id, for_seat(move, UNSEATED), caller=Caller("a" * 64, command="m"))
    assert played.version > 4 and app.state(game_id).turn == 1  # made for seat 0
    with pytest.raises(NotSeatedError):
        app.play(game_id, for_seat(move, UNSEATED), caller=Caller("x" * 64, command="m"))


def test_a_key_recorded_before_requests_were_fingerprinted_still_replays() -> None:
    """Command ids recorded as "<key>" answer a retry now sent as "<key>:<request>"."""
    app = new_app()
    game_id = app.create_game()
    first = app.join(game_id, "Ada", caller=Caller(command="0123456789abcdef"))
    again = app.join(game_id, "Ada", caller=Caller(command="0123456789abcdef:feedfacecafebeef"))
    assert again.replayed and again.version == first.version
    assert app.state(game_id).names == ["Ada"]

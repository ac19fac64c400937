"""Before the start the organiser may remove a seat (R2.1, our decision):
the seats after it move down, and the game re-judges with the removal."""

from __future__ import annotations

import pytest

from domain.application import Opus
from domain.audit import verify_game
from domain.errors import NotOrganiserError, NotSeatedError, SetupError
from domain.legal import legal_moves
from domain.moves import UNSEATED, Discard, for_seat
from domain.pipeline import Caller
from infra.eventlog import read_records


def test_R2_1_a_removed_seat_frees_its_place_and_the_seats_after_it_move_down() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game(caller=Caller("o" * 64))
    for k, name in enumerate(("Ada", "Boris", "Cleo")):
        app.join(game_id, name, f"c{k}", caller=Caller(str(k) * 64))
    with pytest.raises(NotOrganiserError):
        app.remove_seat(game_id, 1, caller=Caller("0" * 64))
    app.remove_seat(game_id, 1, caller=Caller("o" * 64))
    state = app.state(game_id)
    assert state.names == ["Ada", "Cleo"] and state.contributions == ["c0", "c2"]
    assert state.token_hashes == ["0" * 64, "2" * 64]
    app.join(game_id, "Dmitri", caller=Caller("3" * 64))
    app.start(game_id, caller=Caller("o" * 64))
    with pytest.raises(SetupError, match=r"^R2\.1: a seat can be removed only before"):
        app.remove_seat(game_id, 0, caller=Caller("o" * 64))
    with pytest.raises(NotSeatedError):  # Boris's token holds no seat any more
        app.play(game_id, Discard(UNSEATED, 0), caller=Caller("1" * 64))
    move = next(m for m in legal_moves(app.state(game_id), 0) if isinstance(m, Discard))
    app.play(game_id, for_seat(move, UNSEATED), caller=Caller("0" * 64))
    records = list(read_records(app))
    verdict = verify_game(records)
    assert verdict.ok, verdict.reason
    assert [r.type for r in records].count("PlayerLeft") == 1


def test_R2_1_there_is_no_seat_to_remove_past_the_last() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada")
    with pytest.raises(SetupError, match="no seat index 1"):
        app.remove_seat(game_id, 1)
    app.remove_seat(game_id, 0)
    assert app.state(game_id).names == []

"""Seats as people read them count from 1, everywhere; the data's seats are
indexes from 0 (the API's JSON, events, exports, CSV), and a text about
the data says "seat index" (README, decisions)."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.application import Opus
from domain.errors import OutOfTurnError, SetupError
from domain.moves import Discard
from domain.simulation import Summary
from projections.analytics.engines import Answer
from projections.analytics.report import Report, page
from projections.describe import PLAIN, describe, plain


def test_the_simulation_summary_counts_seats_from_1() -> None:
    summary = Summary(games=5, wins_by_seat=Counter({0: 3, 1: 2}))
    assert "winners by seat: seat 1: 3, seat 2: 2" in summary.lines()


def test_the_analytics_page_shows_seats_from_1_and_says_so() -> None:
    answers = {
        "seat_advantage": Answer(("players", "seat", "share"), ((2, 0, 0.5), (2, 1, 0.25))),
        "steal_graph": Answer(("players", "taker", "victim", "cards"), ((3, 0, 2, 7),)),
    }
    html = page(Report(answers, "duckdb", 10, 1, 0.1), {})
    assert "<tr><td>2</td><td>1</td><td>0.5000</td></tr>" in html
    assert "<tr><td>2</td><td>2</td><td>0.2500</td></tr>" in html
    assert "<tr><td>3</td><td>1</td><td>3</td><td>7</td></tr>" in html  # counts stay counts
    assert "Seats are numbered from 1 here" in html


def test_the_move_log_names_seats_from_1() -> None:
    joined = {"event": "PlayerJoined", "name": "Ada", "player": 0}
    left = {"event": "PlayerLeft", "player": 1}
    assert plain(describe(joined, ["Ada"], PLAIN)) == "Ada took seat 1"
    assert plain(describe(left, ["Ada", "Boris"], PLAIN)).startswith("Seat 2 was removed")


def test_an_error_about_a_seat_the_request_named_says_seat_index() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = app.create_game()
    app.join(game, "Ada")
    app.join(game, "Boris")
    with pytest.raises(SetupError, match=r"there is no seat index 2 in this game"):
        app.remove_seat(game, 2)
    app.start(game)
    state = app.state(game)
    with pytest.raises(OutOfTurnError, match=r"there is no seat index 2 in this game"):
        app.game(game).play(Discard(2, state.hands[0][0]))

"""Every ``on_<Event>`` handler of a state class names an event there is,
checked when the class is made (domain/handlers.py): a misspelt handler, or
one whose event was renamed, would otherwise never run."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from domain.events import EVENT_TYPES
from domain.handlers import handlers_of
from domain.state import GameState
from domain.table import Table
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from domain.tournaments.state import TournamentState


def test_a_table_handler_of_an_event_there_is_none_of_is_refused_when_made() -> None:
    with pytest.raises(TypeError, match="on_CardDiscard"):

        @dataclass(kw_only=True)
        class Misspelt(Table):
            def on_CardDiscard(self, p: object) -> None:  # the event is CardDiscarded
                pass


def test_the_states_handle_only_events_there_are() -> None:
    assert set(GameState.handlers) <= set(EVENT_TYPES)
    assert set(TournamentState.handlers) <= set(TOURNAMENT_EVENT_TYPES)
    assert "CardDiscarded" in GameState.handlers and "RoundPaired" in TournamentState.handlers
    with pytest.raises(TypeError, match="on_RoundPaired"):
        handlers_of(TournamentState, EVENT_TYPES)  # the game's events: none is a tournament's

"""Properties of whole games played by bots (hypothesis chooses the games).

For every step of every game: each card is in exactly one zone (R1.3); each
score is the sum of that player's PointsAwarded (R8.1); the engine accepts
every enumerated legal move and refuses every other move; and games end.
Replaying the stored events rebuilds the identical state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from domain.application import Opus
from domain.bots import BOTS
from domain.catalog import STONES, load_catalog
from domain.engine import decide
from domain.errors import RuleError
from domain.events import PointsAwarded
from domain.legal import legal_moves
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.ruleset import RuleSet
from domain.state import GameState
from domain.table import public_view

CATALOG = load_catalog()
ALL_CARDS = sorted(CATALOG.cards)
MAX_MOVES = 3000

games = st.fixed_dictionaries(
    {
        "players": st.integers(2, 6),
        "bot": st.sampled_from(sorted(BOTS)),
        "draw": st.sampled_from(["five", "one"]),
        "guild": st.booleans(),
        "secret": st.binary(min_size=32, max_size=32),
        "rng": st.randoms(use_true_random=False),
    }
)


def key(move: Move) -> tuple[Any, ...]:
    """Moves that the engine treats alike compare alike (components are a set)."""
    if isinstance(move, Assemble):
        return ("assemble", move.player, move.card, frozenset(move.components))
    return (type(move).__name__, *vars_of(move))


def vars_of(move: Move) -> tuple[Any, ...]:
    return tuple(getattr(move, f) for f in move.__dataclass_fields__)


def random_move(state: GameState, rng: random.Random) -> Move:
    """A move built from cards anywhere in the game: mostly illegal ones."""
    seat = rng.choice([state.turn, state.turn, rng.randrange(state.players)])
    card = rng.choice(ALL_CARDS)
    kind = rng.randrange(5)
    if kind == 0:
        return Discard(seat, card)
    if kind == 1:
        pool = state.all_zones()
        return Assemble(seat, card, tuple(rng.sample(pool, rng.randint(0, 4))))
    if kind == 2:
        return Place(seat, rng.choice([*STONES, "gold"]), card)
    if kind == 3:
        return Cast(
            seat,
            card,
            card=rng.choice(ALL_CARDS),
            recipe=rng.choice(ALL_CARDS),
            column=rng.choice(STONES),
        )
    return Pass(seat)


def assert_invariants(app: Opus, game_id: Any) -> None:
    state = app.state(game_id)
    zones = Counter(state.all_zones())
    deck = Counter(CATALOG.base_deck + (CATALOG.guild_deck if state.rules.guild else ()))
    assert zones == deck, "R1.3: every card is in exactly one zone"
    totals = [0] * state.players
    for event in app.repository.event_store.get(game_id):
        if isinstance(event, PointsAwarded):
            totals[event.player] += event.points
    assert totals == state.scores, "R8.1: a score is the sum of its PointsAwarded"


# Whole games are long: shrinking them costs minutes and adds little, so the
# failing example is reported as found.
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(games)
def test_bot_games_keep_every_invariant_and_terminate(g: dict[str, Any]) -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    rng: random.Random = g["rng"]
    choose = BOTS[g["bot"]](rng)
    game_id = app.create_game(RuleSet(draw=g["draw"], guild=g["guild"]), secret=g["secret"])
    for i in range(g["players"]):
        app.join(game_id, f"P{i}")
    app.start(game_id)
    assert_invariants(app, game_id)
    moves = 0
    while (state := app.state(game_id)).status == "running":
        legal = legal_moves(state, state.turn)
        legal_keys = {key(m) for m in legal}
        for move in legal:  # every enumerated move is accepted
            decide(state, move, 0)
        for _ in range(5):  # anything else is refused
            move = random_move(state, rng)
            try:
                decide(state, move, 0)
            except RuleError:
                continue
            assert key(move) in legal_keys, f"accepted a move not enumerated: {move}"
        version = app.version(game_id)
        app.play(game_id, choose(state, state.turn))
        assert app.version(game_id) > version
        assert_invariants(app, game_id)
        moves += 1
        assert moves < MAX_MOVES, "the game must terminate"
    rebuilt = app.repository.get(game_id, version=app.version(game_id))
    assert rebuilt.state == app.state(game_id), "replay rebuilds the identical state"
    assert state.winners


@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(games)
def test_refused_moves_record_nothing(g: dict[str, Any]) -> None:
    """A refused command changes no state and stores no event."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    rng: random.Random = g["rng"]
    game_id = app.create_game(RuleSet(draw=g["draw"], guild=g["guild"]), secret=g["secret"])
    for i in range(g["players"]):
        app.join(game_id, f"P{i}")
    app.start(game_id)
    for _ in range(40):
        state = app.state(game_id)
        if state.status != "running":
            break
        before = public_view(state), [list(h) for h in state.hands], app.version(game_id)
        move = random_move(state, rng)
        try:
            app.play(game_id, move)
        except RuleError:
            now = app.state(game_id)
            after = public_view(now), [list(h) for h in now.hands], app.version(game_id)
            assert after == before
            assert app.repository.get(game_id, version=before[2]).state == app.state(game_id)
        else:
            app.play(game_id, rng.choice(legal_moves(app.state(game_id), app.state(game_id).turn)))

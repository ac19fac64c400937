"""The shrewd bot and what a bot may know (domain/bots.py).

Whole games in memory, through the application service: shrewd's every
move is one the engine accepts; where the rules say its hand could score
an assembly or a placement now (an oracle written here from RULES R4.2,
R4.4, R4.5, R4.6 and the catalog, not from the bot's code), its turn
scores; it decides alike on the whole state and on what its seat knows;
and what a seat knows is the same whichever way the hidden cards lie.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import permutations

import pytest

from domain.application import Opus
from domain.bots import BOTS, knowledge
from domain.catalog import STONES
from domain.legal import legal_moves
from domain.pipeline import Caller
from domain.simulation import token_hash
from domain.state import CARDS, GameState


def in_memory() -> Opus:
    return Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def started(app: Opus, players: int, seed: int) -> tuple[object, list[str]]:
    game_id = app.create_game(secret=seed.to_bytes(32, "big"))
    hashes = [token_hash(f"bots-test:{seed}:{seat}") for seat in range(players)]
    for seat, digest in enumerate(hashes):
        app.join(game_id, f"P{seat}", caller=Caller(digest))
    app.start(game_id)
    return game_id, hashes


# ---- the oracle: what the rules say a hand could score now ---------------------------------


def assembly_points(state: GameState, seat: int) -> int:
    """R4.2, R4.4: the most a recipe in the seat's hand scores assembled now,
    its components one distinct card per slot, elements from cabinet stack
    tops (a card on top counts for any of its elements, R1.1), recipes from
    the tables (top-level cards). Sequence stages are left out: this is a
    lower bound of what the seat could score."""
    tops = [cards[-1] for cards in state.cabinet.values() if cards]
    tabled = [card for table in state.tables for card in table]
    best = 0
    for card_id in state.hands[seat]:
        card = CARDS[card_id]
        if not card.requires:
            continue  # a spell or a Stone: no recipe (R1.2)
        slots = []
        for req in card.requires:
            if req.elements:
                slots.append({t for t in tops if set(CARDS[t].elements) & set(req.elements)})
            else:
                slots.append({t for t in tabled if t in req.recipe_ids})
        pool = sorted(set().union(*slots)) if slots else []
        for chosen in permutations(pool, len(slots)):
            if all(c in slot for c, slot in zip(chosen, slots, strict=True)):
                best = max(best, card.points)
                break
    return best


def placement_points(state: GameState, seat: int) -> int:
    """R4.5, R4.6: the most a card from the seat's hand scores placed into
    the next stage (1-6) of one of its Sequences: it must be the recipe that
    stage names; stage k scores the k-th stage points."""
    if not state.columns:
        return 0
    points = (state.rules or state.variant).stage_points
    best = 0
    for column in STONES:
        stages = state.columns[seat][column]
        filled = max((i + 1 for i, s in enumerate(stages) if s is not None), default=0)
        stage = filled + 1
        if stage > 6:
            continue
        wanted = state.stage_name(seat, column, stage)
        if any(CARDS[c].name == wanted for c in state.hands[seat]):
            best = max(best, points[stage - 1])
    return best


# ---- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_shrewd_plays_only_legal_moves_and_scores_where_the_rules_say_it_can(
    players: int, seed: int
) -> None:
    app = in_memory()
    game_id, hashes = started(app, players, seed)
    rng = random.Random(seed)
    shrewd = BOTS["shrewd"](random.Random(seed))
    others = [BOTS[kind](random.Random(seed + k)) for k, kind in enumerate(("greedy", "random"))]
    seat_of_shrewd = seed % players
    checked = 0
    state = app.state(game_id)
    while state.status == "running":
        seat = state.turn
        if seat != seat_of_shrewd:
            move = rng.choice(others)(state, seat)
            app.play(game_id, move, caller=Caller(hashes[seat]))
            state = app.state(game_id)
            continue
        could = max(assembly_points(state, seat), placement_points(state, seat))
        before = state.scores[seat]
        turns = state.turns_played
        while state.status == "running" and state.turns_played == turns:
            move = shrewd(knowledge(state, seat), seat)
            assert move in legal_moves(state, seat), move
            app.play(game_id, move, caller=Caller(hashes[seat]))
            state = app.state(game_id)
        if could >= 2:  # a potion's 2 points, or a stage's: the turn scores
            checked += 1
            assert state.scores[seat] - before >= 2, (could, state.scores[seat] - before)
    assert checked >= 5  # the oracle found positions to hold it to


def test_shrewd_decides_alike_on_the_whole_state_and_on_what_its_seat_knows() -> None:
    app = in_memory()
    game_id, hashes = started(app, 4, 7)
    greedy = BOTS["greedy"](random.Random(7))
    compared = 0
    state = app.state(game_id)
    while state.status == "running" and compared < 60:
        seat = state.turn
        whole = BOTS["shrewd"](random.Random(compared))(state, seat)
        known = BOTS["shrewd"](random.Random(compared))(knowledge(state, seat), seat)
        assert whole == known
        compared += 1
        app.play(game_id, greedy(state, seat), caller=Caller(hashes[seat]))
        state = app.state(game_id)
    assert compared == 60


def test_what_a_seat_knows_is_the_same_however_the_hidden_cards_lie() -> None:
    """Two states that differ only in the deck's order and in which unseen
    card lies in which other hand give the seat the same knowledge; every
    count is the game's; no secret, no token hash."""
    app = in_memory()
    game_id, _ = started(app, 3, 11)
    state = app.state(game_id)
    seat = 1
    seen = knowledge(state, seat)
    unseen = [*state.deck, *state.hands[0], *state.hands[2]]
    shuffled = random.Random(5).sample(unseen, len(unseen))
    size0, size2 = len(state.hands[0]), len(state.hands[2])
    other = replace(
        state,
        hands=[shuffled[:size0], list(state.hands[1]), shuffled[size0 : size0 + size2]],
        deck=shuffled[size0 + size2 :],
    )
    assert knowledge(other, seat) == seen
    assert seen.hands[seat] == state.hands[seat]
    assert [len(h) for h in seen.hands] == [len(h) for h in state.hands]
    assert len(seen.deck) == len(state.deck)
    assert Counter(seen.all_zones()) == Counter(state.all_zones())  # each card in one place
    assert (seen.secret, seen.token_hashes, seen.organiser_hash) == ("", [], "")
    seen.hands[seat].clear()  # a copy: the game is untouched
    assert app.state(game_id).hands[seat]


@pytest.mark.slow
def test_shrewd_wins_more_often_than_greedy_head_to_head() -> None:
    """bench/bots.py measures it over hundreds of games; here 40 two-player
    games of fixed secrets and choices, the seats turning round."""
    app = in_memory()
    wins: Counter[str] = Counter()
    for number in range(40):
        kinds = ("shrewd", "greedy") if number % 2 == 0 else ("greedy", "shrewd")
        bots = [BOTS[kind](random.Random(number * 2 + k)) for k, kind in enumerate(kinds)]
        game_id, hashes = started(app, 2, 1000 + number)
        state = app.state(game_id)
        while state.status == "running":
            seat = state.turn
            move = bots[seat](knowledge(state, seat), seat)
            app.play(game_id, move, caller=Caller(hashes[seat]))
            state = app.state(game_id)
        for winner in state.winners:
            wins[kinds[winner]] += 1
    assert wins["shrewd"] > wins["greedy"]

"""Bots that play through legal-move enumeration: random, greedy and shrewd.

A bot is a function of a state and a seat to a legal move of that seat. The
service's bots (infra/bot_driver.py) decide on ``knowledge(state, seat)``:
what the seat may know (the open table, its own hand, how many cards the
deck and each hand hold), never the deck's order or another hand. Random
and greedy look at nothing else anyway; shrewd reads the cards it has not
seen as one pool (the deck and the other hands together), which is the same
pool on the whole state and on the seat's knowledge: it decides alike on
either (``tests/unit/test_bots.py`` holds it to that).

- random: any legal move.
- greedy: the move that scores the most for the mover now (the engine's
  ``preview``), ties at random; it casts a spell only when no main action
  scores.
- shrewd: each move, and each spell followed by the best main action it
  opens, valued by the mover's points, less a part of the points it hands
  others (R4.4/half, R4.6/half), less a part of what the next seat could
  score next from the cards it has not seen, plus a part of what its own
  hand is worth on the table it leaves; a Philosopher's Stone (R7.2, the
  game ends after the round) counts for it when it leads and against it
  when it trails. It never passes up an assembly or a placement that
  scores: when one does, it picks among the turns that score.
  ``bench/bots.py`` measures it against greedy and random.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import product

from domain.catalog import STONES, Card
from domain.engine import decide, preview
from domain.events import PointsAwarded
from domain.legal import legal_moves, takeable_recipes
from domain.moves import Cast, Move
from domain.state import CARDS, GameState

Bot = Callable[[GameState, int], Move]


def immediate_points(state: GameState, move: Move) -> int:
    """The points the mover scores by this move alone (the engine's preview)."""
    return sum(award.points for award in preview(state, move) if award.seat == move.player)


def random_bot(rng: random.Random) -> Bot:
    def choose(state: GameState, seat: int) -> Move:
        return rng.choice(legal_moves(state, seat))

    return choose


def greedy_bot(rng: random.Random) -> Bot:
    """Highest immediate points; ties broken at random."""

    def choose(state: GameState, seat: int) -> Move:
        moves = legal_moves(state, seat)
        scored = [(immediate_points(state, m), m) for m in moves]
        best = max(p for p, _ in scored)
        return rng.choice([m for p, m in scored if p == best])

    return choose


# ---- what a seat knows ----------------------------------------------------------------


def knowledge(state: GameState, seat: int) -> GameState:
    """What ``seat`` knows of a running game, as a state the engine decides on
    (a copy: nothing a bot does to it reaches the game): the open table, its
    own hand, the rules, and for the deck and each other hand only how many
    cards they hold. Those places are filled with stand-ins, the cards the
    seat has not seen in ascending order, so that every count (R3.1, R3.3,
    R7.1) is the game's and every card still lies in one place; which card
    lies where among them tells nothing. No secret, no token hash."""
    unseen = sorted(card for place in unseen_places(state, seat) for card in place)
    stand_ins = iter(unseen)
    hands = [
        list(hand) if other == seat else [next(stand_ins) for _ in hand]
        for other, hand in enumerate(state.hands)
    ]
    deck = [next(stand_ins) for _ in state.deck]
    return replace(
        open_copy(state),
        secret="",
        contributions=[],
        token_hashes=[],
        organiser_hash="",
        deck=deck,
        hands=hands,
    )


def unseen_places(state: GameState, seat: int) -> Iterable[Sequence[int]]:
    """The places of the cards ``seat`` has not seen: the deck, the other hands."""
    yield state.deck
    for other, hand in enumerate(state.hands):
        if other != seat:
            yield hand


def open_copy(state: GameState) -> GameState:
    """The state with its own copies of everything a move changes (the
    cabinet, tables, Sequences, hands, scores): a move's facts applied to it
    leave the original as it was. The deck is shared: only a turn's end
    draws from it."""
    return replace(
        state,
        cabinet={stack: list(cards) for stack, cards in state.cabinet.items()},
        tables=[{recipe: list(parts) for recipe, parts in table.items()} for table in state.tables],
        columns=[
            {column: list(stages) for column, stages in cols.items()} for cols in state.columns
        ],
        hands=[list(hand) for hand in state.hands],
        scores=list(state.scores),
        names=list(state.names),
        withdrawn=list(state.withdrawn),
    )


def after(state: GameState, move: Move) -> tuple[GameState, list[int]]:
    """The state a legal move leaves (its turn not yet ended) and the points
    it gives each seat: the engine's own decision, applied to a copy."""
    moved = open_copy(state)
    gains = [0] * state.players
    for cls, fields in decide(moved, move, 0):
        moved.evolve(cls.__name__, fields)
        if cls is PointsAwarded:
            gains[fields["player"]] += fields["points"]
    return moved, gains


# ---- shrewd ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """How shrewd weighs what a move does besides the mover's points (tuned
    with bench/bots.py: 1 shrewd against 3 greedy, 400 games a setting)."""

    given: float = 0.3  # each point handed to another seat (a share of an assembly or stage)
    threat: float = 0.5  # each point the next seat is expected to be able to score next
    hand: float = 0.2  # each point the mover's hand is worth on the table it leaves
    stone: float = 10.0  # placing a Stone when leading (for) or trailing (against): R7.2
    cast: float = 0.01  # a spell costs a little: cast only for a gain
    scoring: int = 2  # a turn scoring this much (an assembly, a placement) is never passed up


def fillable(card: Card, tops: Iterable[int], recipes: Iterable[int]) -> bool:
    """Whether a recipe's slots could be filled one-to-one (R4.2) from these
    cabinet tops and takeable recipes."""
    options = []
    for req in card.requires:
        if req.is_element:
            found = [top for top in tops if req.accepts_element(CARDS[top])]
        else:
            found = [recipe for recipe in recipes if recipe in req.recipe_ids]
        if not found:
            return False
        options.append(found)
    return any(len(set(combo)) == len(combo) for combo in product(*options))


def next_seat(state: GameState, seat: int) -> int | None:
    """The next seat still in play after ``seat`` (None if there is none)."""
    for step in range(1, state.players):
        other = (seat + step) % state.players
        if other not in state.withdrawn:
            return other
    return None


def threat(state: GameState, seat: int, unseen: Sequence[int]) -> float:
    """The points the next seat could be expected to score by assembling a
    recipe it may hold: each recipe among the unseen cards that the open
    table would let anyone assemble, at its points, times the chance that
    the next seat holds it (its hand after its draw over the unseen pool)."""
    nxt = next_seat(state, seat)
    if nxt is None or not unseen:
        return 0.0
    held = max(len(state.hands[nxt]), 5) / len(unseen)
    tops = list(state.cabinet_tops())
    recipes = list(takeable_recipes(state))
    return held * sum(
        CARDS[card].points
        for card in unseen
        if CARDS[card].is_recipe and fillable(CARDS[card], tops, recipes)
    )


def hand_worth(state: GameState, seat: int) -> float:
    """What the seat's hand is worth on this table: each recipe its points
    times the square of the share of its slots the table could fill now; each
    card its Sequences' next stage names (S3), that stage's points; each Stone
    whose column waits only for it, stage 7's."""
    tops = list(state.cabinet_tops())
    recipes = list(takeable_recipes(state))
    wanted: dict[str, int] = {}
    if state.columns:
        points = (state.rules or state.variant).stage_points
        for column in STONES:
            stage = state.last_stage(seat, column) + 1
            if stage <= 6:
                name = state.stage_name(seat, column, stage)
                wanted[name] = max(wanted.get(name, 0), points[stage - 1])
            elif stage == 7:
                wanted[f"stone:{column}"] = points[6]
    worth = 0.0
    for card_id in state.hands[seat]:
        card = CARDS[card_id]
        if card.is_recipe:
            filled = sum(
                1
                for req in card.requires
                if (
                    any(req.accepts_element(CARDS[top]) for top in tops)
                    if req.is_element
                    else any(recipe in req.recipe_ids for recipe in recipes)
                )
            )
            worth += card.points * (filled / len(card.requires)) ** 2
        worth += wanted.get(card.name, 0)
        if card.stone:
            worth += wanted.get(f"stone:{card.stone}", 0)
    return worth


@dataclass(frozen=True)
class Plan:
    """A move valued: with what the turn it starts scores for the mover."""

    move: Move
    value: float
    scores: int


def shrewd_bot(rng: random.Random, weights: Weights | None = None) -> Bot:
    """Each legal move valued as the module says; the best, ties at random."""
    w = weights or Weights()

    def valued(state: GameState, seat: int, move: Move, unseen: Sequence[int]) -> Plan:
        """A main action valued on the state it leaves."""
        moved, gains = after(state, move)
        own = gains[seat]
        value = own - w.given * (sum(gains) - own)
        if moved.stone_placed and not state.stone_placed:  # R7.2: the game ends after this round
            lead = moved.scores[seat] - max(s for o, s in enumerate(moved.scores) if o != seat)
            value += w.stone if lead > 0 else -w.stone
        value -= w.threat * threat(moved, seat, unseen)
        value += w.hand * hand_worth(moved, seat)
        return Plan(move, value, own)

    def plan(state: GameState, seat: int, move: Move, unseen: Sequence[int]) -> Plan:
        if not isinstance(move, Cast):
            return valued(state, seat, move, unseen)
        moved, gains = after(state, move)  # a spell scores nothing itself (R6)
        follow = [
            valued(moved, seat, m, unseen)
            for m in legal_moves(moved, seat)
            if not isinstance(m, Cast)
        ]
        if not follow:  # (a turn always has a main action or a pass: R3.3)
            return Plan(move, -w.cast, 0)
        best = max(follow, key=lambda p: p.value)
        return Plan(move, best.value - w.cast, best.scores + gains[seat])

    def choose(state: GameState, seat: int) -> Move:
        unseen = [card for place in unseen_places(state, seat) for card in place]
        plans = [plan(state, seat, m, unseen) for m in legal_moves(state, seat)]
        scoring = [p for p in plans if p.scores >= w.scoring]
        if scoring:
            plans = scoring
        best = max(p.value for p in plans)
        return rng.choice([p.move for p in plans if p.value >= best - 1e-9])

    return choose


BOTS: dict[str, Callable[[random.Random], Bot]] = {
    "random": random_bot,
    "greedy": greedy_bot,
    "shrewd": shrewd_bot,
}

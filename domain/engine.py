"""The rules engine: given a game state and a move, decide the events.

Pure functions: they read the state, raise a ``RuleError`` naming the rule,
or return the facts (event class, fields) the move produces. Nothing changes
until the Game aggregate triggers them, so a refused move records nothing.
Deterministic: the same state and move always give the same facts, which is
what lets a recorded game be re-judged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any, Protocol

from domain import errors as E
from domain.catalog import STONES, Card, Requirement
from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    ComponentsReturned,
    GameCalled,
    GameEnded,
    GameEvent,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PointsAwarded,
    RecipeAssembled,
    RecipePlaced,
    SeatWithdrawn,
    SequenceCompleted,
    SpellCast,
    StageStolen,
    StageTaken,
    TurnEnded,
)
from domain.legal import main_actions
from domain.moves import MAIN_ACTIONS, Assemble, Cast, Discard, Move, Pass, Place, Withdraw
from domain.names import MAX_NAME
from domain.ruleset import (
    CLOCK_VERSION,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_VERSION,
    RULES_VERSIONS,
    RuleSet,
)
from domain.state import CARDS, GameState, Location, deck_order
from domain.table import Table

Fact = tuple[type[GameEvent], dict[str, Any]]
# each reason a GameEnded records, and the rule that ends the game so
END_RULES = {
    "R7.1": "R7.1",
    "R7.2": "R7.2",
    "stalled": "R7.4",
    "withdrawn": "R3.5",
    "called": "T8.1",
}
MAX_CONTRIBUTION = 256  # characters of a seed contribution (R9.1)


def half(points: int) -> int:
    """What a seat scores when its card is taken into another's recipe or
    Sequence: half the taker's points, rounded down (R4.4/half, R4.6/half, S15)."""
    return points // 2


class Facts:
    """The facts of one decision, numbering their versions as they are added."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.items: list[Fact] = []

    def add(self, cls: type[GameEvent], **fields: Any) -> int:
        self.items.append((cls, fields))
        return self.version + len(self.items)

    def award(self, player: int, points: int, rule: str, cause: str, cause_version: int) -> None:
        if points > 0:
            self.add(
                PointsAwarded,
                player=player,
                points=points,
                rule=rule,
                cause=cause,
                cause_version=cause_version,
            )


# ---- setup (R2) ---------------------------------------------------------


def decide_join(state: GameState, name: str, contribution: str, token_hash: str = "") -> list[Fact]:
    if state.status != "open":
        raise E.SetupError("the game has already started; no one can join")
    if state.players >= MAX_PLAYERS:
        raise E.SetupError(f"the game is full ({MAX_PLAYERS} players)")
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise E.SetupError(f"a player's name must have 1 to {MAX_NAME} characters")
    if name in state.names:
        raise E.SetupError(f"{name!r} has already joined this game")
    if not (is_text(name) and is_text(contribution)):
        raise E.SetupError("names and contributions must be Unicode text (no lone surrogates)")
    if len(contribution) > MAX_CONTRIBUTION:
        raise E.RuleError(f"a seed contribution has at most {MAX_CONTRIBUTION} characters", "R9.1")
    facts = Facts(0)
    facts.add(
        PlayerJoined,
        player=state.players,
        name=name,
        contribution=contribution,
        token_hash=token_hash,
    )
    return facts.items


def decide_leave(state: GameState, seat: int) -> list[Fact]:
    """A seat removed before the start (R2.1): those after it move down."""
    if state.status != "open":
        raise E.SetupError("a seat can be removed only before the game starts")
    if not 0 <= seat < state.players:
        raise E.SetupError(f"there is no seat index {seat} in this game")
    facts = Facts(0)
    names = [name for k, name in enumerate(state.names) if k != seat]
    facts.add(PlayerLeft, player=seat, names=names)
    return facts.items


def is_text(text: str) -> bool:
    """Encodable as UTF-8: JSON input may carry lone surrogates, which are not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decide_start(state: GameState, version: int, rules_version: str | None = None) -> list[Fact]:
    """R2.2–R2.3: record the rule set, deal the cabinet and the hands, and
    begin seat 0's turn with its draw phase. A game starts under the
    engine's rules version ("3" with a clock, R11.1); the audit re-judges a
    recorded start under the version it recorded (R10: a game is replayed
    under the rules it started with)."""
    v = state.variant
    if rules_version is None:
        rules_version = CLOCK_VERSION if v.clock is not None else RULES_VERSION
    if state.status != "open":
        raise E.SetupError("the game has already started")
    n = state.players
    if n < MIN_PLAYERS:
        raise E.SetupError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, it has {n}")
    if rules_version not in RULES_VERSIONS:
        raise E.RuleError(f"no rule set has the version {rules_version!r}", "R10")
    rules = RuleSet(
        draw=v.draw,
        guild=v.guild,
        stage_points=v.stage_points,
        players=n,
        version=rules_version,
        clock=v.clock,
    )
    deck, sequence_cards = deck_order(state.secret, state.contributions, rules.guild, n)
    hands = [deck[4 + seat :: n][:4] for seat in range(n)]
    facts = Facts(version)
    facts.add(
        GameStarted,
        rules=rules.as_dict(),
        rules_digest=rules.digest,
        sequence_cards=sequence_cards,
        cabinet=deck[:4],
    )
    facts.add(CardsDealt, hands=hands)
    rest = deck[4 + 4 * n :]
    count = draw_count(rules, 4, len(rest))
    if count:
        facts.add(CardsDrawn, player=0, cards=rest[:count])
    return facts.items


def draw_count(rules: RuleSet, hand_size: int, deck_size: int) -> int:
    """R3.1: up to 5 cards in hand; variant "one": one card below 7."""
    if rules.draw == "one":
        wanted = 1 if hand_size < 7 else 0
    else:
        wanted = max(0, 5 - hand_size)
    return min(wanted, deck_size)


# ---- moves (R3–R6) ------------------------------------------------------


class Playing(Protocol):
    """A game a move is played on: its state and version, both kept current
    by whoever applies the facts (the Game aggregate, or the audit)."""

    @property
    def state(self) -> GameState: ...

    @property
    def version(self) -> int: ...


def run_move(game: Playing, move: Move | Withdraw, apply: Callable[[list[Fact]], None]) -> None:
    """One move, the one way it is played: its facts are decided and applied;
    then a main action ends the turn (R3.2), decided on the state the move
    left; then every withdrawn seat whose turn comes draws and passes (R3.5).
    ``Game.play`` applies the facts as new events; the audit
    (domain/audit.py) matches them with recorded ones."""
    state = game.state
    if isinstance(move, Withdraw):
        apply(decide_withdraw(state, move.player, game.version, move.cause))
        if state.status == "running" and state.turn == move.player:
            apply(decide_turn_end(state, Pass(move.player), game.version))  # ends with a pass
    else:
        apply(decide(state, move, game.version))
        if isinstance(move, MAIN_ACTIONS):
            apply(decide_turn_end(state, move, game.version))
    while state.status == "running" and state.turn in state.withdrawn:
        apply(decide_turn_end(state, Pass(state.turn), game.version))


WITHDRAWAL_CAUSES = ("drop", "inactivity", "clock")  # R3.5


def decide_withdraw(state: GameState, seat: int, version: int, cause: str = "drop") -> list[Fact]:
    """R3.5: withdraw a seat of a running game; when it is the last seat still
    in play, the game ends at once, with no pass. From rule set version "3"
    SeatWithdrawn records its cause, and a cause the game does not offer is
    refused: a timed game offers no removal for inactivity, and "clock" only
    right after the seat's TimeExpired (R11.5)."""
    if state.status != "running":
        raise E.WithdrawalError("only a seat of a running game can be withdrawn")
    if not 0 <= seat < state.players:
        raise E.WithdrawalError(f"there is no seat index {seat} in this game")
    if seat in state.withdrawn:
        raise E.WithdrawalError(f"{state.names[seat]} has withdrawn already")
    rules = state.rules
    recorded: dict[str, Any] = {}
    if rules is not None and rules.cause_recorded:
        timed = rules.clock is not None
        if cause not in WITHDRAWAL_CAUSES:
            raise E.WithdrawalError(f"a seat is withdrawn for {WITHDRAWAL_CAUSES}, not {cause!r}")
        if cause == "inactivity" and timed:
            raise E.WithdrawalError(
                "a timed game offers no removal for inactivity: its clock withdraws the seat"
            )
        if cause == "clock" and state.expired != seat:
            raise E.WithdrawalError(
                f"{state.names[seat]}'s clock has not run out (R11.5: after its TimeExpired)"
            )
        recorded["cause"] = cause
    facts = Facts(version)
    facts.add(SeatWithdrawn, player=seat, **recorded)
    if len(state.withdrawn) + 1 == state.players:
        facts.add(
            GameEnded,
            reason="withdrawn",
            scores=list(state.scores),
            winners=winners(state),
            secret=state.secret,
        )
    return facts.items


def decide_call(state: GameState, time: str, by: str) -> list[Fact]:
    """T8.1: call a running game; whether the organiser may call it now (the
    round's time limit, a withdrawn seat) is the tournament's to decide."""
    if state.status != "running":
        raise E.CallError("only a running game can be called")
    if state.called:
        raise E.CallError("this game has been called already")
    if not is_text(by) or not 1 <= len(by) <= MAX_NAME:
        raise E.CallError(f"who calls a game is named in 1 to {MAX_NAME} characters")
    return [(GameCalled, {"time": time, "by": by})]


def decide(state: GameState, move: Move, version: int) -> list[Fact]:
    """The facts of one move, or a RuleError. ``version`` is the game's now."""
    check_turn(state, move.player)
    facts = Facts(version)
    if isinstance(move, Discard):
        _discard(state, move, facts)
    elif isinstance(move, Assemble):
        _assemble(state, move, facts)
    elif isinstance(move, Place):
        _place(state, move, facts)
    elif isinstance(move, Cast):
        _cast(state, move, facts)
    elif isinstance(move, Pass):
        if not state.deck_empty and has_main_action(state, move.player):
            raise E.PassNotAllowedError(
                f"{state.names[move.player]} has a legal main action and the deck is not empty"
            )
    else:  # pragma: no cover - Move is a closed union
        raise TypeError(move)
    return facts.items


@dataclass(frozen=True)
class Award:
    """Points a move gives a seat, and the rule that gives them (R8.1)."""

    seat: int
    points: int
    rule: str  # R4.1, R4.4, R4.4/half, R4.6, R4.6/half


def preview(state: GameState, move: Move) -> list[Award]:
    """The points ``move`` would award, in the order the engine awards them:
    the engine's own decision (``decide``) on ``state``, which it leaves as
    it was; a RuleError when the move is not legal there. A turn's end
    awards nothing, so these are all the move scores."""
    return [
        Award(fields["player"], fields["points"], fields["rule"])
        for cls, fields in decide(state, move, 0)  # (the version names no cause here)
        if cls is PointsAwarded
    ]


def check_turn(state: GameState, player: int) -> None:
    if state.status == "open":
        raise E.SetupError("the game has not started")
    if state.status == "ended":
        raise E.GameOverError("the game is over")
    if not 0 <= player < state.players:
        raise E.OutOfTurnError(f"there is no seat index {player} in this game")
    if player != state.turn:
        raise E.OutOfTurnError(
            f"it is {state.names[state.turn]}'s turn, not {state.names[player]}'s"
        )


def has_main_action(state: GameState, seat: int) -> bool:
    """R3.3: whether the seat has a legal main action (domain/legal.py lists them)."""
    return next(iter(main_actions(state, seat)), None) is not None


def _in_hand(state: GameState, seat: int, card_id: int, error: type[E.RuleError]) -> Card:
    if card_id not in CARDS:
        raise error(f"there is no card {card_id}")
    if card_id not in state.hands[seat]:
        raise error(f"{_name(card_id)} is not in {state.names[seat]}'s hand")
    return CARDS[card_id]


def _name(card_id: int) -> str:
    return f"{CARDS[card_id].name} (card {card_id})"


def _discard(state: GameState, move: Discard, facts: Facts) -> None:
    card = _in_hand(state, move.player, move.card, E.DiscardError)
    if card.stone:
        raise E.DiscardError(f"{_name(card.id)} is a Stone: it stays in hand until placed")
    was_empty = not state.cabinet.get(card.stack)
    v = facts.add(CardDiscarded, player=move.player, card=card.id)
    if was_empty:
        facts.award(move.player, 1, "R4.1", "CardDiscarded", v)


def _check_source(
    card_id: int, loc: Location, source: str | None, error: type[E.RuleError]
) -> None:
    """A source the player names must be where the card lies (R4.2, R4.5)."""
    if source is not None and str(loc) != source:
        raise error(f"{_name(card_id)} is not at {source}")


def _takeable(state: GameState, seat: int, card_id: int, error: type[E.RuleError]) -> Location:
    """Where an assembled recipe can be taken from: a table, or a Sequence
    stage that is not its column's last (R4.2, R4.5, R5.2)."""
    if card_id not in CARDS:
        raise error(f"there is no card {card_id}")
    loc = state.locate(card_id)
    if loc is not None and loc.zone == "hand" and loc.seat == seat:
        raise error(f"{_name(card_id)} is in your hand; components never come from a hand")
    if loc is None or loc.zone == "hand":
        # Another hand and the deck are both hidden: the message must not say which.
        raise error(f"{_name(card_id)} is not on any table, stack top or Sequence")
    if loc.zone == "sequence":
        card = CARDS[card_id]
        if card.stone or card.spell:
            raise E.StageIsLastError(
                f"{_name(card_id)} is a Stone or Transmutation: it can never be taken"
            )
        if loc.stage == state.last_stage(loc.seat, loc.column):
            raise E.StageIsLastError(
                f"stage {loc.stage} is the last stage of "
                f"{state.names[loc.seat]}'s {loc.column} column"
            )
    return loc


def match_slots(
    requires: Sequence[Requirement], components: Sequence[tuple[Card, Location]]
) -> list[int] | None:
    """R4.2: a one-to-one matching of components to slots, or None.

    Returns, for each slot, the index of the component that fills it. Element
    slots take cabinet tops; recipe slots take assembled recipes.
    """
    n = len(requires)
    if len(components) != n:
        return None
    fits = [
        [
            (req.accepts_element(card) if loc.zone == "cabinet" else req.accepts_recipe(card))
            if req.is_element == (loc.zone == "cabinet")
            else False
            for (card, loc) in components
        ]
        for req in requires
    ]
    for perm in permutations(range(n)):
        if all(fits[slot][perm[slot]] for slot in range(n)):
            return list(perm)
    return None


def _assemble(state: GameState, move: Assemble, facts: Facts) -> None:
    seat = move.player
    card = _in_hand(state, seat, move.card, E.AssemblyError)
    if not card.is_recipe:
        raise E.AssemblyError(f"{_name(card.id)} is not a recipe")
    if len(set(move.components)) != len(move.components):
        raise E.AssemblyError("each component must be a different card (one card per slot)")
    if len(move.components) != len(card.requires):
        raise E.AssemblyError(
            f"{card.name} needs {len(card.requires)} components, {len(move.components)} were named"
        )
    found = [(CARDS[c], _takeable(state, seat, c, E.AssemblyError)) for c in move.components]
    if move.sources:
        if len(move.sources) != len(move.components):
            raise E.AssemblyError("name a source for each component, or none")
        for (card_, loc), source in zip(found, move.sources, strict=True):
            _check_source(card_.id, loc, source, E.AssemblyError)
    order = match_slots(card.requires, found)
    if order is None:
        needs = ", ".join(r.label for r in card.requires)
        raise E.AssemblyError(
            f"the named components do not fill {card.name}'s slots one-to-one ({needs}); "
            "elements come from cabinet stack tops, recipes from tables or Sequences"
        )
    slots = [found[i] for i in order]
    losers: set[int] = set()
    returned: list[int] = []
    for component, loc in slots:
        if loc.zone == "sequence":
            _take_stage(facts, seat, loc, component.id)
        if loc.zone in ("table", "sequence") and loc.seat != seat:
            losers.add(loc.seat)
        if loc.zone == "table":
            returned.extend(state.tables[loc.seat][component.id])
    v = facts.add(
        RecipeAssembled,
        player=seat,
        card=card.id,
        components=[c.id for c, _ in slots],
        sources=[str(loc) for _, loc in slots],
    )
    if returned:
        facts.add(ComponentsReturned, cards=returned)
    facts.award(seat, card.points, "R4.4", "RecipeAssembled", v)
    for loser in sorted(losers):  # R4.4, S15: once per assembly
        facts.award(loser, half(card.points), "R4.4/half", "RecipeAssembled", v)


def _take_stage(facts: Facts, seat: int, loc: Location, card_id: int) -> None:
    if loc.seat == seat:
        facts.add(StageTaken, player=seat, column=loc.column, stage=loc.stage, card=card_id)
    else:
        facts.add(
            StageStolen,
            player=seat,
            owner=loc.seat,
            column=loc.column,
            stage=loc.stage,
            card=card_id,
        )


def _next_stage(state: GameState, seat: int, column: str | None, error: type[E.RuleError]) -> int:
    if not state.columns:
        raise E.GuildOffError("this game is played without the Guild of Alchemists")
    if column not in STONES:
        raise error(f"there is no column {column!r}; columns are {', '.join(STONES)}")
    last = state.last_stage(seat, column)
    if last == 7:
        raise E.ColumnBuiltError(
            f"{state.names[seat]}'s {column} column is complete; a column is built once (S10)"
        )
    return last + 1


def _place(state: GameState, move: Place, facts: Facts) -> None:
    seat, column = move.player, move.column
    stage = _next_stage(state, seat, column, E.PlacementError)
    wanted = state.stage_name(seat, column, stage)
    if move.card not in CARDS:
        raise E.PlacementError(f"there is no card {move.card}")
    card = CARDS[move.card]
    if stage == 7:
        if card.stone != column:
            raise E.PlacementError(
                f"stage 7 of the {column} column takes the {column} Stone, not {_name(card.id)}"
            )
        _in_hand(state, seat, card.id, E.PlacementError)  # R4.5: the Stone from hand only
        loc = Location("hand", seat)
    else:
        if card.name != wanted:
            raise E.PlacementError(
                f"stage {stage} of {state.names[seat]}'s {column} column takes {wanted}, "
                f"not {_name(card.id)} (S3, S4: no stage is skipped)"
            )
        where = state.locate(card.id)
        if where is not None and where.zone == "hand" and where.seat == seat:
            loc = where  # S5: straight from hand
        else:
            loc = _takeable(state, seat, card.id, E.PlacementError)
            if loc.zone == "cabinet":
                raise E.PlacementError(
                    f"{_name(card.id)} lies in the cabinet: only assembled recipes or "
                    "cards from your hand can be placed"
                )
    _check_source(card.id, loc, move.source, E.PlacementError)
    if loc.zone == "sequence":
        _take_stage(facts, seat, loc, card.id)
    v = facts.add(
        RecipePlaced, player=seat, column=column, stage=stage, card=card.id, source=str(loc)
    )
    if loc.zone == "table" and state.tables[loc.seat][card.id]:
        facts.add(ComponentsReturned, cards=list(state.tables[loc.seat][card.id]))  # R4.7, S9
    points = state.rules.stage_points[stage - 1] if state.rules else 0
    facts.award(seat, points, "R4.6", "RecipePlaced", v)
    if loc.zone in ("table", "sequence") and loc.seat != seat:  # S8, S15
        facts.award(loc.seat, half(points), "R4.6/half", "RecipePlaced", v)
    if stage == 7:
        facts.add(SequenceCompleted, player=seat, column=column)


def _cabinet_top(state: GameState, card_id: int | None, what: str) -> Card:
    if card_id is None or card_id not in CARDS:
        raise E.SpellError(f"name the cabinet card to {what}")
    if card_id not in state.cabinet_tops():
        raise E.SpellError(f"{_name(card_id)} is not on top of a cabinet stack")
    return CARDS[card_id]


def _own_recipe(state: GameState, seat: int, card_id: int | None, rule: str) -> int:
    if card_id is None or card_id not in state.tables[seat]:
        raise E.SpellError(f"name a recipe on {state.names[seat]}'s table", rule)
    return card_id


SPELL_FIELDS = {
    "knowledge": ("card",),
    "transformation": ("card", "recipe"),
    "destruction": ("card", "recipe"),
    "transmutation": ("column",),
}


def _only_used(move: Cast, used: tuple[str, ...]) -> None:
    """A spell names only what it uses (R6): a stray target is a mistake."""
    for name in ("card", "recipe", "column"):
        if name not in used and getattr(move, name) is not None:
            raise E.SpellError(f"{_name(move.spell)} takes no {name}")


def _cast(state: GameState, move: Cast, facts: Facts) -> None:
    seat = move.player
    spell = _in_hand(state, seat, move.spell, E.SpellError)
    if spell.spell is None:
        raise E.SpellError(f"{_name(spell.id)} is not a spell")
    _only_used(move, SPELL_FIELDS[spell.spell])
    fields: dict[str, Any] = dict(card=None, recipe=None, column=None, stage=None)
    back: list[int] = []
    if spell.spell == "knowledge":  # R6.1
        taken = _cabinet_top(state, move.card, "take")
        if taken.spell:
            raise E.SpellError(f"Knowledge cannot take a spell ({_name(taken.id)})", "R6.1")
        fields["card"] = taken.id
    elif spell.spell == "transformation":  # R6.2
        taken = _cabinet_top(state, move.card, "take")
        if not taken.is_recipe:
            raise E.SpellError(f"Transformation takes a recipe, not {_name(taken.id)}", "R6.2")
        give = _own_recipe(state, seat, move.recipe, "R6.2")
        fields.update(card=taken.id, recipe=give)
        back = [give, *state.tables[seat][give]]
    elif spell.spell == "destruction":  # R6.3
        recipe = _own_recipe(state, seat, move.recipe, "R6.3")
        components = state.tables[seat][recipe]
        keep = move.card
        if keep not in components or keep is None or not CARDS[keep].is_recipe:
            raise E.SpellError(
                f"name a recipe card among the components of {_name(recipe)} to keep", "R6.3"
            )
        fields.update(card=keep, recipe=recipe)
        back = [recipe, *(c for c in components if c != keep)]
    else:  # R6.4 transmutation
        stage = _next_stage(state, seat, move.column, E.SpellError)
        if stage == 7:
            raise E.SpellError(
                f"Transmutation fills stages 1-6; stage 7 of the {move.column} column "
                "takes only its Stone",
                "R6.4",
            )
        fields.update(column=move.column, stage=stage)
    facts.add(SpellCast, player=seat, spell=spell.id, kind=spell.spell, **fields)
    if spell.spell != "transmutation":
        facts.add(ComponentsReturned, cards=[*back, spell.id])


# ---- end of turn, draw phase, end of game (R3.1, R7) ----------------------


def decide_turn_end(state: GameState, move: Move, version: int) -> list[Fact]:
    """After a main action (applied): end the turn, then either end the game
    (R7.2, R7.1, R7.4, T8.1's call, in that order) or run the next player's
    draw phase (R3.1)."""
    seat, n = move.player, state.players
    passed = isinstance(move, Pass)
    nxt = (seat + 1) % n
    facts = Facts(version)
    facts.add(TurnEnded, player=seat, next_player=nxt, passed=passed)
    passes = state.passes_with_empty_deck + 1 if passed and state.deck_empty else 0
    reason = None
    if state.stone_placed and seat == n - 1:
        reason = "R7.2"
    elif state.deck_empty and passes >= n:
        reason = "R7.1"
    elif stalled(state, passed):
        reason = "stalled"  # R7.4: after R7.1 and R7.2, before a call (decision)
    elif state.called and seat == n - 1:
        reason = "called"  # T8.1: R7.1, R7.2 and R7.4 come first
    if reason:
        facts.add(
            GameEnded,
            reason=reason,
            scores=list(state.scores),
            winners=winners(state),
            secret=state.secret,
        )
        return facts.items
    assert state.rules is not None
    count = draw_count(state.rules, len(state.hands[nxt]), len(state.deck))
    if count:
        facts.add(CardsDrawn, player=nxt, cards=state.deck[:count])
    return facts.items


def stalled(state: GameState, passed: bool) -> bool:
    """R7.4: the turn ending now, a pass (``passed``), is the n-th turn in a
    row (n = the number of players, withdrawn seats included) that was a pass
    with no card drawn and no spell cast; for games started under a rule set
    that has R7.4 (``RuleSet.stalled_games_end``, R10)."""
    if state.rules is None or not state.rules.stalled_games_end:
        return False
    quiet = state.quiet_passes + 1 if passed and state.turn_quiet else 0
    return quiet >= state.players


def rank_keys(state: Table) -> list[tuple[int, int, int]]:
    """R7.3's order, by seat: points, completed stages, table recipes; read
    off the open table alone (the analytics rank ended games with it)."""
    return [
        (state.scores[s], state.completed_stages(s) if state.columns else 0, len(state.tables[s]))
        for s in range(state.players)
    ]


def winners(state: GameState) -> list[int]:
    """R7.3: most points; then more completed stages; then more table recipes."""
    keys = rank_keys(state)
    best = max(keys)
    return [s for s, k in enumerate(keys) if k == best]

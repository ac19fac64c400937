"""Components and zones (R1.1–R1.4), setup (R2.1–R2.3), the seed's commitment
(R9.1–R9.3, through the Game; the shuffle's test vector is in test_shuffle.py)
and the rule set as a value (R10).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from domain.bots import random_bot
from domain.catalog import RECIPE_KINDS, STONES
from domain.disclosure import disclose
from domain.disclosure import seat as seat_audience
from domain.errors import GuildOffError, RuleError, SetupError
from domain.events import CardsDealt
from domain.game import Game
from domain.moves import Discard, Place
from domain.ruleset import RuleSet
from domain.shuffle import shuffle, shuffle_seed
from domain.state import CARDS, CATALOG
from domain.table import public_view
from tests.builders import NAMES, SECRET, Position, all_cards, of_kind, started_game


def refused(game: Game, act: Callable[[Game], Any], error: type[RuleError], rule: str) -> None:
    """A setup command the rules refuse records nothing."""
    before = copy.deepcopy(game.state)
    version, pending = game.version, len(game.pending_events)
    with pytest.raises(error, match="^" + rule.replace(".", r"\.") + ":"):
        act(game)
    assert (game.version, len(game.pending_events)) == (version, pending)
    assert game.state == before


def expected_deck(contributions: list[str], guild: bool = True) -> list[int]:
    """R9.1, R9.2: the deck as anyone can re-derive it from the revealed secret."""
    return shuffle(all_cards(guild), shuffle_seed(SECRET, contributions))


# ---- R1.1, R1.2 the cards -----------------------------------------------------


def test_R1_1_every_card_has_an_element_and_supreme_cards_have_three() -> None:
    """R1.1: an element 0-15 on every card; the two supreme cards carry three
    and form stacks of their own (R1.3)."""
    for card in CATALOG.cards.values():
        assert all(0 <= e <= 15 for e in card.elements)
        if card.kind == "supreme":
            assert len(card.elements) == 3
            assert card.stack == f"supreme-{card.id}"
        else:
            assert len(card.elements) == 1
            assert card.stack == str(card.elements[0])
    assert sorted(c.name for c in CATALOG.cards.values() if c.kind == "supreme") == [
        "Great Talisman of Magic",
        "Supreme Elixir",
    ]


def _slot_kinds(card_id: int) -> list[str]:
    """What each slot takes: 'element', or the kinds of the recipes it accepts."""
    kinds = []
    for req in CARDS[card_id].requires:
        if req.is_element:
            kinds.append("element")
        else:
            kinds.append("/".join(sorted({CARDS[r].kind for r in req.recipe_ids})))
    return kinds


RECIPE_SHAPES = {
    "potion": (2, [["element", "element"]]),
    "elixir": (3, [["element", "element", "element"]]),
    "powder": (4, [["potion", "element"]]),
    "great_elixir": (6, [["potion", "potion"]]),
    "talisman": (8, [["potion", "elixir"]]),
    "supreme": (10, [["great_elixir", "great_elixir"], ["talisman", "talisman"]]),
}


def test_R1_2_recipe_kinds_carry_their_printed_points_and_requirements() -> None:
    """R1.2: potion 2, elixir 3, powder 4, great elixir 6, talisman 8,
    creature 8 (two recipes), supreme 10; spells score nothing."""
    for card in CATALOG.cards.values():
        if card.kind == "creature":
            assert card.points == 8
            assert len(card.requires) == 2 and not any(r.is_element for r in card.requires)
        elif card.kind in RECIPE_SHAPES:
            printed, shapes = RECIPE_SHAPES[card.kind]
            assert card.points == printed, card
            assert _slot_kinds(card.id) in shapes, card
        else:
            assert card.kind in ("spell", "stone")
            assert card.points == 0 and not card.is_recipe
    assert {c.kind for c in CATALOG.cards.values() if c.is_recipe} == RECIPE_KINDS


# ---- R1.3, R1.4 zones and Guild components ----------------------------------------


def test_R1_3_every_card_is_in_exactly_one_zone_after_the_deal() -> None:
    """R1.3: deck, cabinet, hands; nothing twice, nothing missing."""
    game = started_game(4)
    assert sorted(game.state.all_zones()) == all_cards()


def test_R1_3_hands_are_secret_and_the_deck_face_down() -> None:
    """R1.3: the public view shows hand sizes, the deck's size and stack tops;
    a player's view adds only that player's hand."""
    game = started_game(2)
    state = game.state
    view = public_view(state)
    assert "hand" not in view and "hands" not in view and "deck" not in view
    assert view["hand_sizes"] == [5, 4]
    assert view["deck_size"] == len(state.deck)
    assert view["secret"] is None
    assert view["cabinet"] == {stack: cards[-1] for stack, cards in state.cabinet.items()}
    dealt = next(e for e in game.collect_events() if isinstance(e, CardsDealt))
    seen = disclose("CardsDealt", vars(dealt), seat_audience(1), ended=False)
    assert seen["hands"] == [None, state.hands[1]]
    assert seen["counts"] == [4, 4]
    assert str(state.hands[0][:4])[1:-1] not in json.dumps(seen)


def test_R1_4_one_sequence_card_per_player_and_nine_guild_cards_in_the_deck() -> None:
    """R1.4: six Sequence cards to deal from; 6 Stones (2 of each variant) and
    3 Transmutation spells join the 76 base cards."""
    assert sorted(CATALOG.sequence_cards) == ["S1", "S2", "S3", "S4", "S5", "S6"]
    stones = [c.stone for c in CATALOG.cards.values() if c.stone]
    assert sorted(stones) == sorted(STONES * 2)
    spells = [c for c in CATALOG.cards.values() if c.spell == "transmutation"]
    assert len(spells) == 3
    assert len(CATALOG.base_deck) == 76
    game = started_game(6)
    assert len(game.state.all_zones()) == 85
    assert len(set(game.state.sequence_cards)) == 6


def test_R1_4_without_the_guild_there_is_nothing_to_place_into() -> None:
    """R1.4, R10: Guild off: 76 cards, no Sequence card, and Place is refused."""
    p = Position(rules=RuleSet(guild=False)).hand(0, 6)
    assert sorted(p.state.all_zones()) == list(CATALOG.base_deck)
    assert p.state.sequence_cards == [] and p.state.columns == []
    p.refuse(Place(0, "albedo", 6), GuildOffError, "R1.4")


# ---- R2.1 players and seats -------------------------------------------------------


def test_R2_1_players_are_seated_in_join_order_and_seat_zero_starts() -> None:
    """R2.1: join returns the seat; seat 0 plays first."""
    game = Game.create(RuleSet(), secret=SECRET)
    assert [game.join(name) for name in NAMES[:3]] == [0, 1, 2]
    game.start()
    assert game.state.names == list(NAMES[:3])
    assert game.state.turn == 0


def test_R2_1_a_game_needs_two_to_six_players() -> None:
    """R2.1: one player cannot start; a seventh cannot join."""
    game = Game.create(RuleSet(), secret=SECRET)
    game.join("Ada")
    refused(game, Game.start, SetupError, "R2.1")
    for name in NAMES[1:]:
        game.join(name)
    refused(game, lambda g: g.join("Galina"), SetupError, "R2.1")
    game.start()
    assert game.state.rules is not None and game.state.rules.players == 6


def test_R2_1_no_one_joins_a_started_game_and_names_are_unique() -> None:
    """R2.1: seats are fixed when the game starts; a name is taken once."""
    game = Game.create(RuleSet(), secret=SECRET)
    game.join("Ada")
    refused(game, lambda g: g.join("Ada"), SetupError, "R2.1")
    refused(game, lambda g: g.join("  "), SetupError, "R2.1")
    game.join("Boris")
    game.start()
    refused(game, lambda g: g.join("Cleo"), SetupError, "R2.1")
    refused(game, Game.start, SetupError, "R2.1")


def test_R2_1_no_move_before_the_game_starts() -> None:
    """R2.1, R3.4: an open game takes joins, not moves."""
    game = Game.create(RuleSet(), secret=SECRET)
    game.join("Ada")
    game.join("Boris")
    refused(game, lambda g: g.play(Discard(0, 6)), SetupError, "R2.1")


# ---- R2.2, R2.3 the deal ------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 6])
def test_R2_2_four_to_the_cabinet_then_four_each_one_at_a_time(players: int) -> None:
    """R2.2: from the top of the shuffled deck: four cards face up onto their
    stacks, then one card at a time in seat order until each has four; then
    seat 0's draw phase (R3.1)."""
    game = started_game(players)
    deck = expected_deck([""] * players)
    (started,) = of_kind(game.collect_events(), "GameStarted")
    assert started.cabinet == deck[:4]
    for card_id in deck[:4]:
        assert card_id in game.state.cabinet[CARDS[card_id].stack]
    dealt = deck[4 : 4 + 4 * players]
    for seat in range(players):
        assert game.state.hands[seat][:4] == dealt[seat::players]
    assert game.state.hands[0][4:] == [deck[4 + 4 * players]]
    assert game.state.deck == deck[5 + 4 * players :]


def test_R2_2_without_the_guild_the_deck_is_the_76_base_cards() -> None:
    """R2.2: +9 Guild cards only when the Guild is on."""
    game = started_game(2, RuleSet(guild=False))
    deck = expected_deck(["", ""], guild=False)
    assert of_kind(game.collect_events(), "GameStarted")[0].cabinet == deck[:4]
    assert len(game.state.all_zones()) == 76


def test_R2_3_sequence_cards_are_shuffled_with_their_own_seed_and_taken_by_seat() -> None:
    """R2.3: the six cards shuffled (R9.2) with SHA-256(seed ‖ "sequences");
    seat k takes position k."""
    game = started_game(3, contributions=["x", "", "ÿ"])
    seed = shuffle_seed(SECRET, ["x", "", "ÿ"])
    order = shuffle(
        ["S1", "S2", "S3", "S4", "S5", "S6"], hashlib.sha256(seed + b"sequences").digest()
    )
    assert game.state.sequence_cards == order[:3]


# ---- R9 the seed, through the Game -----------------------------------------------------


def test_R9_1_the_game_records_only_the_commitment_to_its_secret() -> None:
    """R9.1: the commitment is SHA-256 of the secret; no one sees the secret
    while the game runs (R9.3)."""
    game = started_game(2)
    (created,) = of_kind(game.collect_events(), "GameCreated")
    assert created.commitment == hashlib.sha256(SECRET).hexdigest()
    assert public_view(game.state)["commitment"] == created.commitment
    assert public_view(game.state)["secret"] is None


def test_R9_1_the_players_contributions_change_the_shuffle() -> None:
    """R9.1: the seed mixes every seat's contribution; a missing contribution
    counts as the empty text."""
    plain = started_game(2)
    empty = started_game(2, contributions=["", ""])
    salted = started_game(2, contributions=["", "boris"])
    assert plain.state.deck == empty.state.deck == expected_deck(["", ""])[13:]
    assert salted.state.deck == expected_deck(["", "boris"])[13:]
    assert salted.state.deck != plain.state.deck


def test_R9_1_a_contribution_is_limited_in_length() -> None:
    """R9.1 (decision): at most 256 characters."""
    game = Game.create(RuleSet(), secret=SECRET)
    refused(game, lambda g: g.join("Ada", "x" * 257), RuleError, "R9.1")
    game.join("Ada", "x" * 256)


def test_R9_2_R9_3_at_the_end_anyone_can_check_the_secret_and_re_derive_every_draw() -> None:
    """R9.3: GameEnded reveals the secret; it matches the commitment, and the
    cabinet, the deal and every draw are the re-derived deck, top first (R9.2)."""
    game = started_game(2, contributions=["ada", "boris"])
    bot = random_bot(random.Random(3))
    events = list(game.collect_events())
    while game.state.status == "running":
        game.play(bot(game.state, game.state.turn))
        events.extend(game.collect_events())
    (ended,) = of_kind(events, "GameEnded")
    secret = bytes.fromhex(ended.secret)
    assert hashlib.sha256(secret).hexdigest() == of_kind(events, "GameCreated")[0].commitment
    assert public_view(game.state)["secret"] == ended.secret
    deck = shuffle(all_cards(), shuffle_seed(secret, ["ada", "boris"]))
    dealt = of_kind(events, "CardsDealt")[0].hands
    taken = of_kind(events, "GameStarted")[0].cabinet + [
        card for round_ in zip(*dealt, strict=True) for card in round_
    ]
    for drawn in of_kind(events, "CardsDrawn"):
        taken += drawn.cards
    assert taken == deck[: len(taken)]


# ---- R10 the rule set ---------------------------------------------------------------------


def test_R10_the_rule_set_and_its_digest_are_recorded_when_the_game_starts() -> None:
    """R10: the rule set (with the player count) and the SHA-256 of its
    canonical JSON are in GameStarted."""
    rules = RuleSet(draw="one", stage_points=(1, 2, 3, 4, 5, 6, 7))
    game = started_game(3, rules)
    (started,) = of_kind(game.collect_events(), "GameStarted")
    recorded = RuleSet.from_dict(started.rules)
    assert recorded == RuleSet(draw="one", stage_points=(1, 2, 3, 4, 5, 6, 7), players=3)
    canonical = json.dumps(started.rules, sort_keys=True, separators=(",", ":"))
    assert started.rules_digest == hashlib.sha256(canonical.encode()).hexdigest()
    assert started.rules_digest == recorded.digest != RuleSet(players=3).digest


def test_R10_a_game_is_replayed_under_the_rule_set_it_started_with() -> None:
    """R10: rebuilding the game from its events gives the same state and the
    same rule set, whatever the defaults are now."""
    game = started_game(2, RuleSet(draw="one", stage_points=(1, 1, 1, 1, 1, 1, 1)))
    game.play(Discard(0, game.state.hands[0][0]))
    copy_: Any = None
    for event in game.collect_events():
        copy_ = event.mutate(copy_)
    assert copy_.state == game.state
    assert copy_.state.rules.draw == "one"
    assert copy_.state.rules.stage_points == (1, 1, 1, 1, 1, 1, 1)


def test_R10_a_rule_set_is_a_checked_value() -> None:
    """R10: only the known draw variants; seven non-negative stage points."""
    with pytest.raises(ValueError):
        RuleSet(draw="three")
    with pytest.raises(ValueError):
        RuleSet(stage_points=(2, 2, 4))
    assert RuleSet() == RuleSet.from_dict(RuleSet().as_dict())

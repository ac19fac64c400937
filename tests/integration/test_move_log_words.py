"""One describer of events (projections/describe.py): the move log's line of
text and the web pages' log say each event in the same words, from the same
templates; they differ only in the words a language brings (a column's
name, a rule's, the game's variant)."""

from __future__ import annotations

import json
import random

from api.web import present
from api.web.i18n import rule_words
from domain.application import Opus
from domain.simulation import play_game
from projections.describe import CARD_TEXTS, PLAIN, describe, plain
from projections.move_log import with_text
from projections.ports import namespace
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.registry import select
from tests.conftest import ViewsUnderTest

# the events whose words name a column, a rule or the variant
WITH_LANGUAGE_WORDS = {
    "GameCreated",
    "TournamentGameCreated",
    "StageStolen",
    "StageTaken",
    "RecipePlaced",
    "SpellCast",
    "PointsAwarded",
    "SequenceCompleted",
}


def test_the_move_log_and_the_page_put_each_event_in_the_same_words(
    app: Opus, views: ViewsUnderTest
) -> None:
    game_id, _ = play_game(app, 3, "greedy", random.Random(11))
    rebuild(views.store, app, select(["move_log"]))
    log = Queries(views.store).move_log(game_id)
    names = app.state(game_id).names
    same = set()
    for entry in log:
        assert entry["text"] == plain(describe(entry, names, PLAIN)), entry
        page = plain(present.describe(entry, names, "en"))
        if entry["event"] not in WITH_LANGUAGE_WORDS:
            assert entry["text"] == page, entry
            same.add(entry["event"])
    assert {"PlayerJoined", "GameStarted", "CardsDealt", "CardsDrawn", "TurnEnded"} <= same
    assert {"RecipeAssembled", "ComponentsReturned", "GameEnded"} <= same
    # the log's own words: seats from 1, as the pages number them; the
    # cards dealt and drawn, revealed by GameEnded (R9.3), by name and id
    assert log[1]["text"] == f"{names[0]} took seat 1"
    drawn = next(e for e in log if e["event"] == "CardsDrawn")
    assert drawn["text"].startswith(f"{names[drawn['player']]} drew ")
    assert all(CARD_TEXTS[card] in drawn["text"] for card in drawn["cards"])
    points = next(e for e in log if e["event"] == "PointsAwarded")
    assert points["text"] == (
        f"{names[points['player']]} scored {points['points']} ({points['rule']})"
    )
    what = rule_words(points["rule"], "en")  # the page names the rule too
    assert plain(present.describe(points, names, "en")) == points["text"][:-1] + f": {what})"


def test_the_text_is_rendered_on_read_and_a_stored_text_is_kept() -> None:
    """The move log stores no text: its query renders each entry's line with
    the game's seating; an entry stored with its text (a view written
    before the text moved to the read) is served with it."""
    entries = [
        {"event": "PlayerJoined", "player": 0, "name": "Ada", "text": "Ada sat down"},
        {"event": "PlayerJoined", "player": 1, "name": "Boris"},
        {"event": "PointsAwarded", "player": 0, "points": 3, "rule": "R5.2"},
    ]
    served = with_text(entries, ["Ada", "Boris"])
    assert [e["text"] for e in served] == [
        "Ada sat down",
        "Boris took seat 2",
        "Ada scored 3 (R5.2)",
    ]


def test_the_stored_entries_hold_no_text(app: Opus, views: ViewsUnderTest) -> None:
    game_id, _ = play_game(app, 2, "greedy", random.Random(5))
    rebuild(views.store, app, select(["move_log"]))
    ns = namespace("move_log", views.store.active_generation("move_log"))
    stored = views.store.items(ns, str(game_id))
    assert stored and not any("text" in json.loads(item) for item in stored)
    names = json.loads(views.store.get(ns, f"{game_id}:names") or "")
    # R2.1: the seating, fixed at the start, kept once the game has ended, for the text
    assert names == app.state(game_id).names

"""The rules pages, the first-game guide, and rule ids linked on the other
pages, through Flask's test client on real SQLite stores with the
projections running (api/web/rules_pages.py; the rules' text:
api/web/rulebook.py). Also: exact fractions on the tournament page, and
seats counted from 1 on the pages while the API's JSON keeps indexes."""

from __future__ import annotations

import html
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from flask import Flask

from api.web import rulebook
from api.web.pages import CSP
from domain.simulation import play_game
from tests.apps import embedded_app
from tests.integration.test_web_pages import (
    create,
    csrf_of,
    join,
    live_attr,
    opus,
    running_game,
)

RU = {"Accept-Language": "ru"}
EN = {"Accept-Language": "en"}
RULE_LINK = re.compile(
    r'<a class="rule-ref" href="(/rules(?:/tournament)?#[RST][\d.]+)">([^<]+)</a>'
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("rules")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def page(app: Flask, path: str, headers: dict[str, str]) -> str:
    answer = app.test_client().get(path, headers=headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    assert answer.headers["Content-Security-Policy"] == CSP
    body = answer.get_data(as_text=True)
    assert "<script>" not in body and " style=" not in body
    return body


def anchors(body: str) -> set[str]:
    return set(re.findall(r' id="([^"]+)"', body))


def links_land(app: Flask, body: str) -> None:
    """Every rule link in ``body`` lands on an anchor of its page."""
    pages: dict[str, set[str]] = {}
    for href, _ in RULE_LINK.findall(body):
        path, _, anchor = href.partition("#")
        if path not in pages:
            pages[path] = anchors(page(app, path, EN))
        assert anchor in pages[path], href


# ---- the rules pages -------------------------------------------------------------------


@pytest.mark.parametrize("headers", [EN, RU], ids=["en", "ru"])
def test_every_rule_id_of_rules_md_has_an_anchor_on_the_rules_page(
    app: Flask, headers: dict[str, str]
) -> None:
    text = rulebook.RULES_FILE.read_text(encoding="utf-8")
    ids = re.findall(r"^- (R\d+\.\d+) ", text, re.MULTILINE)
    assert "R3.1" in ids and "R4.4" in ids
    body = page(app, "/rules", headers)
    found = anchors(body)
    assert set(ids) <= found
    for section in re.findall(r"^## (\d+)\. ", text, re.MULTILINE):
        assert f"R{section}" in found
    assert '<li id="R3.1" class="rule"><a class="rule-id" href="#R3.1">R3.1</a>' in body
    assert {f"S{n}" for n in range(1, 17)} <= found  # the Guild's own text, by sentence
    links_land(app, body)


@pytest.mark.parametrize("headers", [EN, RU], ids=["en", "ru"])
def test_every_rule_id_of_tournament_md_has_an_anchor_on_its_page(
    app: Flask, headers: dict[str, str]
) -> None:
    text = rulebook.TOURNAMENT_FILE.read_text(encoding="utf-8")
    ids = re.findall(r"^- (T\d+\.\d+) ", text, re.MULTILINE)
    assert "T4.2" in ids
    body = page(app, "/rules/tournament", headers)
    assert set(ids) <= anchors(body)
    # its R ids link to the game's rules page
    assert '<a class="rule-ref" href="/rules#R3.5">R3.5</a>' in body
    links_land(app, body)


def test_the_russian_rules_page_is_russian_and_the_english_one_english(app: Flask) -> None:
    ru, en = page(app, "/rules", RU), page(app, "/rules", EN)
    assert '<html lang="ru">' in ru and '<html lang="en">' in en
    assert "<h1>Правила игры</h1>" in ru and "<h1>Rules of the game</h1>" in en
    original = rulebook.SEED_RU.read_text(encoding="utf-8")
    s5 = "Игрок может помещать в Последовательность рецепты, собранные им"
    assert s5 in original
    # the Russian original, sentence by sentence, each with its id, on the Russian page only
    assert re.search(rf'<li id="S5"><a class="rule-id" href="#S5">S5</a> {s5}', ru)
    assert s5 not in en
    assert '<li id="S5"><a class="rule-id" href="#S5">S5</a> The player may place' in en
    # the section holding it says its language; the rules (English) say theirs
    assert (
        '<section class="guild-text" id="guild-text" aria-labelledby="guild-text-h" lang="ru">'
        in ru
    )
    assert '<section class="rulebook" aria-labelledby="rulebook-h" lang="en">' in ru
    # the sentence names the rules citing it, linked
    s5_item = re.search(r'<li id="S5">.*?</li>', ru)
    assert s5_item and '<a class="rule-ref" href="/rules#R4.5">R4.5</a>' in s5_item.group(0)


@pytest.mark.parametrize("headers", [EN, RU], ids=["en", "ru"])
def test_the_guide_says_what_a_turn_is_and_what_scores_linking_the_rules(
    app: Flask, headers: dict[str, str]
) -> None:
    body = page(app, "/guide", headers)
    linked = {anchor for href, anchor in RULE_LINK.findall(body)}
    assert {"R3.1", "R3.2", "R3.3", "R4.1", "R4.4", "R4.6", "R8.1"} <= linked
    words = "Ваша первая игра" if headers is RU else "Your first game"
    assert f"<h1>{words}</h1>" in body
    links_land(app, body)


def test_the_header_of_every_page_links_the_rules_and_the_guide(app: Flask) -> None:
    for path in ("/", "/rules", "/guide", "/replay"):
        body = page(app, path, EN)
        nav = re.search(r'<nav class="site-nav".*?</nav>', body, re.S)
        assert nav and 'href="/rules"' in nav.group(0) and 'href="/guide"' in nav.group(0)


# ---- rule ids linked where the pages show them ------------------------------------------


def test_a_refused_moves_notice_links_its_rule(app: Flask) -> None:
    game, seats, position = running_game(app)
    view = seats[0][0].get(f"/table/{game}/view?after={position}").get_data(as_text=True)
    turn = int(live_attr(view, "turn"))
    mover, mover_csrf = seats[turn]
    card = opus(app).state(UUID(game)).hands[1 - turn][0]  # a card of the other hand
    refused = mover.post(
        f"/table/{game}/move",
        data={"csrf": mover_csrf, "move": json.dumps({"kind": "discard", "body": {"card": card}})},
    )
    assert refused.status_code == 409
    body = refused.get_data(as_text=True)
    notice = re.search(r'<div id="notice" class="notice" role="alert">(.*?)</div>', body, re.S)
    assert notice
    assert notice.group(1).startswith(
        'Refused by rule <a class="rule-ref" href="/rules#R4.1">R4.1</a>: '
    )
    # the script's refusal: the words and the rule, which it links
    waiting, waiting_csrf = seats[1 - turn]
    out_of_turn = waiting.post(
        f"/table/{game}/move",
        json={"move": {"kind": "discard", "body": {"card": card}}},
        headers={"X-CSRF-Token": waiting_csrf, "Accept": "application/json"},
    )
    assert out_of_turn.json["rule"] == "R3.4"
    assert "R3.4" in out_of_turn.json["message"]


def test_awards_and_the_move_log_link_their_rules(app: Flask) -> None:
    ended, _ = play_game(opus(app), 2, "greedy", random.Random(5))
    head = opus(app).recorder.max_notification_id()
    body = page(app, f"/table/{ended}?after={head}", EN)
    board = app.test_client().get(f"/games/{ended}/scoreboard", query_string={"after": head})
    awards = [a for p in board.json["data"]["players"] for a in p["awards"]]
    assert awards
    provenance = re.findall(r'<div class="provenance">.*?</div>', body, re.S)
    shown = [anchor for part in provenance for _, anchor in RULE_LINK.findall(part)]
    assert sorted(shown) == sorted(a["rule"] for a in awards)  # every award, its rule linked
    log = re.search(r'<ol id="log".*?</ol>', body, re.S)
    assert log
    in_log = [anchor for _, anchor in RULE_LINK.findall(log.group(0))]
    # each PointsAwarded's line links its rule (and the end's line, its own)
    assert not Counter(a["rule"] for a in awards) - Counter(in_log)
    links_land(app, body)
    replay = page(app, f"/replay/{ended}", EN)
    assert RULE_LINK.search(replay)


def test_the_lobby_links_the_rules_it_names(app: Flask) -> None:
    body = page(app, "/", EN)
    assert '<legend>Draw rule (<a class="rule-ref" href="/rules#R3.1">R3.1</a>)</legend>' in body


# ---- the tournament page: T ids linked, fractions as decimals, names isolated -------------


def test_the_tournament_page_links_t_rules_and_shows_fractions_as_decimals(app: Flask) -> None:
    client = app.test_client()
    created = client.post("/tournaments", json={"name": "Cup \u05d0"})
    tournament, organiser = created.json["tournament_id"], created.json["organiser_token"]
    bearer = {"Authorization": f"Bearer {organiser}"}
    for name in ("Ada", "Boris", "Cleo"):
        assert (
            client.post(f"/tournaments/{tournament}/players", json={"name": name}).status_code
            == 201
        )
    penalty = client.post(
        f"/tournaments/{tournament}/penalties",
        json={"player": 2, "points": "3/2", "reason": "late", "by": "Referee"},
        headers=bearer,
    )
    assert penalty.status_code == 201, penalty.json
    position = penalty.json["position"]
    standings = client.get(f"/tournaments/{tournament}/standings", query_string={"after": position})
    rows = {r["name"]: r for r in standings.json["data"]["rows"]}
    assert rows["Boris"]["match_points"] == "-3/2" and rows["Boris"]["penalties"] == "3/2"
    body = page(app, f"/tournament/{tournament}?after={position}", EN)
    boris = re.search(r"<tr><td>\d+</td><td><bdi>Boris</bdi>.*?</tr>", body, re.S)
    assert boris
    assert '<td><abbr class="exact" title="-3/2">-1.5</abbr></td>' in boris.group(0)
    assert '<td><abbr class="exact" title="3/2">1.5</abbr></td>' in boris.group(0)
    ada = re.search(r"<tr><td>\d+</td><td><bdi>Ada</bdi>.*?</tr>", body, re.S)
    assert ada and "<td>0</td>" in ada.group(0) and "0/1" not in ada.group(0)
    assert "<bdi>Cup \u05d0</bdi>" in body
    assert '<a class="rule-ref" href="/rules/tournament#T6.1">T6.1</a>' in body
    assert '<a class="rule-ref" href="/rules/tournament#T4.2">T4.2</a>' in body
    russian = page(app, f"/tournament/{tournament}?after={position}", RU)
    assert '<abbr class="exact" title="-3/2">-1,5</abbr>' in russian
    links_land(app, body)


# ---- seats: counted from 1 on the pages, indexes in the API's JSON ---------------------


def test_pages_count_seats_from_1_and_the_api_from_0(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    game, _ = create(client, csrf)
    position = join(client, csrf, game, "Ada")
    table = client.get(f"/table/{game}?after={position}").get_data(as_text=True)
    assert "<li>Ada</li>" in table
    log = client.get(f"/games/{game}/log", query_string={"after": position}).json["data"]
    joined = [e for e in log if e.get("event") == "PlayerJoined"]
    assert joined and joined[0]["player"] == 0  # the API: the index
    assert "Ada took seat 1" in html.unescape(table)  # the page: index + 1
    spec = client.get("/openapi.json").json
    assert "index + 1" in spec["info"]["description"]
    joined_schema = spec["components"]["schemas"]["Joined"]["properties"]["seat"]
    assert joined_schema["description"] == (
        "The seat's index, counted from 0; the pages show seat index + 1."
    )

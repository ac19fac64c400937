"""The web client's pages through Flask's test client, on real SQLite stores
with the projections running: the security headers and cookies, the CSRF
check, escaping, what a spectator's page holds, moves and their refusals,
languages, and the replay of an uploaded export against the stored game's.
(Browser tests, in a real Chromium: tests/browser/.)"""

from __future__ import annotations

import html
import io
import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.web.pages import CSP, parse_move
from api.web.present import gains_of
from api.web.replay import Replay, ReplayCache
from domain.application import Opus
from domain.catalog import load_catalog
from domain.engine import preview
from domain.simulation import play_game
from tests.apps import embedded_app
from tests.leaks import Knowledge

CARD = re.compile(r'data-card="(\d+)"')
MOVE = re.compile(r'name="move" value="([^"]+)"')


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("web")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def csrf_of(client: FlaskClient) -> str:
    """The CSRF token a page gives this browser (its cookie is set with it)."""
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert found
    return found.group(1)


def create(client: FlaskClient, csrf: str, **form: str) -> tuple[str, int]:
    created = client.post("/table/new", data={"csrf": csrf, "draw": "five", "guild": "on", **form})
    assert created.status_code == 303, created.get_data(as_text=True)
    location = created.headers["Location"]
    game, _, after = location.removeprefix("/table/").partition("?after=")
    return game, int(after)


def join(client: FlaskClient, csrf: str, game: str, name: str) -> int:
    joined = client.post(f"/table/{game}/join", data={"csrf": csrf, "name": name})
    assert joined.status_code == 303, joined.get_data(as_text=True)
    return int(joined.headers["Location"].partition("?after=")[2])


def running_game(app: Flask) -> tuple[str, list[tuple[FlaskClient, str]], int]:
    """A game started through the pages: its id, its two seats' browsers
    (client, CSRF token) and the position of its start."""
    ada, boris = app.test_client(), app.test_client()
    ada_csrf, boris_csrf = csrf_of(ada), csrf_of(boris)
    game, _ = create(ada, ada_csrf)
    join(ada, ada_csrf, game, "Ada")
    join(boris, boris_csrf, game, "Boris")
    started = ada.post(f"/table/{game}/start", data={"csrf": ada_csrf})
    assert started.status_code == 303
    return (
        game,
        [(ada, ada_csrf), (boris, boris_csrf)],
        int(started.headers["Location"].partition("?after=")[2]),
    )


def offered(page: str) -> list[dict[str, Any]]:
    """The moves a seat's page offers: each as the page would post it."""
    return [json.loads(html.unescape(value)) for value in MOVE.findall(page)]


def live_attr(page: str, name: str) -> str:
    found = re.search(rf'id="live"[^>]* data-{name}="([^"]*)"', page)
    assert found, name
    return found.group(1)


def play_moves(
    game: str, seats: list[tuple[FlaskClient, str]], position: int, count: int, seed: int
) -> int:
    """``count`` moves, each one the page offers the seat in turn, posted as
    the page's script posts it; the position of the last."""
    rng = random.Random(seed)
    for _ in range(count):
        view = seats[0][0].get(f"/table/{game}/view?after={position}").get_data(as_text=True)
        if live_attr(view, "status") != "running":
            break
        client, csrf = seats[int(live_attr(view, "turn"))]
        page = client.get(f"/table/{game}/view?after={position}").get_data(as_text=True)
        moves = offered(page)
        mains = [m for m in moves if m["kind"] != "cast"] or moves
        answer = client.post(
            f"/table/{game}/move",
            json={"move": rng.choice(mains), "version": int(live_attr(page, "version"))},
            headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
        )
        assert answer.status_code == 200, answer.json
        position = answer.json["position"]
    return position


# ---- headers, cookies, CSRF ----------------------------------------------------------


def test_every_page_sends_the_content_security_policy_and_has_no_inline_script(app: Flask) -> None:
    client = app.test_client()
    game, seats, position = running_game(app)
    ended, _ = play_game(opus(app), 2, "random", random.Random(3))
    tournament, _ = tournament_with_a_round(client)
    pages = [
        "/",
        f"/table/{game}?after={position}",
        f"/table/{game}/view",
        f"/table/{game}/log?since=0",
        f"/replay/{ended}",
        f"/replay/{ended}/view?step=5",
        "/replay",
        f"/tournament/{tournament}",
        f"/table/{UUID(int=7)}",  # an error page too
    ]
    for path in pages:
        response = seats[0][0].get(path)
        assert response.status_code in (200, 404), (path, response.status_code)
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        body = response.get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)", body), path  # no inline script
        assert not re.search(r"<style", body), path
        assert not re.search(r"<[^>]*\sstyle\s*=", body), path
        assert not re.search(r"<[^>]*\son[a-z]+\s*=", body), path  # no inline event handler
    # the API's own answers are not pages
    assert "Content-Security-Policy" not in client.get(f"/games/{game}").headers
    # the page's assets are served by the app itself
    assert client.get("/static/web/app.js").status_code == 200
    assert client.get("/static/web/style.css").status_code == 200


def set_cookies(response: Any) -> dict[str, str]:
    return {h.split("=", 1)[0]: h for h in response.headers.getlist("Set-Cookie")}


def test_seat_organiser_and_csrf_cookies_are_httponly_and_samesite_strict(app: Flask) -> None:
    client = app.test_client()
    first = client.get("/")
    csrf_cookie = set_cookies(first)["opus_csrf"]
    assert "HttpOnly" in csrf_cookie and "SameSite=Strict" in csrf_cookie
    assert "Secure" not in csrf_cookie  # plain http: a Secure cookie would never come back
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', first.get_data(as_text=True))
    assert csrf
    created = client.post("/table/new", data={"csrf": csrf.group(1)})
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    organiser = set_cookies(created)[f"opus_org_{game}"]
    joined = client.post(f"/table/{game}/join", data={"csrf": csrf.group(1), "name": "Ada"})
    seat = set_cookies(joined)[f"opus_seat_{game}"]
    for cookie in (organiser, seat):
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        token = cookie.split(";", 1)[0].split("=", 1)[1]
        assert len(token) >= 43
        # never in a URL, never in a page
        assert token not in created.headers["Location"] + joined.headers["Location"]
        page = client.get(f"/table/{game}").get_data(as_text=True)
        assert token not in page
    # over https, Secure too
    secure = app.test_client()
    answer = secure.get("/", base_url="https://localhost")
    assert "Secure" in set_cookies(answer)["__Host-opus_csrf"]  # prefixed: no sibling sets it


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(app: Flask) -> None:
    game, seats, position = running_game(app)
    client, csrf = seats[0]
    head = opus(app).recorder.max_notification_id()
    version = opus(app).version(UUID(game))
    view = client.get(f"/table/{game}/view?after={position}").get_data(as_text=True)
    seat_of_turn = int(live_attr(view, "turn"))
    mover, mover_csrf = seats[seat_of_turn]
    page = mover.get(f"/table/{game}/view?after={position}").get_data(as_text=True)
    move = offered(page)[0]
    attempts = [
        (client, "/table/new", {"data": {"draw": "five"}}),
        (client, "/table/new", {"data": {"draw": "five", "csrf": "x" * 43}}),
        (client, f"/table/{game}/join", {"data": {"name": "Mallory"}}),
        (mover, f"/table/{game}/move", {"json": {"move": move}}),
        (mover, f"/table/{game}/move", {"json": {"move": move}, "headers": {"X-CSRF-Token": ""}}),
        (mover, f"/table/{game}/move", {"data": {"move": json.dumps(move)}}),
        # the right token, from another site
        (
            mover,
            f"/table/{game}/move",
            {
                "json": {"move": move},
                "headers": {"X-CSRF-Token": mover_csrf, "Sec-Fetch-Site": "cross-site"},
            },
        ),
    ]
    for browser, path, kwargs in attempts:
        answer = browser.post(path, **kwargs)
        assert answer.status_code == 403, (path, answer.status_code)
    # a browser whose cookie another site could not read is refused too
    stranger = app.test_client()
    answer = stranger.post(f"/table/{game}/join", data={"name": "Eve", "csrf": csrf})
    assert answer.status_code == 403
    assert opus(app).recorder.max_notification_id() == head
    assert opus(app).version(UUID(game)) == version
    # and with the token, the same move is made
    made = mover.post(
        f"/table/{game}/move",
        json={"move": move},
        headers={"X-CSRF-Token": mover_csrf, "Accept": "application/json"},
    )
    assert made.status_code == 200, made.json
    assert opus(app).version(UUID(game)) > version


# ---- escaping, what a spectator sees -----------------------------------------------------


def test_a_hostile_name_is_shown_as_text(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    game, _ = create(client, csrf)
    join(client, csrf, game, '<script>alert("x")</script>')
    other = app.test_client()
    position = join(other, csrf_of(other), game, "<img src=x onerror=alert(1)>")
    spectator = app.test_client()
    pages = [
        spectator.get(f"/table/{game}?after={position}"),
        client.get(f"/table/{game}?after={position}"),
        spectator.get("/"),
        spectator.get(f"/table/{game}/log?since=0&after={position}"),
    ]
    for page in pages:
        body = page.get_data(as_text=True)
        assert page.status_code == 200
        assert "<script>alert" not in body and "<img src=x" not in body
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in pages[0].get_data(as_text=True)


def hidden_cards(app: Flask, game: str) -> tuple[set[int], set[int]]:
    """The cards in a hand or the deck now (from the game's state) but those
    the public saw go there (Knowledge, R6.1), and the cards no spectator
    may know (from the recorded events, by the rules: tests/leaks.py)."""
    state = opus(app).state(UUID(game))
    in_hands = {card for hand in state.hands for card in hand}
    known = Knowledge(list(opus(app).repository.event_store.get(UUID(game))))
    return (in_hands | set(state.deck)) - known.public, known.unknown_to_public()


def test_the_spectator_page_of_a_running_game_holds_no_hidden_card(app: Flask) -> None:
    game, seats, position = running_game(app)
    position = play_moves(game, seats, position, 12, seed=5)
    hidden, unknown = hidden_cards(app, game)
    state = opus(app).state(UUID(game))
    assert state.status == "running" and all(state.hands)
    spectator = app.test_client()
    answers = {
        "page": spectator.get(f"/table/{game}?after={position}"),
        "view": spectator.get(f"/table/{game}/view?after={position}"),
        "log": spectator.get(f"/table/{game}/log?since=0&after={position}"),
        "lobby": spectator.get("/"),
    }
    shown: set[int] = set()
    for name, answer in answers.items():
        assert answer.status_code == 200, name
        cards = {int(c) for c in CARD.findall(answer.get_data(as_text=True))}
        assert not cards & hidden, (name, cards & hidden)
        assert not cards & unknown, (name, cards & unknown)
        shown |= cards
    assert shown, "the page shows the public cards"
    # the seats' own pages show their own hands, and never the other's
    for seat, (client, _) in enumerate(seats):
        page = client.get(f"/table/{game}?after={position}").get_data(as_text=True)
        cards = {int(c) for c in CARD.findall(page)}
        assert set(state.hands[seat]) <= cards
        assert not cards & set(state.hands[1 - seat]) & hidden
        assert not cards & set(state.deck)


# ---- moves and refusals --------------------------------------------------------------------


def test_a_refused_move_is_answered_in_words_with_its_rule(app: Flask) -> None:
    game, seats, position = running_game(app)
    view = seats[0][0].get(f"/table/{game}/view?after={position}").get_data(as_text=True)
    turn = int(live_attr(view, "turn"))
    waiting, waiting_csrf = seats[1 - turn]
    state = opus(app).state(UUID(game))
    card = state.hands[1 - turn][0]
    version = opus(app).version(UUID(game))
    out_of_turn = waiting.post(
        f"/table/{game}/move",
        json={"move": {"kind": "discard", "body": {"card": card}}},
        headers={"X-CSRF-Token": waiting_csrf, "Accept": "application/json"},
    )
    assert out_of_turn.status_code == 403  # as the API answers it (api/errors.py status_of)
    assert out_of_turn.json["rule"] == "R3.4"
    assert out_of_turn.json["message"].startswith("Refused by rule R3.4: ")
    mover, mover_csrf = seats[turn]
    not_held = mover.post(  # a card of the other hand
        f"/table/{game}/move",
        data={"csrf": mover_csrf, "move": json.dumps({"kind": "discard", "body": {"card": card}})},
    )
    assert not_held.status_code == 409  # the table again, with why, in words
    words = re.sub(r"<[^>]+>", "", not_held.get_data(as_text=True))  # its rule id is a link
    assert "Refused by rule R4.1" in html.unescape(words)
    stale = mover.post(
        f"/table/{game}/move",
        json={"move": {"kind": "pass", "body": {}}, "version": version - 1},
        headers={"X-CSRF-Token": mover_csrf, "Accept": "application/json"},
    )
    assert stale.status_code == 409
    unknown = mover.post(
        f"/table/{game}/move",
        json={"move": {"kind": "steal", "body": {}}},
        headers={"X-CSRF-Token": mover_csrf, "Accept": "application/json"},
    )
    assert unknown.status_code == 422
    assert opus(app).version(UUID(game)) == version


def test_a_page_move_naming_another_seat_is_made_for_the_cookies_seat_or_refused(
    app: Flask,
) -> None:
    """The seat is the cookie's token's, decided by the service: a move
    whose body (or the move beside it) names the other seat is made for the
    cookie's seat, or refused with nothing recorded; never for the seat it
    names."""
    game, seats, _ = running_game(app)
    game_id = UUID(game)
    turn = opus(app).state(game_id).turn
    (mover, mover_csrf), (waiting, waiting_csrf) = seats[turn], seats[1 - turn]
    json_headers = {"Accept": "application/json"}
    head = opus(app).recorder.max_notification_id()
    state = opus(app).state(game_id)
    stone_free = [c for c in state.hands[turn] if load_catalog().card(c).stone is None]
    theirs = state.hands[turn][0]

    # The seat not in turn names the seat in turn, every way a body could.
    waiting_names_mover = [
        {"move": {"kind": "pass", "body": {}, "player": turn, "seat": turn}, "seat": turn},
        {"move": {"kind": "discard", "body": {"card": theirs}, "player": turn}, "player": turn},
        {"move": {"kind": "discard", "body": {"card": theirs, "player": turn}}},
        {"move": {"kind": "pass", "body": {"seat": turn}}},
    ]
    for body in waiting_names_mover:
        answer = waiting.post(
            f"/table/{game}/move", json=body, headers={"X-CSRF-Token": waiting_csrf, **json_headers}
        )
        assert answer.status_code in (403, 422), (body, answer.json)  # out of turn; unknown field
        assert opus(app).recorder.max_notification_id() == head, body
    form = waiting.post(
        f"/table/{game}/move",
        data={
            "csrf": waiting_csrf,
            "move": json.dumps({"kind": "pass", "body": {}, "player": turn}),
            "player": str(turn),
            "seat": str(turn),
        },
    )
    assert form.status_code == 403
    assert opus(app).recorder.max_notification_id() == head

    # The seat in turn names the other seat: the move is its own.
    made = mover.post(
        f"/table/{game}/move",
        json={
            "move": {"kind": "discard", "body": {"card": stone_free[0]}, "player": 1 - turn},
            "seat": 1 - turn,
        },
        headers={"X-CSRF-Token": mover_csrf, **json_headers},
    )
    assert made.status_code == 200, made.json
    recorded = list(opus(app).repository.event_store.get(game_id))
    discarded = [e for e in recorded if type(e).__name__ == "CardDiscarded"]
    assert [(e.player, e.card) for e in discarded] == [(turn, stone_free[0])]
    assert opus(app).state(game_id).hands[1 - turn] == state.hands[1 - turn]


def test_a_page_move_nested_too_deep_is_refused_not_a_server_error(app: Flask) -> None:
    game, seats, _ = running_game(app)
    client, csrf = seats[0]
    answer = client.post(
        f"/table/{game}/move",
        data=b'{"move": ' + b"[" * 50_000,
        content_type="application/json",
        headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
    )
    assert answer.status_code == 400, answer.get_data(as_text=True)[:200]
    form = client.post(f"/table/{game}/move", data={"csrf": csrf, "move": "[" * 20_000})
    assert form.status_code == 422, form.get_data(as_text=True)[:200]


def test_every_legal_move_is_offered_and_an_assembly_shows_its_components_and_points(
    app: Flask,
) -> None:
    """The page offers exactly the moves the engine allows; an assembly's
    button names each component with where it lies, and the points it will
    score (the recipe's, R4.4)."""
    cards = load_catalog().cards
    for seed in range(20):
        game, seats, position = running_game(app)
        for _ in range(40):
            view = seats[0][0].get(f"/table/{game}/view?after={position}").get_data(as_text=True)
            if live_attr(view, "status") != "running":
                break
            turn = int(live_attr(view, "turn"))
            client, _ = seats[turn]
            page = client.get(f"/table/{game}/view?after={position}").get_data(as_text=True)
            offers = offered(page)
            assert len(offers) == len(opus(app).legal_moves(UUID(game), turn))
            assemblies = re.findall(
                r'<button type="submit" class="move"[^>]*data-kind="assemble".*?</button>',
                page,
                re.S,
            )
            if assemblies:
                button = html.unescape(assemblies[0])
                recipe = json.loads(MOVE.findall(assemblies[0])[0].replace("&#34;", '"'))
                card = recipe["body"]["card"]
                assert f"you score {cards[card].points}" in button
                for component in recipe["body"]["components"]:
                    assert f'data-card="{component["card"]}"' in button
                assert re.search(
                    r"\((cabinet|your table|[^()]+'s table|[^()]+column, stage \d)\)", button
                )
                return
            position = play_moves(game, seats, position, 1, seed)
    pytest.fail("no assembly was offered in 20 games")


BUTTON = re.compile(
    r'<button type="submit" class="move" name="move" value="([^"]+)"(.*?)</button>', re.S
)
GAIN = re.compile(r'<span class="gain">([^<]*)</span>')


def test_each_offer_shows_the_points_the_engine_previews_on_the_game(app: Flask) -> None:
    """The points each offered move shows, judged on what the seat's page
    knows (the views and its hand), are the engine's preview of the move on
    the game itself (R4.1, R4.4, R4.6 and the halves, R8.1)."""
    game, seats, position = running_game(app)
    shown = 0
    for _ in range(80):
        view = seats[0][0].get(f"/table/{game}/view?after={position}").get_data(as_text=True)
        if live_attr(view, "status") != "running":
            break
        turn = int(live_attr(view, "turn"))
        client, csrf = seats[turn]
        page = client.get(f"/table/{game}/view?after={position}").get_data(as_text=True)
        state = opus(app).state(UUID(game))
        best: tuple[int, dict[str, Any]] | None = None
        for value, button in BUTTON.findall(page):
            raw = json.loads(html.unescape(value))
            move = replace(parse_move(raw), player=turn)  # the seat the service would decide
            awards = preview(state, move) if raw["kind"] != "pass" else []
            expected = [words for words, _ in gains_of(awards, turn, state.names, "en")]
            assert [html.unescape(g) for g in GAIN.findall(button)] == expected, raw
            shown += len(expected)
            mine = sum(a.points for a in awards if a.seat == turn)
            if raw["kind"] != "cast" and (best is None or mine > best[0]):
                best = (mine, raw)
        assert best is not None
        answer = client.post(
            f"/table/{game}/move",
            json={"move": best[1], "version": int(live_attr(page, "version"))},
            headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
        )
        assert answer.status_code == 200, answer.json
        position = answer.json["position"]
    assert shown > 0


# ---- languages ------------------------------------------------------------------------------


def test_the_language_follows_accept_language_and_the_switch(app: Flask) -> None:
    game, _, position = running_game(app)
    client = app.test_client()
    russian = client.get(f"/table/{game}?after={position}", headers={"Accept-Language": "ru"})
    body = russian.get_data(as_text=True)
    assert '<html lang="ru">' in body and "Шкаф стихий" in body
    english = client.get(f"/table/{game}", headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert "Elements cabinet" in english.get_data(as_text=True)
    switched = client.get("/lang/ru?next=/replay", headers={"Accept-Language": "en"})
    assert switched.status_code == 303 and switched.headers["Location"] == "/replay"
    again = client.get(f"/table/{game}", headers={"Accept-Language": "en"})
    assert "Шкаф стихий" in again.get_data(as_text=True)
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil", "javascript:x"):
        away = client.get("/lang/en", query_string={"next": target})
        assert away.headers["Location"] == "/"


# ---- the replay -----------------------------------------------------------------------------


def test_uploads_never_push_a_stored_games_replay_out(app: Flask) -> None:
    """Anyone may upload exports: their replays are kept apart, so however
    many are uploaded, a stored game's replay stays made once."""
    stored_cache = ReplayCache(size=2)
    app.extensions["opus_web_replays"] = stored_cache
    try:
        game, _ = play_game(opus(app), 2, "random", random.Random(21))
        client = app.test_client()
        csrf = csrf_of(client)
        assert client.get(f"/replay/{game}/view?step=2").status_code == 200
        for seed in (22, 23, 24):
            other, _ = play_game(opus(app), 2, "random", random.Random(seed))
            export = client.get(f"/games/{other}/export").get_data()
            uploaded = client.post(
                "/replay",
                data={
                    "csrf": csrf,
                    "step": "1",
                    "part": "view",
                    "export": (io.BytesIO(export), "g"),
                },
                content_type="multipart/form-data",
            )
            assert uploaded.status_code == 200

        def made_again() -> Replay:
            raise AssertionError("the stored game's replay was pushed out")

        assert stored_cache.get(("stored", UUID(str(game))), made_again) is not None
    finally:
        app.extensions.pop("opus_web_replays", None)
        app.extensions.pop("opus_web_uploaded_replays", None)


def test_a_replay_from_an_uploaded_export_equals_the_stored_games(app: Flask) -> None:
    game, _ = play_game(opus(app), 3, "greedy", random.Random(11))
    client = app.test_client()
    csrf = csrf_of(client)
    export = client.get(f"/games/{game}/export").get_data()
    total = len(export.splitlines())
    steps = sorted({1, 2, 5, total // 3, total // 2, total - 1, total})
    for n in steps:
        stored = client.get(f"/replay/{game}/view?step={n}")
        uploaded = client.post(
            "/replay",
            data={
                "csrf": csrf,
                "step": str(n),
                "part": "view",
                "export": (io.BytesIO(export), "g"),
            },
            content_type="multipart/form-data",
        )
        assert stored.status_code == uploaded.status_code == 200
        assert stored.get_data(as_text=True) == uploaded.get_data(as_text=True), n
    # the whole pages: the same step, the same verdict
    page = client.get(f"/replay/{game}").get_data(as_text=True)
    upload = client.post(
        "/replay",
        data={"csrf": csrf, "export": (io.BytesIO(export), "g.ndjson")},
        content_type="multipart/form-data",
    ).get_data(as_text=True)
    section = re.compile(r'<div id="replay-step".*</div>\s*</main>', re.S)
    assert section.search(page) and section.search(upload)
    assert section.search(page).group(0) == section.search(upload).group(0)  # type: ignore[union-attr]
    assert "Verified: the hash chain holds" in page and "Verified: the hash chain holds" in upload
    # the last step's scores are the game's, each award linking to its step
    board = client.get(f"/games/{game}/scoreboard", query_string={"after": 10**9})
    final = client.get(f"/replay/{game}/view?step={total}").get_data(as_text=True)
    shown = [int(s) for s in re.findall(r'data-score-seat="\d+">(\d+)<', final)]
    if board.status_code == 200:
        assert shown == [p["points"] for p in board.json["data"]["players"]]
    assert shown == list(opus(app).state(game).scores)
    for award in re.findall(r'href="\?step=(\d+)" data-step="\d+">\+', final):
        assert 1 <= int(award) <= total


def test_a_replay_refuses_what_is_not_a_finished_games_export(app: Flask) -> None:
    game, _, _ = running_game(app)
    client = app.test_client()
    csrf = csrf_of(client)
    running = client.get(f"/games/{game}/export").get_data()
    cases = {
        "running": running,
        "not json": b"hello\n",
        "empty": b"",
        "two games": running + client.get(f"/games/{game}/export").get_data(),
    }
    for name, body in cases.items():
        answer = client.post(
            "/replay",
            data={"csrf": csrf, "export": (io.BytesIO(body), "x.ndjson")},
            content_type="multipart/form-data",
        )
        assert answer.status_code == 422, name
        assert 'role="alert"' in answer.get_data(as_text=True), name
    assert client.get(f"/replay/{game}").status_code == 409  # still running: watch it
    # a forged export replays, and says that it does not verify
    ended, _ = play_game(opus(app), 2, "random", random.Random(4))
    lines = client.get(f"/games/{ended}/export").get_data(as_text=True).splitlines()
    forged = [json.loads(line) for line in lines]
    for line in forged:
        if line["type"] == "PointsAwarded":
            line["payload"]["points"] += 1
            break
    body = "\n".join(json.dumps(line) for line in forged).encode()
    answer = client.post(
        "/replay",
        data={"csrf": csrf, "export": (io.BytesIO(body), "x.ndjson")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 200
    assert "Verification failed" in answer.get_data(as_text=True)


# ---- tournaments ----------------------------------------------------------------------------


def tournament_with_a_round(client: FlaskClient) -> tuple[str, int]:
    created = client.post("/tournaments", json={"name": "Spring <Cup>"})
    assert created.status_code == 201, created.json
    tournament, organiser = created.json["tournament_id"], created.json["organiser_token"]
    for name in ("Ada", "Boris", "Cleo", "Dora"):
        registered = client.post(f"/tournaments/{tournament}/players", json={"name": name})
        assert registered.status_code == 201, registered.json
    paired = client.post(
        f"/tournaments/{tournament}/rounds",
        json={},
        headers={"Authorization": f"Bearer {organiser}"},
    )
    assert paired.status_code == 201, paired.json
    return str(tournament), int(paired.json["position"])


def test_the_tournament_page_shows_standings_and_the_rounds_tables(app: Flask) -> None:
    client = app.test_client()
    tournament, position = tournament_with_a_round(client)
    doc = client.get(f"/tournaments/{tournament}", query_string={"after": position}).json["data"]
    page = client.get(f"/tournament/{tournament}", query_string={"after": position})
    body = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "Spring &lt;Cup&gt;" in body
    for table in doc["rounds_paired"][0]["tables"]:
        assert f'href="/table/{table["game"]}"' in body
    for name in ("Ada", "Boris", "Cleo", "Dora"):
        assert name in body
    assert client.get(f"/tournament/{UUID(int=9)}").status_code == 404


def test_the_lobby_lists_what_the_lobby_query_gives(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    open_game, _ = create(client, csrf)
    running, _, _ = running_game(app)
    ended, _ = play_game(opus(app), 2, "random", random.Random(8))
    head = opus(app).recorder.max_notification_id()
    answer = client.get("/lobby", query_string={"after": head})
    assert answer.status_code == 200, answer.json
    games = answer.json["data"]
    assert open_game in [g["game"] for g in games["open"]]
    assert running in [g["game"] for g in games["running"]]
    assert str(ended) in [g["game"] for g in games["ended"]]
    page = client.get("/", query_string={"after": head}).get_data(as_text=True)
    for kind in ("open", "running", "ended"):
        for game in games[kind]:
            assert f'data-game="{game["game"]}"' in page
    assert f'href="/replay/{ended}"' in page

"""The read side's one lookup of a token's seat (``Queries.seat_of``, the
``seats`` view): the API's ``/hand`` and the web pages find the same seat
by it, a token of no seat finds none, and an unknown game stays a 404."""

from __future__ import annotations

import html
from pathlib import Path
from uuid import UUID

from api.identity import token_hash
from api.web.session import seat_cookie
from projections.rebuild import rebuild
from projections.registry import select
from tests.apps import embedded_app

UNKNOWN = "00000000-0000-4000-8000-000000000000"


def test_the_api_and_the_pages_find_a_tokens_seat_by_one_lookup(tmp_path: Path) -> None:
    app = embedded_app(tmp_path, run_projections=False)
    service = app.extensions["opus"]
    try:
        client = app.test_client()
        game_id = client.post("/games", json={}).json["game_id"]
        names = ["Ada", "Boris"]
        tokens = [
            client.post(f"/games/{game_id}/players", json={"name": name}).json["token"]
            for name in names
        ]
        rebuild(service.views.store, service.opus, select([]))
        views = service.views
        for seat, token in enumerate(tokens):
            assert views.seat_of(game_id, token_hash(token)) == seat
            hand = client.get(
                f"/games/{game_id}/hand", headers={"Authorization": f"Bearer {token}"}
            )
            assert hand.status_code == 200 and hand.json["data"] == []  # not dealt yet
            browser = app.test_client()
            browser.set_cookie(seat_cookie(UUID(game_id)), token)
            page = html.unescape(browser.get(f"/table/{game_id}").get_data(as_text=True))
            assert f"You play as {names[seat]} (seat {seat + 1})." in page
        stranger = token_hash("x" * 43)
        assert views.seat_of(game_id, stranger) is None
        assert views.seat_of(UNKNOWN, token_hash(tokens[0])) is None
        answer = client.get(
            f"/games/{UNKNOWN}/hand", headers={"Authorization": f"Bearer {tokens[0]}"}
        )
        assert answer.status_code == 404
    finally:
        service.close()

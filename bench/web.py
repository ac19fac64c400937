"""The web client's speed (issue 11): a table page's first render, and how
soon a move reaches the other players' pages.

From one run it prints:
- the server time of ``GET /table/<game>`` (the seat's page, by its cookie,
  and the spectator's) for a 6-player game in mid-game, in process with
  Flask's test client on the embedded defaults (aim ≤ 100 ms), beside the
  plain JSON table view of the same game (``GET /games/<game>``) as the
  baseline;
- with ``--tables 20`` games open on the production layout (bench/layout.py:
  gunicorn API, gevent streams, ``opus project``, PostgreSQL, Redis): the
  time from a move's POST until another player's page has it — its event
  stream (the page's ``EventSource``) delivered the event and the page's
  fragment ``/table/<game>/view?after=<position>`` came back, as
  ``static/app.js`` does — p50/p99 over every move (aim p99 ≤ 250 ms).

No browser: the page's two requests are made as it makes them. Run:
``python bench/web.py [--tables 20] [--moves 30] [--renders 200]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.layout import add_arguments, percentile, production
from tests.apps import embedded_app

NAMES = ["Ada", "Boris", "Cleo", "Dora", "Emil", "Fay"]


def report(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{label:<34} p50 {statistics.median(ms):7.1f} ms  p99 {percentile(ms, 0.99):7.1f} ms"


# ---- first render ----------------------------------------------------------------


def first_render(renders: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        app = embedded_app(Path(folder), run_projections=True)
        client = app.test_client()
        tokens = []
        created = client.post("/games", json={})
        game, organiser = created.json["game_id"], created.json["organiser_token"]
        for name in NAMES:
            tokens.append(client.post(f"/games/{game}/players", json={"name": name}).json["token"])
        client.post(f"/games/{game}/start", json={}, headers=bearer(organiser))
        rng = random.Random(6)
        position = 0
        for _ in range(60):  # mid-game: every seat has played ten turns
            legal = seat_in_turn(client, game, tokens)
            if legal is None:
                break
            token, moves = legal
            move = rng.choice(moves)
            position = client.post(move["path"], json=move["body"], headers=bearer(token)).json[
                "position"
            ]
        deadline = time.monotonic() + 30  # every view the page reads has caught up
        while client.get(f"/table/{game}?after={position}").status_code != 200:
            assert time.monotonic() < deadline, "the views did not catch up"
            time.sleep(0.1)
        client.set_cookie(f"opus_seat_{game}", tokens[0])
        seat = timed(lambda: client.get(f"/table/{game}"), renders)
        client.delete_cookie(f"opus_seat_{game}")
        spectator = timed(lambda: client.get(f"/table/{game}"), renders)
        view = timed(lambda: client.get(f"/games/{game}"), renders)
        print(f"first render, 6 players mid-game ({renders} renders each, in process)")
        print("  " + report("GET /table (the seat's page)", seat))
        print("  " + report("GET /table (a spectator's page)", spectator))
        print("  " + report("GET /games/<id> (JSON view, baseline)", view))
        print(
            f"  seat page / JSON view p50: {statistics.median(seat) / statistics.median(view):.1f}x"
        )
        app.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seat_in_turn(client: Any, game: str, tokens: list[str]) -> tuple[str, list[Any]] | None:
    for token in tokens:
        legal = client.get(f"/games/{game}/legal-moves", headers=bearer(token)).json
        if legal["moves"]:
            return token, legal["moves"]
        if legal["reason"] and not legal["reason"].startswith("R3.4"):
            return None  # over
    return None


def timed(call: Any, times: int) -> list[float]:
    out = []
    for _ in range(times):
        started = time.perf_counter()
        answer = call()
        out.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.status_code
    return out


# ---- a move reaching the other pages ---------------------------------------------


class Watcher(threading.Thread):
    """Another player's page, as static/app.js runs it: its event stream
    raises the position it wants; 25 ms after an event (more events in
    between are taken together) it fetches the live fragment
    ``/view?after=<position>``, then the log's new items; a fragment that
    says its view was behind (``data-fresh="false"``) is asked again 200 ms
    later. A position counts as on the page when a fresh fragment at or
    past it has come back."""

    DEBOUNCE = 0.025  # app.js's schedule()
    BEHIND_PAUSE = 0.2  # app.js's wait before asking a behind view again

    def __init__(self, api: str, streams: str, game: str) -> None:
        super().__init__(daemon=True)
        self.api, self.streams, self.game = api, streams, game
        self.seen: dict[int, float] = {}  # position -> when the page had it
        self.ready = threading.Event()
        self.http = requests.Session()
        self.heard: list[int] = []  # positions the stream delivered, not yet on the page
        self.wanted = 0
        self.version = 0  # the log's last version on the page
        self.changed = threading.Condition()

    def run(self) -> None:
        threading.Thread(target=self.listen, daemon=True).start()
        while True:
            with self.changed:
                while self.wanted <= max(self.seen, default=0):
                    self.changed.wait()
            time.sleep(self.DEBOUNCE)
            while True:
                with self.changed:
                    after = self.wanted
                view = self.http.get(f"{self.api}/table/{self.game}/view?after={after}", timeout=30)
                assert view.status_code == 200, view.status_code
                log = self.http.get(
                    f"{self.api}/table/{self.game}/log?since={self.version}&after={after}",
                    timeout=30,
                )
                assert log.status_code == 200, log.status_code
                if 'data-fresh="false"' not in view.text:
                    break
                time.sleep(self.BEHIND_PAUSE)
            now = time.perf_counter()
            with self.changed:
                for position in [p for p in self.heard if p <= after]:
                    self.seen[position] = now
                self.heard = [p for p in self.heard if p > after]
                self.seen.setdefault(after, now)

    def listen(self) -> None:
        with requests.get(
            f"{self.streams}/games/{self.game}/events", stream=True, timeout=300
        ) as r:
            self.ready.set()
            for line in r.iter_lines(decode_unicode=True):
                if not line or not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                with self.changed:
                    self.heard.append(event["position"])
                    self.wanted = max(self.wanted, event["position"])
                    self.version = max(self.version, event["version"] - 1)
                    self.changed.notify()


def live(args: argparse.Namespace) -> None:
    with production(args) as layout:
        http = requests.Session()
        games = []
        for _ in range(args.tables):
            created = http.post(f"{layout.api}/games", json={}).json()
            game = created["game_id"]
            tokens = [
                http.post(f"{layout.api}/games/{game}/players", json={"name": n}).json()["token"]
                for n in NAMES[:2]
            ]
            http.post(
                f"{layout.api}/games/{game}/start",
                json={},
                headers=bearer(created["organiser_token"]),
            )
            games.append((game, tokens))
        watchers = [Watcher(layout.api, layout.streams, g) for g, _ in games]
        for w in watchers:
            w.start()
        for w in watchers:
            w.ready.wait(30)
        time.sleep(1.0)  # the streams have sent their backlog
        rng = random.Random(20)
        sent: list[tuple[Watcher, int, float]] = []
        for _ in range(args.moves):
            for (game, tokens), watcher in zip(games, watchers, strict=True):
                for token in tokens:
                    legal = http.get(
                        f"{layout.api}/games/{game}/legal-moves", headers=bearer(token)
                    ).json()
                    if legal["moves"]:
                        move = rng.choice(legal["moves"])
                        started = time.perf_counter()
                        made = http.post(
                            layout.api + move["path"], json=move["body"], headers=bearer(token)
                        )
                        sent.append((watcher, made.json()["position"], started))
                        break
        time.sleep(2.0)
        delays = [w.seen[p] - t for w, p, t in sent if p in w.seen]
        missing = sum(p not in w.seen for w, p, _ in sent)
        print(f"\n{args.tables} open tables, {len(sent)} moves (production layout)")
        print("  " + report("move -> other page (stream + fragment)", delays))
        print(f"  not seen within 2 s of the last move: {missing}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=30, help="rounds of one move per table")
    parser.add_argument("--renders", type=int, default=200)
    parser.add_argument("--no-live", action="store_true")
    add_arguments(parser)
    args = parser.parse_args(argv)
    first_render(args.renders)
    if not args.no_live:
        live(args)


if __name__ == "__main__":
    main(sys.argv[1:])

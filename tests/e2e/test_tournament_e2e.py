"""A tournament end to end against a real server process (``opus serve``:
SQLite events and views): 13 players over 3 Swiss rounds and a top cut of
three tables (T12: semifinals, then the final), every move posted over
HTTP with its player's token, a drop in a running game, that game called, a
correction and a penalty; then ``opus verify --tournament`` passes on the
live store and on the exported file, and forged exports (chain recomputed)
fail it naming their T rule (TOURNAMENT.md T10.1), the cut's too (T12.2,
T12.4)."""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from domain.audit import Record
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up
from tests.forgery import rechain, rewritten

NAMES = [f"Player {n}" for n in range(1, 14)]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_RATE_LIMIT": "0",
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=tmp_path, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base, env
    finally:
        stop(process)


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = requests.Session()
        self.rng = random.Random(13)

    def post(self, path: str, body: dict[str, Any], token: str = "", status: int = 0) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.http.post(self.base + path, json=body, headers=headers, timeout=30)
        assert answer.status_code in ((status,) if status else (200, 201)), answer.text
        return answer.json()

    def get(self, path: str, token: str = "") -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.http.get(self.base + path, headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def round_(self, tournament: str, number: int, after: int) -> dict[str, Any]:
        return self.get(f"/tournaments/{tournament}/rounds/{number}?after={after}")["data"]  # type: ignore[no-any-return]

    def play(self, game: str, tokens: list[str], after: int, moves: int | None = None) -> int:
        """Moves (all, or up to ``moves``) of a game, each a random one of
        those GET /legal-moves offers the seat in turn; the last position."""
        while moves is None or moves > 0:
            table = self.get(f"/games/{game}?after={after}")["data"]
            if table["status"] != "running":
                return after
            token = tokens[table["turn"]]
            offered = self.get(f"/games/{game}/legal-moves", token)["moves"]
            move = self.rng.choice(offered)
            after = self.post(move["path"], move["body"], token)["position"]
            moves = None if moves is None else moves - 1
        return after


def verify(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [OPUS, "verify", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_a_13_player_tournament_over_http_verifies_and_forgeries_name_their_rule(
    server: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, env = server
    client = Client(base)
    created = client.post("/tournaments", {"name": "Autumn Open", "rounds": 3, "cut": 3})
    tournament, organiser = created["tournament_id"], created["organiser_token"]
    tokens: dict[int, str] = {}
    for name in NAMES:
        registered = client.post(f"/tournaments/{tournament}/players", {"name": name})
        tokens[registered["player"]] = registered["token"]
    after = 0
    for number in (1, 2, 3):
        paired = client.post(f"/tournaments/{tournament}/rounds", {}, organiser)
        assert paired["round"] == number
        round_ = client.round_(tournament, number, paired["position"])
        # T3.1: 13 → 5+4+4; after the drop in round 2, 12 → 4+4+4
        expected = [4, 4, 5] if number < 3 else [4, 4, 4]
        assert sorted(len(t["players"]) for t in round_["tables"]) == expected
        tables = round_["tables"]
        if number == 2:  # a drop in a running game, then that game is called
            first = tables[0]
            seat_tokens = [tokens[p] for p in first["players"]]
            after = client.play(first["game"], seat_tokens, paired["position"], moves=3)
            leaver = first["players"][1]
            client.post(f"/tournaments/{tournament}/drop", {"player": leaver}, tokens[leaver])
            called = client.post(
                f"/tournaments/{tournament}/games/{first['game']}/call",
                {"by": "arbiter"},
                organiser,
            )
            after = called["position"]
        for table in tables:
            seat_tokens = [tokens[p] for p in table["players"]]
            after = client.play(table["game"], seat_tokens, max(after, paired["position"]))
        if number == 1:
            game = tables[0]["game"]
            seats = len(tables[0]["players"])
            correction = f"/tournaments/{tournament}/corrections"
            not_a_ranking = {"game": game, "places": [1, 2, 2] + [3] * (seats - 3)}
            client.post(correction, {**not_a_ranking, "reason": "r", "by": "a"}, organiser, 409)
            shared = {"game": game, "places": [1] * seats, "reason": "a tie", "by": "arbiter"}
            client.post(correction, shared, organiser)
            client.post(
                f"/tournaments/{tournament}/penalties",
                {"player": 3, "points": "1/2", "reason": "late", "by": "arbiter"},
                organiser,
            )
    # T12: after the Swiss rounds the pairing command pairs the cut: the
    # twelve active players in three semifinal tables of four (T12.1), seats
    # by seed (T12.2); then the three winners' final (T12.3)
    for number, shape in ((4, [4, 4, 4]), (5, [3])):
        paired = client.post(f"/tournaments/{tournament}/rounds", {}, organiser)
        assert paired["round"] == number
        round_ = client.round_(tournament, number, paired["position"])
        assert round_["procedure"] == "cut" and round_["byes"] == []
        assert [len(t["players"]) for t in round_["tables"]] == shape
        assert all(t["seeds"] == sorted(t["seeds"]) for t in round_["tables"])
        for table in round_["tables"]:
            seat_tokens = [tokens[p] for p in table["players"]]
            after = client.play(table["game"], seat_tokens, max(after, paired["position"]))
    over = client.post(f"/tournaments/{tournament}/rounds", {}, organiser, 409)
    assert over["rule"] == "T12.2"
    finished = client.post(f"/tournaments/{tournament}/finish", {}, organiser)
    doc = client.get(f"/tournaments/{tournament}?after={finished['position']}")["data"]
    ranking = doc["finished"]["ranking"]
    assert [row["reached"] for row in ranking] == ["final"] * 3 + ["semifinal"] * 9 + ["swiss"]
    assert [(r["round"], r["stage"]) for r in doc["rounds_paired"][3:]] == [
        (4, "semifinal"),
        (5, "final"),
    ]
    assert doc["status"] == "finished" and doc["secret"]
    assert [p["dropped"] for p in doc["players"]].count(True) == 1
    assert {c["type"] for c in doc["corrections"]} == {"ResultCorrected", "PenaltyGiven"}
    called_game = doc["rounds_paired"][1]["tables"][0]["game"]
    log = client.get(f"/games/{called_game}/log")["data"]
    assert any("called the game" in entry["text"] for entry in log)
    standings = client.get(f"/tournaments/{tournament}/standings")["data"]
    assert standings["digest"] == doc["finished"]["standings"]
    assert [row["rank"] for row in standings["rows"]] == list(range(1, 14))

    live = verify(env, "--tournament", tournament)
    assert live.returncode == 0, live.stdout + live.stderr
    export = tmp_path / "export.ndjson"
    export.write_text(requests.get(f"{base}/tournaments/{tournament}/export", timeout=30).text)
    from_file = verify(env, "--tournament", tournament, "--file", str(export))
    assert from_file.returncode == 0, from_file.stdout + from_file.stderr

    records = [Record.from_line(json.loads(line)) for line in export.read_text().splitlines()]
    own = [r for r in records if r.aggregate_id == tournament]
    games = [r for r in records if r.aggregate_id != tournament]
    reasons = {(r.type, (r.payload or {}).get("reason")) for r in own}
    assert {("ResultCorrected", "a tie"), ("PenaltyGiven", "late")} <= reasons  # T7.3

    def forged(name: str, tournament_records: list[Record], game_records: list[Record]) -> str:
        path = tmp_path / f"{name}.ndjson"
        path.write_text("".join(r.line() + "\n" for r in tournament_records + game_records))
        result = verify(env, "--tournament", tournament, "--file", str(path))
        assert result.returncode == 1, result.stdout
        return result.stdout + result.stderr

    paired_two = next(r for r in own if r.type == "RoundPaired" and (r.payload or {})["round"] == 2)

    def swap(payload: dict[str, Any]) -> None:
        a, b = payload["tables"][0]["players"], payload["tables"][1]["players"]
        a[0], b[0] = b[0], a[0]

    assert "T4.2" in forged("pairing", rewritten(own, paired_two.version, swap), games)
    closed = next(r for r in own if r.type == "RoundClosed")
    digest = rewritten(own, closed.version, lambda p: p.update(standings="0" * 64))
    assert "T9.1" in forged("standings", digest, games)
    cut_game = doc["rounds_paired"][2]["tables"][1]["game"]
    cut = [r for r in games if r.aggregate_id != cut_game] + rechain(
        [r for r in games if r.aggregate_id == cut_game][:-3]
    )
    assert "T9.2" in forged("cut", own, cut)
    semis = next(r for r in own if r.type == "RoundPaired" and (r.payload or {})["round"] == 4)

    def reseed(payload: dict[str, Any]) -> None:
        first = payload["tables"][0]["players"]
        first[0], first[1] = first[1], first[0]

    assert "T12.2" in forged("seeds", rewritten(own, semis.version, reseed), games)
    finish = next(r for r in own if r.type == "TournamentFinished")

    def reorder(payload: dict[str, Any]) -> None:
        rows = payload["ranking"]
        rows[0]["player"], rows[1]["player"] = rows[1]["player"], rows[0]["player"]

    assert "T12.4" in forged("ranking", rewritten(own, finish.version, reorder), games)

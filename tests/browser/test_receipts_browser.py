"""Receipts in the browser: the table page keeps its game's latest
checkpoint in localStorage and checks each new one (the service's Ed25519
signature through WebCrypto, a consistency proof from the kept size); a
contradiction is shown at once as an alert, with both signed checkpoints
kept; the browser's own unreadable value is told apart. Debian's Chromium
through Playwright, against ``opus serve`` on a temporary store (the
fixtures of test_web_client.py)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from domain.transparency.formats import Checkpoint, SignedCheckpoint
from domain.transparency.merkle import leaf_hash
from domain.transparency.note import Signer
from tests.browser.test_web_client import browser, screenshot  # noqa: F401  (fixtures)
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up

pytestmark = pytest.mark.browser
WAIT_MS = 20_000


@dataclass
class Served:
    base: str
    key: Signer


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("receipts-browser")
    key = Signer.generate("opus.browser")
    (folder / "receipts.key").write_text(key.to_text())
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(folder / "events.db"),
        "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
        "OPUS_RECEIPTS_KEY_FILE": str(folder / "receipts.key"),
        "OPUS_BOTS": "0",
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=folder, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield Served(base, key)
    finally:
        stop(process)


def new_game(base: str) -> tuple[str, list[str]]:
    created = requests.post(f"{base}/games", json={}, timeout=10).json()
    game = created["game_id"]
    tokens = [
        requests.post(f"{base}/games/{game}/players", json={"name": n}, timeout=10).json()["token"]
        for n in ("Ada", "Boris")
    ]
    requests.post(
        f"{base}/games/{game}/start",
        headers={"Authorization": f"Bearer {created['organiser_token']}"},
        timeout=10,
    ).raise_for_status()
    return game, tokens


def move(base: str, game: str, tokens: list[str]) -> int:
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        legal = requests.get(f"{base}/games/{game}/legal-moves", headers=auth, timeout=10).json()
        if legal["moves"]:
            chosen = legal["moves"][0]
            answer = requests.post(
                base + chosen["path"], json=chosen["body"], headers=auth, timeout=10
            )
            answer.raise_for_status()
            return int(answer.json()["version"])
    raise AssertionError("no seat could move")


def state_is(page, state: str, text: str = "") -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "([state, text]) => { const p = document.getElementById('receipts');"
        " return p && p.dataset.state === state && p.textContent.includes(text); }",
        arg=[state, text],
        timeout=WAIT_MS,
    )


def test_the_page_checks_each_checkpoint_and_shows_a_fork(served: Served, browser) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    game, tokens = new_game(served.base)
    context = browser.new_context()
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{served.base}/table/{game}")
    state_is(page, "ok", "Log checked: ")
    kept = page.evaluate(f"localStorage.getItem('opus.receipts.v1:{game}')")
    assert SignedCheckpoint.parse(kept).checkpoint.origin == f"opus.browser/{game}"
    # moves made elsewhere: each new checkpoint heard on the stream is checked
    version = move(served.base, game, tokens)
    version = max(version, move(served.base, game, tokens))
    state_is(page, "ok", f"Log checked: {version} events")
    assert page.get_attribute("#receipts", "role") == "status"
    screenshot(page, "receipts-ok")

    # the browser saw another tree of this size, signed by the service: a fork
    kept = SignedCheckpoint.parse(page.evaluate(f"localStorage.getItem('opus.receipts.v1:{game}')"))
    other = Checkpoint(kept.checkpoint.origin, kept.checkpoint.size, leaf_hash(b"another log"))
    forged = served.key.sign_note(other.text()).encode()
    page.evaluate(f"localStorage.setItem('opus.receipts.v1:{game}', {forged!r})")
    page.reload()
    state_is(page, "failed", "contradicts what this browser saw")
    assert page.get_attribute("#receipts", "role") == "alert"
    assert page.is_visible("#receipts")
    evidence = page.evaluate(f"localStorage.getItem('opus.receipts.v1:{game}:evidence')")
    assert forged in json.loads(evidence)  # both signed checkpoints kept
    screenshot(page, "receipts-fork")

    # this browser's own value unreadable: said so, replaced, no alarm
    page.evaluate(f"localStorage.setItem('opus.receipts.v1:{game}', 'garbage')")
    page.reload()
    state_is(page, "corrupt", "this browser's storage, not the service")
    page.reload()
    state_is(page, "ok", "Log checked: ")

    # a checkpoint signed with another key (the retired key, a stranger's): refused
    stranger = Signer.generate("opus.browser")
    point = Checkpoint(f"opus.browser/{game}", version + 5, leaf_hash(b"x"))
    note = stranger.sign_note(point.text()).encode()
    page.evaluate(
        "note => document.dispatchEvent(new CustomEvent('opus:checkpoint', {detail: "
        f"JSON.stringify({{aggregate_id: '{game}', checkpoint: note, version: 0}})}}))",
        note,
    )
    state_is(page, "failed", "not signed by the service's key")
    assert not errors, errors
    context.close()

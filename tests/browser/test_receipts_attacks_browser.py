"""The operator's attacks on the table page's receipts check (issue 35, the
web page's column), each driven with the real processes: ``opus witness``,
and ``opus serve`` stopped and started again on the same port (one page
origin) over another store or with another key, as an operator with the
database and the key file could. Each must show the alarm (role=alert) with
its signed statements kept under a key of their own and the kept
checkpoint never overwritten; a missing witness's word or a stale one is a
warning; a key change the old key signed is taken quietly."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from domain.transparency.formats import SignedCheckpoint
from tests.browser.receipts_stack import (
    Stack,
    evidence,
    kept,
    move,
    new_game,
    stack,
    start_witness,
    state_is,
    version_of,
)
from tests.browser.test_web_client import browser, screenshot  # noqa: F401  (fixtures)
from tests.e2e.test_full_game_http import OPUS, stop

pytestmark = pytest.mark.browser


@pytest.fixture
def made(tmp_path: Path) -> Iterator[Stack]:
    with stack(tmp_path) as (made, _key):
        yield made


def visit(browser: Any, made: Stack, game: str) -> Any:  # noqa: F811
    """A person's browser (a context of its own) on the game's table page."""
    page = browser.new_context().new_page()
    page.goto(f"{made.base}/table/{game}")
    return page


def alarm_kept(page: Any, kind: str | tuple[str, ...], words: str) -> dict[str, Any]:
    """The alarm shown (role=alert) and its evidence record of ``kind`` (or
    of one of the kinds)."""
    state_is(page, "failed", words)
    assert page.get_attribute("#receipts", "role") == "alert"
    assert page.is_visible("#receipts")
    kinds = (kind,) if isinstance(kind, str) else kind
    records = [r for r in evidence(page) if r["kind"] in kinds]
    assert records, [r["kind"] for r in evidence(page)]
    return records[0]


def test_a_fork_shown_to_two_players_is_refused_by_the_witness_and_told_to_both(
    made: Stack,
    browser: Any,  # noqa: F811
) -> None:
    """Two servers with one key over two copies of a store: the first shows
    Ada's browser one move, the second (the same address, restarted) shows a
    new player another move in its place. The witness cosigned the
    first; the second player's page gossips with it and raises the fork, and
    Ada's page, back on the second server, raises it too."""
    made.serve("store-a", "key-a/receipts.key")
    game, tokens = new_game(made.base)
    made.halt()
    made.copy_store("store-a", "store-b")
    made.copy_key("key-a/receipts.key", "key-b/receipts.key")
    made.serve("store-a", "key-a/receipts.key")
    version = move(made.base, game, tokens, 0)
    made.witnessed(game, version)
    ada = visit(browser, made, game)
    state_is(ada, "ok", "Checked against 1 of 1 witnesses")
    seen_by_ada = kept(ada, game)

    made.serve("store-b", "key-b/receipts.key")  # the same port: the same page origin
    move(made.base, game, tokens, -1)  # another move in its place
    time.sleep(1.5)  # the second server's publisher: the witness refuses it
    boris = visit(browser, made, game)
    # the witness holds another tree: the page finds it contradicts what it
    # was shown (witness-fork), or the witness refuses it when sent (witness-refused)
    record = alarm_kept(
        boris, ("witness-fork", "witness-refused"), "The service shows different players"
    )
    ours = SignedCheckpoint.parse(record["statements"][0]).checkpoint
    assert ours.origin == "opus.browser"  # the global checkpoint Boris was shown, signed
    screenshot(boris, "receipts-witness-fork")

    ada.reload()
    # the other move made the log longer, as long, or shorter than Ada's:
    # a fork or a rollback, each a contradiction with what she kept
    state_is(ada, "failed", "Both signed checkpoints are kept in this browser as evidence")
    assert kept(ada, game) == seen_by_ada  # the evidence is never overwritten
    (record,) = [r for r in evidence(ada) if r["kind"] in ("fork", "rollback")]
    assert seen_by_ada in record["statements"]


@pytest.mark.parametrize("name", ["opus.browser", "opus.elsewhere"], ids=["same-name", "new-name"])
def test_a_new_key_without_the_old_keys_word_is_an_alarm_with_both_kept(
    made: Stack,
    browser: Any,  # noqa: F811
    name: str,
) -> None:
    """The operator makes a new key (under the same name, or a new one) and
    rewrites the game's history from a copy of the store: the page kept a
    checkpoint signed by the key it pinned, which it keeps, and says the key
    changed in silence (it said "storage corrupt … replaced" before)."""
    made.serve("store-a", "key-a/receipts.key")
    game, tokens = new_game(made.base)
    made.halt()
    made.copy_store("store-a", "store-b")
    made.serve("store-a", "key-a/receipts.key")
    version = move(made.base, game, tokens, 0)
    made.witnessed(game, version)
    page = visit(browser, made, game)
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    seen = kept(page, game)

    new_key = made.key(name, "key-b/receipts.key")
    made.serve("store-b", "key-b/receipts.key")
    move(made.base, game, tokens, -1)  # the history rewritten under the new key
    page.reload()
    record = alarm_kept(page, "key-changed", "the old key did not sign the change")
    assert seen in record["statements"]
    assert new_key.vkey() in record["statements"]
    assert any(
        s.startswith(f"{name}/{game}\n") for s in record["statements"]
    )  # the new key's checkpoint
    assert kept(page, game) == seen
    trust = json.loads(page.evaluate("localStorage.getItem('opus.receipts.v1:trust')"))
    assert trust["vkey"] != new_key.vkey()  # the pin stays
    screenshot(page, f"receipts-key-changed-{name}")
    page.reload()  # and on every later visit the evidence is shown again
    state_is(page, "failed", "This browser keeps evidence from")


def test_a_key_change_signed_by_the_old_key_is_taken(made: Stack, browser: Any) -> None:  # noqa: F811
    """``opus receipts rotate`` signs the transition with both keys: the
    page follows it to the new key, and the game's history it kept stays
    checked across the change (no alarm)."""
    made.serve("store-a", "key-a/receipts.key")
    game, tokens = new_game(made.base)
    made.witnessed(game, version_of(made.base, game))
    page = visit(browser, made, game)
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    made.halt()
    new_key = made.key("opus.browser", "key-a/new.key")
    transitions = made.folder / "key-a" / "receipts-transitions.json"
    subprocess.run(
        [
            *(OPUS, "receipts", "rotate"),
            *("--old", str(made.folder / "key-a" / "receipts.key")),
            *("--new", str(made.folder / "key-a" / "new.key")),
            *("--transitions", str(transitions)),
        ],
        check=True,
        timeout=60,
        capture_output=True,
    )
    assert made.witness is not None
    old_vkey = json.loads(page.evaluate("localStorage.getItem('opus.receipts.v1:trust')"))["vkey"]
    stop(made.witness.process)  # type: ignore[arg-type]
    made.witness = start_witness(
        made.folder / "witness",
        int(made.witness.url.rsplit(":", 1)[1]),
        new_key.vkey(),
        transitions=transitions,
    )
    made.serve("store-a", "key-a/new.key", OPUS_RECEIPTS_TRANSITIONS=str(transitions))
    version = move(made.base, game, tokens)
    made.witnessed(game, version)
    page.reload()
    state_is(page, "ok", "its old key")
    state_is(page, "ok", f"Log checked: {version} events")
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    trust = json.loads(page.evaluate("localStorage.getItem('opus.receipts.v1:trust')"))
    assert trust["vkey"] == new_key.vkey() and trust["previous"] == [old_vkey]
    assert not evidence(page)


@pytest.mark.parametrize("copy_at", ["before-the-game", "before-the-moves"])
def test_a_truncated_log_is_an_alarm_with_the_evidence_kept(
    made: Stack,
    browser: Any,  # noqa: F811
    copy_at: str,
) -> None:
    """The operator serves a copy of the store from before the game (the
    service answers 404 for it) or from before its moves (a shorter log)."""
    made.serve("store-a", "key-a/receipts.key")
    if copy_at == "before-the-game":
        made.halt()
        made.copy_store("store-a", "store-b")
        made.serve("store-a", "key-a/receipts.key")
    game, tokens = new_game(made.base)
    if copy_at == "before-the-moves":
        made.halt()
        made.copy_store("store-a", "store-b")
        made.serve("store-a", "key-a/receipts.key")
    move(made.base, game, tokens)
    version = move(made.base, game, tokens)
    made.witnessed(game, version)
    page = visit(browser, made, game)
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    seen = kept(page, game)

    made.copy_key("key-a/receipts.key", "key-b/receipts.key")
    made.serve("store-b", "key-b/receipts.key")
    page.reload()
    if copy_at == "before-the-game":
        assert (
            requests.get(f"{made.base}/receipts/logs/{game}/checkpoint", timeout=10).status_code
            == 404
        )
        record = alarm_kept(page, "vanished", "does not exist")
    else:
        record = alarm_kept(page, "rollback", "a log only grows")
    assert seen in record["statements"]
    assert kept(page, game) == seen
    screenshot(page, f"receipts-truncated-{copy_at}")


def test_an_old_word_of_the_witnesses_is_a_warning(made: Stack, browser: Any) -> None:  # noqa: F811
    """A checkpoint the witnesses vouched for longer ago than the bound this
    browser allows (here set to a second) is a warning naming the time, not
    an ok; within the bound it is ok."""
    made.serve("store-a", "key-a/receipts.key")
    game, _tokens = new_game(made.base)
    made.witnessed(game, version_of(made.base, game))
    page = visit(browser, made, game)
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    page.evaluate(
        "() => { const t = JSON.parse(localStorage.getItem('opus.receipts.v1:trust'));"
        " t.fresh_minutes = 1 / 60; localStorage.setItem('opus.receipts.v1:trust',"
        " JSON.stringify(t)); }"
    )
    time.sleep(2)
    page.reload()
    state_is(page, "warning", "the service may be showing an old state")
    assert page.get_attribute("#receipts", "role") == "status"
    assert not evidence(page)


def test_a_missing_witness_is_a_warning_not_an_ok(made: Stack, browser: Any) -> None:  # noqa: F811
    """The witness is stopped before the service's checkpoint of the game
    is cosigned: the page says only the service vouches, never ok."""
    made.serve("store-a", "key-a/receipts.key")
    assert made.witness is not None
    stop(made.witness.process)  # type: ignore[arg-type]
    game, _tokens = new_game(made.base)
    page = visit(browser, made, game)
    state_is(page, "warning", "only 0 of the 1 witnesses")
    assert "could not be asked" in page.inner_text("#receipts")
    screenshot(page, "receipts-unwitnessed")

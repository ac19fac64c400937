"""Receipts in the browser: the table page keeps its game's latest
checkpoint in localStorage and checks each new one (the service's Ed25519
signature through WebCrypto, a consistency proof from the kept size), proves
the game's head in the global log cosigned by the witness it trusts (pinned
at first use and shown), and shows a contradiction at once as an alert,
both signed checkpoints kept as evidence under a key of their own; the
browser's own unreadable value is told apart. Debian's Chromium through
Playwright, against ``opus serve`` and ``opus witness`` (tests/browser/
receipts_stack.py). The operator's attacks are test_receipts_attacks_browser.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.transparency.formats import Checkpoint, SignedCheckpoint
from domain.transparency.merkle import leaf_hash
from domain.transparency.note import Signer
from tests.browser.receipts_stack import Stack, evidence, kept, move, new_game, stack, state_is
from tests.browser.test_web_client import browser, screenshot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Signer]]:
    with stack(Path(tmp_path_factory.mktemp("receipts-browser"))) as (made, key):
        made.serve("store", "key-a/receipts.key")
        yield made, key


def test_the_page_checks_each_checkpoint_and_shows_a_fork(served, browser) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    made, key = served
    assert made.witness is not None
    game, tokens = new_game(made.base)
    context = browser.new_context()
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{made.base}/table/{game}")
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    point = SignedCheckpoint.parse(kept(page, game) or "")
    assert point.checkpoint.origin == f"opus.browser/{game}"
    # the trust pinned at first use, shown with the keys' ids
    trust = json.loads(page.evaluate("localStorage.getItem('opus.receipts.v1:trust')"))
    assert trust["vkey"] == key.vkey() and trust["quorum"] == 1
    assert [w["vkey"] for w in trust["witnesses"]] == [made.witness.vkey]
    shown = page.text_content("#receipts-trust") or ""
    assert key.key_id.hex() in shown and made.witness.vkey.split("+")[1] in shown
    # the game's checkpoints are signed under its origin as the key's name
    # (C2SP); one kept from before, under the key's plain name, still holds
    assert point.note.signatures[0].name == f"opus.browser/{game}"
    plain = key.sign_note(point.checkpoint.text()).encode()
    page.evaluate(f"localStorage.setItem('opus.receipts.v1:{game}', {plain!r})")
    page.reload()
    state_is(page, "ok", "consistent with what this browser saw before")
    assert not evidence(page)
    # moves made elsewhere: each new checkpoint heard on the stream is checked
    version = move(made.base, game, tokens)
    version = max(version, move(made.base, game, tokens))
    state_is(page, "ok", f"Log checked: {version} events")
    state_is(page, "ok", "Checked against 1 of 1 witnesses")
    assert page.get_attribute("#receipts", "role") == "status"
    screenshot(page, "receipts-ok")

    # the browser saw another tree of this size, signed by the service: a fork
    before = SignedCheckpoint.parse(kept(page, game) or "")
    other = Checkpoint(before.checkpoint.origin, before.checkpoint.size, leaf_hash(b"another"))
    forged = key.sign_note(other.text()).encode()
    page.evaluate(f"localStorage.setItem('opus.receipts.v1:{game}', {forged!r})")
    page.reload()
    state_is(page, "failed", "contradicts what this browser saw")
    assert page.get_attribute("#receipts", "role") == "alert"
    assert page.is_visible("#receipts")
    (record,) = evidence(page)
    assert record["kind"] == "fork" and forged in record["statements"]  # both kept
    assert kept(page, game) == forged  # never overwritten
    screenshot(page, "receipts-fork")

    # this browser's own value unreadable: said so, set aside, no alarm of its own
    context.close()
    context = browser.new_context()
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{made.base}/table/{game}")
    state_is(page, "ok", "Log checked: ")
    page.evaluate(f"localStorage.setItem('opus.receipts.v1:{game}', 'garbage')")
    page.reload()
    state_is(page, "corrupt", "this browser's storage, not the service")
    assert not evidence(page)
    page.reload()
    state_is(page, "ok", "Log checked: ")

    # a checkpoint signed with another key (a stranger's): refused, kept
    stranger = Signer.generate("opus.browser")
    point = Checkpoint(f"opus.browser/{game}", version + 5, leaf_hash(b"x"))
    note = stranger.sign_note(point.text()).encode()
    page.evaluate(
        "note => document.dispatchEvent(new CustomEvent('opus:checkpoint', {detail: "
        f"JSON.stringify({{aggregate_id: '{game}', checkpoint: note, version: 0}})}}))",
        note,
    )
    state_is(page, "failed", "not signed by the service's key")
    assert any(note in r["statements"] for r in evidence(page))
    assert not errors, errors
    context.close()


def test_the_page_in_russian_says_it_in_russian(served, browser) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    made, _ = served
    game, _tokens = new_game(made.base)
    context = browser.new_context(locale="ru-RU", extra_http_headers={"Accept-Language": "ru"})
    page = context.new_page()
    page.goto(f"{made.base}/table/{game}")
    state_is(page, "ok", "Проверено свидетелями: 1 из 1")
    assert "Журнал проверен" in page.inner_text("#receipts")
    context.close()

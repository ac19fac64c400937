"""The real processes the table page's receipts check is tested against: a
witness (``opus witness``) and ``opus serve`` on a SQLite store of its own,
started, stopped and started again on another store (or with another key)
on the same port, so one page origin is shown what an operator would show
it. And what the tests ask the page: its receipts state, its evidence."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from domain.transparency.note import Signer, Verifier, open_note
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up

WAIT_MS = 30_000
EVIDENCE = "opus.receipts.v1:evidence:"


@dataclass
class Witness:
    url: str
    vkey: str
    process: subprocess.Popen[str]


def start_witness(folder: Path, port: int, *logs: str, transitions: Path | None = None) -> Witness:
    """``opus witness`` following the logs of the vkeys ``logs`` (a new key
    by the service's key ``transitions``), its store and key in ``folder``
    (kept across restarts)."""
    args = [OPUS, "witness", "--store", str(folder / "store"), "--key", str(folder / "key")]
    args += ["--name", "witness.browser", "--port", str(port)]
    for vkey in logs:
        args += ["--log", vkey]
    if transitions is not None:
        args += ["--transitions", str(transitions)]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = ""
    while not line.startswith("witness "):  # what it pinned, then "witness <vkey> on <url>"
        line = process.stdout.readline()
        assert line, "the witness exited"
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if requests.get(url + "/", timeout=2).status_code == 200:
                return Witness(url, line.split()[1], process)
        except requests.RequestException:
            time.sleep(0.05)
    stop(process)  # type: ignore[arg-type]
    raise AssertionError("the witness did not come up")


@dataclass
class Stack:
    """One page origin (``base``) served by one ``opus serve`` at a time."""

    folder: Path
    port: int = field(default_factory=free_port)
    witness: Witness | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def key(self, name: str, file: str) -> Signer:
        """A new signing key, written to ``file`` in this stack's folder."""
        signer = Signer.generate(name)
        path = self.folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(signer.to_text())
        return signer

    def serve(self, store: str, key_file: str, **settings: str) -> None:
        """``opus serve`` on the store folder ``store`` with the key in
        ``key_file`` (each server a folder of its own for it: what it keeps
        beside its key is its own), the witness named when there is one."""
        self.halt()
        where = self.folder / store
        where.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(where / "events.db"),
            "OPUS_VIEWS_DBNAME": str(where / "views.db"),
            "OPUS_RECEIPTS_KEY_FILE": str(self.folder / key_file),
            "OPUS_RECEIPTS_INTERVAL": "0.2",
            "OPUS_BOTS": "0",
            **settings,
        }
        if self.witness is not None:
            env["OPUS_RECEIPTS_WITNESSES"] = f"{self.witness.url} {self.witness.vkey}"
        env.pop("REDIS_URL", None)
        self.process = subprocess.Popen(
            [OPUS, "serve", "--port", str(self.port)], cwd=where, env=env
        )
        wait_until_up(self.base, self.process)

    def halt(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def copy_key(self, source: str, target: str) -> None:
        """The operator's copy of a key file in another folder: a server
        there keeps none of what the first keeps beside it (the checkpoints
        it signed), as an operator copying the key alone would."""
        path = self.folder / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((self.folder / source).read_text())

    def copy_store(self, source: str, target: str) -> None:
        """The operator's copy of a store, taken while no server runs on it."""
        assert self.process is None, "a store is copied with its server stopped"
        shutil.copytree(self.folder / source, self.folder / target)

    def close(self) -> None:
        self.halt()
        if self.witness is not None:
            stop(self.witness.process)  # type: ignore[arg-type]

    def witnessed(self, game: str, version: int) -> None:
        """Wait until the witness cosigned a global checkpoint holding the
        game's head at ``version`` (the publisher's round, then the witness's)."""
        assert self.witness is not None
        cosigner = Verifier.from_vkey(self.witness.vkey)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = requests.get(
                f"{self.base}/receipts/inclusion",
                params={"aggregate_id": game, "version": version},
                timeout=5,
            )
            if found.ok:
                try:
                    open_note(found.json()["checkpoint"], [cosigner])
                    return
                except ValueError:
                    pass
            time.sleep(0.1)
        raise AssertionError(f"the witness did not cosign {game} at version {version}")


@contextmanager
def stack(folder: Path, name: str = "opus.browser") -> Iterator[tuple[Stack, Signer]]:
    """A stack with a witness following a new key ``name`` (in ``key-a/``)."""
    made = Stack(folder)
    key = made.key(name, "key-a/receipts.key")
    made.witness = start_witness(folder / "witness", free_port(), key.vkey())
    try:
        yield made, key
    finally:
        made.close()


# ---- games ------------------------------------------------------------------------------


def new_game(base: str, names: tuple[str, ...] = ("Ada", "Boris")) -> tuple[str, list[str]]:
    created = requests.post(f"{base}/games", json={}, timeout=10).json()
    game = created["game_id"]
    tokens = [
        requests.post(f"{base}/games/{game}/players", json={"name": n}, timeout=10).json()["token"]
        for n in names
    ]
    requests.post(
        f"{base}/games/{game}/start",
        headers={"Authorization": f"Bearer {created['organiser_token']}"},
        timeout=10,
    ).raise_for_status()
    deadline = time.monotonic() + 20
    while requests.get(f"{base}/table/{game}", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "the table page was not projected in 20 s"
        time.sleep(0.1)
    return game, tokens


def move(base: str, game: str, tokens: list[str], choice: int = 0) -> int:
    """The seat whose turn it is makes its legal move number ``choice`` (-1:
    its last); the game's version after it."""
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        legal = requests.get(f"{base}/games/{game}/legal-moves", headers=auth, timeout=10).json()
        if legal["moves"]:
            chosen = legal["moves"][choice]
            answer = requests.post(
                base + chosen["path"], json=chosen["body"], headers=auth, timeout=10
            )
            answer.raise_for_status()
            return int(answer.json()["version"])
    raise AssertionError("no seat could move")


def version_of(base: str, game: str) -> int:
    note = requests.get(f"{base}/receipts/logs/{game}/checkpoint", timeout=10).text
    return int(note.split("\n")[1])


# ---- the page ---------------------------------------------------------------------------


def state_is(page: Any, state: str, text: str = "") -> None:
    """Wait until the page's receipts check shows ``state`` with ``text``."""
    page.wait_for_function(
        "([state, text]) => { const p = document.getElementById('receipts');"
        " return p && p.dataset.state === state && p.textContent.includes(text); }",
        arg=[state, text],
        timeout=WAIT_MS,
    )


def evidence(page: Any) -> list[dict[str, Any]]:
    """The evidence records this browser keeps, oldest first."""
    records = page.evaluate(
        f"Object.keys(localStorage).filter((k) => k.startsWith('{EVIDENCE}')).sort()"
        ".map((k) => localStorage.getItem(k))"
    )
    return [json.loads(r) for r in records]


def kept(page: Any, game: str) -> str | None:
    value: str | None = page.evaluate(f"localStorage.getItem('opus.receipts.v1:{game}')")
    return value

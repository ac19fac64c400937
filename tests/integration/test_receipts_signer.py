"""The signer never signs two histories (issue 35, item 3), tried as an
operator with database access would: ``opus serve`` (a real process) signs
a game's and the global log's checkpoints; stopped, its event store is
edited (an event's chain value rewritten, in SQLite and in PostgreSQL);
``opus receipts rebuild`` is refused, naming the size and both roots, the
stored tree left as it was; the tree's tables emptied by hand (what the
rebuild did before) and the server started again: it refuses to sign, and
no size is ever signed with a second root.

And the rule itself (domain/transparency/history.py) through the signer's
state file beside the key (infra/receipts/signed.py), shared by two
processes' connections; and a witness's answer taken whole or not at all."""

from __future__ import annotations

import base64
import hashlib
import os
import random
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask, request
from werkzeug.serving import make_server

from domain.application import Opus
from domain.bots import BOTS
from domain.transparency.formats import Checkpoint, SignedCheckpoint, TlogProof
from domain.transparency.history import Signed, TwoHistories
from domain.transparency.logs import aggregate_verifier
from domain.transparency.merkle import Tree, leaf_hash
from domain.transparency.note import COSIGNATURE_V1, Signature, Signer, open_note, parse_note
from infra.receipts.aggregates import AggregateTrees
from infra.receipts.globallog import MemoryGlobalStore, Sequencer
from infra.receipts.publisher import Publisher
from infra.receipts.settings import Witness
from infra.receipts.signed import SignerState
from tests.e2e.test_full_game_http import OPUS
from tests.served import Served
from tests.settings import connect_test_postgres, test_postgres_env

WAIT = 20.0  # seconds any wait here may take at most
NAME = "opus.test"


def wait_for(predicate: Callable[[], Any], seconds: float = WAIT) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        found = predicate()
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError("waited in vain")
        time.sleep(0.1)


# ---- the rule, through the state file ------------------------------------------------------


def _tree(n: int, salt: bytes = b"") -> Tree:
    return Tree(leaf_hash(salt + bytes([i])) for i in range(n))


def test_the_state_admits_one_history_and_refuses_every_other(tmp_path: Path) -> None:
    path = tmp_path / "signed.sqlite"
    one, other = SignerState(path), SignerState(path)  # two processes' connections
    honest, forged = _tree(9), _tree(9, b"x")
    try:
        one.admit(Checkpoint("log", 5, honest.root(5)))
        # the same size, another root
        with pytest.raises(TwoHistories, match="two roots for one size") as refused:
            other.admit(Checkpoint("log", 5, forged.root(5)))
        text = str(refused.value)
        assert "log log at size 5" in text and "signed at size 5" in text
        b64 = base64.b64encode
        assert b64(honest.root(5)).decode() in text and b64(forged.root(5)).decode() in text
        # larger: by the store's proof (a forged store cannot make one), or appending
        with pytest.raises(TwoHistories, match="does not prove it"):
            other.admit(Checkpoint("log", 9, forged.root()), proof=forged.consistency)
        with pytest.raises(TwoHistories, match="no consistency proof"):
            other.admit(Checkpoint("log", 9, honest.root()))
        with pytest.raises(TwoHistories):  # it extends a tree that was not signed
            other.admit(Checkpoint("log", 9, forged.root()), extends=Signed(5, forged.root(5)))
        other.admit(Checkpoint("log", 7, honest.root(7)), extends=Signed(5, honest.root(5)))
        one.admit(Checkpoint("log", 9, honest.root()), proof=honest.consistency)
        assert one.latest("log") == other.latest("log") == Signed(9, honest.root())
        # older: proven a prefix of the signed tree, or refused (and not remembered)
        other.admit(Checkpoint("log", 3, honest.root(3)), proof=honest.consistency)
        with pytest.raises(TwoHistories):
            other.admit(Checkpoint("log", 3, forged.root(3)), proof=forged.consistency)
        with pytest.raises(TwoHistories, match="cannot prove"):
            other.admit(Checkpoint("log", 3, honest.root(3)), proof=_tree(4).consistency)
        assert other.latest("log") == Signed(9, honest.root())
        assert one.latest("another log") is None
    finally:
        one.close()
        other.close()


# ---- the attack, against the real processes ---------------------------------------------------


class Store:
    """The event store the server runs on, and the operator's hands on it."""

    def __init__(self, kind: str, folder: Path) -> None:
        self.kind = kind
        self.folder = folder
        if kind == "sqlite":
            self.env = {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(folder / "events.db"),
            }
            return
        self.schema = f"signer_{uuid.uuid4().hex[:8]}"
        with connect_test_postgres() as db:
            db.execute(f"CREATE SCHEMA {self.schema}")
        self.env = {**test_postgres_env(), "POSTGRES_SCHEMA": self.schema}

    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self.kind == "sqlite":
            import sqlite3

            with sqlite3.connect(self.folder / "events.db") as db:
                return db.execute(sql.replace("%s", "?").format(s=""), params).fetchall()
        with connect_test_postgres() as db:
            cursor = db.execute(sql.format(s=f"{self.schema}."), params)
            return cursor.fetchall() if cursor.description else []

    def rewrite_chain(self, game: str, version: int) -> None:
        """The event's chain value replaced by another: what an operator
        rewriting a game's history leaves in the store."""
        key: Any = uuid.UUID(game).hex if self.kind == "sqlite" else uuid.UUID(game)
        where = "WHERE originator_id = %s AND originator_version = %s"
        table = "stored_events" if self.kind == "sqlite" else "opus_events"
        select = f"SELECT state FROM {{s}}{table} " + where
        (state,) = self._execute(select, (key, version))[0]
        chain = bytes(state).split(b'"chain":"')[1][:64]
        forged = bytes(state).replace(chain, hashlib.sha256(chain).hexdigest().encode())
        update = f"UPDATE {{s}}{table} SET state = %s " + where
        self._execute(update, (forged, key, version))

    def count(self, table: str) -> int:
        """The rows of one of the global tree's tables."""
        return int(self._execute(f"SELECT COUNT(*) FROM {{s}}opus_tlog_{table}")[0][0])

    def empty_the_tree(self) -> None:
        """What ``opus receipts rebuild`` did before: the global tree's tables
        emptied, to be appended again from the (edited) log."""
        for table in ("nodes", "leaves", "state", "checkpoints"):
            self._execute(f"DELETE FROM {{s}}opus_tlog_{table}")

    def close(self) -> None:
        if self.kind == "postgres":
            with connect_test_postgres() as db:
                db.execute(f"DROP SCHEMA {self.schema} CASCADE")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made = Store(request.param, tmp_path)
    yield made
    made.close()


class Server(Served):
    """``opus serve`` on the store, its key and the signer's state in ``keys/``."""

    def __init__(self, folder: Path, store: Store) -> None:
        env = {
            **os.environ,
            **store.env,
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "OPUS_RECEIPTS_KEY_FILE": str(folder / "keys" / "receipts.key"),
            "OPUS_RECEIPTS_NAME": NAME,
            "OPUS_RECEIPTS_INTERVAL": "0.1",
            "OPUS_BOTS": "0",
            "OPUS_RATE_LIMIT": "0",
        }
        env.pop("REDIS_URL", None)
        super().__init__(folder, env)

    def opus(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [OPUS, *args], cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=60
        )

    def get(self, path: str, **params: Any) -> requests.Response:
        return requests.get(self.base + path, params=params, timeout=10)


def play(base: str, moves: int) -> tuple[str, list[str], str]:
    """A two-player game, ``moves`` moves in: its id, the seats' tokens, the
    last command's receipt."""
    created = requests.post(f"{base}/games", json={}, timeout=10).json()
    game = created["game_id"]
    tokens = [
        requests.post(f"{base}/games/{game}/players", json={"name": n}, timeout=10).json()["token"]
        for n in ("Ada", "Boris")
    ]
    auth = {"Authorization": f"Bearer {created['organiser_token']}"}
    receipt = requests.post(f"{base}/games/{game}/start", headers=auth, timeout=10).json()[
        "receipt"
    ]
    for _ in range(moves):
        receipt = move(base, game, tokens)["receipt"]
    return game, tokens, receipt


def move(base: str, game: str, tokens: list[str]) -> dict[str, Any]:
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        legal = requests.get(f"{base}/games/{game}/legal-moves", headers=auth, timeout=10).json()
        if legal["moves"]:
            chosen = legal["moves"][0]
            answer = requests.post(
                base + chosen["path"], json=chosen["body"], headers=auth, timeout=10
            )
            assert answer.status_code in (200, 201), answer.text
            return dict(answer.json())
    raise AssertionError("no seat could move")


class Seen:
    """Every checkpoint the server answered with, by log and size."""

    def __init__(self, key: Signer) -> None:
        self.key = key
        self.roots: dict[tuple[str, int], set[bytes]] = {}

    def saw(self, note: str) -> Checkpoint:
        point = SignedCheckpoint.parse(note).checkpoint
        verifier = self.key.verifier
        if point.origin != NAME:
            verifier = aggregate_verifier(verifier, point.origin.rpartition("/")[2])
        open_note(note, [verifier])  # signed by the service's key under the origin's name
        self.roots.setdefault((point.origin, point.size), set()).add(point.root)
        return point

    def two_histories(self) -> list[tuple[str, int]]:
        return [key for key, roots in self.roots.items() if len(roots) > 1]


def test_an_edited_store_is_never_signed_a_second_root(tmp_path: Path, store: Store) -> None:
    server = Server(tmp_path, store)
    server.start()
    try:
        game, tokens, receipt = play(server.base, 6)
        key = Signer.from_text((tmp_path / "keys" / "receipts.key").read_text())
        seen = Seen(key)
        seen.saw(TlogProof.parse(receipt).checkpoint.encode())
        game_point = seen.saw(server.get(f"/receipts/logs/{game}/checkpoint").text)

        def published() -> Checkpoint | None:
            answer = server.get("/receipts/checkpoint")
            if answer.status_code != 200:
                return None
            point = seen.saw(answer.text)
            return point if point.size >= game_point.size else None  # the game's every event

        signed = wait_for(published)
    finally:
        server.stop()
    # the operator rewrites the game's third event in the store
    store.rewrite_chain(game, 3)
    # the rebuild is refused, naming the size and both roots; the stored tree is kept
    rebuilt = server.opus("receipts", "rebuild")
    assert rebuilt.returncode == 1, rebuilt.stdout + rebuilt.stderr
    words = rebuilt.stderr
    assert "rebuild refused" in words and f"log {NAME} at size {signed.size}" in words
    assert base64.b64encode(signed.root).decode() in words and "Traceback" not in words
    assert words.count("root ") >= 2  # the rebuilt tree's root and the signed one
    assert store.count("checkpoints") > 0 and store.count("nodes") > 0  # the tree kept
    # the operator empties the tree by hand and starts the server again
    store.empty_the_tree()
    server.start()
    try:
        # a new move is saved, answered without a receipt: no checkpoint is signed for it
        answer = move(server.base, game, tokens)
        assert answer["receipt"] is None
        # the game's log: refused, in words, never a signature
        for path, params in [
            (f"/receipts/logs/{game}/checkpoint", {}),
            (f"/receipts/logs/{game}/receipt", {"version": 4, "size": game_point.size}),
            (f"/receipts/logs/{game}/consistency", {"old": 1}),
        ]:
            refused = server.get(path, **params)
            assert refused.status_code == 500, (path, refused.text)
            message = refused.json()["message"]
            assert "signer refused" in message and f"{NAME}/{game}" in message
            assert base64.b64encode(game_point.root).decode() in message

        # the global log: the publisher appends the edited log and is refused
        def refused_global() -> str | None:
            answer = server.get("/receipts/checkpoint")
            if answer.status_code == 200:
                seen.saw(answer.text)
                return None
            return str(answer.json()["message"]) if answer.status_code == 500 else None

        message = wait_for(refused_global)
        assert f"checkpoint signed at size {signed.size}" in message
        assert base64.b64encode(signed.root).decode() in message
        # no size of any log was ever signed with two roots
        for size in range(1, signed.size + 2):
            answer = server.get("/receipts/consistency", old=0, size=size)
            if answer.status_code == 200:
                seen.saw(answer.json()["checkpoint"])
        assert seen.two_histories() == []
    finally:
        server.stop()


def test_a_state_file_that_cannot_be_read_is_said_in_words(tmp_path: Path) -> None:
    broken = tmp_path / "signed.sqlite"
    broken.write_bytes(b"not a database, " * 100)
    with pytest.raises(ValueError, match=r"record of what it signed .* cannot be opened"):
        SignerState(broken)


# ---- a witness's answer, taken as signed-note takes a note --------------------------------


def test_a_witness_answer_with_a_failing_line_of_its_key_is_refused_whole(tmp_path: Path) -> None:
    """A witness (here one that lies: a real HTTP server answering as a
    tlog-witness would) answers its valid cosignature and, beside it, a line
    of its own key that fails: the publisher keeps none of its lines, where it
    kept the valid one (C2SP signed-note: a known key's failing signature
    rejects the whole note)."""
    cosigner = Signer.generate("witness.test", COSIGNATURE_V1)
    forged_line = [True]
    witness = Flask("liar")

    @witness.post("/add-checkpoint")
    def add_checkpoint() -> str:
        note = request.get_data(as_text=True).split("\n\n", 1)[1]
        text = parse_note(note).text
        good = cosigner.cosign(text, int(time.time()))
        bad = Signature(cosigner.name, cosigner.key_id, good.signature[:8] + bytes(64))
        return good.line() + (bad.line() if forged_line[0] else "")

    server = make_server("127.0.0.1", 0, witness, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    state = SignerState(tmp_path / "signed.sqlite")
    try:
        store = MemoryGlobalStore()
        url = f"http://127.0.0.1:{server.server_port}"
        publisher = Publisher(
            Sequencer(app, store),
            Signer.generate(NAME),
            state,
            (Witness(url, cosigner.vkey()),),
        )
        app.create_game()
        note = publisher.step()
        assert note is not None
        assert not any(cosigner.verifier.matches(s) for s in parse_note(note).signatures)
        forged_line[0] = False  # an honest answer is kept
        app.create_game()
        note = publisher.step()
        assert note is not None
        open_note(note, [cosigner.verifier])
    finally:
        server.shutdown()
        state.close()
        app.close()


def test_a_checkpoint_of_a_tree_read_before_a_later_signature_is_proven_from_the_store(
    tmp_path: Path,
) -> None:
    """Two requests on one game: one read the game's tree at size n, the
    other's command grew it and its checkpoint at n + k was signed first.
    The checkpoint at n is a prefix of what was signed: it is proven from
    the store's tree as it is now, and signed, never refused as a fork."""
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    try:
        game = app.create_game(secret=bytes(32))
        for name in ("Ada", "Boris"):
            app.join(game, name)
        app.start(game)
        signer = Signer.generate("opus.test")
        trees = AggregateTrees(app, signer, SignerState(tmp_path / "signed.sqlite"))
        stale = trees.tree(game)
        assert stale is not None
        choose = BOTS["random"](random.Random(1))
        for _ in range(3):
            state = app.state(game)
            app.play(game, choose(state, state.turn))
        fresh = trees.tree(game)
        assert fresh is not None and fresh.size > stale.size
        trees.sign_tree(game, fresh)  # the later checkpoint, signed first
        older = trees.sign_tree(game, stale)  # the earlier request's, signed after it
        assert older.checkpoint.size == stale.size and older.checkpoint.root == stale.root()
    finally:
        app.close()

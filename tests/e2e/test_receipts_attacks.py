"""The operator's attacks on the receipts (issue 35's table), each driven
through real processes: ``opus serve`` (two of them sharing one key, over
two stores, for the fork), a real ``opus witness`` process, and the
players' ``opus receipts keep|check`` and ``opus verify --receipts`` run as
commands. For each the players' clients say MISBEHAVIOUR, exit 1 and keep
the evidence; ``opus verify --receipts`` over what they kept exits 1.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from domain.transparency.formats import SignedCheckpoint
from domain.transparency.note import COSIGNATURE_V1, Signer
from infra.receipts.witness import origin_hash
from tests.e2e.test_full_game_http import OPUS, free_port, stop
from tests.served import Served

NAME = "opus.attacks"
WAIT = 30.0  # seconds any wait here may take at most


def wait_for(what: str, predicate: Callable[[], bool], seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited in vain for {what}")
        time.sleep(0.1)


class WitnessProcess:
    """``opus witness`` on a port of its own, following ``logs``' vkeys."""

    def __init__(self, folder: Path, logs: list[str]) -> None:
        self.folder = folder
        self.logs = logs
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        folder.mkdir(parents=True, exist_ok=True)
        key = Signer.generate("witness.attacks")
        (folder / "witness.key").write_text(key.to_text())
        self.vkey = key.as_type(COSIGNATURE_V1).vkey()
        self.process: subprocess.Popen[bytes] | None = None

    def args(self, *more: str) -> list[str]:
        args = [OPUS, "witness", "--store", str(self.folder / "store")]
        args += ["--key", str(self.folder / "witness.key"), "--port", str(self.port)]
        for vkey in self.logs:
            args += ["--log", vkey]
        return [*args, *more]

    def refuses_to_start(self) -> str:
        """What it says when it will not start (it must exit at once)."""
        done = subprocess.run(self.args(), capture_output=True, text=True, timeout=60)
        assert done.returncode != 0, done.stdout
        return done.stdout + done.stderr

    def start(self, *more: str) -> None:
        args = self.args(*more)
        with open(self.folder / "witness.log", "ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        process = self.process

        def up() -> bool:
            assert process.poll() is None, "the witness exited"
            try:
                return requests.get(self.url + "/", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_for("the witness", up)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def latest_size(self, origin: str = NAME) -> int:
        answer = requests.get(f"{self.url}/{origin_hash(origin)}/checkpoint", timeout=10)
        return SignedCheckpoint.parse(answer.text).checkpoint.size if answer.ok else 0

    def refused(self, origin: str = NAME) -> list[Any]:
        answer = requests.get(f"{self.url}/{origin_hash(origin)}/refused", timeout=10)
        return list(answer.json()["refused"]) if answer.ok else []


class ServerProcess(Served):
    """``opus serve`` over its own SQLite store, its key (and the signer's
    state beside it) in ``keys/``, asking ``witness`` to cosign."""

    def __init__(self, folder: Path, key: Signer, witness: WitnessProcess) -> None:
        self.folder = folder
        (folder / "keys").mkdir(parents=True, exist_ok=True)
        self.key_file = folder / "keys" / "receipts.key"
        self.key_file.write_text(key.to_text())
        env = {
            **os.environ,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "OPUS_RECEIPTS_KEY_FILE": str(self.key_file),
            "OPUS_RECEIPTS_INTERVAL": "0.1",
            "OPUS_RECEIPTS_WITNESSES": f"{witness.url} {witness.vkey}",
            "OPUS_BOTS": "0",
            "OPUS_RATE_LIMIT": "0",
        }
        env.pop("REDIS_URL", None)
        super().__init__(folder, env)

    def global_size(self) -> int:
        answer = requests.get(f"{self.base}/receipts/checkpoint", timeout=10)
        return SignedCheckpoint.parse(answer.text).checkpoint.size if answer.ok else 0

    def opus(self, *args: str) -> subprocess.CompletedProcess[str]:
        """An ``opus`` command on this server's store (the operator's)."""
        return subprocess.run(
            [OPUS, *args],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> None:
        with sqlite3.connect(self.folder / "events.db") as db:
            db.execute(statement, params)

    def forget_what_it_signed(self) -> None:
        """The operator deletes the signer's memory of what it signed."""
        for path in (self.folder / "keys").glob("receipts-signed.sqlite*"):
            path.unlink()


def play(base: str, moves: int) -> str:
    """A two-player game ``moves`` moves in; its id."""
    created = requests.post(f"{base}/games", json={}, timeout=10).json()
    game = str(created["game_id"])
    tokens = [
        requests.post(f"{base}/games/{game}/players", json={"name": n}, timeout=10).json()["token"]
        for n in ("Ada", "Boris")
    ]
    auth = {"Authorization": f"Bearer {created['organiser_token']}"}
    requests.post(f"{base}/games/{game}/start", headers=auth, timeout=10).raise_for_status()
    for _ in range(moves):
        for token in tokens:
            seat = {"Authorization": f"Bearer {token}"}
            legal = requests.get(f"{base}/games/{game}/legal-moves", headers=seat, timeout=10)
            if legal.json()["moves"]:
                chosen = legal.json()["moves"][0]
                answer = requests.post(
                    base + chosen["path"], json=chosen["body"], headers=seat, timeout=10
                )
                assert answer.status_code in (200, 201), answer.text
                break
    return game


def witnessed_up_to_now(server: ServerProcess, witness: WitnessProcess) -> int:
    """Waits until the witness cosigned the server's whole global log."""

    def cosigned() -> bool:
        size = server.global_size()
        return size > 0 and witness.latest_size() == size

    wait_for("the witness's cosignature", cosigned)
    return server.global_size()


def client(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A player's ``opus`` command (its own process)."""
    return subprocess.run(
        [OPUS, *args], capture_output=True, text=True, timeout=120, env=env or dict(os.environ)
    )


def caught(result: subprocess.CompletedProcess[str], store: Path, *words: str) -> None:
    """The client said MISBEHAVIOUR in words, exited 1, kept the evidence,
    printed no traceback."""
    said = result.stdout + result.stderr
    assert result.returncode == 1, said
    assert "MISBEHAVIOUR" in said and "Traceback" not in said, said
    for word in words:
        assert word in said, said
    assert list((store / "evidence").glob("*.txt")), "no evidence kept"


def verify_caught(store: Path, server: ServerProcess) -> None:
    """``opus verify --receipts`` over the player's store, against the log
    the server holds now: exit 1, the misbehaviour said."""
    result = client("verify", "--receipts", str(store), env=server.env)
    said = result.stdout + result.stderr
    assert result.returncode == 1, said
    assert "MISBEHAVIOUR" in said and "Traceback" not in said, said


@pytest.fixture
def key() -> Signer:
    return Signer.generate(NAME)


@pytest.fixture
def witness(tmp_path: Path, key: Signer) -> Iterator[WitnessProcess]:
    process = WitnessProcess(tmp_path / "witness", [key.vkey()])
    process.start()
    yield process
    process.stop()


@pytest.fixture
def server(tmp_path: Path, key: Signer, witness: WitnessProcess) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "server", key, witness)
    process.start()
    yield process
    process.stop()


def kept_by(store: Path, server: ServerProcess, game: str, witness: WitnessProcess) -> None:
    """A player keeps the game's checkpoint and the global log's: ok."""
    base = ["--server", server.base, "--store", str(store)]
    for what in (game, "global"):
        kept = client("receipts", "keep", *base, "--log", what)
        assert kept.returncode == 0, kept.stdout + kept.stderr
        assert f"witnessed by {witness_name(witness)}" in kept.stdout, kept.stdout


def witness_name(witness: WitnessProcess) -> str:
    return witness.vkey.split("+")[0]


# ---- the fork: two servers, one key -------------------------------------------------------


def test_a_fork_between_two_servers_sharing_a_key_is_caught_by_both_players(
    tmp_path: Path, key: Signer, witness: WitnessProcess
) -> None:
    one = ServerProcess(tmp_path / "one", key, witness)
    two = ServerProcess(tmp_path / "two", key, witness)
    one.start()
    two.start()
    try:
        ada, boris = tmp_path / "ada", tmp_path / "boris"
        game_one = play(one.base, 6)
        witnessed_up_to_now(one, witness)
        kept_by(ada, one, game_one, witness)
        # the second server, shown to Boris, grows past what the witness cosigned:
        # its publisher is refused, the refusal kept by the witness
        game_two = play(two.base, 14)
        wait_for("the witness's refusal", lambda: bool(witness.refused()))
        shown = client(
            "receipts", "keep", "--server", two.base, "--store", str(boris), "--log", game_two
        )
        caught(shown, boris, "another")
        # Ada's server goes on past the size refused: her check sees the other history
        refused_size = max(
            SignedCheckpoint.parse(r["checkpoint"]).checkpoint.size for r in witness.refused()
        )
        while one.global_size() < refused_size:
            play(one.base, 6)
        witnessed_up_to_now(one, witness)
        checked = client("receipts", "check", "--server", one.base, "--store", str(ada))
        caught(checked, ada, "refused the other one")
        verify_caught(ada, one)
        verify_caught(boris, two)
    finally:
        one.stop()
        two.stop()


# ---- keys that change in silence ----------------------------------------------------------


@pytest.mark.parametrize("name", [NAME, "opus.elsewhere"], ids=["same-name", "new-name"])
def test_a_new_key_without_a_transition_is_caught(
    tmp_path: Path, key: Signer, witness: WitnessProcess, server: ServerProcess, name: str
) -> None:
    ada = tmp_path / "ada"
    game = play(server.base, 4)
    witnessed_up_to_now(server, witness)
    kept_by(ada, server, game, witness)
    # the operator: a new key, a new history, and its own witness told the new key
    server.stop()
    witness.stop()
    new = Signer.generate(name)
    server.key_file.write_text(new.to_text())
    server.forget_what_it_signed()
    (server.folder / "events.db").unlink()
    witness.logs = [new.vkey()]
    # the witness will not follow a key no transition hands over to...
    assert "no transition statement" in witness.refuses_to_start()
    # ...unless its operator says the log is new
    witness.start("--add-log")
    server.start()
    play(server.base, 4)
    if name == NAME:  # the witness refuses the new history under the old name
        wait_for("the new log's checkpoint", lambda: server.global_size() > 0)
    else:  # a new name is a new log to it: it cosigns
        witnessed_up_to_now_as(server, witness, name)
    checked = client("receipts", "check", "--server", server.base, "--store", str(ada))
    caught(checked, ada, "key-change", "in silence")
    assert list((ada / "evidence").rglob("well-known.json"))
    verify_caught(ada, server)


def witnessed_up_to_now_as(server: ServerProcess, witness: WitnessProcess, origin: str) -> None:
    def cosigned() -> bool:
        size = server.global_size()
        return size > 0 and witness.latest_size(origin) == size

    wait_for("the witness's cosignature", cosigned)


# ---- the witness's state deleted, the log rewritten -----------------------------------------


def test_a_wiped_witness_cosigning_a_rewritten_log_is_caught_by_the_client(
    tmp_path: Path, witness: WitnessProcess, server: ServerProcess
) -> None:
    ada = tmp_path / "ada"
    game = play(server.base, 6)
    witnessed_up_to_now(server, witness)
    kept_by(ada, server, game, witness)
    server.stop()
    witness.stop()
    shutil.rmtree(witness.folder / "store")  # the witness's state deleted
    server.forget_what_it_signed()
    (server.folder / "events.db").unlink()  # another history, from the start
    witness.start()
    server.start()
    play(server.base, 12)
    witnessed_up_to_now(server, witness)  # the wiped witness cosigned the rewritten log
    checked = client("receipts", "check", "--server", server.base, "--store", str(ada))
    caught(checked, ada)
    verify_caught(ada, server)


# ---- truncation ---------------------------------------------------------------------------


@pytest.mark.parametrize("cut", ["last-events", "whole-game"])
def test_a_truncated_log_is_caught_with_its_evidence(
    tmp_path: Path, witness: WitnessProcess, server: ServerProcess, cut: str
) -> None:
    ada = tmp_path / "ada"
    game = play(server.base, 8)
    witnessed_up_to_now(server, witness)
    kept_by(ada, server, game, witness)
    server.stop()
    where = "originator_id = ?"
    if cut == "last-events":
        where += (
            " AND originator_version > "
            "(SELECT MAX(originator_version) - 3 FROM stored_events WHERE originator_id = ?)"
        )
        server.sql(f"DELETE FROM stored_events WHERE {where}", (uuid.UUID(game).hex,) * 2)
    else:
        server.sql(f"DELETE FROM stored_events WHERE {where}", (uuid.UUID(game).hex,))
    server.forget_what_it_signed()
    server.start()
    checked = client("receipts", "check", "--server", server.base, "--store", str(ada))
    caught(checked, ada)
    said = checked.stdout
    assert "rollback" in said or "truncated" in said, said
    assert "could not be asked" not in said
    verify_caught(ada, server)


# ---- an old checkpoint replayed ------------------------------------------------------------


class Replaying:
    """What the operator puts in front of the server: every request passed
    on, but the global checkpoint answered with an old one."""

    def __init__(self, upstream: str, old: str) -> None:
        self.upstream = upstream
        self.old = old
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def app(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        if request.path == "/receipts/checkpoint":
            response = Response(self.old, mimetype="text/plain")
        else:
            passed = requests.request(
                request.method,
                self.upstream + request.full_path.rstrip("?"),
                data=request.get_data(),
                headers={"Content-Type": request.content_type or "text/plain"},
                timeout=10,
            )
            response = Response(
                passed.content, passed.status_code, mimetype=passed.headers.get("Content-Type")
            )
        return response(environ, start_response)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_an_old_checkpoint_replayed_is_caught(
    tmp_path: Path, witness: WitnessProcess, server: ServerProcess
) -> None:
    play(server.base, 4)
    witnessed_up_to_now(server, witness)
    old = requests.get(f"{server.base}/receipts/checkpoint", timeout=10).text
    play(server.base, 8)
    witnessed_up_to_now(server, witness)
    replaying = Replaying(server.base, old)
    try:
        # a player who never kept anything: the witness cosigned more than is shown
        fresh = tmp_path / "fresh"
        shown = client(
            "receipts",
            "keep",
            "--server",
            replaying.url,
            "--store",
            str(fresh),
            "--log",
            "global",
            "--witness",
            f"{witness.url} {witness.vkey}",
        )
        caught(shown, fresh, "rollback")
        # a player who kept the newer one: the old one is a rollback
        ada = tmp_path / "ada"
        kept = client(
            "receipts", "keep", "--server", server.base, "--store", str(ada), "--log", "global"
        )
        assert kept.returncode == 0, kept.stdout
        replayed = client("receipts", "check", "--server", replaying.url, "--store", str(ada))
        caught(replayed, ada, "rollback")
        # (each checkpoint replayed is true of the log: opus verify --receipts, which holds
        # statements against the log, finds none false; the clients catch it as it is shown)
    finally:
        replaying.close()


# ---- the store edited, then opus receipts rebuild ------------------------------------------------


def test_an_edited_store_rebuilt_is_caught(
    tmp_path: Path, witness: WitnessProcess, server: ServerProcess
) -> None:
    ada = tmp_path / "ada"
    game = play(server.base, 8)
    witnessed_up_to_now(server, witness)
    kept_by(ada, server, game, witness)
    server.stop()
    key = uuid.UUID(game).hex
    with sqlite3.connect(server.folder / "events.db") as db:
        (state,) = db.execute(
            "SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 3",
            (key,),
        ).fetchone()
        chain = bytes(state).split(b'"chain":"')[1][:64]
        forged = bytes(state).replace(chain, hashlib.sha256(chain).hexdigest().encode())
        db.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 3",
            (forged, key),
        )
    server.forget_what_it_signed()
    server.opus("receipts", "rebuild")
    server.start()
    checked = client("receipts", "check", "--server", server.base, "--store", str(ada))
    caught(checked, ada)
    verify_caught(ada, server)

"""Receipts through the service: every command answered with a receipt
that verifies under the key at the well-known path; the global log kept in
the store as a function of the log; the witness (C2SP tlog-witness) and
the publisher; a client's kept receipts (``opus receipts keep|check``).

The attacks, each caught: an old event changed and the game re-chained and
re-sealed; a game truncated; a fork shown to two players; a checkpoint
signed with a rotated-out key; a witness asked to cosign a rewound tree.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner
from flask import Flask
from werkzeug.serving import make_server

from api.cli import main
from domain.application import Opus
from domain.audit import Record, secret_in
from domain.bots import BOTS
from domain.chain import GENESIS, event_record, next_chain, sealed_payload
from domain.disclosure import hidden_fields
from domain.transparency.formats import Checkpoint, SignedCheckpoint, TlogProof
from domain.transparency.logs import (
    aggregate_origin,
    aggregate_signer,
    aggregate_verifier,
    chain_leaf,
    head_data,
    head_leaf,
)
from domain.transparency.merkle import EMPTY_ROOT, Tree, leaf_hash, verify_consistency
from domain.transparency.note import COSIGNATURE_V1, Signer, Verifier, b64, open_note
from infra.eventlog import game_records, read_records
from infra.receipts.globallog import MemoryGlobalStore, Sequencer, open_global_store
from infra.receipts.keeper import Corrupted, Keeper, LogId, Misbehaviour, Refused
from infra.receipts.witness import Witness, WitnessStore, create_witness_app, origin_hash
from tests.apps import embedded_app

WAIT = 20.0  # seconds any wait here may take at most


def wait_until(predicate: Callable[[], bool], seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("waited in vain")
        time.sleep(0.05)


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "receipts.key"
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(path))
    monkeypatch.setenv("OPUS_RECEIPTS_NAME", "opus.test")
    return path


@pytest.fixture
def app(tmp_path: Path, key_file: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


class Served:
    def __init__(self, app: Flask) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(app: Flask) -> Iterator[Served]:
    server = Served(app)
    yield server
    server.close()


def opus(app: Flask) -> Opus:
    return app.extensions["opus"].opus  # type: ignore[no-any-return]


def play(client: Any, moves: int, seed: int = 1) -> tuple[UUID, list[str]]:
    """A two-player game over HTTP, ``moves`` moves in; the receipts its
    commands were answered with."""
    rng = random.Random(seed)
    created = client.post("/games", json={}).json
    game, receipts = UUID(created["game_id"]), [created["receipt"]]
    tokens = []
    for name in ("Ada", "Boris"):
        joined = client.post(f"/games/{game}/players", json={"name": name}).json
        tokens.append(joined["token"])
        receipts.append(joined["receipt"])
    started = client.post(
        f"/games/{game}/start", headers={"Authorization": f"Bearer {created['organiser_token']}"}
    ).json
    receipts.append(started["receipt"])
    for _ in range(moves):
        state = client.application.extensions["opus"].opus.state(game)
        if state.status != "running":
            break
        token = tokens[state.turn]
        legal = client.get(
            f"/games/{game}/legal-moves", headers={"Authorization": f"Bearer {token}"}
        ).json
        move = rng.choice(legal["moves"])
        answer = client.post(
            move["path"], json=move["body"], headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code in (200, 201), answer.json
        receipts.append(answer.json["receipt"])
    return game, receipts


# ---- receipts in answers ---------------------------------------------------------------


def test_every_command_is_answered_with_a_receipt_of_what_it_appended(app: Flask) -> None:
    client = app.test_client()
    keys = client.get("/.well-known/opus-receipts").json
    vkey = Verifier.from_vkey(keys["vkey"])
    assert keys["key_id"] == vkey.key_id.hex() and keys["name"] == "opus.test"
    game, receipts = play(client, 12)
    records = game_records(opus(app), game)
    versions = []
    for text in receipts:
        receipt = TlogProof.parse(text)
        open_note(receipt.checkpoint.encode(), [aggregate_verifier(vkey, game)])  # its origin's
        point = receipt.checkpoint.checkpoint
        assert point.origin == aggregate_origin("opus.test", game)
        # the receipt is of the command's last event, in the tree of that size
        assert receipt.index == point.size - 1
        assert receipt.extra == bytes.fromhex(records[receipt.index].chain)
        receipt.verify_leaf(leaf_hash(receipt.extra))
        tree = Tree(chain_leaf(r.chain) for r in records[: point.size])
        assert point.root == tree.root()
        versions.append(point.size)
    assert versions == sorted(versions) and versions[-1] == records[-1].version


def test_a_receipt_carries_no_hidden_card(app: Flask) -> None:
    """It covers chain values (hidden fields sealed), never a field."""
    client = app.test_client()
    game, receipts = play(client, 4)
    state = opus(app).state(game)
    secret = state.secret
    for text in receipts:
        assert secret not in text
        for hand in state.hands:
            for card in hand:
                assert f'"card":{card}' not in text and f"[{card}" not in text
        assert set(text) <= set(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=\n -.@—"
        )


def test_a_retried_command_is_answered_with_the_receipt_of_its_event(app: Flask) -> None:
    client = app.test_client()
    token = "t" * 43
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"}
    first = client.post("/games", json={}, headers=headers).json
    game = first["game_id"]
    client.post(f"/games/{game}/players", json={"name": "Zed"})
    again = client.post("/games", json={}, headers=headers).json
    assert again["replayed"] is True and again["version"] == 1
    receipt = TlogProof.parse(again["receipt"])
    assert receipt.index == 0 and receipt.checkpoint.checkpoint.size == 2  # the log now


def test_the_log_proofs_served(app: Flask) -> None:
    client = app.test_client()
    game, receipts = play(client, 6)
    vkey = Verifier.from_vkey(client.get("/.well-known/opus-receipts").json["vkey"])
    kept = TlogProof.parse(receipts[2]).checkpoint.checkpoint
    answer = client.get(f"/receipts/logs/{game}/consistency?old={kept.size}").json
    now = SignedCheckpoint.parse(answer["checkpoint"])
    open_note(answer["checkpoint"], [aggregate_verifier(vkey, game)])
    proof = [bytes(__import__("base64").b64decode(h)) for h in answer["proof"]]
    verify_consistency(kept.size, now.checkpoint.size, kept.root, now.checkpoint.root, proof)
    assert client.get(f"/receipts/logs/{game}/consistency?old=999").status_code == 404
    assert client.get(f"/receipts/logs/{UUID(int=5)}/checkpoint").status_code == 404
    one = client.get(f"/receipts/logs/{game}/receipt?version=3").data.decode()
    assert TlogProof.parse(one).index == 2


def test_the_live_stream_carries_the_games_checkpoints(app: Flask) -> None:
    client = app.test_client()
    created = client.post("/games", json={}).json
    game = created["game_id"]
    heard: list[str] = []
    broker = app.extensions["opus"].broker
    with broker.subscribe(game) as subscription:
        client.post(f"/games/{game}/players", json={"name": "Ada"})
        while (message := subscription.get(timeout=2.0)) is not None:
            heard.append(message)
    checkpoints = [json.loads(m) for m in heard if "checkpoint" in json.loads(m)]
    assert len(checkpoints) == 1 and checkpoints[0]["version"] == 2
    # after the events it follows
    assert "checkpoint" in json.loads(heard[-1])
    point = SignedCheckpoint.parse(checkpoints[0]["checkpoint"]).checkpoint
    assert point.size == 2


def test_receipts_off(tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPUS_RECEIPTS", "0")
    flask_app = embedded_app(tmp_path, run_projections=False)
    try:
        client = flask_app.test_client()
        assert client.post("/games", json={}).json["receipt"] is None
        assert client.get("/.well-known/opus-receipts").status_code == 404
        assert not key_file.exists()
    finally:
        flask_app.extensions["opus"].close()


# ---- the global log ----------------------------------------------------------------------


def test_the_global_log_is_a_function_of_the_log_and_survives_restarts(
    tmp_path: Path, key_file: Path
) -> None:
    flask_app = embedded_app(tmp_path, run_projections=False)
    client = flask_app.test_client()
    play(client, 8, seed=2)
    play(client, 5, seed=3)
    store = flask_app.extensions["opus"].receipts.store
    sequencer = flask_app.extensions["opus"].receipts.sequencer
    wait_until(lambda: sequencer.catch_up() == 0 and store.state()[1] > 0)
    app_ = opus(flask_app)
    public = list(read_records(app_))
    expected = Tree(head_leaf(r.aggregate_id, r.version, r.chain) for r in public)
    size, _ = store.state()
    assert size == len(public)
    from infra.receipts.publisher import stored_root

    assert stored_root(store, size) == expected.root()
    flask_app.extensions["opus"].close()
    # reopened: the same tree from the same tables; dropped and made again: the same
    again = embedded_app(tmp_path, run_projections=False)
    try:
        reopened = again.extensions["opus"].receipts.store
        assert reopened.state()[0] == size and stored_root(reopened, size) == expected.root()
        reopened.drop()
        Sequencer(opus(again), reopened).catch_up()
        assert stored_root(reopened, size) == expected.root()
        # a game's head is proven in the global log
        first = public[0]
        answer = again.test_client().get(
            f"/receipts/inclusion?aggregate_id={first.aggregate_id}&version={first.version}"
        )
        if answer.status_code == 200:  # a checkpoint was published before the restart
            body = answer.json
            point = SignedCheckpoint.parse(body["checkpoint"]).checkpoint
            from domain.transparency.merkle import verify_inclusion

            verify_inclusion(
                body["index"],
                point.size,
                head_leaf(first.aggregate_id, first.version, first.chain),
                [__import__("base64").b64decode(h) for h in body["proof"]],
                point.root,
            )
    finally:
        again.extensions["opus"].close()


def test_the_private_aggregates_stay_out_of_the_global_log() -> None:
    app_ = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = app_.create(admission="invitation").aggregate_id  # an Admission: private
    store = MemoryGlobalStore()
    Sequencer(app_, store).catch_up()
    assert store.state()[0] == 1  # the game's GameCreated alone
    assert store.index_of(game, 1) == 0


# ---- the witness -------------------------------------------------------------------------


class Log:
    """A log as the service signs it: leaves, a key, checkpoints."""

    def __init__(self, signer: Signer, leaves: int = 0) -> None:
        self.signer = signer
        self.tree = Tree()
        self.grow(leaves)

    def grow(self, n: int) -> None:
        for _ in range(n):
            self.tree.append(leaf_hash(bytes([self.tree.size % 256]) * 8))

    def checkpoint(self, size: int | None = None, root: bytes | None = None) -> str:
        size = self.tree.size if size is None else size
        point = Checkpoint(self.signer.name, size, root or self.tree.root(size))
        return self.signer.sign_note(point.text()).encode()

    def body(self, old: int, size: int | None = None, **kwargs: Any) -> str:
        size = self.tree.size if size is None else size
        proof = self.tree.consistency(old, size)
        lines = "".join(b64(h) + "\n" for h in proof)
        return f"old {old}\n{lines}\n" + self.checkpoint(size, **kwargs)


@pytest.fixture
def witnessed(tmp_path: Path) -> tuple[Any, Log, Signer, WitnessStore]:
    signer = Signer.generate("opus.test")
    cosigner = Signer.generate("witness.test", COSIGNATURE_V1)
    store = WitnessStore(tmp_path / "witness")
    client = create_witness_app(Witness(cosigner, [signer.verifier], store)).test_client()
    return client, Log(signer, 10), cosigner, store


def test_the_witness_cosigns_a_consistent_checkpoint(witnessed: Any) -> None:
    client, log, cosigner, store = witnessed
    answer = client.post("/add-checkpoint", data=log.body(0))
    assert answer.status_code == 200
    line = answer.data.decode()
    note = log.checkpoint() + line
    _, keys = open_note(note, [cosigner.verifier])
    assert keys == [cosigner.verifier]
    assert store.latest("opus.test").size == 10  # persisted before the answer
    log.grow(7)
    assert client.post("/add-checkpoint", data=log.body(10)).status_code == 200
    kept = client.get(f"/{origin_hash('opus.test')}/checkpoint").data.decode()
    open_note(kept, [cosigner.verifier])
    open_note(kept, [log.signer.verifier])
    assert SignedCheckpoint.parse(kept).checkpoint.size == 17


def test_the_witness_answers_each_refusal_as_the_spec_says(witnessed: Any) -> None:
    client, log, _, _store = witnessed
    other = Signer.generate("elsewhere.test")
    assert client.post("/add-checkpoint", data=Log(other, 3).body(0)).status_code == 404
    impostor = Signer.generate("opus.test")  # the name, another key
    assert client.post("/add-checkpoint", data=Log(impostor, 3).body(0)).status_code == 403
    forged = log.body(0).replace("— opus.test ", "— opus.test A")  # a known key's bad sig
    assert client.post("/add-checkpoint", data=forged).status_code in (400, 403)
    assert client.post("/add-checkpoint", data="garbage").status_code == 400
    zero = log.body(0, size=0, root=bytes(32))  # size 0, not the empty tree's root
    assert client.post("/add-checkpoint", data=zero).status_code == 422
    assert client.post("/add-checkpoint", data=log.body(0)).status_code == 200
    conflict = client.post("/add-checkpoint", data=log.body(4))
    assert conflict.status_code == 409
    assert conflict.data == b"10\n" and conflict.content_type == "text/x.tlog.size"
    log.grow(2)
    past = "old 12\n\n" + log.checkpoint(10)  # old past the checkpoint's size
    assert client.post("/add-checkpoint", data=past).status_code == 400
    with_proof_from_0 = "old 0\n" + b64(bytes(32)) + "\n\n" + log.checkpoint()
    assert client.post("/add-checkpoint", data=with_proof_from_0).status_code == 409


def test_a_witness_asked_to_cosign_a_rewound_tree_refuses(witnessed: Any) -> None:
    """The log signs a tree that rewrites the one cosigned: refused (422),
    kept as evidence; a tree rolled back to a smaller size: refused too."""
    client, log, _, store = witnessed
    assert client.post("/add-checkpoint", data=log.body(0)).status_code == 200
    rewound = Log(log.signer, 0)
    for i in range(10):  # leaf 4 changed, then the tree grows again
        rewound.tree.append(leaf_hash(b"changed" if i == 4 else bytes([i]) * 8))
    rewound.grow(5)
    refused = client.post("/add-checkpoint", data=rewound.body(10))
    assert refused.status_code == 422
    assert store.latest("opus.test").size == 10  # not cosigned, not moved
    evidence = list((store.directory / "evidence").iterdir())
    assert len(evidence) == 1 and rewound.checkpoint() in evidence[0].read_text()
    same_size = client.post("/add-checkpoint", data=rewound.body(10, size=10))
    assert same_size.status_code == 422
    smaller = client.post("/add-checkpoint", data="old 10\n\n" + log.checkpoint(6))
    assert smaller.status_code == 400


# ---- the publisher with a witness ------------------------------------------------------


def test_checkpoints_are_published_every_second_while_moves_are_made_and_cosigned(
    tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cosigner = Signer.generate("witness.test", COSIGNATURE_V1)
    service_key = Signer.generate("opus.test")
    key_file.write_text(service_key.to_text())
    witness_store = WitnessStore(tmp_path / "witness")
    witness = Served(create_witness_app(Witness(cosigner, [service_key.verifier], witness_store)))
    monkeypatch.setenv("OPUS_RECEIPTS_WITNESSES", f"{witness.url} {cosigner.vkey()}")
    monkeypatch.setenv("OPUS_RATE_LIMIT", "0")  # games created as fast as they go
    flask_app = embedded_app(tmp_path / "svc", run_projections=False)
    try:
        client = flask_app.test_client()
        seen: dict[int, float] = {}
        started = time.monotonic()
        playing = threading.Event()
        playing.set()

        def watch() -> None:
            # looks every 50 ms, apart from the moves, so that how long a game
            # takes to play under load does not count as the publisher's gap
            watcher = flask_app.test_client()
            while playing.is_set():
                note = watcher.get("/receipts/checkpoint")
                if note.status_code == 200:
                    size = SignedCheckpoint.parse(note.data.decode()).checkpoint.size
                    seen.setdefault(size, time.monotonic() - started)
                time.sleep(0.05)

        watching = threading.Thread(target=watch, daemon=True)
        watching.start()
        seed = 0
        while time.monotonic() - started < 3.5:
            seed += 1
            play(client, 30, seed=seed)
        playing.clear()
        watching.join(timeout=10)
        assert not watching.is_alive()
        # at least one new checkpoint in every second of moves
        times = sorted(seen.values())
        assert len(times) >= 3
        assert all(b - a <= 1.2 for a, b in itertools.pairwise(times))
        receipts = flask_app.extensions["opus"].receipts

        def cosigned() -> bool:
            receipts.publisher.wake()
            note = client.get("/receipts/checkpoint").data.decode()
            try:
                open_note(note, [cosigner.verifier])
            except Exception:
                return False
            return SignedCheckpoint.parse(note).checkpoint.size == receipts.store.state()[0]

        wait_until(cosigned)
        latest = witness_store.latest("opus.test")
        assert latest is not None and latest.size == receipts.store.state()[0]
    finally:
        flask_app.extensions["opus"].close()
        witness.close()


# ---- a client's kept receipts --------------------------------------------------------------


class Witnessed:
    """The service (its publisher asking a witness to cosign) and the
    witness, each served on a port of its own, in this process."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, signer: Signer) -> None:
        self.signer = signer
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "receipts.key").write_text(signer.to_text())
        monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(folder / "receipts.key"))
        self.cosigner = Signer.generate("witness.test", COSIGNATURE_V1)
        self.store = WitnessStore(folder / "witness")
        self.witness = Served(
            create_witness_app(Witness(self.cosigner, [signer.verifier], self.store))
        )
        monkeypatch.setenv("OPUS_RECEIPTS_WITNESSES", f"{self.witness.url} {self.cosigner.vkey()}")
        monkeypatch.setenv("OPUS_RATE_LIMIT", "0")
        self.app = embedded_app(folder / "service", run_projections=False)
        self.served = Served(self.app)
        self.url = self.served.url

    @property
    def witness_flag(self) -> str:
        return f"{self.witness.url} {self.cosigner.vkey()}"

    def close(self) -> None:
        self.served.close()
        self.app.extensions["opus"].close()
        self.witness.close()


@pytest.fixture
def witnessed_service(
    tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Witnessed]:
    service = Witnessed(tmp_path, monkeypatch, Signer.generate("opus.test"))
    yield service
    service.close()


def receipts_cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["receipts", *args])


def test_a_client_pins_its_trust_demands_a_fresh_witness_quorum_and_keeps_the_proof(
    witnessed_service: Witnessed, tmp_path: Path
) -> None:
    service = witnessed_service
    game, receipts = play(service.app.test_client(), 3)
    store = tmp_path / "kept"
    base = ["--server", service.url, "--store", str(store)]
    first = receipts_cli("keep", *base, "--log", str(game))
    assert first.exit_code == 0, first.output
    # the trust pinned at first use is shown: the log's key, the witness, quorum, freshness
    assert "trust pinned at first use" in first.output
    assert service.signer.vkey() in first.output and service.cosigner.vkey() in first.output
    assert "quorum:           1 of 1" in first.output and "at most 600 s old" in first.output
    trust = json.loads((store / "trust.json").read_text())
    assert trust["log"] == service.signer.vkey() and trust["quorum"] == 1
    assert "witnessed by witness.test" in first.output
    # the game's head is kept proven in a checkpoint the witness cosigned
    (proof_file,) = (store / "receipts").glob("*-in-global.tlog-proof")
    proof = TlogProof.parse(proof_file.read_text())
    open_note(proof.checkpoint.encode(), [service.cosigner.verifier])
    last = game_records(opus(service.app), game)[-1]
    assert proof.extra == head_data(game, last.version, last.chain)
    proof.verify_leaf(head_leaf(game, last.version, last.chain))
    (tmp_path / "r.tlog-proof").write_text(receipts[-1])
    with_receipt = receipts_cli("keep", *base, "--receipt", str(tmp_path / "r.tlog-proof"))
    assert with_receipt.exit_code == 0, with_receipt.output
    checked = receipts_cli("check", *base)
    assert checked.exit_code == 0 and "consistent" in checked.output, checked.output
    # the person sets the freshness bound; a witness they do not trust cannot make up a quorum
    stranger = Signer.generate("stranger.test", COSIGNATURE_V1)
    other = receipts_cli("check", *base, "--witness", f"{service.witness.url} {stranger.vkey()}")
    assert other.exit_code == 3, other.output
    assert "NOT PROVEN" in other.output and "0 of the 1 trusted witnesses" in other.output
    assert not list((store / "evidence").iterdir())  # not proven is no misbehaviour


def test_without_a_witness_the_client_refuses_and_says_what_is_missing(
    served: Served, app: Flask, tmp_path: Path
) -> None:
    game, _ = play(app.test_client(), 2)
    base = ["--server", served.url, "--store", str(tmp_path / "kept")]
    refused = receipts_cli("keep", *base, "--log", str(game))
    assert refused.exit_code == 2
    assert "no witness to trust" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "kept" / "trust.json").exists()
    # quorum 0 is the person's choice, said back with its warning
    alone = receipts_cli("keep", *base, "--log", str(game), "--quorum", "0")
    assert alone.exit_code == 0, alone.output
    assert "WARNING: quorum 0" in alone.output


def test_a_client_tells_its_own_corruption_apart(
    witnessed_service: Witnessed, tmp_path: Path
) -> None:
    service = witnessed_service
    game, _ = play(service.app.test_client(), 2)
    base = ["--server", service.url, "--store", str(tmp_path / "kept")]
    assert receipts_cli("keep", *base, "--log", str(game)).exit_code == 0
    kept_file = tmp_path / "kept" / "logs" / f"log-{game}.checkpoint"
    kept_file.write_text(kept_file.read_text()[:40])
    damaged = receipts_cli("check", *base)
    assert damaged.exit_code == 4, damaged.output
    assert "LOCAL STORE CORRUPTED" in damaged.output and "MISBEHAVIOUR" not in damaged.output
    assert not kept_file.exists() and kept_file.with_suffix(".corrupt").exists()
    assert not list((tmp_path / "kept" / "evidence").iterdir())


def test_a_bad_receipt_file_is_said_in_words(witnessed_service: Witnessed, tmp_path: Path) -> None:
    base = ["--server", witnessed_service.url, "--store", str(tmp_path / "kept")]
    (tmp_path / "bad.tlog-proof").write_text("c2sp.org/tlog-proof@v1\nindex x\n\nnothing\n")
    bad = receipts_cli("keep", *base, "--receipt", str(tmp_path / "bad.tlog-proof"))
    assert bad.exit_code == 2, bad.output
    assert "not a receipt" in bad.output and "Traceback" not in bad.output
    assert not (tmp_path / "kept" / "trust.json").exists()  # refused before anything is pinned


# ---- the attacks, proven by opus verify --receipts ------------------------------------


def rechain(records: list[Record], change: Callable[[Record], Record | None]) -> list[Record]:
    """The records changed (or dropped, for None) and chained again, hidden
    fields sealed again with the game's secret: what a server rewriting a
    game must do for the chain to check."""
    secret = secret_in(records)
    out, previous = [], GENESIS
    version = 0
    for record in records:
        changed = change(record)
        if changed is None:
            continue
        version += 1
        payload = changed.payload or {}
        sealed = sealed_payload(secret, changed.aggregate_id, version, changed.type, payload)
        chain = next_chain(
            previous,
            event_record(changed.aggregate_id, version, changed.type, changed.timestamp, sealed),
        )
        out.append(
            Record(
                changed.position,
                changed.aggregate_id,
                version,
                changed.type,
                changed.timestamp,
                payload,
                chain,
            )
        )
        previous = chain
    return out


def sign_log(signer: Signer, game: UUID, records: list[Record], size: int) -> str:
    tree = Tree(chain_leaf(r.chain) for r in records)
    point = Checkpoint(aggregate_origin(signer.name, game), size, tree.root(size))
    proof = TlogProof(
        size - 1,
        tuple(tree.inclusion(size - 1, size)),
        SignedCheckpoint(point, signer.sign_note(point.text())),
        bytes.fromhex(records[size - 1].chain),
    )
    return proof.encode()


def export(records: list[Record], path: Path) -> Path:
    ended = any(r.type == "GameEnded" for r in records)
    secret = secret_in(records)
    path.write_text(
        "".join(r.for_auditor(ended, secret).line() + "\n" for r in records), encoding="utf-8"
    )
    return path


def verify(receipts: Path, log: Path, signer: Signer) -> Any:
    return CliRunner().invoke(
        main,
        ["verify", "--receipts", str(receipts), "--file", str(log), "--key", signer.vkey()],
    )


@pytest.fixture
def a_game(app: Flask, key_file: Path) -> tuple[UUID, list[Record], list[str], Signer]:
    game, receipts = play(app.test_client(), 10, seed=7)
    signer = Signer.from_text(key_file.read_text())
    return game, game_records(opus(app), game), receipts, signer


def keep(folder: Path, player: str, receipts: list[str]) -> Path:
    where = folder / player
    where.mkdir(parents=True, exist_ok=True)
    for number, text in enumerate(receipts):
        (where / f"{number}.tlog-proof").write_text(text)
    return folder


def test_an_honest_log_and_its_receipts_agree(a_game: Any, tmp_path: Path) -> None:
    _game, records, receipts, signer = a_game
    result = verify(
        keep(tmp_path / "kept", "ada", receipts), export(records, tmp_path / "log"), signer
    )
    assert result.exit_code == 0, result.output
    assert "no misbehaviour" in result.output


def test_an_old_event_changed_rechained_and_resealed_is_caught(a_game: Any, tmp_path: Path) -> None:
    game, records, receipts, signer = a_game

    def rename(record: Record) -> Record:
        if record.version != 2:
            return record
        payload = {**(record.payload or {}), "name": "Eve"}
        return Record(
            record.position,
            record.aggregate_id,
            2,
            record.type,
            record.timestamp,
            payload,
            record.chain,
        )

    forged = rechain(records, rename)
    # the forgery checks as a chain: opus verify alone cannot tell
    chain_only = CliRunner().invoke(main, ["verify", "--file", str(export(forged, tmp_path / "f"))])
    assert chain_only.exit_code == 0, chain_only.output
    # Ada kept her receipts; Boris is given one from the forged log later
    kept = keep(tmp_path / "kept", "ada", receipts[:4])
    keep(kept, "boris", [sign_log(signer, game, forged, len(forged))])
    result = verify(kept, export(forged, tmp_path / "forged"), signer)
    assert result.exit_code == 1
    assert "MISBEHAVIOUR (rewritten)" in result.output
    assert "no consistency proof can join the two" in result.output
    assert result.output.count("--- signed statement") >= 2
    assert "leaf 1 (version 2) differs" in result.output


def test_a_truncated_game_is_caught(a_game: Any, tmp_path: Path) -> None:
    _game, records, receipts, signer = a_game
    truncated = records[:-3]
    kept = keep(tmp_path / "kept", "ada", receipts)
    result = verify(kept, export(truncated, tmp_path / "cut"), signer)
    assert result.exit_code == 1
    assert "MISBEHAVIOUR (truncated)" in result.output
    assert f"the server signed {len(records)} leaves; the log holds {len(truncated)}" in (
        result.output
    )


def test_a_fork_shown_to_two_players_is_caught(a_game: Any, tmp_path: Path) -> None:
    game, records, receipts, signer = a_game
    size = len(records)

    def other_ending(record: Record) -> Record:
        if record.version != size - 2 or not record.payload or hidden_fields(record.type):
            return record
        return Record(
            record.position,
            record.aggregate_id,
            record.version,
            record.type,
            record.timestamp,
            {**record.payload, "command": "forked"},
            record.chain,
        )

    forked = rechain(records, other_ending)
    assert forked[-1].chain != records[-1].chain
    kept = keep(tmp_path / "kept", "ada", [receipts[-1]])  # the real log's
    keep(kept, "boris", [sign_log(signer, game, forked, size)])  # the fork, same size
    result = verify(kept, export(records, tmp_path / "log"), signer)
    assert result.exit_code == 1
    assert "MISBEHAVIOUR (fork)" in result.output
    assert f"two roots signed for size {size}" in result.output
    assert result.output.count("--- signed statement") >= 2


def test_a_client_shown_a_fork_proves_it(witnessed_service: Witnessed, tmp_path: Path) -> None:
    """The keeper holds the real checkpoint; the server then shows it
    another tree of the same size: two signed statements, kept as evidence."""
    service = witnessed_service
    game, _ = play(service.app.test_client(), 4)
    keeper = Keeper(tmp_path / "kept", service.url)
    keys = keeper.keys()
    keeper.keep_log(game, keys)
    log = LogId(aggregate=game)
    kept = keeper.kept(log, keys)
    assert kept is not None
    other = Checkpoint(kept.checkpoint.origin, kept.checkpoint.size, EMPTY_ROOT)
    signer = aggregate_signer(service.signer, other.origin)
    shown = keeper.take(signer.sign_note(other.text()).encode(), keys)
    with pytest.raises(Misbehaviour) as caught:
        keeper.check(log, shown, keys, now=True)
    assert caught.value.kind == "fork"
    assert f"two different histories of the same {kept.checkpoint.size}" in caught.value.message
    assert len(caught.value.statements) == 2
    assert caught.value.kept is not None and caught.value.kept.exists()
    keeper.path_of(log).write_text("not a note")
    with pytest.raises(Corrupted):
        keeper.kept(log, keys)


def test_a_new_key_is_taken_only_through_its_transition(
    tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator rotates the key with ``opus receipts rotate``: the client
    follows the transition; a checkpoint signed with the handed-over key is
    refused after it."""
    old = Signer.generate("opus.test")
    first = Witnessed(tmp_path / "one", monkeypatch, old)
    store = tmp_path / "kept"
    try:
        game, _ = play(first.app.test_client(), 2)
        kept = receipts_cli(
            "keep", "--server", first.url, "--store", str(store), "--log", str(game)
        )
        assert kept.exit_code == 0, kept.output
        witness_url, cosigner = first.witness.url, first.cosigner
    finally:
        first.served.close()
        first.app.extensions["opus"].close()
    new = Signer.generate("opus.test")
    rotated = tmp_path / "one" / "rotated.key"
    rotated.write_text(new.to_text())
    rotate = ["receipts", "rotate", "--old", str(tmp_path / "one" / "receipts.key")]
    done = CliRunner().invoke(main, [*rotate, "--new", str(rotated)])
    assert done.exit_code == 0, done.output
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(rotated))
    monkeypatch.setenv(
        "OPUS_RECEIPTS_TRANSITIONS", str(tmp_path / "one" / "receipts-transitions.json")
    )
    second = embedded_app(tmp_path / "one" / "service", run_projections=False)
    served = Served(second)
    try:
        keeper = Keeper(store, served.url)
        # the witness follows the new key too (its operator gave it the new vkey)
        first.witness.close()
        follows = Witness(cosigner, [old.verifier, new.verifier], first.store)
        again = make_server(
            "127.0.0.1",
            int(witness_url.rsplit(":", 1)[1]),
            create_witness_app(follows),
            threaded=True,
        )
        threading.Thread(target=again.serve_forever, daemon=True).start()
        try:
            keys = keeper.keys()
            assert keys.current == new.verifier
            assert any("handed over by 1 statement" in line for line in keys.said)
            trust = json.loads((store / "trust.json").read_text())
            assert trust["log"] == new.vkey() and trust["previous"][0]["vkey"] == old.vkey()
            # whoever holds the handed-over key signs a checkpoint: refused
            tree = Tree(chain_leaf(r.chain) for r in game_records(opus(second), game))
            point = Checkpoint(aggregate_origin("opus.test", game), tree.size, tree.root())
            forged = aggregate_signer(old, point.origin).sign_note(point.text()).encode()
            with pytest.raises(Refused, match="handed over before"):
                keeper.take(forged, keys)
        finally:
            again.shutdown()
            again.server_close()
    finally:
        served.close()
        second.extensions["opus"].close()


# ---- a receipt never fails a saved command; PostgreSQL, several appenders -----------------


def test_a_receipt_that_cannot_be_made_never_fails_the_saved_command(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = app.test_client()
    trees = app.extensions["opus"].receipts.trees

    def broken(point: Checkpoint) -> SignedCheckpoint:
        raise OSError("the signing key's disk is gone")

    monkeypatch.setattr(trees, "sign", broken)
    created = client.post("/games", json={})
    assert created.status_code == 201 and created.json["receipt"] is None
    game = created.json["game_id"]
    assert opus(app).version(UUID(game)) == 1  # saved, and answered
    monkeypatch.undo()
    joined = client.post(f"/games/{game}/players", json={"name": "Ada"}).json
    receipt = TlogProof.parse(joined["receipt"])  # the frontier read again from the log
    assert receipt.index == 1 and receipt.checkpoint.checkpoint.size == 2


@pytest.mark.postgres
def test_several_processes_append_one_global_tree_on_postgresql() -> None:
    import uuid

    from tests.settings import connect_test_postgres, test_postgres_env

    schema = f"receipts_{uuid.uuid4().hex[:8]}"
    with connect_test_postgres() as db:
        db.execute(f"CREATE SCHEMA {schema}")
    env = {**test_postgres_env(), "POSTGRES_SCHEMA": schema}
    apps = [Opus(env=env), Opus(env=env)]
    try:
        stores = [open_global_store(a) for a in apps]
        sequencers = [Sequencer(a, s) for a, s in zip(apps, stores, strict=True)]
        rng = random.Random(3)
        stop = threading.Event()

        def append(sequencer: Sequencer) -> None:
            while not stop.is_set():
                sequencer.step(limit=7)

        threads = [threading.Thread(target=append, args=(s,)) for s in sequencers]
        for thread in threads:
            thread.start()
        for number in range(6):
            app_ = apps[number % 2]
            game = app_.create_game()
            for name in ("Ada", "Boris"):
                app_.join(game, name)
            app_.start(game)
            choose = BOTS["random"](rng)
            for _ in range(10):
                state = app_.state(game)
                app_.play(game, choose(state, state.turn))
        stop.set()
        for thread in threads:
            thread.join(WAIT)
        for sequencer in sequencers:
            sequencer.catch_up()
        public = list(read_records(apps[0]))
        expected = Tree(head_leaf(r.aggregate_id, r.version, r.chain) for r in public)
        from infra.receipts.publisher import stored_root

        for store in stores:
            assert store.state()[0] == len(public)
            assert stored_root(store, len(public)) == expected.root()
    finally:
        for a in apps:
            a.close()
        with connect_test_postgres() as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")


def test_the_command_lines_commands_write_their_receipts(
    tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    result = CliRunner().invoke(main, ["tournament", "create", "--name", "Cup"], env=env)
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("receipt: ")]
    receipt = TlogProof.parse((tmp_path / line.removeprefix("receipt: ")).read_text())
    signer = Signer.from_text(key_file.read_text())
    origin = receipt.checkpoint.checkpoint.origin
    open_note(
        receipt.checkpoint.encode(),
        [aggregate_verifier(signer.verifier, origin.rpartition("/")[2])],
    )
    assert receipt.index == 0 and receipt.checkpoint.checkpoint.size == 1
    receipt.verify_leaf(leaf_hash(receipt.extra or b""))

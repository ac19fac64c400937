"""A player's client of the receipts held to what it promises, in this
process (the attacks through real processes: tests/e2e/test_receipts_attacks.py):
the freshness bound, the event line of a move bound to its receipt, a wiped
witness anchored again by the checkpoint a client kept, the witness's keys
changed only by transition, its CORS and its refusals served, and
``opus verify --receipts`` trusting only pinned keys."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from api.cli import main
from domain.transparency.formats import Checkpoint, SignedCheckpoint, TlogProof
from domain.transparency.logs import aggregate_origin, aggregate_signer
from domain.transparency.merkle import Tree, leaf_hash
from domain.transparency.note import NoteError, Signer, b64, open_note
from domain.transparency.transitions import make_transition
from infra.eventlog import game_records
from infra.receipts.witness import WitnessStore, origin_hash
from infra.receipts.witness_keys import KeyRefused, follow_logs
from tests.e2e.test_full_game_http import OPUS, free_port, stop
from tests.e2e.test_receipts_attacks import Replaying
from tests.integration.test_receipts import Witnessed, opus, play, receipts_cli, wait_until


@pytest.fixture
def witnessed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Witnessed]:
    """The service asking its witness to cosign, each on a port of its own."""
    monkeypatch.setenv("OPUS_RECEIPTS_NAME", "opus.test")
    made = Witnessed(tmp_path, monkeypatch, Signer.generate("opus.test"))
    yield made
    made.close()


def cosigned_up_to_now(service: Witnessed) -> None:
    """Waits until the service's latest global checkpoint carries the
    witness's cosignature and covers its whole log."""
    receipts = service.app.extensions["opus"].receipts
    client = service.app.test_client()

    def cosigned() -> bool:
        receipts.sequencer.catch_up()  # the whole log in the tree, then published
        receipts.publisher.wake()
        note = client.get("/receipts/checkpoint").data.decode()
        try:
            open_note(note, [service.cosigner.verifier])
        except NoteError:
            return False
        size = SignedCheckpoint.parse(note).checkpoint.size
        return 0 < size == receipts.store.state()[0]

    wait_until(cosigned)


def test_a_stale_cosignature_is_refused_and_the_bound_is_the_persons(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    service = witnessed
    play(service.app.test_client(), 2)
    cosigned_up_to_now(service)
    base = ["--server", service.url, "--store", str(tmp_path / "kept")]
    assert receipts_cli("keep", *base, "--log", "global").exit_code == 0
    service.witness.close()  # no fresh cosignature to be had now
    time.sleep(2.5)
    stale = receipts_cli("check", *base, "--max-age", "2")
    assert stale.exit_code == 3, stale.output
    assert "NOT PROVEN" in stale.output and "within the last 2 s" in stale.output
    assert "Traceback" not in stale.output
    trust = json.loads((tmp_path / "kept" / "trust.json").read_text())
    assert trust["max_age"] == 2  # the person's bound, kept and shown
    assert not list((tmp_path / "kept" / "evidence").glob("*.txt"))


def test_a_players_move_is_kept_bound_to_its_receipt(witnessed: Witnessed, tmp_path: Path) -> None:
    service = witnessed
    game, receipts = play(service.app.test_client(), 3)
    store = tmp_path / "kept"
    base = ["--server", service.url, "--store", str(store)]
    receipt = TlogProof.parse(receipts[-1])
    version = receipt.index + 1
    line = game_records(opus(service.app), game)[receipt.index].line()
    (tmp_path / "r.tlog-proof").write_text(receipts[-1])
    kept = receipts_cli("keep", *base, "--receipt", str(tmp_path / "r.tlog-proof"), "--event", line)
    assert kept.exit_code == 0, kept.output
    assert f"your event at version {version}" in kept.output
    (event_file,) = (store / "receipts").glob("*.event.json")
    event = json.loads(event_file.read_text())
    assert bytes.fromhex(event["chain"]) == receipt.extra  # "my move was this one"
    receipt_file = str(tmp_path / "r.tlog-proof")
    other = game_records(opus(service.app), game)[receipt.index - 1].line()
    wrong = receipts_cli("keep", *base, "--receipt", receipt_file, "--event", other)
    assert wrong.exit_code == 2 and "Traceback" not in wrong.output, wrong.output
    assert "the receipt is of version" in wrong.output
    # the right version, another move: its chain value is not the receipt's
    claimed = json.loads(line)
    claimed["payload"] = {**(claimed["payload"] or {}), "claimed": True}
    claimed["chain"] = hashlib.sha256(bytes.fromhex(claimed["chain"])).hexdigest()
    forged = receipts_cli("keep", *base, "--receipt", receipt_file, "--event", json.dumps(claimed))
    assert forged.exit_code == 2, forged.output
    assert "not the event the server acknowledged" in forged.output


def test_a_wiped_witness_is_anchored_again_by_a_clients_kept_checkpoint(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    """The witness's state is deleted and the server shows a rewritten log:
    the client hands the witness the checkpoint it kept (cosigned before)
    before anything the server shows, so the witness refuses the rewritten
    log whoever submits it next; the client says what it saw."""
    service = witnessed
    play(service.app.test_client(), 3)
    cosigned_up_to_now(service)
    store = tmp_path / "kept"
    kept = receipts_cli("keep", "--server", service.url, "--store", str(store), "--log", "global")
    assert kept.exit_code == 0, kept.output
    size = SignedCheckpoint.parse(
        (store / "logs" / "global-0.checkpoint").read_text()
    ).checkpoint.size
    for path in service.store.directory.glob("*.json"):
        path.unlink()  # the witness's state deleted
    rewritten = Checkpoint("opus.test", size + 4, leaf_hash(b"another history"))
    shown = service.signer.sign_note(rewritten.text()).encode()
    replaying = Replaying(service.url, shown)
    try:
        seen = receipts_cli("check", "--server", replaying.url, "--store", str(store))
    finally:
        replaying.close()
    assert seen.exit_code == 1 and "MISBEHAVIOUR" in seen.output, seen.output
    anchored = service.store.latest("opus.test")
    assert anchored is not None and anchored.size == size  # the kept one, cosigned again
    body = f"old {size}\n{b64(leaf_hash(b'x'))}\n\n{shown}"
    refused = requests.post(f"{service.witness.url}/add-checkpoint", data=body, timeout=10)
    assert refused.status_code == 422


def test_the_witness_answers_a_web_page_and_serves_what_it_refused(
    witnessed: Witnessed,
) -> None:
    url = witnessed.witness.url
    preflight = requests.options(
        f"{url}/add-checkpoint",
        headers={
            "Origin": "https://elsewhere.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
        timeout=10,
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]
    hashed = origin_hash("opus.test")
    listed = requests.get(f"{url}/{hashed}/refused", timeout=10)
    assert listed.headers["Access-Control-Allow-Origin"] == "*"
    assert listed.json() == {"origin": "opus.test", "refused": []}
    wait_until(lambda: witnessed.store.latest("opus.test") is not None)
    latest = witnessed.store.latest("opus.test")
    assert latest is not None
    forged = Checkpoint("opus.test", latest.size + 3, leaf_hash(b"x"))
    note = witnessed.signer.sign_note(forged.text()).encode()
    body = f"old {latest.size}\n{b64(leaf_hash(b'y'))}\n\n{note}"
    for _ in range(3):  # sent again and again: kept once
        assert requests.post(f"{url}/add-checkpoint", data=body, timeout=10).status_code == 422
    (refusal,) = requests.get(f"{url}/{hashed}/refused", timeout=10).json()["refused"]
    assert refusal["checkpoint"] == note and refusal["reason"]


def test_a_witness_follows_a_new_key_only_by_transition(tmp_path: Path) -> None:
    old, new = Signer.generate("opus.test"), Signer.generate("opus.renamed")
    store = WitnessStore(tmp_path / "witness")
    assert follow_logs(store, [old.verifier]) == [f"pinned at first start: log {old.vkey()}"]
    point = Checkpoint("opus.test", 1, leaf_hash(b"one"))
    from infra.receipts.witness import Latest

    store.keep("opus.test", Latest(1, point.root, old.sign_note(point.text()).encode()))
    with pytest.raises(KeyRefused, match="no transition statement"):
        follow_logs(store, [new.verifier])
    transition = make_transition(old, new, datetime(2026, 12, 8, tzinfo=UTC))
    said = follow_logs(store, [new.verifier], [transition])
    assert said == [f"follows {new.vkey()}: handed over from {old.vkey()} by transition"]
    carried = store.latest("opus.renamed")
    assert carried is not None and carried.size == 1  # the new name continues the log
    stranger = Signer.generate("opus.test")
    assert follow_logs(store, [stranger.verifier], add=True)  # the operator's word, said


# ---- opus verify --receipts trusts only pinned keys ---------------------------------------


def verify_cli(folder: Path, *more: str) -> object:
    return CliRunner().invoke(main, ["verify", "--receipts", str(folder), *more])


def test_verify_refuses_a_key_nobody_pinned_and_a_folder_proving_nothing(
    witnessed: Witnessed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = witnessed
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "service" / "events.db"))
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    game, _ = play(service.app.test_client(), 3)
    (tmp_path / "empty").mkdir()
    unpinned = CliRunner().invoke(main, ["verify", "--receipts", str(tmp_path / "empty")])
    assert unpinned.exit_code != 0 and "no key to check with" in unpinned.output
    nothing = CliRunner().invoke(
        main, ["verify", "--receipts", str(tmp_path / "empty"), "--key", service.signer.vkey()]
    )
    assert nothing.exit_code == 1 and "nothing proven" in nothing.output, nothing.output
    store = tmp_path / "kept"
    kept = receipts_cli("keep", "--server", service.url, "--store", str(store), "--log", str(game))
    assert kept.exit_code == 0, kept.output
    honest = CliRunner().invoke(main, ["verify", "--receipts", str(store)])
    assert honest.exit_code == 0, honest.output
    # a checkpoint under the log's name by a new key nobody pinned, no retired-keys file
    silent = Signer.generate("opus.test")
    records = game_records(opus(service.app), game)
    tree = Tree(leaf_hash(bytes.fromhex(r.chain)) for r in records)
    point = Checkpoint(aggregate_origin("opus.test", game), tree.size, tree.root())
    signed = aggregate_signer(silent, point.origin).sign_note(point.text()).encode()
    (store / "logs" / "shown-later.checkpoint").write_text(signed)
    caught = CliRunner().invoke(main, ["verify", "--receipts", str(store)])
    assert caught.exit_code == 1, caught.output
    assert "MISBEHAVIOUR (key-change)" in caught.output and "in silence" in caught.output


def test_the_services_own_witness_follows_the_keys_it_serves(
    witnessed: Witnessed, tmp_path: Path
) -> None:
    """``opus witness --follow URL`` (the production layout's): the logs
    the well-known document names, pinned at its first start."""
    port = free_port()
    args = [OPUS, "witness", "--store", str(tmp_path / "own"), "--key", str(tmp_path / "own.key")]
    process = subprocess.Popen(
        [*args, "--follow", witnessed.url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:

        def up() -> bool:
            assert process.poll() is None, "the witness exited"
            try:
                return requests.get(f"http://127.0.0.1:{port}/", timeout=2).ok
            except requests.RequestException:
                return False

        wait_until(up)
        about = requests.get(f"http://127.0.0.1:{port}/", timeout=10).text
        assert f"log {witnessed.signer.vkey()}" in about
        pinned = json.loads((tmp_path / "own" / "logs.json").read_text())
        assert pinned == {"logs": [witnessed.signer.vkey()]}
    finally:
        stop(process)


def test_what_the_client_cannot_use_or_reach_is_said_in_words(tmp_path: Path) -> None:
    store = str(tmp_path / "kept")
    no_scheme = receipts_cli("check", "--server", "localhost:8000", "--store", store)
    assert no_scheme.exit_code == 2 and "is not an http(s) URL" in no_scheme.output
    (tmp_path / "binary").write_bytes(bytes(range(256)))
    binary = receipts_cli(
        "keep",
        "--server",
        "http://127.0.0.1:9",
        "--store",
        store,
        "--receipt",
        str(tmp_path / "binary"),
    )
    assert binary.exit_code == 2 and "not a receipt" in binary.output
    away = receipts_cli("check", "--server", f"http://127.0.0.1:{free_port()}", "--store", store)
    assert away.exit_code == 3, away.output
    assert "could not be reached (Connection refused)" in away.output
    for said in (no_scheme.output, binary.output, away.output):
        assert "Traceback" not in said and "urlopen" not in said

"""Receipts over an event store split into two shards (two databases of the
shared PostgreSQL), through the HTTP service and the command line.

Games on both shards: every command's receipt verifies under the service's
key; each shard's global checkpoint covers exactly that shard's public
events, signed under its own origin, and the inclusion proofs the service
gives verify against it; ``opus receipts rebuild`` makes each shard's tree
again, the same; a game rewritten in one shard's database is caught by
``opus verify --receipts``, in that shard's log alone; one shard's database
refusing connections stops its publisher only, the other shard's goes on
and its endpoints answer, and the first catches up when it is back; a
witness cosigns each shard's checkpoints under that shard's origin.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import orjson
import psycopg
import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from api.cli import main
from domain.audit import Record
from domain.sharding import shard_of
from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.logs import (
    aggregate_origin,
    aggregate_verifier,
    global_origin,
    global_verifier,
    head_data,
    head_leaf,
)
from domain.transparency.merkle import Tree, leaf_hash, verify_consistency, verify_inclusion
from domain.transparency.note import COSIGNATURE_V1, Signer, Verifier, b64decode, open_note
from infra.eventlog import game_records, read_records
from infra.receipts.publisher import stored_root
from infra.receipts.witness import Witness, WitnessStore, create_witness_app
from infra.shards import shard_apps
from tests.apps import sharded_app
from tests.integration.test_receipts import WAIT, Served, play, rechain, wait_until
from tests.integration.test_shards import shards_env  # noqa: F401  (a fixture)
from tests.settings import connect_test_postgres, test_postgres_env

pytestmark = pytest.mark.postgres
SHARDS = 2
NAME = "opus.test"


@pytest.fixture
def receipts_env(shards_env: dict[str, str], tmp_path: Path) -> dict[str, str]:  # noqa: F811
    return {
        **shards_env,
        "OPUS_RECEIPTS_KEY_FILE": str(tmp_path / "receipts.key"),
        "OPUS_RECEIPTS_NAME": NAME,
        "OPUS_RECEIPTS_INTERVAL": "0.2",
    }


def receipts_app(receipts_env: dict[str, str], tmp_path: Path) -> Flask:
    """The HTTP service over the shards, receipts on (their default), its
    publishers running."""
    return sharded_app(
        tmp_path,
        {
            "OPUS_RECEIPTS_WITNESSES": None,
            **receipts_env,
            "PERSISTENCE_MODULE": None,
            "POSTGRES_DBNAME": None,
            "POSTGRES_HOST": None,
            "POSTGRES_PORT": None,
            "OPUS_RECEIPTS": None,  # on by default, with shards as without
        },
    )


@pytest.fixture
def service(receipts_env: dict[str, str], tmp_path: Path) -> Iterator[Flask]:
    app = receipts_app(receipts_env, tmp_path)
    yield app
    app.extensions["opus"].close()


def receipts_of(app: Flask) -> Any:
    return app.extensions["opus"].receipts


def games_on_both_shards(client: FlaskClient) -> dict[UUID, list[str]]:
    """Games played over HTTP until each shard holds two; their receipts."""
    played: dict[UUID, list[str]] = {}
    for seed in range(1, 40):
        game, receipts = play(client, 8, seed=seed)
        played[game] = receipts
        on = [shard_of(g, SHARDS) for g in played]
        if all(on.count(k) >= 2 for k in range(SHARDS)):
            return played
    raise AssertionError("39 lobby games and still a shard with fewer than two")


def public_records(app: Flask, shard: int) -> list[Record]:
    """A shard's public events in its own log's order (positions its own)."""
    return list(read_records(shard_apps(app.extensions["opus"].opus)[shard]))


def published_up_to_now(app: Flask, client: FlaskClient, shard: int) -> SignedCheckpoint:
    """Shard ``shard``'s latest checkpoint once it covers that shard's log now."""
    count = len(public_records(app, shard))

    def covered() -> bool:
        publisher = receipts_of(app).log(shard).publisher
        if publisher is not None:
            publisher.wake()
        answer = client.get(f"/receipts/checkpoint?shard={shard}")
        return answer.status_code == 200 and (
            SignedCheckpoint.parse(answer.data.decode()).checkpoint.size == count
        )

    wait_until(covered)
    return SignedCheckpoint.parse(client.get(f"/receipts/checkpoint?shard={shard}").data.decode())


def global_keys(client: FlaskClient) -> dict[int, Verifier]:
    document = client.get("/.well-known/opus-receipts").json
    return {o["shard"]: Verifier.from_vkey(o["vkey"]) for o in document["global_origins"]}


# ---- receipts and each shard's global log --------------------------------------------------


def test_every_commands_receipt_verifies_on_both_shards(service: Flask) -> None:
    client = service.test_client()
    document = client.get("/.well-known/opus-receipts").json
    vkey = Verifier.from_vkey(document["vkey"])
    assert document["global_origin"] == NAME
    assert [o["origin"] for o in document["global_origins"]] == [NAME, f"{NAME}/shard/1"]
    for game, receipts in games_on_both_shards(client).items():
        chains = [r.chain for r in game_records(service.extensions["opus"].opus, game)]
        for text in receipts:
            receipt = TlogProof.parse(text)
            open_note(receipt.checkpoint.encode(), [aggregate_verifier(vkey, game)])  # its name
            point = receipt.checkpoint.checkpoint
            assert point.origin == aggregate_origin(NAME, game)
            receipt.verify_leaf(leaf_hash(receipt.extra or b""))
            assert receipt.extra == bytes.fromhex(chains[receipt.index])
        assert receipts and TlogProof.parse(receipts[-1]).checkpoint.checkpoint.size == len(chains)


def test_each_shards_global_checkpoint_covers_its_public_events_and_proves_them(
    service: Flask,
) -> None:
    client = service.test_client()
    games = games_on_both_shards(client)
    keys = global_keys(client)
    for shard in range(SHARDS):
        signed = published_up_to_now(service, client, shard)
        open_note(signed.encode(), [keys[shard]])
        with pytest.raises(Exception, match="no signature of a known key"):
            open_note(signed.encode(), [keys[1 - shard]])  # another shard's key signs not
        point = signed.checkpoint
        assert point.origin == global_origin(NAME, shard)
        records = public_records(service, shard)
        assert {shard_of(UUID(r.aggregate_id), SHARDS) for r in records} == {shard}
        tree = Tree(head_leaf(r.aggregate_id, r.version, r.chain) for r in records)
        assert point.size == tree.size and point.root == tree.root()
        # a game's head is proved in its own shard's tree, which the answer names
        for game in (g for g in games if shard_of(g, SHARDS) == shard):
            chains = [r.chain for r in game_records(service.extensions["opus"].opus, game)]
            for version in (1, len(chains)):
                answer = client.get(
                    f"/receipts/inclusion?aggregate_id={game}&version={version}"
                ).json
                assert answer["shard"] == shard and answer["origin"] == point.origin
                assert SignedCheckpoint.parse(answer["checkpoint"]).checkpoint == point
                data = head_data(game, version, chains[version - 1])
                proof = [b64decode(h) for h in answer["proof"]]
                verify_inclusion(answer["index"], point.size, leaf_hash(data), proof, point.root)
        # the consistency proof from a size a client kept, in this shard's log
        old = max(1, point.size // 3)
        answer = client.get(f"/receipts/consistency?shard={shard}&old={old}").json
        proof = [b64decode(h) for h in answer["proof"]]
        verify_consistency(old, point.size, tree.root(old), point.root, proof)
    missing = client.get("/receipts/checkpoint?shard=2")
    assert missing.status_code == 404
    assert "no shard 2: the event store has 2 shards" in missing.json["message"]
    assert client.get("/receipts/consistency?shard=5&old=0").status_code == 404
    assert client.get("/receipts/checkpoint?shard=-1").status_code == 422


def test_a_witness_cosigns_each_shards_checkpoints_under_its_origin(
    receipts_env: dict[str, str], tmp_path: Path
) -> None:
    service_key = Signer.generate(NAME)
    Path(receipts_env["OPUS_RECEIPTS_KEY_FILE"]).write_text(service_key.to_text())
    cosigner = Signer.generate("witness.test", COSIGNATURE_V1)
    shard_keys = [global_verifier(service_key.verifier, k) for k in range(SHARDS)]
    witness_store = WitnessStore(tmp_path / "witness")
    witness = Served(create_witness_app(Witness(cosigner, shard_keys, witness_store)))
    env = {**receipts_env, "OPUS_RECEIPTS_WITNESSES": f"{witness.url} {cosigner.vkey()}"}
    app = receipts_app(env, tmp_path)
    try:
        client = app.test_client()
        games_on_both_shards(client)
        for shard in range(SHARDS):
            origin = global_origin(NAME, shard)

            def cosigned(shard: int = shard, origin: str = origin) -> bool:
                signed = published_up_to_now(app, client, shard)
                latest = witness_store.latest(origin)
                return latest is not None and latest.size == signed.checkpoint.size

            wait_until(cosigned)
            signed = published_up_to_now(app, client, shard)
            _, verified = open_note(signed.encode(), [shard_keys[shard], cosigner.verifier])
            assert verified == [shard_keys[shard], cosigner.verifier]
    finally:
        app.extensions["opus"].close()
        witness.close()


def test_the_rebuild_makes_each_shards_tree_again_the_same(
    service: Flask, receipts_env: dict[str, str]
) -> None:
    client = service.test_client()
    games_on_both_shards(client)
    for shard in range(SHARDS):
        published_up_to_now(service, client, shard)
    receipts = receipts_of(service)
    receipts.close()  # the publishers stopped: the trees stand still
    before = []
    for log in receipts.logs:
        size, position = log.store.state()
        before.append((size, position, stored_root(log.store, size)))
    rebuilt = CliRunner().invoke(main, ["receipts", "rebuild"], env=receipts_env)
    assert rebuilt.exit_code == 0, rebuilt.output
    for shard, log in enumerate(receipts.logs):
        size, position, root = before[shard]
        assert log.store.state() == (size, position)
        assert stored_root(log.store, size) == root
        assert f"shard {shard}'s global log's tree: {size} leaves" in rebuilt.output
    one = CliRunner().invoke(main, ["receipts", "rebuild", "--shard", "1"], env=receipts_env)
    assert one.exit_code == 0, one.output
    assert "shard 1's" in one.output and "shard 0's" not in one.output
    assert stored_root(receipts.logs[1].store, before[1][0]) == before[1][2]


# ---- a client's kept statements, and a rewritten game ------------------------------------


def rewrite_in_store(database: str, records: list[Record]) -> None:
    """The game's stored events given ``records``' chains and payload names,
    in its shard's database, as a server rewriting history would."""
    env = test_postgres_env()
    with psycopg.connect(
        dbname=database,
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"] or None,
        autocommit=True,
    ) as db:
        for record in records:
            row = db.execute(
                "SELECT state FROM opus_events "
                "WHERE originator_id = %s AND originator_version = %s",
                (record.aggregate_id, record.version),
            ).fetchone()
            assert row is not None
            state = orjson.loads(bytes(row[0]))
            state["chain"] = record.chain
            if record.payload and "name" in record.payload and "name" in state:
                state["name"] = record.payload["name"]
            db.execute(
                "UPDATE opus_events SET state = %s WHERE originator_id = %s "
                "AND originator_version = %s",
                (orjson.dumps(state), record.aggregate_id, record.version),
            )


def shard_database(env: dict[str, str], shard: int) -> str:
    return env["OPUS_SHARDS"].split(",")[shard].rpartition("/")[2]


def test_a_game_rewritten_in_one_shards_store_is_caught_by_verify_receipts(
    service: Flask, receipts_env: dict[str, str], tmp_path: Path
) -> None:
    client = service.test_client()
    games = games_on_both_shards(client)
    for shard in range(SHARDS):
        published_up_to_now(service, client, shard)
    served = Served(service)
    store = tmp_path / "ada"
    try:
        runner = CliRunner()
        kept_args = ["receipts", "keep", "--server", served.url, "--log", "global", "--quorum", "0"]
        kept_args += ["--store", str(store)]
        kept = runner.invoke(main, kept_args, env=receipts_env)
        assert kept.exit_code == 0, kept.output
        assert f"ok   {NAME} size" in kept.output and f"ok   {NAME}/shard/1 size" in kept.output
        one = runner.invoke(
            main,
            [*kept_args, "--shard", "1"],
            env=receipts_env,
        )
        assert one.exit_code == 0 and one.output.count("ok   ") == 1, one.output
        checked = runner.invoke(
            main, ["receipts", "check", "--server", served.url, "--store", str(store)]
        )
        assert checked.exit_code == 0 and checked.output.count(": consistent") == 2, checked.output
    finally:
        served.close()
    victim = next(g for g in games if shard_of(g, SHARDS) == 1)
    for number, text in enumerate(games[victim]):
        (store / "receipts" / f"game-{number}.tlog-proof").write_text(text)
    honest = CliRunner().invoke(main, ["verify", "--receipts", str(store)], env=receipts_env)
    assert honest.exit_code == 0, honest.output
    assert "no misbehaviour" in honest.output and "not checked" not in honest.output

    def rename(record: Record) -> Record:
        if record.version != 2:
            return record
        payload = {**(record.payload or {}), "name": "Eve"}
        return Record(
            record.position, record.aggregate_id, 2, record.type, record.timestamp, payload, ""
        )

    original = game_records(service.extensions["opus"].opus, victim)
    rewrite_in_store(shard_database(receipts_env, 1), rechain(original, rename))
    caught = CliRunner().invoke(main, ["verify", "--receipts", str(store)], env=receipts_env)
    assert caught.exit_code == 1, caught.output
    assert f"MISBEHAVIOUR (rewritten) in {NAME}/shard/1:" in caught.output
    assert f"MISBEHAVIOUR (rewritten) in {aggregate_origin(NAME, victim)}:" in caught.output
    assert f"in {NAME}:" not in caught.output  # shard 0's log is as it was signed


# ---- a shard down ----------------------------------------------------------------------------


def connections(database: str, allowed: bool) -> None:
    with connect_test_postgres() as db:
        db.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            db.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )


def a_game_on(client: FlaskClient, shard: int) -> UUID:
    """A lobby game created on ``shard`` (one made elsewhere is left as it
    is; one the store answered 503 for is tried again, a shard just back
    being reconnected), within ``WAIT`` seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        created = client.post("/games", json={})
        if created.status_code == 201 and shard_of(UUID(created.json["game_id"]), SHARDS) == shard:
            return UUID(created.json["game_id"])
        if created.status_code == 503:
            time.sleep(0.1)
    raise AssertionError(f"no game made on shard {shard} in {WAIT} s")


def test_a_shard_down_stops_its_publisher_alone(
    service: Flask, receipts_env: dict[str, str]
) -> None:
    client = service.test_client()
    games_on_both_shards(client)
    sizes = [published_up_to_now(service, client, k).checkpoint.size for k in range(SHARDS)]
    down = shard_database(receipts_env, 1)
    connections(down, allowed=False)
    try:
        # shard 0 goes on: its new game is published while shard 1 cannot be reached
        game = a_game_on(client, 0)
        grown = published_up_to_now(service, client, 0)
        assert grown.checkpoint.size > sizes[0]
        answer = client.get(f"/receipts/inclusion?aggregate_id={game}&version=1")
        assert answer.status_code == 200 and answer.json["shard"] == 0
        assert client.get("/.well-known/opus-receipts").status_code == 200
        unknown = client.get(f"/receipts/inclusion?aggregate_id={uuid4()}&version=1")
        assert unknown.status_code == 503, unknown.data  # it may be on shard 1: never a 404
        unreachable = client.get("/receipts/checkpoint?shard=1")
        assert unreachable.status_code == 503, unreachable.data
        assert unreachable.headers.get("Retry-After")
    finally:
        connections(down, allowed=True)
    # back: shard 1's publisher catches up with what is made there now
    a_game_on(client, 1)
    back = published_up_to_now(service, client, 1)
    assert back.checkpoint.size > sizes[1]


def test_the_publishers_keep_each_shards_tree_in_its_own_database(service: Flask) -> None:
    client = service.test_client()
    games_on_both_shards(client)
    for shard in range(SHARDS):
        published_up_to_now(service, client, shard)
    for shard, shard_app in enumerate(shard_apps(service.extensions["opus"].opus)):
        datastore = shard_app.recorder.datastore  # type: ignore[attr-defined]
        with datastore.transaction(commit=False) as cursor:
            cursor.execute("SELECT note FROM opus_tlog_checkpoints ORDER BY size DESC LIMIT 1")
            row = cursor.fetchone()
        note = row["note"] if isinstance(row, dict) else row[0]
        assert SignedCheckpoint.parse(note).checkpoint.origin == global_origin(NAME, shard)

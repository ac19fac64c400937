"""The published test vector of the hash chain (README, "Test vector for the chain").

A fixed log of six events: a game created with the secret 0x00..0x1f (the
shuffle's vector, RULES §9), joined by "Ada" and "Борис" (each contributing
their name: the deck is that of the shuffle's second vector), and started:
the deal and seat 0's first draw. Three events carry hidden fields (the
secret, the dealt hands, the drawn card), so the salt and the sealing are
covered, and a non-ASCII name covers the UTF-8 text of the canonical JSON.

The chain values and seals are computed here from the README's "Audit"
specification and domain/chain.py's docstring alone (hashlib, hmac and
json.dumps written out, never domain.chain), compared with the published
values, and ``domain.audit.verify_game`` must accept the vector, as the
server's private log (hidden values in clear) and as a running game's
export (hidden values sealed), and refuse it with any one value changed.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from typing import Any

import pytest

from domain.audit import Record, verify_game

GAME = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
SECRET = bytes(range(32)).hex()
# The hidden fields of the event types in the vector (README, Audit: the
# secret, dealt and drawn cards).
HIDDEN = {"GameCreated": ["secret"], "CardsDealt": ["hands"], "CardsDrawn": ["cards"]}

# The log as the server records it: hidden values in clear.
EVENTS: list[dict[str, Any]] = [
    {
        "version": 1,
        "type": "GameCreated",
        "timestamp": "2026-11-29T14:03:20.000001+00:00",
        "payload": {
            "organiser_hash": "f33d1c3e2565efacc4f692d92d0e587e0ac0cb49b6370be136efefaa7b10b403",
            "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
            "secret": SECRET,
            "draw": "five",
            "guild": True,
            "stage_points": [2, 2, 4, 4, 6, 8, 10],
        },
    },
    {
        "version": 2,
        "type": "PlayerJoined",
        "timestamp": "2026-11-29T14:03:21.000002+00:00",
        "payload": {
            "command": "",
            "player": 0,
            "name": "Ada",
            "contribution": "Ada",
            "token_hash": "fdee430d40bd57deeac186cd9790033d0f06f909a8806e7ce6e717ab7c7d5029",
        },
    },
    {
        "version": 3,
        "type": "PlayerJoined",
        "timestamp": "2026-11-29T14:03:22.000003+00:00",
        "payload": {
            "command": "",
            "player": 1,
            "name": "Борис",
            "contribution": "Борис",
            "token_hash": "0df89317e02535902d116be0f27294a75145339bf4af53fb35131aea8071a0e1",
        },
    },
    {
        "version": 4,
        "type": "GameStarted",
        "timestamp": "2026-11-29T14:03:23.000004+00:00",
        "payload": {
            "command": "",
            "rules": {
                "draw": "five",
                "guild": True,
                "stage_points": [2, 2, 4, 4, 6, 8, 10],
                "players": 2,
                "version": "1",
            },
            "rules_digest": "b810064795bce086295e93af6b396bdd80c0b5a5c102a4511221dabf9d84c86c",
            "sequence_cards": ["S1", "S2"],
            "cabinet": [6, 30, 32, 20],
        },
    },
    {
        "version": 5,
        "type": "CardsDealt",
        "timestamp": "2026-11-29T14:03:24.000005+00:00",
        "payload": {"command": "", "hands": [[42, 4, 59, 57], [24, 75, 44, 21]]},
    },
    {
        "version": 6,
        "type": "CardsDrawn",
        "timestamp": "2026-11-29T14:03:25.000006+00:00",
        "payload": {"command": "", "player": 0, "cards": [50]},
    },
]

# The published values: the salt of each event with a hidden field, each seal,
# and every chain value.
SALTS = {
    1: "d18b9db3969e746bd9547f3be5966197a3db0d254942375cfcb81dbada42e342",
    5: "58f99ae8c32393de9394c67f7cbd8506a9a0908b88b04c67b50a802733e00fda",
    6: "a99be35f23f6c23b2e097528ce545eba8db00b7b0b7a0b1a692773baed7e4366",
}
SEALS = {
    (1, "secret"): "sealed:dac39e980831551022a4b6061e1e91a71297cf72c02f5a0eb85bf70b0cabac0d",
    (5, "hands"): "sealed:0775c3895e395075d2e5bb1b57d68c14b26d42ea6f4d7691333c45509695aaa1",
    (6, "cards"): "sealed:4ad2d23725a9af6e61c8de77698a0642e8d7dd1055ec9db4f8288f0c811c708b",
}
CHAINS = [
    "3b24d5f266da82263766f712bcd6835e8cd5721741bc20f1f0b02218252d11c5",
    "212f7285d4a03ecaadbf49f3c758f6aabbc6add24a286d9a2e028a1a7f3a1406",
    "0f95e1907a85fe83572e3e46b8e3c31dedb55548deba19476bb63001cec2412b",
    "abd74509dc2710278baf1a996b337fadcbec23952310eca3451f36cb47e49519",
    "a497a89bd565db5f9894f83e2d03b7b21ad221c15ec6d81d32c4da54ad1ab2a9",
    "18d120dcfdb98daa70a8f7df55696260ee099df9e002c4b0a80f08051c232383",
]


def canonical(value: Any) -> bytes:
    """Keys sorted at every level, separators "," and ":", UTF-8, no \\u escapes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def salt(version: int) -> bytes:
    """HMAC-SHA256, key: the secret's 32 bytes, message: "<aggregate_id>:<version>"."""
    message = f"{GAME}:{version}".encode()
    return hmac.new(bytes.fromhex(SECRET), message, hashlib.sha256).digest()


def sealed(version: int, value: Any) -> str:
    return "sealed:" + hashlib.sha256(salt(version) + canonical(value)).hexdigest()


def export_payload(event: dict[str, Any]) -> dict[str, Any]:
    """The payload as the chain covers it: hidden values sealed."""
    payload = dict(event["payload"])
    for name in HIDDEN.get(event["type"], []):
        payload[name] = sealed(event["version"], payload[name])
    return payload


def chain_values() -> list[str]:
    previous = bytes(32)  # the genesis: 32 zero bytes
    values = []
    for event in EVENTS:
        record = {
            "aggregate_id": GAME,
            "version": event["version"],
            "type": event["type"],
            "timestamp": event["timestamp"],
            "payload": export_payload(event),
        }
        previous = hashlib.sha256(previous + canonical(record)).digest()
        values.append(previous.hex())
    return values


def lines(*, export: bool) -> list[dict[str, Any]]:
    """The vector as exported NDJSON lines: the server's log (hidden values in
    clear) or a running game's export (sealed, ``redacted``)."""
    out = []
    for event, chain in zip(EVENTS, CHAINS, strict=True):
        line = {"position": event["version"], "aggregate_id": GAME, **copy.deepcopy(event)}
        line["chain"] = chain
        if export and event["type"] in HIDDEN:
            line["payload"] = export_payload(event)
            line["redacted"] = True
        out.append(line)
    return out


def records(vector: list[dict[str, Any]]) -> list[Record]:
    return [Record.from_line(line) for line in vector]


def test_the_canonical_json_of_the_vector_is_sorted_compact_utf8() -> None:
    """README, Audit: keys sorted at every level, no spaces, UTF-8 text."""
    joined = {"aggregate_id": GAME, **EVENTS[2]}
    text = canonical(joined).decode()
    assert text.startswith('{"aggregate_id":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","payload":')
    assert '{"command":"","contribution":"Борис","name":"Борис","player":1,' in text
    assert "Борис".encode() in canonical(joined)
    assert " " not in text and "\\u" not in text


def test_the_salts_and_seals_are_the_published_ones() -> None:
    """README, Audit: salt = HMAC-SHA256(secret, "<aggregate_id>:<version>"),
    seal = "sealed:" + hex(SHA-256(salt ‖ canonical JSON of the value))."""
    assert {v: salt(v).hex() for v in SALTS} == SALTS
    computed = {
        (event["version"], name): sealed(event["version"], event["payload"][name])
        for event in EVENTS
        for name in HIDDEN.get(event["type"], [])
    }
    assert computed == SEALS


def test_the_chain_values_are_the_published_ones() -> None:
    """README, Audit: chain(n) = SHA-256(chain(n-1) as 32 bytes ‖ canonical
    JSON of event n), chain(0) = 32 zero bytes."""
    assert chain_values() == CHAINS


@pytest.mark.parametrize("export", [False, True], ids=["in-clear", "sealed"])
def test_verify_game_accepts_the_vector(export: bool) -> None:
    """The service's audit accepts the vector, in clear (it seals with the
    secret in GameCreated) and as a running game's export (sealed)."""
    vector = lines(export=export)
    if export:
        assert vector[0]["payload"]["secret"] == SEALS[(1, "secret")]
        assert vector[5]["payload"]["cards"] == SEALS[(6, "cards")]
    verdict = verify_game(records(vector))
    assert verdict.ok, verdict.reason
    assert verdict.status == "running"
    # The service's own sealing of the log gives the published export.
    exported = [r.for_auditor(False, SECRET).to_line() for r in records(lines(export=False))]
    assert exported == [Record.from_line(line).to_line() for line in lines(export=True)]


@pytest.mark.parametrize("export", [False, True], ids=["in-clear", "sealed"])
@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6])
def test_verify_game_refuses_the_vector_with_one_chain_value_changed(
    export: bool, version: int
) -> None:
    vector = lines(export=export)
    chain = vector[version - 1]["chain"]
    vector[version - 1]["chain"] = chain[:-1] + ("0" if chain[-1] != "0" else "1")
    verdict = verify_game(records(vector))
    assert not verdict.ok
    assert verdict.version == version
    assert "chain" in (verdict.reason or "")


@pytest.mark.parametrize(
    ("version", "change"),
    [
        (1, lambda p: p.update(secret=SEALS[(5, "hands")])),  # another seal
        (5, lambda p: p.update(hands=SEALS[(6, "cards")])),
        (6, lambda p: p.update(cards="sealed:" + "0" * 64)),
        (3, lambda p: p.update(name="Boris")),
    ],
)
def test_verify_game_refuses_an_export_with_one_value_changed(version: int, change: Any) -> None:
    """A sealed value (or any other) changed in the export breaks the chain there."""
    vector = lines(export=True)
    change(vector[version - 1]["payload"])
    verdict = verify_game(records(vector))
    assert not verdict.ok
    assert verdict.version == version


def test_verify_game_refuses_a_hidden_value_changed_in_clear() -> None:
    """A drawn card changed in the server's log no longer matches its seal
    in the chain (the re-judging never comes to it)."""
    vector = lines(export=False)
    vector[5]["payload"]["cards"] = [51]
    verdict = verify_game(records(vector))
    assert not verdict.ok
    assert verdict.version == 6
    assert "chain" in (verdict.reason or "")

"""Audit: the hash chain, re-judging, tampering and rule-breaking logs."""

from __future__ import annotations

import gc
import json
from dataclasses import replace
from datetime import datetime
from functools import cache
from typing import Any
from uuid import UUID

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.application import Opus
from domain.audit import CREATED, GAME_TOPIC, Record, judge_game, verify_game, verify_log
from domain.chain import GENESIS, canonical_json, event_record, next_chain, sealed_payload
from domain.events import EVENT_TYPES
from domain.game import Game
from domain.simulation import simulate
from infra.eventlog import export_lines, read_records


@cache
def finished_app(games: int = 3) -> Opus:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(app, games, 3, "greedy", seed=11)
    return app


@cache
def one_game() -> tuple[Record, ...]:
    records = list(read_records(finished_app()))
    first = records[0].aggregate_id
    return tuple(r for r in records if r.aggregate_id == first)


def rechain(records: list[Record]) -> list[Record]:
    """Renumber versions and recompute every chain value: a forger's log."""
    out, previous = [], GENESIS
    secret = str((records[0].payload or {})["secret"])
    for version, r in enumerate(records, start=1):
        assert r.payload is not None
        chained = sealed_payload(secret, r.aggregate_id, version, r.type, r.payload)
        chain = next_chain(
            previous, event_record(r.aggregate_id, version, r.type, r.timestamp, chained)
        )
        out.append(replace(r, version=version, chain=chain))
        previous = chain
    return out


def test_chain_value_is_sha256_of_previous_and_canonical_json() -> None:
    """Audit: chain(n) = SHA-256(chain(n-1) bytes ‖ canonical JSON), from the
    genesis; the secret (a hidden field) enters sealed with HMAC(secret, id:version)."""
    import hashlib
    import hmac

    first = one_game()[0]
    assert first.payload is not None
    secret = first.payload["secret"]
    salt = hmac.new(bytes.fromhex(secret), f"{first.aggregate_id}:1".encode(), "sha256").digest()
    sealed = "sealed:" + hashlib.sha256(salt + json.dumps(secret).encode()).hexdigest()
    record = {
        "aggregate_id": first.aggregate_id,
        "payload": {**first.payload, "secret": sealed},
        "timestamp": first.timestamp,
        "type": "GameCreated",
        "version": 1,
    }
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(record) == text.encode()
    assert first.chain == hashlib.sha256(bytes(32) + text.encode()).hexdigest()


def test_a_sealed_draw_cannot_be_guessed_from_the_public_export() -> None:
    """R1.3: a running game's export seals drawn cards; hashing every candidate
    card (the attack on an unsalted chain) finds none of them."""
    import hashlib

    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada")
    app.join(game_id, "Boris")
    app.start(game_id)
    lines = [json.loads(line) for line in export_lines(app)]
    drawn = next(line for line in lines if line["type"] == "CardsDrawn")
    sealed = drawn["payload"]["cards"]
    assert sealed.startswith("sealed:")
    real = app.state(game_id).hands[0][-1:]
    assert drawn["chain"] and str(real) not in json.dumps(drawn)
    guesses = {"sealed:" + hashlib.sha256(json.dumps([c]).encode()).hexdigest() for c in range(300)}
    assert sealed not in guesses
    assert all(v.ok for v in verify_log(Record.from_line(line) for line in lines))


def test_redaction_is_accepted_only_on_a_running_games_hidden_fields() -> None:
    """An ended game's log is whole: a line marked redacted fails, and so does
    redaction claimed on a field that is not hidden."""
    records = list(one_game())
    at = next(i for i, r in enumerate(records) if r.type == "PointsAwarded")
    forged = list(records)
    forged[at] = replace(
        records[at], payload={**(records[at].payload or {}), "points": 500}, redacted=True
    )
    verdict = verify_game(forged)
    assert not verdict.ok and verdict.position == records[at].position
    assert "redacted" in verdict.reason


def test_a_forged_payload_the_rules_cannot_read_fails_without_crashing() -> None:
    """A valid chain over nonsense (a list where a command id belongs) is a
    failing verdict at that event, not an exception."""
    records = list(one_game())
    at = next(i for i, r in enumerate(records) if r.type == "CardDiscarded")
    records[at] = replace(records[at], payload={**(records[at].payload or {}), "command": [1]})
    verdict = verify_game(rechain(records))
    assert not verdict.ok and verdict.version == at + 1


def test_verify_re_derives_the_shuffle_and_judges_every_move() -> None:
    """R9.3: with the secret revealed, every draw is re-derived and compared."""
    verdict = verify_game(list(one_game()))
    assert verdict.ok and verdict.judged and verdict.status == "ended"
    assert verdict.winners


def library_replay(records: list[Record]) -> Game:
    """A game's records made domain events and mutated into the game, as
    the library replays stored events."""
    game = None
    for r in records:
        extra = {"originator_topic": GAME_TOPIC} if r.type in CREATED else {}
        event = EVENT_TYPES[r.type](
            **extra,
            originator_id=UUID(r.aggregate_id),
            originator_version=r.version,
            timestamp=datetime.fromisoformat(r.timestamp),
            chain=r.chain,
            **(r.payload or {}),
        )
        game = event.mutate(game)
    assert isinstance(game, Game)
    return game


def same_game(judged: Game | None, replayed: Game) -> bool:
    assert judged is not None
    return (
        judged.state == replayed.state
        and judged.version == replayed.version
        and judged.chain == replayed.chain
        and judged.modified_on == replayed.modified_on
        and judged.commands == replayed.commands
        and judged.command_keys == replayed.command_keys
    )


def test_the_judged_game_is_the_game_the_library_replays() -> None:
    """The audit applies each matched record without making its event
    object: the game it ends with is the one the library's replay gives
    (state, version, chain head, commands, time), from the store and from
    records whose moves carry command ids."""
    records = list(one_game())
    verdict, judged = judge_game(records)
    assert verdict.ok
    assert same_game(judged, finished_app().repository.get(UUID(records[0].aggregate_id)))
    commanded = rechain(
        [
            replace(r, payload={**r.payload, "command": f"key{r.version % 7}:{r.version}"})
            if r.payload and "command" in r.payload
            else r
            for r in records
        ]
    )
    verdict, judged = judge_game(commanded)
    assert verdict.ok and judged is not None and len(judged.commands) > 100
    assert same_game(judged, library_replay(commanded))


def test_a_record_without_its_command_id_or_time_does_not_fit_its_event() -> None:
    """What making the event object refused is refused still: a payload
    without ``command``, a timestamp that is not ISO 8601 (a forger's log,
    chained again)."""
    records = list(one_game())
    at = next(i for i, r in enumerate(records) if r.type == "CardDiscarded")
    payload = {k: v for k, v in (records[at].payload or {}).items() if k != "command"}
    without, untimed = list(records), list(records)
    without[at] = replace(records[at], payload=payload)
    untimed[at] = replace(records[at], timestamp="yesterday")
    for forged in (without, untimed):
        verdict = verify_game(rechain(forged))
        assert not verdict.ok and verdict.version == at + 1
        assert "does not fit CardDiscarded" in verdict.reason


def test_a_running_game_exports_without_hidden_information() -> None:
    """R1.3: a running game's export carries no secret, no dealt or drawn card;
    its chain is still checked as far as it can be."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada")
    app.join(game_id, "Boris")
    app.start(game_id)
    lines = [json.loads(line) for line in export_lines(app)]
    hidden = {c for hand in app.state(game_id).hands for c in hand}
    for line in lines:
        if line["type"] in ("GameCreated", "CardsDealt", "CardsDrawn"):
            assert line["redacted"] is True
        assert app.state(game_id).secret not in json.dumps(line)
    dealt = next(line for line in lines if line["type"] == "CardsDealt")
    assert dealt["payload"]["hands"].startswith("sealed:") and hidden
    verdicts = list(verify_log(Record.from_line(line) for line in lines))
    assert verdicts[0].ok and not verdicts[0].judged


# ---- tampering ---------------------------------------------------------------


def change_one_byte(value: Any, pick: int) -> Any:
    """The value with one character (one byte of its JSON) changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        text = str(value)
        i = pick % len(text)
        digit = str((int(text[i]) + 1) % 10)
        changed = text[:i] + digit + text[i + 1 :]
        return int(changed) if changed != text else value + 1
    if isinstance(value, str):
        if not value:
            return "x"
        i = pick % len(value)
        return value[:i] + chr(ord(value[i]) ^ 1) + value[i + 1 :]
    return value


def leaves(payload: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(payload, dict):
        return [p for k, v in payload.items() for p in leaves(v, (*path, k))]
    if isinstance(payload, list):
        return [p for i, v in enumerate(payload) for p in leaves(v, (*path, i))]
    return [path] if payload is not None else []


def set_leaf(payload: Any, path: tuple[Any, ...], pick: int) -> Any:
    if not path:
        return change_one_byte(payload, pick)
    copy = json.loads(json.dumps(payload))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = change_one_byte(node[path[-1]], pick)
    return copy


@settings(max_examples=240, deadline=None)
@given(
    kind=st.sampled_from(["byte", "delete", "swap"]),
    at=st.integers(0, 10**6),
    other=st.integers(1, 10**6),
    pick=st.integers(0, 10**6),
)
def test_tampering_anywhere_fails_and_names_the_first_bad_position(
    kind: str, at: int, other: int, pick: int
) -> None:
    records = list(one_game())
    n = len(records)
    i = at % n
    if kind == "byte":
        target = records[i]
        paths = leaves(target.payload)
        if paths:
            payload = set_leaf(target.payload, paths[pick % len(paths)], pick)
            records[i] = replace(target, payload=payload)
        else:
            records[i] = replace(target, timestamp=change_one_byte(target.timestamp, pick))
        expected = target.position
    elif kind == "delete":
        del records[i]
        expected = records[min(i, n - 2)].position
    else:
        j = (i + other) % n
        if j == i:
            j = (i + 1) % n
        i, j = min(i, j), max(i, j)
        records[i], records[j] = records[j], records[i]
        expected = records[i].position
    verdict = verify_game(records)
    assert not verdict.ok
    assert verdict.position == expected, verdict.reason


def test_a_log_awarding_points_no_rule_gives_is_rejected_with_the_rule() -> None:
    """R8.1: a forged PointsAwarded, chain recomputed, is refused by re-judging."""
    records = list(one_game())
    at = next(i for i, r in enumerate(records) if r.type == "CardDiscarded") + 1
    forged = replace(
        records[at],
        type="PointsAwarded",
        payload={
            "player": 0,
            "points": 8,
            "rule": "R4.4",
            "cause": "CardDiscarded",
            "cause_version": records[at - 1].version,
        },
    )
    records.insert(at, forged)
    records = rechain(records)
    verdict = verify_game(records)
    assert not verdict.ok
    assert verdict.version == at + 1
    assert "R8.1" in verdict.reason and "R4.4" in verdict.reason


def test_a_log_with_more_points_than_the_rule_gives_is_rejected() -> None:
    """R4.4: an assembly recorded with inflated points, chain recomputed."""
    records = list(one_game())
    at = next(
        i
        for i, r in enumerate(records)
        if r.type == "PointsAwarded" and r.payload and r.payload["rule"] == "R4.4"
    )
    payload = dict(records[at].payload or {})
    payload["points"] += 10
    records[at] = replace(records[at], payload=payload)
    verdict = verify_game(rechain(records))
    assert not verdict.ok and verdict.version == at + 1
    assert "R4.4" in verdict.reason and "points" in verdict.reason


def test_a_log_recording_an_illegal_move_is_rejected_with_the_rule() -> None:
    """R3.4: a discard recorded for the seat whose turn it is not."""
    records = list(one_game())
    at = next(i for i, r in enumerate(records) if r.type == "CardDiscarded")
    payload = dict(records[at].payload or {})
    payload["player"] = (payload["player"] + 1) % 3
    records[at] = replace(records[at], payload=payload)
    verdict = verify_game(rechain(records))
    assert not verdict.ok and verdict.version == at + 1
    assert verdict.reason.startswith("R3.4:")


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )
)
def test_canonical_json_is_sorted_compact_utf8_json(value: Any) -> None:
    """The spec other implementations follow (domain/chain.py): the standard
    library's sorted, compact, non-ASCII-escaping JSON, in UTF-8."""
    try:
        expected = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates are not text; the engine refuses them
        return
    assert canonical_json(value) == expected


def test_verification_pauses_the_cyclic_collector_and_gives_it_back() -> None:
    """Re-judging makes many short-lived objects and no cycles: with a
    threshold of one allocation, unpaused, a game of 359 events triggers
    about 1,900 collections; paused, only the few around it run. The
    collector is as it was after (on, or left off by the caller)."""
    records = list(one_game())
    collections: list[str] = []

    def counted(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(phase)

    threshold = gc.get_threshold()
    gc.callbacks.append(counted)
    try:
        gc.set_threshold(1)
        assert verify_game(records).ok
        assert len(collections) < len(records) // 4 and gc.isenabled()
        gc.disable()
        assert verify_game(records).ok
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.set_threshold(*threshold)
        gc.callbacks.remove(counted)

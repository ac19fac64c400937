"""The in-process store of single-use, expiring records (infra/challenges.py):
a record is taken once, is gone once expired, and a WebAuthn challenge is
redeemed only for the purpose it was issued for."""

from __future__ import annotations

import threading

from infra.challenges import InProcessChallenges, encode, issue, redeem


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_record_is_taken_once() -> None:
    store = InProcessChallenges(60)
    store.put("a", "one")
    store.put("b", "two")
    assert store.take("a") == "one"
    assert store.take("a") is None
    assert store.take("b") == "two"
    assert store.take("never") is None


def test_a_record_put_again_replaces_the_first() -> None:
    store = InProcessChallenges(60)
    store.put("a", "one")
    store.put("a", "two")
    assert store.take("a") == "two"
    assert store.take("a") is None


def test_a_record_expires() -> None:
    clock = Clock()
    store = InProcessChallenges(300, clock=clock)
    store.put("early", "1")
    clock.now += 200
    store.put("late", "2")
    clock.now += 100.5  # "early" is 300.5 s old, "late" 100.5 s
    assert store.take("early") is None
    assert store.take("late") == "2"
    store.put("edge", "3")
    clock.now += 300  # exactly its lifetime: gone
    assert store.take("edge") is None


def test_expired_records_are_dropped_and_the_store_is_bounded() -> None:
    clock = Clock()
    store = InProcessChallenges(10, maxsize=3, clock=clock)
    for name in "abc":
        store.put(name, name)
    store.put("d", "d")  # over the bound: the oldest goes
    assert store.take("a") is None
    assert [store.take(n) for n in "bcd"] == ["b", "c", "d"]
    store.put("e", "e")
    clock.now += 11
    store.put("f", "f")  # "e" expired: dropped on the way
    assert len(store._items) == 1
    assert store.take("f") == "f"


def test_one_take_wins_among_threads() -> None:
    store = InProcessChallenges(60)
    store.put("x", "v")
    won: list[str | None] = []
    barrier = threading.Barrier(8)

    def take() -> None:
        barrier.wait(timeout=5)
        won.append(store.take("x"))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=5)
    assert won.count("v") == 1 and won.count(None) == 7


def test_a_challenge_is_redeemed_once_for_its_purpose_with_what_it_is_bound_to() -> None:
    store = InProcessChallenges(60)
    challenge = issue(store, "sign-up", {"name": "Ada", "account": "a1", "browser": "b1"})
    assert len(challenge) == 32
    assert redeem(store, challenge, "sign-up") == {
        "name": "Ada",
        "account": "a1",
        "browser": "b1",
        "purpose": "sign-up",
    }
    assert redeem(store, challenge, "sign-up") is None
    # another purpose's redemption finds nothing, and uses the challenge up
    other = issue(store, "sign-in", {"browser": "b1"})
    assert redeem(store, other, "sign-up") is None
    assert redeem(store, other, "sign-in") is None
    # the purpose is the store's, not what it is bound to
    forged = issue(store, "sign-in", {"purpose": "add-passkey"})
    assert redeem(store, forged, "add-passkey") is None
    assert redeem(store, b"never issued", "sign-in") is None
    assert encode(b"\xfb\xff") == "-_8"  # base64url, no padding, as client data carries it

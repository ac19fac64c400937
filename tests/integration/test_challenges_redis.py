"""The Redis store of single-use, expiring records (infra/challenges.py) on
the real Redis: records under the deployment's prefix, taken once (one
taker wins among processes' threads), expiring in Redis; a challenge
redeemed for its purpose only; a Redis that cannot be reached raises
rather than letting a ceremony through. And the service built on Redis
keeps its challenges and sign-in counts there."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from api.ratelimit import RedisLimiter
from infra.bootstrap import open_services
from infra.challenges import (
    ChallengesUnavailableError,
    RedisChallenges,
    encode,
    issue,
    redeem,
)
from infra.settings import Settings
from tests.conftest import REDIS_URL
from tests.redis_keys import drop_prefix


@pytest.fixture
def prefix() -> Iterator[str]:
    chosen = f"opus-test:{uuid.uuid4().hex[:12]}:"
    yield chosen
    drop_prefix(REDIS_URL, chosen)


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(REDIS_URL)
    yield connection
    connection.close()


def test_a_record_lives_under_the_prefix_and_is_taken_once(
    client: redis.Redis, prefix: str
) -> None:
    store = RedisChallenges(client, prefix, 60)
    store.put("a", "one")
    assert client.get(f"{prefix}once:a") == b"one"
    assert 0 < client.pttl(f"{prefix}once:a") <= 60_000
    other = RedisChallenges(client, f"{prefix}other:", 60)
    assert other.take("a") is None  # another deployment's prefix sees nothing
    assert store.take("a") == "one"
    assert store.take("a") is None
    assert client.exists(f"{prefix}once:a") == 0


def test_a_record_expires_in_redis(client: redis.Redis, prefix: str) -> None:
    store = RedisChallenges(client, prefix, 0.2)
    store.put("soon", "v")
    assert 0 < client.pttl(f"{prefix}once:soon") <= 200
    deadline = time.monotonic() + 5
    while client.exists(f"{prefix}once:soon") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.take("soon") is None


def test_one_take_wins_among_concurrent_takers(client: redis.Redis, prefix: str) -> None:
    store = RedisChallenges(client, prefix, 60)
    store.put("x", "v")
    won: list[str | None] = []
    barrier = threading.Barrier(8)

    def take() -> None:
        own = RedisChallenges(redis.Redis.from_url(REDIS_URL), prefix, 60)  # its own connection
        barrier.wait(timeout=5)
        won.append(own.take("x"))
        own.client.close()

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert won.count("v") == 1 and won.count(None) == 7


def test_a_challenge_is_redeemed_once_for_its_purpose(client: redis.Redis, prefix: str) -> None:
    store = RedisChallenges(client, prefix, 60)
    challenge = issue(store, "add-passkey", {"account": "a1", "browser": "b"})
    assert client.exists(f"{prefix}once:webauthn:{encode(challenge)}") == 1
    assert redeem(store, challenge, "sign-in") is None  # the wrong purpose uses it up
    assert redeem(store, challenge, "add-passkey") is None
    again = issue(store, "add-passkey", {"account": "a1", "browser": "b"})
    assert redeem(store, again, "add-passkey") == {
        "account": "a1",
        "browser": "b",
        "purpose": "add-passkey",
    }
    assert redeem(store, again, "add-passkey") is None


def test_a_redis_that_cannot_be_reached_refuses_rather_than_letting_through() -> None:
    unreachable = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
    store = RedisChallenges(unreachable, "opus-test:none:", 60)
    with pytest.raises(ChallengesUnavailableError):
        store.put("a", "v")
    with pytest.raises(ChallengesUnavailableError):
        store.take("a")


def test_the_service_on_redis_keeps_challenges_and_sign_in_counts_there(
    tmp_path: Path, client: redis.Redis, prefix: str
) -> None:
    settings = Settings.from_env(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "REDIS_URL": REDIS_URL,
            "OPUS_REDIS_PREFIX": prefix,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_SIGN_IN_RATE_LIMIT": "2/60",
            "OPUS_CHALLENGE_SECONDS": "30",
        }
    )
    services = open_services(settings)
    try:
        assert isinstance(services.challenges, RedisChallenges)
        services.challenges.put("k", "v")
        assert 0 < client.pttl(f"{prefix}once:k") <= 30_000
        limiter = services.sign_in_limiter
        assert isinstance(limiter, RedisLimiter)
        assert limiter.wait("10.0.0.9") is None
        assert limiter.wait("10.0.0.9") is None
        assert limiter.wait("10.0.0.9") is not None
        counted = list(client.scan_iter(match=f"{prefix}sign-in:rate:10.0.0.9:*"))
        assert len(counted) == 1  # apart from the service-wide limit's counts
    finally:
        services.close()


def test_the_pages_on_redis_keep_the_key_to_show_there_once(
    tmp_path: Path, client: redis.Redis, prefix: str
) -> None:
    from api.app import create_app
    from domain.accounts.commands import digest
    from tests.integration.test_account_pages import KEY, browser

    app = create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "REDIS_URL": REDIS_URL,
            "OPUS_REDIS_PREFIX": prefix,
            "OPUS_RUN_PROJECTIONS": "0",
        }
    )
    try:
        ada = browser(app)
        assert ada.post("/signup", name="Ada").status_code == 303
        waiting = f"{prefix}once:key:{digest(ada.session or '')}"
        assert client.exists(waiting) == 1
        assert KEY.search(ada.page("/account/key"))
        assert client.exists(waiting) == 0
        assert not KEY.search(ada.page("/account/key"))
        # a ceremony's challenge waits there too, until its finish takes it
        options = ada.post_json("/signup/options", {"name": "Boris"}).json
        assert client.exists(f"{prefix}once:webauthn:{options['challenge']}") == 1
        assert list(client.scan_iter(match=f"{prefix}sign-in:rate:*"))
    finally:
        app.extensions["opus"].close()

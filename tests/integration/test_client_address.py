"""The rate limits count the client the trusted proxy names, and sign-in
guesses per account, over real HTTP (the app served by werkzeug's server
on this machine's loopback; the trusted proxy is whatever connects from
127.0.0.2, an attacker reaching the API directly connects from 127.0.0.1).

Each test is an attack that passed before (``OPUS_TRUSTED_PROXIES=1`` took
the right-most X-Forwarded-For from any connection): varying the header
from a direct connection bought a fresh count every request (issue 35).
"""

from __future__ import annotations

import http.client
import re
import secrets
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from werkzeug.serving import make_server

from api.app import create_app
from infra.settings import EMBEDDED_DEFAULTS
from tests.conftest import REDIS_URL
from tests.redis_keys import drop_prefix

PROXY = "127.0.0.2"  # the trusted proxy's address (OPUS_TRUSTED_PROXY_NETWORKS)
DIRECT = "127.0.0.1"  # anyone else on the network: not a proxy
LIMIT = 3  # posts in the window, both limits
TIMEOUT = 10.0  # seconds any request may take


@contextmanager
def served(folder: Path, **settings: str | None) -> Iterator[int]:
    """The app behind one trusted proxy, served over HTTP: its port."""
    app = create_app(
        {
            **EMBEDDED_DEFAULTS,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_BOTS": "0",
            "OPUS_TRUSTED_PROXIES": "1",
            "OPUS_TRUSTED_PROXY_NETWORKS": f"{PROXY}/32",
            "OPUS_SIGN_IN_RATE_LIMIT": f"{LIMIT}/60",
            "OPUS_RATE_LIMIT": f"{LIMIT}/60",
            **settings,
        }
    )
    server = make_server(DIRECT, 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.port
    finally:
        server.shutdown()
        thread.join(TIMEOUT)
        app.extensions["opus"].close()


@dataclass
class Browser:
    """A browser on ``source``'s address: its cookies and CSRF token."""

    port: int
    source: str
    cookies: dict[str, str] = field(default_factory=dict)
    csrf: str = ""

    def send(
        self, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        connection = http.client.HTTPConnection(
            DIRECT, self.port, timeout=TIMEOUT, source_address=(self.source, 0)
        )
        try:
            sent = dict(headers or {})
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            connection.request(method, path, body=body.encode(), headers=sent)
            response = connection.getresponse()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name.strip()] = rest.partition(";")[0]
            return response.status, response.read().decode()
        finally:
            connection.close()

    def open(self) -> Browser:
        status, page = self.send("GET", "/signin")
        assert status == 200
        found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
        assert found
        self.csrf = found.group(1)
        return self

    def sign_in(self, key: str, forwarded: str | None = None) -> int:
        """POST /signin/key as a page would (its origin, cookie and token)."""
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": f"http://{DIRECT}:{self.port}",
        }
        if forwarded is not None:
            headers["X-Forwarded-For"] = forwarded
        body = urlencode({"csrf": self.csrf, "key": key})
        return self.send("POST", "/signin/key", body, headers)[0]


def wrong_key(account: uuid.UUID | None = None) -> str:
    """A well-formed account key that opens nothing (a new account's id unless given)."""
    return f"opus_{(account or uuid.uuid4()).hex}_{secrets.token_urlsafe(32)}"


def test_reached_directly_a_forged_x_forwarded_for_buys_no_new_count(tmp_path: Path) -> None:
    with served(tmp_path) as port:
        attacker = Browser(port, DIRECT).open()
        statuses = [attacker.sign_in(wrong_key(), f"203.0.113.{n}") for n in range(LIMIT + 3)]
        assert 429 not in statuses[:LIMIT]
        assert statuses[LIMIT:] == [429] * 3, statuses


def test_behind_the_proxy_each_client_counts_apart_and_cannot_prepend_an_address(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as port:
        proxied = Browser(port, PROXY).open()
        # the client wrote the left entry; the proxy appended the address it saw
        statuses = [
            proxied.sign_in(wrong_key(), f"198.51.100.{n}, 203.0.113.7") for n in range(LIMIT + 2)
        ]
        assert 429 not in statuses[:LIMIT]
        assert statuses[LIMIT:] == [429] * 2, statuses
        # another client behind the same proxy has its own count
        assert proxied.sign_in(wrong_key(), "203.0.113.8") != 429


def test_guesses_at_one_accounts_key_share_its_count_from_any_address(tmp_path: Path) -> None:
    with served(tmp_path) as port:
        proxied = Browser(port, PROXY).open()
        victim = uuid.uuid4()
        statuses = [proxied.sign_in(wrong_key(victim), f"203.0.113.{n}") for n in range(LIMIT + 2)]
        assert 429 not in statuses[:LIMIT]
        assert statuses[LIMIT:] == [429] * 2, statuses
        # another account, from yet another address, is not held up
        assert proxied.sign_in(wrong_key(), "203.0.113.200") != 429


def test_the_apis_limit_on_creating_games_counts_the_direct_client(tmp_path: Path) -> None:
    with served(tmp_path) as port:
        attacker = Browser(port, DIRECT)
        statuses = [
            attacker.send(
                "POST",
                "/games",
                "{}",
                {"Content-Type": "application/json", "X-Forwarded-For": f"203.0.113.{n}"},
            )[0]
            for n in range(LIMIT + 2)
        ]
        assert statuses[:LIMIT] == [201] * LIMIT, statuses
        assert statuses[LIMIT:] == [429] * 2, statuses


def test_two_workers_on_redis_share_one_accounts_count(tmp_path: Path) -> None:
    prefix = f"opus-test:{uuid.uuid4().hex[:8]}:"
    redis = {"REDIS_URL": REDIS_URL, "OPUS_REDIS_PREFIX": prefix}
    try:
        with served(tmp_path, **redis) as one, served(tmp_path, **redis) as two:
            workers = [Browser(one, PROXY).open(), Browser(two, PROXY).open()]
            victim = uuid.uuid4()
            statuses = [
                workers[n % 2].sign_in(wrong_key(victim), f"203.0.113.{n}")
                for n in range(LIMIT + 2)
            ]
            assert 429 not in statuses[:LIMIT]
            assert statuses[LIMIT:] == [429] * 2, statuses
    finally:
        drop_prefix(REDIS_URL, prefix)

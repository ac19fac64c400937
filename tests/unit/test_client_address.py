"""Which address a request comes from behind trusted proxies
(api/client_address.py), and what a rate limit counts it as (api/ratelimit.py)."""

from __future__ import annotations

import pytest
from flask import Flask, request

from api.client_address import TrustedProxies, parse_address
from api.ratelimit import client_of

ONE = TrustedProxies.parse(1, "10.0.0.0/8")
TWO = TrustedProxies.parse(2, "10.0.0.0/8, 192.168.1.1")


def test_an_untrusted_connection_is_its_own_address_whatever_it_forwards() -> None:
    assert ONE.client("198.51.100.9", ["203.0.113.1"]) == "198.51.100.9"
    assert TrustedProxies.parse(0, "0.0.0.0/0").client("10.0.0.5", ["203.0.113.1"]) == "10.0.0.5"


def test_the_client_is_the_right_most_untrusted_address_within_the_hops() -> None:
    assert ONE.client("10.0.0.5", ["198.51.100.1, 203.0.113.7"]) == "203.0.113.7"
    assert ONE.client("10.0.0.5", ["198.51.100.1", "203.0.113.7"]) == "203.0.113.7"
    # two proxies: the inner one's entry is skipped, the client's taken
    assert TWO.client("10.0.0.5", ["198.51.100.1, 203.0.113.7, 192.168.1.1"]) == "203.0.113.7"
    # a client that writes a trusted address first gains nothing: its own is right of it
    assert TWO.client("10.0.0.5", ["10.0.0.9, 203.0.113.7"]) == "203.0.113.7"
    # no more hops than configured, even through trusted addresses
    assert ONE.client("10.0.0.5", ["203.0.113.7, 10.0.0.6"]) == "10.0.0.6"


def test_an_entry_that_is_no_address_stops_at_the_proxy_that_passed_it() -> None:
    assert ONE.client("10.0.0.5", ["unknown"]) == "10.0.0.5"
    assert ONE.client("10.0.0.5", [""]) == "10.0.0.5"


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("203.0.113.7:5120", "203.0.113.7"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("2001:DB8:0::1", "2001:db8::1"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
    ],
)
def test_addresses_as_proxies_write_them(text: str, address: str) -> None:
    assert str(parse_address(text)) == address


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match=r"'10\.0\.0/33' is not an address or network"):
        TrustedProxies.parse(1, "10.0.0/33")
    with pytest.raises(ValueError, match="0 or more"):
        TrustedProxies.parse(-1, "")


def test_an_ipv6_client_is_counted_by_its_64_prefix() -> None:
    app = Flask(__name__)
    for remote, counted in (
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),
        ("203.0.113.7", "203.0.113.7"),
    ):
        with app.test_request_context(environ_base={"REMOTE_ADDR": remote}):
            assert client_of(request) == counted

"""Which address a request comes from, behind the proxies the service trusts.

The rate limits (api/ratelimit.py) count per client address, so the address
must be one a client cannot choose. A client can write any
``X-Forwarded-For`` it likes; only what a trusted proxy appended to it is
believed, and only when the request came from that proxy:

- ``OPUS_TRUSTED_PROXIES`` (N, 0 by default): how many proxies stand in
  front of the service. 0: the header is never read.
- ``OPUS_TRUSTED_PROXY_NETWORKS``: the addresses those proxies connect
  from, as networks separated by commas (by default loopback and the
  private ranges: ``127.0.0.0/8, ::1/128, 10.0.0.0/8, 172.16.0.0/12,
  192.168.0.0/16, fc00::/7``). Name the proxies' own addresses where the
  service can be reached from other hosts of those networks.

The client is the right-most address that is not a trusted proxy's, taken
from the right of the chain (``X-Forwarded-For``'s addresses, then the
connection's), at most N hops from the connection: a request whose
connection is not from a trusted proxy is its connection's address,
whatever its header says (the API reached directly); behind one proxy the
client is the address the proxy appended, never one the client wrote
before it. An entry that is no address ends the walk at the proxy that
passed it on. So varying ``X-Forwarded-For`` buys no new count.

``ClientAddress`` is the WSGI middleware that sets ``REMOTE_ADDR`` so (the
connection's address kept as ``opus.peer``), for every part of the app.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
PEER = "opus.peer"  # the WSGI environ's key for the connection's own address


def parse_address(text: str) -> IPAddress | None:
    """An address as a proxy writes it ("203.0.113.7", "203.0.113.7:5120",
    "[2001:db8::1]:443", "2001:db8::1"), None if it is none."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # an IPv4 address with its port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


@dataclass(frozen=True)
class TrustedProxies:
    hops: int
    networks: tuple[IPNetwork, ...]

    @classmethod
    def parse(cls, hops: int, networks: str) -> TrustedProxies:
        """From the settings; ValueError naming what is wrong."""
        if hops < 0:
            raise ValueError(f"OPUS_TRUSTED_PROXIES is a number of proxies, 0 or more, not {hops}")
        parsed = []
        for part in (p.strip() for p in networks.split(",")):
            if not part:
                continue
            try:
                parsed.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(
                    f"OPUS_TRUSTED_PROXY_NETWORKS: {part!r} is not an address or network"
                ) from None
        return cls(hops, tuple(parsed))

    def trusts(self, address: IPAddress) -> bool:
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded: Iterable[str]) -> str:
        """The client's address, from the connection's (``peer``) and the
        ``X-Forwarded-For`` headers' entries, left to right."""
        chain = [entry for header in forwarded for entry in header.split(",")]
        current = parse_address(peer)
        if current is None:
            return peer
        for _ in range(self.hops):
            if not chain or not self.trusts(current):
                break
            before = parse_address(chain.pop())
            if before is None:  # garbage: the proxy that passed it on is as far as we know
                break
            current = before
        return str(current)


class ClientAddress:
    """WSGI middleware: ``REMOTE_ADDR`` becomes the client's address as the
    trusted proxies tell it (``TrustedProxies.client``)."""

    def __init__(self, app: Callable[..., Any], proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        peer = str(environ.get("REMOTE_ADDR") or "")
        environ[PEER] = peer
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        if forwarded and self.proxies.hops:
            environ["REMOTE_ADDR"] = self.proxies.client(peer, [forwarded])
        return self.app(environ, start_response)

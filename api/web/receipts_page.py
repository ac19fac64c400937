"""What the table page's receipts check (api/web/static/receipts.js) needs
of the pages' headers: the witnesses it gossips with are other origins, so
the Content-Security-Policy's ``connect-src`` names them (the witnesses this
service lists at /.well-known/opus-receipts), and no other."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app

CONNECT_SELF = "connect-src 'self'"


def witness_origins() -> list[str]:
    """The origins (scheme://host[:port]) of the witnesses this service
    names; none when receipts are off or it names none."""
    opus = current_app.extensions.get("opus")
    receipts = getattr(opus, "receipts", None)
    if receipts is None:
        return []
    origins = []
    for witness in receipts.settings.witnesses:
        parts = urlsplit(witness.url)
        if parts.scheme in ("http", "https") and parts.netloc:
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in origins:
                origins.append(origin)
    return origins


def with_witnesses(csp: str) -> str:
    """``csp`` whose ``connect-src 'self'`` also names the witnesses' origins."""
    origins = witness_origins()
    if not origins:
        return csp
    return csp.replace(CONNECT_SELF, " ".join([CONNECT_SELF, *origins]), 1)

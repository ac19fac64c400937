"""A client's talk with a witness (C2SP tlog-witness) and with the server,
over HTTP: what ``Keeper`` asks, each answer as its status and its text.

- ``submit``: ``POST <witness>/add-checkpoint`` with the old size, the
  consistency proof and the signed checkpoint (gossip: a client hands the
  witness what the server showed it, so a witness that cosigned another
  history refuses it);
- ``witness_latest``: the checkpoint the witness last cosigned for a log;
- ``witness_refused``: the checkpoints it refused as inconsistent with what
  it cosigned (its evidence), which any client can check against its own.

A network failure is an ``OSError``; any HTTP status is an ``Answer``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from domain.transparency.note import b64
from infra.receipts.witness import origin_hash

TIMEOUT = 10.0  # seconds a server or a witness may take to answer
MAX_ANSWER = 4 * 1024 * 1024  # bytes read of an answer at most


@dataclass(frozen=True)
class Answer:
    status: int
    text: str

    @property
    def ok(self) -> bool:
        return self.status == 200

    def said(self) -> str:
        """The answer as a person reads it: its status and its first words."""
        words = " ".join(self.text.split())[:200]
        return f"{self.status} {words}".strip()


def ask(url: str, body: str | None = None) -> Answer:
    """GET ``url`` (POST ``body`` as text/plain when given)."""
    data = None if body is None else body.encode()
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    if data is not None:
        request.add_header("Content-Type", "text/plain; charset=utf-8")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            raw = response.read(MAX_ANSWER)
            return Answer(response.status, raw.decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.read(MAX_ANSWER).decode("utf-8", errors="replace"))
    except urllib.error.URLError as e:
        reason = e.reason.strerror if isinstance(e.reason, OSError) else str(e.reason)
        raise OSError(f"{url.partition('?')[0]} could not be reached ({reason})") from None
    except TimeoutError:
        raise OSError(f"{url.partition('?')[0]} did not answer in {TIMEOUT:.0f} s") from None


def submit(url: str, old: int, proof: list[bytes], checkpoint: str) -> Answer:
    """Ask the witness at ``url`` to cosign ``checkpoint`` from size ``old``."""
    body = f"old {old}\n" + "".join(b64(h) + "\n" for h in proof) + "\n" + checkpoint
    return ask(f"{url}/add-checkpoint", body)


def witness_latest(url: str, origin: str) -> str | None:
    """The checkpoint the witness last cosigned for ``origin``; None if none."""
    answer = ask(f"{url}/{origin_hash(origin)}/checkpoint")
    if answer.status == 404:
        return None
    if not answer.ok:
        raise OSError(f"the witness {url} answered {answer.said()}")
    return answer.text


def witness_refused(url: str, origin: str) -> list[str]:
    """The signed checkpoints of ``origin`` the witness refused as
    inconsistent with what it cosigned (none from an older witness that does
    not serve them)."""
    answer = ask(f"{url}/{origin_hash(origin)}/refused")
    if answer.status == 404:
        return []
    if not answer.ok:
        raise OSError(f"the witness {url} answered {answer.said()}")
    try:
        listed = json.loads(answer.text)["refused"]
        return [str(item["checkpoint"]) for item in listed]
    except (ValueError, KeyError, TypeError):
        raise OSError(f"the witness {url} listed its refusals in no known form") from None

"""What a client trusts, and whether a global checkpoint meets it.

A client of the receipts trusts three things, pinned in its trust file
(``trust.json`` in its store, shown to the person when pinned, so they can
compare it with what the operator published):

- the log's key (``log``, a C2SP signed-note vkey), and the keys it
  replaced, each handed over by a transition statement signed with the key
  before it (``previous``, oldest first: domain/transparency/transitions.py);
- its witnesses (``witnesses``: each a URL and a C2SP tlog-cosignature vkey,
  type 0x04) and how many of them must have cosigned (``quorum``);
- how old the newest cosignature may be (``max_age``, seconds), so an old
  checkpoint replayed to the client is told from the log now.

``witnessed`` holds a signed global checkpoint to that: the log's signature
and, from at least ``quorum`` distinct trusted witnesses, a cosignature no
older than ``max_age`` (its timestamp, C2SP tlog-cosignature). It is pure:
the time is the caller's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from domain.transparency.note import (
    COSIGNATURE_V1,
    NoteError,
    Verifier,
    cosignature_time,
    open_note,
)

DEFAULT_MAX_AGE = 600  # seconds: a client refreshes its cosignatures by gossip
CLOCK_SKEW = 60  # seconds a cosignature's time may be ahead of the client's clock


class TrustError(ValueError):
    """A trust file or a trust flag that cannot be used, said in words."""


class NotWitnessed(Exception):
    """A checkpoint without the quorum of fresh cosignatures the client
    demands: what is missing, in words."""


@dataclass(frozen=True)
class TrustedWitness:
    url: str  # its tlog-witness prefix: <url>/add-checkpoint
    vkey: str  # its cosignature key (type 0x04)

    @property
    def verifier(self) -> Verifier:
        return Verifier.from_vkey(self.vkey)

    @property
    def name(self) -> str:
        return self.verifier.name

    @classmethod
    def parse(cls, text: str) -> TrustedWitness:
        """From ``<url> <vkey>`` (the ``--witness`` flag)."""
        parts = text.split()
        if len(parts) != 2 or not parts[0].startswith(("http://", "https://")):
            raise TrustError(f"a witness is '<http(s) URL> <vkey>', not {text!r}")
        witness = cls(parts[0].rstrip("/"), parts[1])
        try:
            key = witness.verifier
        except NoteError as e:
            raise TrustError(f"the witness key {parts[1][:60]!r} is not a vkey: {e}") from None
        if key.signature_type != COSIGNATURE_V1:
            raise TrustError(
                f"the witness key {key.name} is not a cosignature key (type 0x04): "
                "a witness's vkey is the one it prints at start (GET / on the witness)"
            )
        return witness


@dataclass(frozen=True)
class HandedOver:
    """A key the log signed with before, and the transition statement that
    handed it over to the next one."""

    vkey: str
    transition: str  # the signed note


@dataclass(frozen=True)
class Trust:
    server: str
    log: str  # the log's vkey now
    witnesses: tuple[TrustedWitness, ...]
    quorum: int
    max_age: int = DEFAULT_MAX_AGE
    previous: tuple[HandedOver, ...] = field(default=())
    pinned_at: str = ""

    def __post_init__(self) -> None:
        try:
            Verifier.from_vkey(self.log)
        except NoteError as e:
            raise TrustError(f"the log's key is not a vkey: {e}") from None
        if not 0 <= self.quorum <= len(self.witnesses):
            raise TrustError(
                f"a quorum of {self.quorum} needs that many trusted witnesses; "
                f"{len(self.witnesses)} are trusted"
            )
        if self.max_age <= 0:
            raise TrustError("the freshness bound (max age) is a positive number of seconds")

    @property
    def verifier(self) -> Verifier:
        return Verifier.from_vkey(self.log)

    def log_keys(self) -> list[Verifier]:
        """The log's key now first, then the ones it replaced, newest first."""
        return [self.verifier, *(Verifier.from_vkey(p.vkey) for p in reversed(self.previous))]

    def handed_over(self, keys: Sequence[Verifier], transitions: Sequence[str]) -> Trust:
        """This trust with the last of ``keys`` as the log's key: ``keys`` are
        the pinned key and each one after it, ``transitions[i]`` the statement
        that handed ``keys[i]`` over to ``keys[i + 1]``."""
        if len(keys) != len(transitions) + 1 or keys[0].vkey() != self.log:
            raise TrustError("a hand-over names the pinned key and one statement a key")
        handed = [*self.previous]
        handed += [HandedOver(k.vkey(), t) for k, t in zip(keys, transitions, strict=False)]
        return replace(self, log=keys[-1].vkey(), previous=tuple(handed))

    def describe(self) -> list[str]:
        """The trust, as shown to the person."""
        lines = [f"  the log's key:     {self.log}"]
        for old in self.previous:
            lines.append(f"  handed over from: {old.vkey}")
        if self.witnesses:
            for witness in self.witnesses:
                lines.append(f"  witness:          {witness.url} {witness.vkey}")
        else:
            lines.append("  witness:          none")
        lines.append(
            f"  quorum:           {self.quorum} of {len(self.witnesses)} witnesses must cosign"
        )
        lines.append(f"  freshness:        a cosignature at most {self.max_age} s old")
        return lines

    def to_json(self) -> str:
        return json.dumps(
            {
                "server": self.server,
                "log": self.log,
                "previous": [{"vkey": p.vkey, "transition": p.transition} for p in self.previous],
                "witnesses": [{"url": w.url, "vkey": w.vkey} for w in self.witnesses],
                "quorum": self.quorum,
                "max_age": self.max_age,
                "pinned_at": self.pinned_at,
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> Trust:
        try:
            data: dict[str, Any] = json.loads(text)
            return cls(
                server=str(data["server"]),
                log=str(data["log"]),
                witnesses=tuple(
                    TrustedWitness.parse(f"{w['url']} {w['vkey']}") for w in data["witnesses"]
                ),
                quorum=int(data["quorum"]),
                max_age=int(data["max_age"]),
                previous=tuple(
                    HandedOver(str(p["vkey"]), str(p["transition"])) for p in data["previous"]
                ),
                pinned_at=str(data.get("pinned_at", "")),
            )
        except (ValueError, KeyError, TypeError) as e:
            raise TrustError(f"not a trust file ({type(e).__name__}: {e})") from None


@dataclass(frozen=True)
class Cosigned:
    witness: TrustedWitness
    time: int  # the cosignature's timestamp, seconds since the epoch


def witnessed(note: str, log_keys: Sequence[Verifier], trust: Trust, now: float) -> list[Cosigned]:
    """The trusted witnesses' fresh cosignatures on ``note`` (a global
    checkpoint that ``log_keys`` sign), at least ``trust.quorum`` of them;
    NotWitnessed saying what is missing. A trusted key's signature that
    fails rejects the note (C2SP signed-note)."""
    witness_keys = {w.verifier: w for w in trust.witnesses}
    try:
        parsed, verified = open_note(note, [*log_keys, *witness_keys])
    except NoteError as e:
        raise NotWitnessed(f"the global checkpoint does not verify: {e}") from None
    if not any(key in verified for key in log_keys):
        raise NotWitnessed("the global checkpoint is not signed by the log's key")
    newest: dict[TrustedWitness, int] = {}
    for signature in parsed.signatures:
        for key, witness in witness_keys.items():
            if key.matches(signature):
                stamp = cosignature_time(signature)
                newest[witness] = max(stamp, newest.get(witness, 0))
    fresh = [
        Cosigned(w, t) for w, t in newest.items() if now - trust.max_age <= t <= now + CLOCK_SKEW
    ]
    if len(fresh) < trust.quorum:
        stale = [
            f"{w.name} at {t}" for w, t in newest.items() if w not in {c.witness for c in fresh}
        ]
        said = f"; too old or ahead of this clock: {', '.join(stale)}" if stale else ""
        raise NotWitnessed(
            f"{len(fresh)} of the {trust.quorum} trusted witnesses needed cosigned it within "
            f"the last {trust.max_age} s{said}"
        )
    return fresh

"""TOURNAMENT.md's rules written again from its text, for the tests to hold
the service to (as tests/analytics_oracle.py does for the analytics).

Nothing here calls domain/tournaments/: the seeds are hashed with hashlib,
the shuffle is R9.2's Fisher–Yates as RULES.md words it, and every rule
reads a tournament's recorded events (payloads as the export gives them),
not the service's state. ``verify --tournament`` re-derives a tournament with
the functions that decided it, so a misreading of a rule passes both; only
an independent reading catches it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

Payload = Mapping[str, Any]
WORD = 2**64


def u32(value: int) -> bytes:
    """An integer inside a hash: 4 bytes big-endian (TOURNAMENT.md, encodings)."""
    return value.to_bytes(4, "big")


def r9_1_seed(secret: bytes, contributions: Iterable[str]) -> bytes:
    """R9.1: SHA-256(secret ‖ per contribution: UTF-8 length as 4 bytes ‖ UTF-8)."""
    data = secret
    for text in contributions:
        raw = text.encode("utf-8")
        data += u32(len(raw)) + raw
    return hashlib.sha256(data).digest()


def r9_2_shuffle(items: Sequence[int], seed: bytes) -> list[int]:
    """R9.2 on ``items`` in ascending order: words from SHA-256(seed ‖ counter
    as 8 bytes), four 64-bit big-endian words a block; for i from n−1 down
    to 1, draw until a word is below 2^64 − (2^64 mod (i+1)), j = word mod
    (i+1), swap i and j."""

    def words() -> Iterable[int]:
        counter = 0
        while True:
            block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
            for k in range(4):
                yield int.from_bytes(block[8 * k : 8 * k + 8], "big")
            counter += 1

    out = sorted(items)
    source = iter(words())
    for i in range(len(out) - 1, 0, -1):
        word = next(source)
        while word >= WORD - WORD % (i + 1):
            word = next(source)
        j = word % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def tournament_seed(secret: bytes, contributions: Sequence[str], beacon: str) -> bytes:
    """T1.3: R9.1 over the contributions of every registration made before
    round 1 is paired, dropped or not, in registration order, then the
    beacon's value ("" for none)."""
    return r9_1_seed(secret, [*contributions, beacon])


def round_seed(seed: bytes, round_: int) -> bytes:
    """T1.4: SHA-256(tournament seed ‖ "round" ‖ r)."""
    return hashlib.sha256(seed + b"round" + u32(round_)).digest()


def rank_key(seed: bytes, player: int) -> bytes:
    """T6.1 (4): SHA-256(tournament seed ‖ "rank" ‖ registration number)."""
    return hashlib.sha256(seed + b"rank" + u32(player)).digest()


def rounds_for(active: int, preferred: int) -> int:
    """T1.1: the smallest r ≥ 3 with preferred^r ≥ the active players."""
    return next(r for r in range(3, 64) if preferred**r >= active)


def is_penalty(points: Fraction) -> bool:
    """T7.2: a positive multiple of 1/2."""
    return points > 0 and (points / Fraction(1, 2)).denominator == 1


def is_correction(places: Sequence[int], seats: int) -> bool:
    """T7.1: new places in seat order, one per seat of the game, that are a
    competition ranking: each place is 1 + the number strictly better."""
    return len(places) == seats and all(
        place == 1 + len([other for other in places if other < place]) for place in places
    )


def match_points(places: Sequence[int]) -> list[Fraction]:
    """T5.2: place k at a table of s gets 12·(s − k)/(s − 1); a shared place
    shares the points of the places it covers."""
    s = len(places)
    out = []
    for place in places:
        sharing = places.count(place)
        covered = range(place, place + sharing)
        out.append(Fraction(sum(12 * (s - k) for k in covered), (s - 1) * sharing))
    return out


# ---- a tournament, read from its events --------------------------------------------


@dataclass
class Paired:
    """A RoundPaired as recorded, with the active players when it was made."""

    number: int
    tables: list[list[int]]  # players in seat order, table 1 first
    byes: list[int]
    active: list[int]


@dataclass
class OracleTournament:
    """What the oracle reads of a tournament's events, in order."""

    secret: bytes = b""
    contributions: dict[int, str] = field(default_factory=dict)  # by registration number
    dropped: set[int] = field(default_factory=set)
    rounds: list[Paired] = field(default_factory=list)
    seed: bytes | None = None  # T1.3, once round 1 is paired

    @classmethod
    def of(cls, events: Iterable[tuple[str, Payload]], secret: bytes) -> OracleTournament:
        t = cls(secret=secret)
        for kind, payload in events:
            t.add(kind, payload)
        return t

    @property
    def active(self) -> list[int]:
        """Registration numbers of the players not dropped."""
        return sorted(set(self.contributions) - self.dropped)

    def add(self, kind: str, p: Payload) -> None:
        if kind == "PlayerRegistered":
            self.contributions[p["player"]] = p["contribution"]
        elif kind == "PlayerDropped":
            self.dropped.add(p["player"])
        elif kind == "RoundPaired":
            if p["round"] == 1:
                self.seed = self.seed_with(p["beacon"])
            tables = [list(table["players"]) for table in p["tables"]]
            self.rounds.append(Paired(p["round"], tables, list(p["byes"]), self.active))

    def seed_with(self, beacon: str) -> bytes:
        """T1.3 over every registration so far, dropped or not, in
        registration order, then ``beacon`` (T6.1 (4) before round 1: "")."""
        ordered = [self.contributions[n] for n in sorted(self.contributions)]
        return tournament_seed(self.secret, ordered, beacon)

    def seats(self, round_: int) -> list[list[int]]:
        """T4.3: each table of round ``round_`` (its players as recorded) in
        the seat order the rule gives. Seat k from 0: the remaining player
        with the fewest earlier games at a seat ≤ k, then the lower seat load
        Σ (s − 1 − seat)/(s − 1), then the earlier place in shuffle(the
        registration numbers of all active players, byes included,
        SHA-256(round seed ‖ "seats"))."""
        assert self.seed is not None
        paired = self.rounds[round_ - 1]
        games: dict[int, list[tuple[int, int]]] = {}
        for earlier in self.rounds[: round_ - 1]:
            for players in earlier.tables:
                for seat, player in enumerate(players):
                    games.setdefault(player, []).append((seat, len(players)))
        order_seed = hashlib.sha256(round_seed(self.seed, round_) + b"seats").digest()
        order = r9_2_shuffle(paired.active, order_seed)

        def seated(table: list[int]) -> list[int]:
            remaining = sorted(table)
            out: list[int] = []
            for k in range(len(table)):

                def key(p: int, k: int = k) -> tuple[int, Fraction, int]:
                    mine = games.get(p, [])
                    early = len([1 for seat, _ in mine if seat <= k])
                    load = sum((Fraction(s - 1 - seat, s - 1) for seat, s in mine), Fraction(0))
                    return early, load, order.index(p)

                best = min(remaining, key=key)
                remaining.remove(best)
                out.append(best)
            return out

        return [seated(table) for table in paired.tables]

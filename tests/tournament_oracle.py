"""TOURNAMENT.md's rules written again from its text, for the tests to hold
the service to (as tests/analytics_oracle.py does for the analytics).

Nothing here calls domain/tournaments/: the seeds are hashed with hashlib,
the shuffle is R9.2's Fisher–Yates as RULES.md words it, a game's id is RFC
4122's name-based UUID computed with SHA-1, and every rule reads a
tournament's recorded events (payloads as the export gives them), not the
service's state. ``verify --tournament`` re-derives a tournament with the
functions that decided it, so a misreading of a rule passes both; only an
independent reading catches it.

Revision 4 (T1.2 game ids, T3, T4.1, T4.2, T4.2b, T6, T11, T12): the
tables, byes and procedures (``swap_1`` and ``regroup_1`` as their text
says, the whole objective recomputed in fractions for every candidate,
slow and plain), the standings (T6.1), the pairs a team or a constraint
joins, each table's shares, and the cut (qualifiers, snake seeding, seats,
the final, the ranking).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any
from uuid import UUID

Payload = Mapping[str, Any]
WORD = 2**64
# Unicode's White_Space property (PropList.txt), for T2.1's key.
WHITE_SPACE = frozenset(
    (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B))
) | {0x2028, 0x2029, 0x202F, 0x205F, 0x3000}


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


def game_id(tournament: str, round_: int, table: int) -> str:
    """T1.2: the UUID version 5 of "round r table t" (ASCII decimal) in the
    namespace of the tournament's id: RFC 4122 §4.3, SHA-1 over the
    namespace's 16 bytes and the name, the first 16 bytes with the version
    (5) and the variant (10) set."""
    digest = bytearray(
        hashlib.sha1(
            UUID(tournament).bytes + f"round {round_} table {table}".encode("ascii")
        ).digest()[:16]
    )
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(UUID(bytes=bytes(digest)))


def key(text: str) -> str:
    """T2.1's key (and T11.1's for a team): NFKC(full case folding of
    NFKC(text)), then leading and trailing White_Space removed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    start, end = 0, len(folded)
    while start < end and ord(folded[start]) in WHITE_SPACE:
        start += 1
    while end > start and ord(folded[end - 1]) in WHITE_SPACE:
        end -= 1
    return folded[start:end]


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


# ---- T3: tables and byes ------------------------------------------------------------


def partition(n: int, low: int, preferred: int, high: int) -> list[int] | None:
    """T3.1: of every way to write n as a sum of sizes in [min, max], the one
    with the most tables of the preferred size, then the fewest tables, then
    the largest smallest table; largest first. None if there is none."""
    best: tuple[tuple[int, int, int], list[int]] | None = None

    def ways(left: int, largest: int) -> Iterable[list[int]]:
        if left == 0:
            yield []
            return
        for size in range(min(largest, left), low - 1, -1):
            for rest in ways(left - size, size):
                yield [size, *rest]

    if n <= 0:
        return None
    for parts in ways(n, high):
        score = (parts.count(preferred), -len(parts), min(parts))
        if best is None or score > best[0]:
            best = (score, parts)
    return None if best is None else best[1]


def fewest_byes(n: int, low: int, preferred: int, high: int) -> tuple[int, list[int]]:
    """T3.2: the fewest players b that make a partition of n − b possible."""
    for b in range(n):
        parts = partition(n - b, low, preferred, high)
        if parts is not None:
            return b, parts
    raise ValueError(f"T2.4: {n} players fill no table")


def cut_into(order: Sequence[int], parts: Sequence[int]) -> list[list[int]]:
    out, start = [], 0
    for size in parts:
        out.append(list(order[start : start + size]))
        start += size
    return out


# ---- T4.2, T11.2: the objective ----------------------------------------------------


Pair = tuple[int, int]


def pair_of(p: int, q: int) -> Pair:
    return (min(p, q), max(p, q))


def met_in(rounds: Iterable[Sequence[Sequence[int]]]) -> dict[Pair, int]:
    """T4.2's m: for each pair, the number of earlier rounds in which it
    shared a table."""
    met: dict[Pair, int] = {}
    for tables in rounds:
        for pair in {pair_of(p, q) for t in tables for p, q in combinations(t, 2)}:
            met[pair] = met.get(pair, 0) + 1
    return met


@dataclass(frozen=True)
class Terms:
    """What the objective reads: m, match points after penalties, W, and the
    pairs sharing a team key or constrained (None: the tournament has no
    team and no constraint)."""

    met: Mapping[Pair, int]
    points: Mapping[int, Fraction]
    weight: int
    conflicts: frozenset[Pair] | None = None

    def shares(self, table: Sequence[int]) -> tuple[int, Fraction, int]:
        """T11.3: the table's share of (a), (b) and (c)."""
        pairs = [pair_of(p, q) for p, q in combinations(table, 2)]
        values = [self.points.get(p, Fraction(0)) for p in table]
        a = sum(self.met.get(pair, 0) ** 2 for pair in pairs)
        c = len([pair for pair in pairs if self.conflicts and pair in self.conflicts])
        return a, max(values) - min(values), c

    def value(self, tables: Sequence[Sequence[int]]) -> tuple[int, Fraction]:
        """T11.2: ((c), W·(a) + (b)), compared (c) first; (c) is 0 without a
        team or a constraint, so the comparison is then W·(a) + (b)'s."""
        c, rest = 0, Fraction(0)
        for table in tables:
            a, b, conflicts = self.shares(table)
            c += conflicts
            rest += self.weight * a + b
        return c, rest


def swap_1(tables: list[list[int]], terms: Terms) -> None:
    """T4.2 `swap-1`, as written: passes until one makes no swap (at most
    50); for i, for j = i+1…min(i+3, T), for x, for y: exchange table i[x]
    and table j[y] in place if that lowers the objective."""
    count = len(tables)
    for _ in range(50):
        now, swapped = terms.value(tables), False
        for i in range(count):
            for j in range(i + 1, min(i + 3, count - 1) + 1):
                for x in range(len(tables[i])):
                    for y in range(len(tables[j])):
                        tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
                        after = terms.value(tables)
                        if after < now:
                            now, swapped = after, True
                        else:
                            tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
        if not swapped:
            return


def regroup_1(tables: list[list[int]], terms: Terms) -> None:
    """T4.2b `regroup-1`, as written: `swap-1`; then passes until one changes
    nothing (at most 50), each (1) exchanges of k places of table i with k
    places of table j, the sets in lexicographic order, and (2) rotations
    among tables i < j < l, each way, each made if it lowers the objective."""
    swap_1(tables, terms)
    count = len(tables)
    for _ in range(50):
        changed = False
        for i in range(count):
            for j in range(i + 1, min(i + 3, count - 1) + 1):
                ti, tj = tables[i], tables[j]
                for k in range(1, min(len(ti), len(tj)) + 1):
                    for xs in combinations(range(len(ti)), k):
                        for ys in combinations(range(len(tj)), k):
                            now = terms.value(tables)
                            for x, y in zip(xs, ys, strict=True):
                                ti[x], tj[y] = tj[y], ti[x]
                            if terms.value(tables) < now:
                                changed = True
                            else:
                                for x, y in zip(xs, ys, strict=True):
                                    ti[x], tj[y] = tj[y], ti[x]
        for i in range(count):
            for j in range(i + 1, min(i + 3, count - 1) + 1):
                for m in range(j + 1, min(i + 3, count - 1) + 1):
                    ti, tj, tl = tables[i], tables[j], tables[m]
                    for x in range(len(ti)):
                        for y in range(len(tj)):
                            for z in range(len(tl)):
                                for turn in ("forward", "back"):
                                    now = terms.value(tables)
                                    p, q, r = ti[x], tj[y], tl[z]
                                    if turn == "forward":  # r to i[x], p to j[y], q to l[z]
                                        ti[x], tj[y], tl[z] = r, p, q
                                    else:  # the one at j[y] to i[x], l[z] to j[y], i[x] to l[z]
                                        ti[x], tj[y], tl[z] = q, r, p
                                    if terms.value(tables) < now:
                                        changed = True
                                    else:
                                        ti[x], tj[y], tl[z] = p, q, r
        if not changed:
            return


PROCEDURES = {"swap-1": swap_1, "regroup-1": regroup_1}


# ---- T12: the cut ---------------------------------------------------------------------


def snake(qualifiers: Sequence[int], k: int) -> list[list[int]]:
    """T12.2: seeds 1…k to tables 1…k, seeds k+1…2k to tables k…1, and so
    on; each table's seats in seed order."""
    tables: list[list[int]] = [[] for _ in range(k)]
    for start in range(0, len(qualifiers), k):
        row = list(qualifiers[start : start + k])
        if (start // k) % 2:
            row.reverse()
        for t, player in enumerate(row):
            tables[t].append(player)
    return tables


def cut_size(k: int, low: int, preferred: int, high: int, active: int) -> int | None:
    """T12.1's s."""
    if k * preferred <= active:
        return preferred
    sizes = [s for s in range(low, high + 1) if k * s <= active]
    return max(sizes) if sizes else None


# ---- a tournament, read from its events --------------------------------------------


@dataclass
class Paired:
    """A RoundPaired as recorded, with the active players when it was made."""

    number: int
    tables: list[list[int]]  # players in seat order, table 1 first
    byes: list[int]
    active: list[int]
    payload: Payload = field(default_factory=dict)

    @property
    def procedure(self) -> str:
        return str(self.payload.get("procedure", "swap-1"))


@dataclass
class Game:
    round: int
    players: list[int]
    places: list[int] | None = None  # the recorded ones (T5.1)
    scores: list[int] | None = None
    corrected: list[int] | None = None  # the latest correction (T7.1)
    corrections: int = 0

    @property
    def counted(self) -> list[int]:
        assert self.places is not None
        return self.corrected if self.corrected is not None else self.places


@dataclass
class OracleTournament:
    """What the oracle reads of a tournament's events, in order."""

    secret: bytes = b""
    contributions: dict[int, str] = field(default_factory=dict)  # by registration number
    dropped: set[int] = field(default_factory=set)
    rounds: list[Paired] = field(default_factory=list)
    seed: bytes | None = None  # T1.3, once round 1 is paired
    settings: dict[str, Any] = field(default_factory=dict)  # TournamentCreated's
    teams: dict[int, str] = field(default_factory=dict)  # T11.1, as given
    constraints: list[Pair] = field(default_factory=list)
    games: dict[str, Game] = field(default_factory=dict)
    penalties: dict[int, list[Fraction]] = field(default_factory=dict)
    finished: Payload | None = None
    swiss_rounds: int | None = None  # T1.1

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

    @property
    def sizes(self) -> tuple[int, int, int]:
        tables = self.settings.get("tables") or {"min": 3, "preferred": 4, "max": 5}
        return tables["min"], tables["preferred"], tables["max"]

    @property
    def cut(self) -> int | None:
        return self.settings.get("cut")

    def add(self, kind: str, p: Payload) -> None:
        if kind == "TournamentCreated":
            self.settings = dict(p)
            self.swiss_rounds = p.get("rounds")
        elif kind == "PlayerRegistered":
            self.contributions[p["player"]] = p["contribution"]
            self.teams[p["player"]] = p.get("team") or ""
        elif kind == "PairingConstraintAdded":
            low, high = sorted(p["players"])
            self.constraints.append((low, high))
        elif kind == "PlayerDropped":
            self.dropped.add(p["player"])
        elif kind == "RoundPaired":
            if p["round"] == 1:
                self.seed = self.seed_with(p["beacon"])
                self.swiss_rounds = p["rounds"]
            tables = [list(table["players"]) for table in p["tables"]]
            self.rounds.append(Paired(p["round"], tables, list(p["byes"]), self.active, p))
            for table in p["tables"]:
                self.games[table["game"]] = Game(p["round"], list(table["players"]))
        elif kind == "GameResultRecorded":
            game = self.games[p["game"]]
            game.places, game.scores = list(p["places"]), list(p["scores"])
        elif kind == "ResultCorrected":
            game = self.games[p["game"]]
            game.corrected = list(p["places"])
            game.corrections += 1
        elif kind == "PenaltyGiven":
            numerator, denominator = p["points"].split("/")
            points = Fraction(int(numerator), int(denominator))
            self.penalties.setdefault(p["player"], []).append(points)
        elif kind == "TournamentFinished":
            self.finished = p

    def seed_with(self, beacon: str) -> bytes:
        """T1.3 over every registration so far, dropped or not, in
        registration order, then ``beacon`` (T6.1 (4) before round 1: "")."""
        ordered = [self.contributions[n] for n in sorted(self.contributions)]
        return tournament_seed(self.secret, ordered, beacon)

    # ---- T6 ---------------------------------------------------------------------

    def is_cut(self, round_: int) -> bool:
        """T12.2: the cut's rounds come after the Swiss rounds."""
        return self.swiss_rounds is not None and round_ > self.swiss_rounds

    def standings(self) -> list[int]:
        """T6.1: every registered player, rank 1 first, from everything read
        so far; the cut's games do not count (T12.3)."""
        seed = self.seed if self.seed is not None else self.seed_with("")
        played = [
            g for g in self.games.values() if g.places is not None and not self.is_cut(g.round)
        ]
        own: dict[int, list[Fraction]] = {n: [] for n in self.contributions}
        scores = dict.fromkeys(self.contributions, 0)
        for g in played:
            assert g.scores is not None
            for player, won, score in zip(
                g.players, match_points(g.counted), g.scores, strict=True
            ):
                own[player].append(won)
                scores[player] += score
        rate = {
            n: max(sum(wins, Fraction(0)) / len(wins), Fraction(4))
            for n, wins in own.items()
            if wins
        }
        opponents: dict[int, Fraction] = {}
        for n in self.contributions:
            mine = [g for g in played if n in g.players]
            averages = [
                sum((rate[q] for q in g.players if q != n), Fraction(0)) / (len(g.players) - 1)
                for g in mine
            ]
            opponents[n] = sum(averages, Fraction(0)) / len(averages) if averages else Fraction(0)
        byes = {n: sum(1 for r in self.rounds if n in r.byes) for n in self.contributions}

        def points(n: int) -> Fraction:
            taken = sum(self.penalties.get(n, []), Fraction(0))
            return sum(own[n], Fraction(0)) + 6 * byes[n] - taken

        return sorted(
            self.contributions,
            key=lambda n: (-points(n), -opponents[n], -scores[n], rank_key(seed, n)),
        )

    def match_points_now(self) -> dict[int, Fraction]:
        """T6.1 (1): match points after penalties, the cut's games left out."""
        out: dict[int, Fraction] = {}
        for n in self.contributions:
            total = Fraction(6 * sum(1 for r in self.rounds if n in r.byes))
            for g in self.games.values():
                if g.places is not None and not self.is_cut(g.round) and n in g.players:
                    total += match_points(g.counted)[g.players.index(n)]
            out[n] = total - sum(self.penalties.get(n, []), Fraction(0))
        return out

    # ---- T4, T11 ------------------------------------------------------------------

    def has_team_or_constraint(self) -> bool:
        """T11.2: over every registration and constraint read so far."""
        return bool(self.constraints) or any(self.teams.values())

    def conflicts(self) -> frozenset[Pair]:
        """T11.2: the pairs who share a team key or are constrained."""
        pairs = set(self.constraints)
        keyed = {n: key(team) for n, team in self.teams.items() if team}
        for p, q in combinations(sorted(keyed), 2):
            if keyed[p] == keyed[q]:
                pairs.add((p, q))
        return frozenset(pairs)

    def terms(self) -> Terms:
        """What the next pairing's objective reads (as of now)."""
        weight = int(self.settings.get("weight", 6))
        conflicts = self.conflicts() if self.has_team_or_constraint() else None
        met = met_in(r.tables for r in self.rounds)
        return Terms(met, self.match_points_now(), weight, conflicts)

    def next_pairing(self, beacon: str = "") -> tuple[list[list[int]], list[int]]:
        """T4.1 or T4.2 (with T4.2b, T11.2) for the next round, from what is
        read so far (round 1: with the beacon's value): its tables (not yet
        seated) and byes (ascending)."""
        low, preferred, high = self.sizes
        number = len(self.rounds) + 1
        active = self.active
        b, parts = fewest_byes(len(active), low, preferred, high)
        terms = self.terms()
        procedure = PROCEDURES[str(self.settings.get("procedure", "swap-1"))]
        if number == 1:
            self.seed = self.seed_with(beacon)
            order = r9_2_shuffle(
                active, hashlib.sha256(round_seed(self.seed, 1) + b"order").digest()
            )
            byes, seated = order[len(order) - b :], order[: len(order) - b]
            tables = cut_into(seated, parts)
            if terms.conflicts is not None:
                procedure(tables, terms)
            return tables, sorted(byes)
        ranked = [n for n in self.standings() if n in set(active)]
        so_far = {n: sum(1 for r in self.rounds if n in r.byes) for n in active}
        bottom_first = list(reversed(ranked))
        byes = sorted(sorted(bottom_first, key=lambda n: so_far[n])[:b])
        tables = cut_into([n for n in ranked if n not in byes], parts)
        procedure(tables, terms)
        return tables, byes

    # ---- T12 ----------------------------------------------------------------------

    def qualifiers(self) -> list[int] | None:
        """T12.1: the top k·s active players in the standings now, seed 1
        first; None when no size fits."""
        k = self.cut
        assert k is not None
        active = set(self.active)
        ranked = [n for n in self.standings() if n in active]
        s = cut_size(k, *self.sizes, len(ranked))
        return None if s is None else ranked[: k * s]

    def seeds(self) -> dict[int, int]:
        """T12.1's seeds, as the cut's first round was dealt (T12.2): each
        table's seats in seed order, tables dealt snake-wise."""
        k = self.cut
        assert k is not None and self.swiss_rounds is not None
        first = self.rounds[self.swiss_rounds]
        order: list[int] = []
        for row in range(len(first.tables[0])):
            dealt = [table[row] for table in first.tables]
            order += dealt if row % 2 == 0 else list(reversed(dealt))
        return {player: seed for seed, player in enumerate(order, start=1)}

    def finalists(self) -> list[int]:
        """T12.3: from each semifinal table its place 1 (shared: the better
        seed) unless dropped, then its best (place, seed) player still
        active, none when all dropped; seated by seed."""
        assert self.swiss_rounds is not None
        seeds = self.seeds()
        semis = self.rounds[self.swiss_rounds]
        sent = []
        for table, payload in zip(semis.tables, semis.payload["tables"], strict=True):
            game = self.games[payload["game"]]
            place = dict(zip(game.players, game.counted, strict=True))
            best = sorted(table, key=lambda n: (place[n], seeds[n]))
            winner = best[0]
            if winner in self.dropped:
                still = [n for n in best if n not in self.dropped]
                if not still:
                    continue
                winner = still[0]
            sent.append(winner)
        return sorted(sent, key=lambda n: seeds[n])

    def ranking(self) -> list[dict[str, Any]]:
        """T12.4: the final table by place (shared places by seed), then the
        semifinalists by semifinal place, then seed, then everyone else in
        Swiss standings order; reached and place as T12.4 says."""
        k = self.cut
        assert k is not None
        rows: list[tuple[int, str, int | None]] = []
        cut_rounds = [r for r in self.rounds if self.is_cut(r.number)]
        if cut_rounds:
            seeds = self.seeds()

            def placed(paired: Paired) -> list[tuple[int, int]]:
                out = []
                for table in paired.payload["tables"]:
                    game = self.games[table["game"]]
                    out += list(zip(game.players, game.counted, strict=True))
                return sorted(out, key=lambda pair: (pair[1], seeds[pair[0]]))

            final = cut_rounds[-1] if k == 1 or len(cut_rounds) == 2 else None
            reached_final = set()
            if final is not None:
                for player, place in placed(final):
                    rows.append((player, "final", place))
                    reached_final.add(player)
            if k > 1:
                for player, place in placed(cut_rounds[0]):
                    if player not in reached_final:
                        rows.append((player, "semifinal", place))
        listed = {row[0] for row in rows}
        rows += [(n, "swiss", None) for n in self.standings() if n not in listed]
        return [
            {"rank": rank, "player": player, "reached": reached, "place": place}
            for rank, (player, reached, place) in enumerate(rows, start=1)
        ]

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

"""Ratings: Weng–Lin Bayesian ratings under the Plackett–Luce model, with
the seat learned beside the player (README, "Ratings").

Each rated seat of a game is a *team* of two members: its account, and a
pseudo-player "seat k at a table of s" (``seat_id(k, s)``, "k/s", k the
seat's index from 0), so the edge of sitting first is learned by the seat
and not charged to whoever sat there. The teams are ranked by the game's
places (R7.3 = T5.1's order: points, completed stages, table recipes; a
shared place is a tie). The update is the ``openskill`` package's
``PlackettLuce`` (pinned in pyproject.toml; its version and the parameters
are recorded with the ratings: ``record``).

What is rated (the decisions, README "Rating decisions"):

- a game that has ended (GameEnded) with at least two seats held by
  accounts (the service's bots are accounts too); a seat held by no account
  is left out, and the accounts are ranked among themselves, in R7.3's
  order, which leaving a seat out does not change;
- an account at two seats of one game (a token it adopted after taking the
  other) counts at its first seat only;
- a withdrawn seat (R3.5) is ranked last, sharing that place with every
  other withdrawn seat, as a team of its account alone: withdrawing never
  protects a rating, and says nothing about the seat; a game whose rated
  seats all withdrew is not rated;
- a new account starts at the model's prior, μ = 25, σ = 25/3, shown as 0;
  a seat pseudo-player at μ = 0, σ = ``SEAT_SIGMA``, kept on a settled
  table's scale and put on each game's when rated (``scale``: so its edge
  is learned at its size, bench/ratings.py), and never drifts: the
  dynamics τ (a person's skill may change) is not added to a seat's σ
  (``rate_game``). Ratings recorded before issue 35 name the model they
  were computed with (``BEFORE_ISSUE_35``) and are checked with it.

People see one number, ``shown(mu, sigma)`` = round(40 × (μ − 3σ)), the
conservative estimate; μ and σ beside it.

``Sitting`` is one game on its way to a rating (who sits where, what R7.3
ranks by); ``Ledger`` folds a whole log into every rating (``opus verify
--ratings``, the analytics report, the bench); the ``ratings`` projection
(projections/ratings.py) does the same, game by game, in its view.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

import openskill
from openskill.models import PlackettLuce

from domain.engine import rank_keys
from domain.table import Payload, Table
from domain.tournaments.standings import places

LIBRARY = "openskill"
VERSION: str = openskill.__version__
MODEL = "PlackettLuce"
SCALE = 40  # the number shown: SCALE × (μ − 3σ), rounded
Z = 3.0  # σs taken off μ for the conservative estimate
# a seat pseudo-player's prior σ, on a settled table's scale (README, Rating
# decisions: Parameters; bench/ratings.py's synthetic players of known edge)
SEAT_SIGMA = 1.5
TOLERANCE = 1e-9  # verify: a recomputed μ or σ within this of the recorded one
SHOWN = "round(40 × (μ − 3σ))"

Rating = tuple[float, float]  # (μ, σ)


@dataclass(frozen=True)
class Parameters:
    """The model's parameters, recorded with the ratings: openskill's
    defaults for players (μ, σ, β, κ, τ), the seats' prior, and the seats'
    scale (``seat_scale``): 1, a seat's μ and σ are its edge at a table of
    settled players, put on each game's scale when it is rated (``scale``);
    0, on each game's own scale, as ratings recorded before issue 35 were
    (their record has no ``seat_scale``, and their seats' σ₀ is 1)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    kappa: float = 0.0001
    tau: float = 25.0 / 300.0
    seat_mu: float = 0.0
    seat_sigma: float = SEAT_SIGMA
    seat_scale: float = 1.0

    def to_doc(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Parameters:
        """The parameters a record names; one made before ``seat_scale`` was
        recorded was computed with the seats on each game's scale (0)."""
        names = {f.name for f in fields(cls)}
        given = dict(doc) if "seat_scale" in doc else {**doc, "seat_scale": 0.0}
        if set(given) != names:
            raise ValueError(
                f"the parameters recorded are {sorted(doc)}, this code's are {sorted(names)}"
            )
        return cls(**{name: float(given[name]) for name in names})


PARAMETERS = Parameters()
# the model as recorded before issue 35: seats at σ₀ 1 on each game's scale
BEFORE_ISSUE_35 = Parameters(seat_sigma=1.0, seat_scale=0.0)


@functools.cache
def model_of(params: Parameters) -> PlackettLuce:
    """openskill's Plackett–Luce model with these parameters (no margin, no
    balance, σ not limited: its defaults)."""
    return PlackettLuce(
        mu=params.mu,
        sigma=params.sigma,
        beta=params.beta,
        kappa=params.kappa,
        tau=params.tau,
        margin=0.0,
        limit_sigma=False,
        balance=False,
    )


def record(params: Parameters = PARAMETERS) -> dict[str, Any]:
    """What the ratings were computed with: library, version, model,
    parameters, and how the number shown is made."""
    return {
        "library": LIBRARY,
        "version": VERSION,
        "model": MODEL,
        "parameters": params.to_doc(),
        "shown": SHOWN,
    }


def seat_id(seat: int, players: int) -> str:
    """The pseudo-player of seat ``seat`` (from 0) at a table of ``players``."""
    return f"{seat}/{players}"


def is_seat(member: str) -> bool:
    return "/" in member


def prior(params: Parameters, member: str) -> Rating:
    """Where a member starts: an account at (μ, σ), a seat at its own prior."""
    if is_seat(member):
        return params.seat_mu, params.seat_sigma
    return params.mu, params.sigma


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate, μ − 3σ: the skill is above it with 99.7 %."""
    return mu - Z * sigma


def shown(mu: float, sigma: float) -> int:
    """The one number people see."""
    return round(SCALE * ordinal(mu, sigma))


# ---- a rated game ------------------------------------------------------------------


@dataclass(frozen=True)
class RatedSeat:
    seat: int  # the seat's index, from 0
    account: str
    place: int  # 1 is first; shared places tie
    withdrawn: bool = False


@dataclass(frozen=True)
class RatedGame:
    game: str
    position: int  # the GameEnded's
    players: int  # the table's size, every seat counted
    seats: tuple[RatedSeat, ...]

    def teams(self) -> list[list[str]]:
        """Each rated seat's members: its account and its seat's pseudo-player
        (a withdrawn seat: its account alone)."""
        return [
            [s.account] if s.withdrawn else [s.account, seat_id(s.seat, self.players)]
            for s in self.seats
        ]

    def members(self) -> list[str]:
        return [member for team in self.teams() for member in team]

    def to_doc(self, after: Mapping[str, Rating]) -> dict[str, Any]:
        """The game as the ratings record it, each seat with its account's
        rating after it."""
        return {
            "game": self.game,
            "position": self.position,
            "players": self.players,
            "seats": [
                {
                    "seat": s.seat,
                    "account": s.account,
                    "place": s.place,
                    "withdrawn": s.withdrawn,
                    "mu": after[s.account][0],
                    "sigma": after[s.account][1],
                }
                for s in self.seats
            ],
        }

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> RatedGame:
        return cls(
            doc["game"],
            int(doc["position"]),
            int(doc["players"]),
            tuple(
                RatedSeat(int(s["seat"]), s["account"], int(s["place"]), bool(s["withdrawn"]))
                for s in doc["seats"]
            ),
        )


def rated_game(
    game: str,
    position: int,
    accounts: Sequence[str | None],
    keys: Sequence[tuple[int, int, int]],
    withdrawn: Iterable[int],
) -> RatedGame | None:
    """The game as rated, from its seats' accounts (None: no account), R7.3's
    keys by seat and its withdrawn seats; None if it is not rated."""
    gone = set(withdrawn)
    seen: set[str] = set()
    rated: list[int] = []
    for seat, account in enumerate(accounts):
        if account is not None and account not in seen:
            seen.add(account)
            rated.append(seat)
    in_play = [seat for seat in rated if seat not in gone]
    if len(rated) < 2 or not in_play:
        return None
    placed = dict(zip(in_play, places([keys[seat] for seat in in_play]), strict=True))
    last = len(in_play) + 1
    return RatedGame(
        game,
        position,
        len(accounts),
        tuple(
            RatedSeat(seat, str(accounts[seat]), placed.get(seat, last), seat in gone)
            for seat in rated
        ),
    )


def scale(
    params: Parameters, teams: Sequence[Sequence[str]], ratings: Sequence[Sequence[Rating]]
) -> float:
    """How much larger a game's scale is than a settled table's: the
    Plackett–Luce c of its teams' players, √(Σ_teams (Σ σ² + β²)), over a
    settled table's, √(teams × β²). A win's probability goes as exp(μ/c),
    so a seat's edge learned at one c means more at a smaller one: a seat
    learned on each game's scale while its players' σ are large is worth
    too little at first and too much once they settle (bench/ratings.py).
    With ``seat_scale`` 1 a seat's μ and σ are kept on a settled table's
    scale and multiplied by this in each game; with 0 the scale is 1."""
    if not params.seat_scale:
        return 1.0
    spread = sum(
        sum(sigma * sigma for m, (_, sigma) in zip(team, rs, strict=True) if not is_seat(m))
        + params.beta**2
        for team, rs in zip(teams, ratings, strict=True)
    )
    return math.sqrt(spread / (len(teams) * params.beta**2))


def rate_game(
    params: Parameters, current: Mapping[str, Rating], game: RatedGame
) -> dict[str, Rating]:
    """Every member's rating after the game (openskill's Plackett–Luce
    update); a member ``current`` does not hold starts at its prior. A
    seat's μ and σ go into the game multiplied by its ``scale`` and come
    out divided by it. The library adds τ² to every member's σ² first (the
    dynamics: a skill may drift); a seat's rules do not, so its τ² is taken
    off before (its σ floors at τ on the game's scale). The places are
    R7.3's; the seats' prior, scale and taking no drift are the README's
    Rating decisions (Parameters)."""
    model = model_of(params)
    teams = game.teams()
    before = [[current.get(m) or prior(params, m) for m in team] for team in teams]
    r = scale(params, teams, before)
    tau2 = params.tau**2
    rated = model.rate(
        [
            [
                model.rating(mu * r, math.sqrt(max((sigma * r) ** 2 - tau2, 0.0)))
                if is_seat(m)
                else model.rating(mu, sigma)
                for m, (mu, sigma) in zip(team, ratings, strict=True)
            ]
            for team, ratings in zip(teams, before, strict=True)
        ],
        ranks=[float(s.place) for s in game.seats],
    )
    return {
        member: (float(new.mu) / r, float(new.sigma) / r)
        if is_seat(member)
        else (float(new.mu), float(new.sigma))
        for team, news in zip(teams, rated, strict=True)
        for member, new in zip(team, news, strict=True)
    }


def game_probabilities(
    params: Parameters, current: Mapping[str, Rating], game: RatedGame
) -> list[float]:
    """Each rated seat's probability of the first place before the game,
    as the model rates it (its seats on the game's ``scale``)."""
    teams = game.teams()
    before = [[current.get(m) or prior(params, m) for m in team] for team in teams]
    r = scale(params, teams, before)
    return win_probabilities(
        params,
        [
            [
                (mu * r, sigma * r) if is_seat(m) else (mu, sigma)
                for m, (mu, sigma) in zip(team, rs, strict=True)
            ]
            for team, rs in zip(teams, before, strict=True)
        ],
    )


def win_probabilities(params: Parameters, teams: Sequence[Sequence[Rating]]) -> list[float]:
    """Each team's probability of the first place under the model itself:
    exp(μ_i / c) / Σ_q exp(μ_q / c), c² = Σ_q (σ_q² + β²), a team's μ and σ²
    its members' sums (Weng & Lin 2011, the Plackett–Luce likelihood)."""
    mus = [sum(mu for mu, _ in team) for team in teams]
    c = math.sqrt(sum(sum(s * s for _, s in team) + params.beta**2 for team in teams))
    top = max(mus)
    weights = [math.exp((mu - top) / c) for mu in mus]
    total = sum(weights)
    return [w / total for w in weights]


def equal_table_shares(params: Parameters, seats: Sequence[Rating]) -> list[float]:
    """Each seat's chance of winning at a table of equally rated players
    whose ratings are settled (their σ taken as 0): the seat effects alone
    (on a settled table's scale, which is where ``seat_scale`` 1 keeps
    them)."""
    return win_probabilities(params, [[seat] for seat in seats])


def seat_effects(
    params: Parameters, seats: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """For each table size with a rated seat, every seat in order: its μ (its
    prior if never rated), σ and games, its effect (μ less the mean of its
    table's seats: only differences between seats mean anything) and its
    share of the wins at a table of equals (``equal_table_shares``)."""
    rows: list[dict[str, Any]] = []
    for size in sorted({int(member.split("/")[1]) for member in seats}):
        found = [seats.get(seat_id(k, size)) for k in range(size)]
        ratings = [
            (f["mu"], f["sigma"]) if f else (params.seat_mu, params.seat_sigma) for f in found
        ]
        mean = sum(mu for mu, _ in ratings) / size
        shares = equal_table_shares(params, ratings)
        for k, ((mu, sigma), f, share) in enumerate(zip(ratings, found, shares, strict=True)):
            rows.append(
                {
                    "players": size,
                    "seat": k,
                    "mu": mu,
                    "sigma": sigma,
                    "games": f["games"] if f else 0,
                    "effect": mu - mean,
                    "share": share,
                }
            )
    return rows


# ---- one game on its way ---------------------------------------------------------------


class RankTable(Table):
    """What R7.3 ranks by, kept from the open events: each seat's table
    recipes and Sequence stages (domain/table.py's own handlers), with no
    cabinet and no hands."""

    hand_changes: ClassVar[dict[str, Any]] = {}

    def push(self, card: int) -> None:
        pass

    def pop(self, card: int) -> None:
        pass


# the events a RankTable is evolved with, after GameStarted
TABLE_EVENTS = (
    "StageStolen",
    "StageTaken",
    "RecipeAssembled",
    "RecipePlaced",
    "SpellCast",
    "SeatWithdrawn",
)


class Sitting:
    """A game on its way to a rating: how many seats it has and the account
    at each seat held by one, then, from the start, what R7.3 will rank it
    by. (A plain class, not a dataclass: a view writes it by its
    ``to_json``, which orjson would pass over for a dataclass.)"""

    __slots__ = ("accounts", "batch", "seats", "table")

    def __init__(self, seats: int = 0, accounts: dict[int, str] | None = None) -> None:
        self.seats = seats
        self.accounts: dict[int, str] = accounts or {}
        self.table: RankTable | None = None
        self.batch = 0  # the view's: the serial of the batch it is to be written in

    def joined(self, seat: int, account: str | None) -> None:
        """R2.1: a seat taken (the next one), held by ``account`` or by none."""
        self.seats = seat + 1
        if account is not None:
            self.accounts[seat] = account

    def left(self, seat: int) -> None:
        """R2.1: the seat is freed and those after it move down."""
        self.seats -= 1
        self.accounts = {
            (s if s < seat else s - 1): a for s, a in self.accounts.items() if s != seat
        }

    def started(self, payload: Payload) -> bool:
        """The seats are fixed: False if fewer than two are accounts' (the
        game will not be rated)."""
        if len(set(self.accounts.values())) < 2:
            return False
        self.table = RankTable(commitment="", names=[""] * self.seats)
        self.table.evolve("GameStarted", payload)
        return True

    def evolve(self, kind: str, payload: Payload) -> None:
        if self.table is not None:
            self.table.evolve(kind, payload)

    def rated(self, game: str, position: int, scores: Sequence[int]) -> RatedGame | None:
        table = self.table
        if table is None:
            return None
        table.scores = list(scores)
        seats = [self.accounts.get(seat) for seat in range(table.players)]
        return rated_game(game, position, seats, rank_keys(table), table.withdrawn)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "seats": self.seats,
            "accounts": {str(s): a for s, a in sorted(self.accounts.items())},
        }
        table = self.table
        if table is not None:
            doc["tables"] = [sorted(recipes) for recipes in table.tables]
            doc["columns"] = table.columns
            doc["withdrawn"] = table.withdrawn
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Sitting:
        sitting = cls(int(doc["seats"]), {int(s): a for s, a in doc["accounts"].items()})
        if "tables" in doc:
            sitting.table = RankTable(
                commitment="",
                status="running",
                names=[""] * sitting.seats,
                tables=[{recipe: [] for recipe in recipes} for recipes in doc["tables"]],
                columns=[
                    {c: list(stages) for c, stages in cols.items()} for cols in doc["columns"]
                ],
                withdrawn=list(doc["withdrawn"]),
            )
        return sitting


# ---- the whole log -----------------------------------------------------------------------

SITTING_EVENTS = ("PlayerJoined", "PlayerLeft", "GameStarted", *TABLE_EVENTS, "GameEnded")
HOLDING_EVENTS = ("AccountOpened", "TokensAdopted")


@dataclass
class Ledger:
    """Every rating, folded from the log's events in their order (``feed``):
    the accounts' holdings (AccountOpened, TokensAdopted: a seat is an
    account's when its token hash is the account's holder hash or a token it
    adopted, from then on), each game's seats and table, each rated game.
    An export's holdings (domain/seat_holdings.py) are fed as the
    TokensAdopted they stand for."""

    params: Parameters = PARAMETERS
    ratings: dict[str, Rating] = field(default_factory=dict)
    played: Counter[str] = field(default_factory=Counter)
    games: list[dict[str, Any]] = field(default_factory=list)  # as RatedGame.to_doc
    holders: dict[str, str] = field(default_factory=dict)  # token hash -> account
    sittings: dict[str, Sitting] = field(default_factory=dict)

    def feed(self, kind: str, key: str, fields: Mapping[str, Any], position: int) -> None:
        """One event: its type name, its aggregate's id, its own fields (an
        exported line's payload), its position."""
        if kind == "AccountOpened":
            self.holders[fields["holder_hash"]] = key
        elif kind == "TokensAdopted":
            for token_hash in fields["token_hashes"]:
                self.holders[token_hash] = key
        elif kind == "PlayerJoined":
            account = self.holders.get(fields.get("token_hash") or "")
            self.sittings.setdefault(key, Sitting()).joined(int(fields["player"]), account)
        elif kind == "PlayerLeft":
            if key in self.sittings:
                self.sittings[key].left(int(fields["player"]))
        elif kind == "GameStarted":
            starting = self.sittings.get(key)
            if starting is not None and not starting.started(fields):
                del self.sittings[key]
        elif kind in TABLE_EVENTS:
            if key in self.sittings:
                self.sittings[key].evolve(kind, fields)
        elif kind == "GameEnded":
            ending = self.sittings.pop(key, None)
            if ending is not None:
                game = ending.rated(key, position, fields["scores"])
                if game is not None:
                    self.apply(game)

    def apply(self, game: RatedGame) -> dict[str, Rating]:
        after = rate_game(self.params, self.ratings, game)
        self.ratings.update(after)
        self.played.update(after.keys())
        self.games.append(game.to_doc(after))
        return after

    def accounts(self) -> dict[str, dict[str, Any]]:
        return {
            m: {"mu": mu, "sigma": sigma, "games": self.played[m]}
            for m, (mu, sigma) in self.ratings.items()
            if not is_seat(m)
        }

    def seats(self) -> dict[str, dict[str, Any]]:
        return {
            m: {"mu": mu, "sigma": sigma, "games": self.played[m]}
            for m, (mu, sigma) in self.ratings.items()
            if is_seat(m)
        }

    def history(self) -> dict[str, list[dict[str, Any]]]:
        """Each account's points, game by game (``history_point``)."""
        found: dict[str, list[dict[str, Any]]] = {}
        for game in self.games:
            for seat in game["seats"]:
                found.setdefault(seat["account"], []).append(history_point(game, seat))
        return found


def history_point(game: Mapping[str, Any], seat: Mapping[str, Any]) -> dict[str, Any]:
    """One point of an account's history: the game, where it sat and
    placed, how many were rated, its rating after."""
    return {
        "game": game["game"],
        "position": game["position"],
        "seat": seat["seat"],
        "players": game["players"],
        "rated": len(game["seats"]),
        "place": seat["place"],
        "withdrawn": seat["withdrawn"],
        "mu": seat["mu"],
        "sigma": seat["sigma"],
    }


# ---- checking a record ------------------------------------------------------------------


def differences(
    recorded: Mapping[str, Any], ledger: Ledger, tolerance: float = TOLERANCE
) -> list[str]:
    """Where a ratings record (a view's, an export's: ``games``, ``accounts``,
    ``seats``, and ``history`` when it has one) differs from the ratings
    recomputed (``ledger``): every rated game, with its seats, accounts and
    places exactly, every μ and σ within ``tolerance``. Empty when it
    agrees."""
    found: list[str] = []

    def close(a: Any, b: float) -> bool:
        return isinstance(a, int | float) and math.isfinite(a) and abs(a - b) <= tolerance

    games = list(recorded.get("games", []))
    for n, (kept, made) in enumerate(zip(games, ledger.games, strict=False)):
        where = f"rated game {n + 1} ({made['game']})"
        if kept.get("game") != made["game"] or kept.get("position") != made["position"]:
            found.append(
                f"{where}: the record has game {kept.get('game')} at position "
                f"{kept.get('position')} there"
            )
            break
        same = [
            {k: s.get(k) for k in ("seat", "account", "place", "withdrawn")}
            for s in kept.get("seats", [])
        ]
        expected = [
            {k: s[k] for k in ("seat", "account", "place", "withdrawn")} for s in made["seats"]
        ]
        if kept.get("players") != made["players"] or same != expected:
            found.append(f"{where}: seats {same} recorded, {expected} by the rules (R7.3)")
            continue
        for s, t in zip(kept["seats"], made["seats"], strict=True):
            if not (close(s.get("mu"), t["mu"]) and close(s.get("sigma"), t["sigma"])):
                found.append(
                    f"{where}, seat index {t['seat']} ({t['account']}): recorded "
                    f"μ {s.get('mu')}, σ {s.get('sigma')}; recomputed μ {t['mu']!r}, "
                    f"σ {t['sigma']!r}"
                )
    if len(games) != len(ledger.games):
        found.append(f"{len(games)} rated games recorded, {len(ledger.games)} by the log")
    for what, kept_all, made_all in (
        ("account", recorded.get("accounts", {}), ledger.accounts()),
        ("seat", recorded.get("seats", {}), ledger.seats()),
    ):
        for member in sorted(set(kept_all) | set(made_all)):
            held, due = kept_all.get(member), made_all.get(member)
            if held is None or due is None:
                found.append(
                    f"{what} {member}: "
                    + ("not recomputed from the log" if due is None else "missing from the record")
                )
            elif held.get("games") != due["games"] or not (
                close(held.get("mu"), due["mu"]) and close(held.get("sigma"), due["sigma"])
            ):
                found.append(
                    f"{what} {member}: recorded μ {held.get('mu')}, σ {held.get('sigma')} "
                    f"after {held.get('games')} games; recomputed μ {due['mu']!r}, "
                    f"σ {due['sigma']!r} after {due['games']}"
                )
    history = recorded.get("history")
    if history is not None:
        made_history = ledger.history()
        for account in sorted(set(history) | set(made_history)):
            kept_points, made_points = history.get(account, []), made_history.get(account, [])
            plain = [(p.get("game"), p.get("place")) for p in kept_points]
            if plain != [(p["game"], p["place"]) for p in made_points] or not all(
                close(k.get("mu"), m["mu"]) and close(k.get("sigma"), m["sigma"])
                for k, m in zip(kept_points, made_points, strict=True)
            ):
                found.append(f"account {account}: its history differs from the games'")
    return found

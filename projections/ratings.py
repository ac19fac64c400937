"""The ratings view: every account's rating and every seat's, fed from
GameEnded in log order (domain/ratings.py: the model and what is rated).

A seat belongs to an account as in the accounts view (projections/accounts.py's
``hold`` and ``account_of``: its token hash is the account's holder hash,
or a token the account adopted before the seat was taken). Keys:

- ``account:<id>``: the account's name and kind (every account);
- ``rating:<id>``: its μ, σ, rated games and the position of its last one
  (an account with a rated game);
- ``board``: sorted set, member the account id, score its μ − 3σ in
  millionths (the order of the leaderboard by rating);
- ``history:<id>``: list, one point per rated game (domain.ratings.history_point:
  the game, seat, place, μ and σ after it);
- ``games``: list, every rated game with its seats' accounts, places and
  ratings after it (domain.ratings.RatedGame.to_doc): what ``opus verify
  --ratings`` recomputes, and what the export carries;
- ``seats``: each seat pseudo-player ("k/s") with μ, σ, games;
- ``meta``: the library, its version, the model and the parameters the
  ratings were computed with (domain.ratings.record);
- ``holder:<holder key>``: the account of a token hash (hashed, as in the
  accounts view);
- ``game:<id>``: a game on its way, from the first seat an account takes to
  its end (domain.ratings.Sitting: the accounts by seat, then the table's
  recipes and Sequence stages R7.3 ranks by); dropped at the start when
  fewer than two seats are accounts', and at the end.

No token hash is kept (only ``holder_key``'s hash of it), and nothing hidden:
recipe ids on tables and Sequence stages are open (R1.3).

With several shards, games are rated in the order of their GameEnded across
shards (``domain.sharding.order_key``: timestamp, shard, notification), not
as they arrive: ``games@order`` keeps, beside each rated game, its key and
its members' ratings before it, and ``rated@last`` the last key. A game
that sorts before games rated already is put in its place and those after
it are rated again, from their members' ratings before the first of them
(out-of-order arrivals come from a shard that lagged: few, and recent;
those of one batch are put in their places together, one rating again).
So the view is the same whichever shard a runner or a rebuild read first.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from eventsourcing.application import Application
from eventsourcing.utils import get_topic

from domain.accounts.events import AccountOpened, Renamed, TokensAdopted
from domain.disclosure import ORGANISER, disclose
from domain.events import (
    GameEnded,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    RecipeAssembled,
    RecipePlaced,
    SeatWithdrawn,
    SpellCast,
    StageStolen,
    StageTaken,
)
from domain.ratings import (
    PARAMETERS,
    Ledger,
    Parameters,
    RatedGame,
    Rating,
    Sitting,
    history_point,
    is_seat,
    ordinal,
    prior,
    rate_game,
    record,
    seat_effects,
    shown,
)
from domain.seat_holdings import Holding
from domain.sharding import HOME_SHARD, order_key, position_of, shard_position
from projections.accounts import account_of, hold
from projections.base import DecodedEvent, EventDecoder, Fields, ViewProjection, on, read_rows
from projections.merge import HOLDING
from projections.order import Key, key_of
from projections.ports import ViewStore
from projections.view import APPLICATION_NAME, Transaction

MICRO = 1_000_000  # the board's scores: μ − 3σ in millionths
# several shards: each rated game's key and its members' ratings before it; the last key
ORDER = "games@order"
LAST = "rated@last"


def board_score(mu: float, sigma: float) -> int:
    return round(ordinal(mu, sigma) * MICRO)


class RatingsView(ViewProjection):
    name = "ratings"
    params: Parameters = PARAMETERS

    # ---- who holds what -------------------------------------------------------

    @on(AccountOpened)
    def _opened(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        hold(tx, key, [p["holder_hash"]], key_of(self.view, p, position))
        tx.put(f"account:{key}", {"name": p["name"], "kind": p["kind"]})

    @on(TokensAdopted)
    def _adopted(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        hold(tx, key, list(p["token_hashes"]), key_of(self.view, p, position))

    @on(Renamed)
    def _renamed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(f"account:{key}", {})["name"] = p["name"]

    # ---- a game on its way ----------------------------------------------------------

    @staticmethod
    def _sitting(tx: Transaction, key: str) -> Sitting | None:
        stored = tx.peek(key)
        if stored is None or type(stored) is Sitting:
            return stored
        return Sitting.from_json(stored)

    @staticmethod
    def _keep(tx: Transaction, key: str, sitting: Sitting) -> None:
        """Written when this batch commits (as it stands then)."""
        if sitting.batch != tx.serial or tx.peek(key) is not sitting:
            tx.put(key, sitting)
            sitting.batch = tx.serial

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        token_hash = disclose(kind, p, ORGANISER, ended=False)["token_hash"]
        account = account_of(tx, token_hash, key_of(self.view, p, position))
        key = f"game:{game}"
        sitting = self._sitting(tx, key)
        if sitting is None:
            if account is None:
                return  # no account so far: nothing to keep
            sitting = Sitting()
        sitting.joined(p["player"], account)
        self._keep(tx, key, sitting)

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        key = f"game:{game}"
        sitting = self._sitting(tx, key)
        if sitting is not None:
            sitting.left(p["player"])
            self._keep(tx, key, sitting)

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        key = f"game:{game}"
        sitting = self._sitting(tx, key)
        if sitting is None:
            return
        if sitting.started(p):
            self._keep(tx, key, sitting)
        else:
            tx.delete(key)  # fewer than two accounts: never rated

    @on(StageStolen, StageTaken, RecipeAssembled, RecipePlaced, SpellCast, SeatWithdrawn)
    def _table(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        key = f"game:{game}"
        sitting = self._sitting(tx, key)
        if sitting is not None and sitting.table is not None:
            sitting.evolve(kind, p)
            self._keep(tx, key, sitting)

    # ---- the rating -------------------------------------------------------------------

    def _model(self, tx: Transaction) -> Parameters:
        """The parameters this view's ratings were begun with (its ``meta``),
        else the code's (``params``): a view goes on with the model it began
        with, so that every game in it is rated alike; a new model comes with
        a rebuild (README, Ratings: upgrading)."""
        meta = tx.peek("meta")
        return self.params if meta is None else Parameters.from_doc(meta["parameters"])

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        key = f"game:{game}"
        sitting = self._sitting(tx, key)
        if sitting is None:
            return
        tx.delete(key)
        rated = sitting.rated(game, position, p["scores"])
        if rated is None:
            return
        at = key_of(self.view, p, position)
        if at is not None:
            last: Key | None = tx.peek(LAST)
            if last is not None and at < last:
                self._late.append((at, rated))  # rated again with the batch's others
                return
            tx.put(LAST, at)
        seats: dict[str, dict[str, Any]] = tx.doc("seats", {})
        kept: dict[str, dict[str, Any]] = {}
        current: dict[str, Rating] = {}
        for member in rated.members():
            found = seats.get(member) if is_seat(member) else tx.peek(f"rating:{member}")
            if found is not None:
                kept[member] = found
                current[member] = (found["mu"], found["sigma"])
        params = self._model(tx)
        after = rate_game(params, current, rated)
        for member, (mu, sigma) in after.items():
            games = kept[member]["games"] + 1 if member in kept else 1
            if is_seat(member):
                seats[member] = {"mu": mu, "sigma": sigma, "games": games}
                continue
            tx.put(
                f"rating:{member}", {"mu": mu, "sigma": sigma, "games": games, "position": position}
            )
            tx.zremove("board", member)
            tx.incr("board", member, board_score(mu, sigma))
        doc = rated.to_doc(after)
        tx.append("games", doc)
        for seat in doc["seats"]:
            tx.append(f"history:{seat['account']}", history_point(doc, seat))
        tx.put("meta", record(params))
        if at is not None:
            before = {m: list(current[m]) if m in current else None for m in rated.members()}
            tx.append(ORDER, [*at, before])

    def process_events(
        self,
        records: Sequence[DecodedEvent],
        positions: Sequence[int],
        shown: Sequence[int] | None = None,
    ) -> None:
        """The batch's events; then, with several shards, its games that sort
        before games rated already, put in their places together."""
        self._late: list[tuple[Key, RatedGame]] = []
        super().process_events(records, positions, shown)
        if self._late:
            late, self._late = self._late, []
            tx = self.view.batch_tx
            assert tx is not None  # process_events runs in a batch
            self._rate_again(tx, late)

    def _rate_again(self, tx: Transaction, late: list[tuple[Key, RatedGame]]) -> None:
        """Several shards: the ``late`` games sort before games rated already.
        Put them in their places and rate them and every game after the first
        of them again, from their members' ratings before that; rewrite what
        changed."""
        order = tx.items(ORDER)
        docs = tx.items("games")
        keys = [entry[:3] for entry in order]
        start = min(bisect.bisect_right(keys, at) for at, _ in late)
        later = [(order[i], RatedGame.from_doc(docs[i])) for i in range(start, len(order))]
        seats: dict[str, dict[str, Any]] = tx.doc("seats", {})
        # each member's rating and games before ``start``: before the first
        # later game it sat at, else as it stands now (none after ``start``)
        members = {m for _, game in later for m in game.members()}
        members |= {m for _, game in late for m in game.members()}
        current: dict[str, Rating] = {}
        played: dict[str, int] = {}
        for member in members:
            now = seats.get(member) if is_seat(member) else tx.peek(f"rating:{member}")
            played[member] = 0 if now is None else now["games"]
            played[member] -= sum(member in game.members() for _, game in later)
            first = next((entry[3] for entry, game in later if member in entry[3]), None)
            if first is not None:
                if first[member] is not None:
                    current[member] = (first[member][0], first[member][1])
            elif now is not None:
                current[member] = (now["mu"], now["sigma"])
        replayed = sorted([*late, *((entry[:3], game) for entry, game in later)], key=_first)
        params = self._model(tx)
        history: dict[str, list[dict[str, Any]]] = {}
        for index, (key, game) in enumerate(replayed, start=start):
            before = {m: list(current[m]) if m in current else None for m in game.members()}
            after = rate_game(params, current, game)
            current.update(after)
            for member in after:
                played[member] += 1
            doc = game.to_doc(after)
            self._put(tx, "games", index, len(docs), doc)
            self._put(tx, ORDER, index, len(order), [*key, before])
            for seat in doc["seats"]:
                history.setdefault(seat["account"], []).append(history_point(doc, seat))
            for member, (mu, sigma) in after.items():
                if is_seat(member):
                    seats[member] = {"mu": mu, "sigma": sigma, "games": played[member]}
                    continue
                rating = {"mu": mu, "sigma": sigma, "games": played[member]}
                tx.put(f"rating:{member}", {**rating, "position": game.position})
                tx.zremove("board", member)
                tx.incr("board", member, board_score(mu, sigma))
        for account, points in history.items():
            key = f"history:{account}"
            stored = len(tx.items(key))
            new = sum(any(s.account == account for s in game.seats) for _, game in late)
            first_index = stored - (len(points) - new)
            for offset, point in enumerate(points):
                self._put(tx, key, first_index + offset, stored, point)
        tx.put("meta", record(params))

    @staticmethod
    def _put(tx: Transaction, key: str, index: int, length: int, value: Any) -> None:
        """Item ``index`` of a list ``length`` long becomes ``value`` (one past
        its end: appended)."""
        if index < length:
            tx.replace(key, index, value)
        else:
            tx.append(key, value)


def _first(item: tuple[Key, Any]) -> Key:
    """An item's order key (the first of the pair): sorting by it alone."""
    return item[0]


# ---- reading it ------------------------------------------------------------------------------


def _doc(store: ViewStore, ns: str, key: str) -> Any:
    text = store.get(ns, key)
    return None if text is None else json.loads(text)


def _params(meta: dict[str, Any] | None) -> Parameters:
    return PARAMETERS if meta is None else Parameters.from_doc(meta["parameters"])


def board(store: ViewStore, ns: str, limit: int | None = None) -> dict[str, Any]:
    """The accounts by rating (μ − 3σ, then id), the first ``limit``; the
    seats' effects; what they were computed with."""
    scores = store.scores(ns, "board")
    order = sorted(scores.items(), key=lambda m: (-m[1], m[0]))
    players = []
    for rank, (account, _) in enumerate(order[:limit], start=1):
        rating = _doc(store, ns, f"rating:{account}") or {}
        face = _doc(store, ns, f"account:{account}") or {}
        mu, sigma = rating.get("mu", PARAMETERS.mu), rating.get("sigma", PARAMETERS.sigma)
        players.append(
            {
                "rank": rank,
                "account": account,
                "name": face.get("name", ""),
                "kind": face.get("kind", "person"),
                "rating": shown(mu, sigma),
                "mu": mu,
                "sigma": sigma,
                "games": rating.get("games", 0),
            }
        )
    meta = _doc(store, ns, "meta")
    seats = _doc(store, ns, "seats") or {}
    return {
        "model": meta or record(),
        "rated": len(order),
        "players": players,
        "seats": seat_effects(_params(meta), seats),
    }


def account_rating(store: ViewStore, ns: str, account_id: str) -> dict[str, Any] | None:
    """One account's rating, rank and history (oldest first); an account with
    no rated game at the prior, unranked; None for no account."""
    face = _doc(store, ns, f"account:{account_id}")
    if face is None:
        return None
    meta = _doc(store, ns, "meta")
    rating = _doc(store, ns, f"rating:{account_id}")
    scores = store.scores(ns, "board")
    mu, sigma = (rating["mu"], rating["sigma"]) if rating else prior(_params(meta), account_id)
    mine = scores.get(account_id)
    history = [json.loads(text) for text in store.items(ns, f"history:{account_id}")]
    for point in history:
        point["rating"] = shown(point["mu"], point["sigma"])
    return {
        "account": account_id,
        "name": face.get("name", ""),
        "kind": face.get("kind", "person"),
        "rating": shown(mu, sigma),
        "mu": mu,
        "sigma": sigma,
        "games": rating["games"] if rating else 0,
        "rank": None if mine is None else 1 + sum(s > mine for s in scores.values()),
        "rated": len(scores),
        "model": meta or record(),
        "history": history,
    }


def ratings_record(
    store: ViewStore,
    ns: str,
    *,
    history: bool = False,
    upstreams: Sequence[str] = (APPLICATION_NAME,),
) -> dict[str, Any]:
    """The ratings as recorded, whole: the view's position, what they were
    computed with, every rated game, every account's and seat's rating (and
    with ``history``, every account's points): what ``opus verify
    --ratings`` checks, and the export's ratings line. With shards
    (``upstreams``: the name each shard's log is tracked under, by shard),
    ``positions`` too: the view's position in each shard, as a client sees
    it (``position_of``; None where it has taken nothing in), ``position``
    the largest."""
    meta = _doc(store, ns, "meta") or record()
    accounts = {}
    for account in sorted(store.scores(ns, "board")):
        rating = _doc(store, ns, f"rating:{account}")
        if rating is not None:
            accounts[account] = {k: rating[k] for k in ("mu", "sigma", "games")}
    reached = [store.position(ns, upstream) for upstream in upstreams]
    shards = len(upstreams)
    positions = [
        None if local is None else position_of(k, local, shards) for k, local in enumerate(reached)
    ]
    taken = [p for p in positions if p is not None]
    found: dict[str, Any] = {
        "position": reached[0] if shards == 1 else max(taken, default=None),
        **({"positions": positions} if shards > 1 else {}),
        **meta,
        "games": [json.loads(text) for text in store.items(ns, "games")],
        "accounts": accounts,
        "seats": _doc(store, ns, "seats") or {},
    }
    if history:
        found["history"] = {
            account: [json.loads(text) for text in store.items(ns, f"history:{account}")]
            for account in accounts
        }
    return found


# ---- the log, folded --------------------------------------------------------------------------

LOG_EVENTS = (
    AccountOpened,
    TokensAdopted,
    PlayerJoined,
    PlayerLeft,
    GameStarted,
    StageStolen,
    StageTaken,
    RecipeAssembled,
    RecipePlaced,
    SpellCast,
    SeatWithdrawn,
    GameEnded,
)
SEATED = tuple(cls for cls in LOG_EVENTS if cls not in HOLDING)  # a game's, on its shard
PAGE = 2000
# a game's event: its position (as a client sees it), timestamp, type name, game, fields
GameEvent = tuple[int, str, str, str, Mapping[str, Any]]


def ledger_from_log(
    app: Application[Any] | Sequence[Application[Any]],
    stop: int | Sequence[int] | None = None,
    params: Parameters = PARAMETERS,
) -> Ledger:
    """Every rating recomputed from the log up to ``stop`` (its head when
    None) in one pass (domain.ratings.Ledger): only the event types the
    ratings read, the private accounts' holdings among them. With shards
    (``app`` a list of each shard's application, shard 0 first; ``stop``
    then each shard's own notification, or None for every head): every
    shard's log, the games rated in the order the ratings view rates them
    (``_across_shards``)."""
    apps = list(app) if isinstance(app, Sequence) else [app]
    stops = [stop] * len(apps) if stop is None or isinstance(stop, int) else list(stop)
    if len(stops) != len(apps):
        raise ValueError(
            f"{len(stops)} position(s) for {len(apps)} shard(s): name a position of each"
        )
    if len(apps) > 1:
        return _across_shards(apps, stops, params)
    ledger = Ledger(params)
    for position, kind, key, fields in _log(apps[0], stops[0], LOG_EVENTS):
        ledger.feed(kind, key, fields, position)
    return ledger


def _log(
    app: Application[Any], stop: int | None, events: Sequence[type[Any]]
) -> Iterator[tuple[int, str, str, Fields]]:
    """One log's events of these types up to ``stop`` (its head when None),
    in its order: (notification, type name, aggregate key, fields)."""
    decoder = EventDecoder(app.mapper)
    topics = [get_topic(cls) for cls in events]
    end = (app.recorder.max_notification_id() or 0) if stop is None else stop
    position = 0
    while position < end:
        rows, text_ids = read_rows(app, position, PAGE, end, topics)
        if not rows:
            break
        records, error = decoder.decode(rows, text_ids=text_ids)
        if error is not None:
            raise error
        for row, (_, kind, key, fields) in zip(rows, records, strict=True):
            yield row[0], kind, key, fields
        position = rows[-1][0]


def _across_shards(
    apps: Sequence[Application[Any]], stops: Sequence[int | None], params: Parameters
) -> Ledger:
    """The ratings of several shards' logs, as the view has them: a seat is
    the account's that took its token last at or before the seat in the
    order across shards (``domain.sharding.order_key``; the accounts' events
    are the home shard's), the games rated by ``rate_across_shards``."""
    shards = len(apps)
    holder = holder_of(_holdings(apps[HOME_SHARD], stops[HOME_SHARD], shards), shards)
    logs = [_games(app, shard, shards, stops[shard]) for shard, app in enumerate(apps)]
    return rate_across_shards(logs, shards, Ledger(params), holder)


def _holdings(app: Application[Any], stop: int | None, shards: int) -> Iterator[Holding]:
    """The home shard's AccountOpened and TokensAdopted up to ``stop`` (its
    own notification), as holdings (domain/seat_holdings.py), in log order."""
    for local, kind, key, fields in _log(app, stop, HOLDING):
        hashes = [fields["holder_hash"]] if kind == "AccountOpened" else fields["token_hashes"]
        position = position_of(HOME_SHARD, local, shards)
        yield Holding(key, position, fields["timestamp"], tuple(hashes))


def holder_of(holdings: Iterable[Holding], shards: int) -> Callable[[str, Key], str | None]:
    """Whose a token hash is at a place in the order across shards: the
    account whose holding of it is the last at or before that place."""
    held: dict[str, list[tuple[Key, str]]] = {}  # token hash -> (from, account), in order
    for holding in holdings:
        at = list(order_key(holding.timestamp, holding.position, shards))
        for token_hash in holding.token_hashes:
            bisect.insort(held.setdefault(token_hash, []), (at, holding.account), key=_first)

    def holder(token_hash: str, at: Key) -> str | None:
        found = held.get(token_hash, [])
        index = bisect.bisect_right(found, at, key=_first)
        return found[index - 1][1] if index else None

    return holder


def holdings_of(
    app: Application[Any] | Sequence[Application[Any]], recorded: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The holdings an export's ratings line carries (domain/seat_holdings.py):
    every AccountOpened and TokensAdopted up to the ratings' position (with
    shards, the view's on the home shard) that made a token hash an
    account's which took a seat at a game the ratings rate, reduced to
    those token hashes, in log order."""
    apps = list(app) if isinstance(app, Sequence) else [app]
    shards = len(apps)
    if shards == 1:
        stops: list[int | None] = [recorded.get("position")]
    else:
        stops = [None if p is None else shard_position(p, shards)[1] for p in recorded["positions"]]
    rated = {game["game"] for game in recorded.get("games", [])}
    if not rated:
        return []
    seated: set[str] = set()
    for shard, one in enumerate(apps):
        if stops[shard] is None:
            continue
        for _, _, key, fields in _log(one, stops[shard], (PlayerJoined,)):
            if key in rated and fields.get("token_hash"):
                seated.add(fields["token_hash"])
    home = stops[HOME_SHARD]
    if home is None:
        return []
    found = []
    for holding in _holdings(apps[HOME_SHARD], home, shards):
        kept = tuple(h for h in holding.token_hashes if h in seated)
        if kept:
            found.append(Holding(holding.account, holding.position, holding.timestamp, kept))
    return [holding.to_doc() for holding in found]


def _games(app: Application[Any], shard: int, shards: int, stop: int | None) -> Iterator[GameEvent]:
    """Shard ``shard``'s game events the ratings read, in its log's order."""
    for local, kind, key, fields in _log(app, stop, SEATED):
        yield position_of(shard, local, shards), fields["timestamp"], kind, key, fields


def rate_across_shards(
    logs: Iterable[Iterable[GameEvent]],
    shards: int,
    ledger: Ledger,
    holder: Callable[[str, Key], str | None],
) -> Ledger:
    """Each shard's game events (``logs``, by shard, each in its log's
    order) folded into ``ledger`` as the ratings view folds them: each
    game's sitting in its shard's order, a seat the account's ``holder``
    says held its token at the seat's place in the order across shards
    (``holder_of``), and the games rated in the order of their GameEnded
    across shards (``order_key``)."""
    ended: list[tuple[Key, RatedGame]] = []
    for log in logs:
        seating = Ledger(ledger.params)  # games on their way, not rated here
        for position, timestamp, kind, key, fields in log:
            at = list(order_key(timestamp, position, shards))
            if kind == "GameEnded":
                ending = seating.sittings.pop(key, None)
                rated = None if ending is None else ending.rated(key, position, fields["scores"])
                if rated is not None:
                    ended.append((at, rated))
                continue
            if kind == "PlayerJoined":  # whose the seat is, then
                token_hash = fields.get("token_hash") or ""
                account = holder(token_hash, at)
                seating.holders = {} if account is None else {token_hash: account}
            seating.feed(kind, key, fields, position)
    for _, game in sorted(ended, key=_first):
        ledger.apply(game)
    return ledger


def _first_of(item: tuple[Key, str]) -> Key:
    return item[0]

"""What readers ask of the projections: the read side's whole interface.

Every query reads the projection's active generation, or the one named
(``generation="asof1234"`` for a view as of a position). ``after=<position>``
makes a query wait, at most ``timeout`` seconds, until the projection has
reached that position: a client that just made a move reads its own write.
A query never reads an event: ``head()`` asks the log only for its last
position (an ``after`` past it can never be reached).

A sharded event store (``shards``): each view tracks a position per shard's
log (domain.sharding.upstream_name), and a position a client sees names a
shard and its notification (domain.sharding.position_of): ``after=`` waits
for that shard's position only, and ``heads()`` and ``lags()`` are each
shard's. With one shard (the default) positions are the log's own, as ever.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any
from uuid import UUID

from domain.sharding import position_of, shard_position, upstream_names
from projections.accounts import AccountsView, look_key
from projections.clocks import DUE, ClocksView
from projections.hands import Hands
from projections.leaderboard import Leaderboard
from projections.lobby import Lobby
from projections.move_log import MoveLog, with_text
from projections.ports import ViewStore, namespace
from projections.ratings import RatingsView, account_rating, board, ratings_record
from projections.scoreboard import Scoreboard
from projections.seats import Seats
from projections.table import TableView
from projections.tournaments import TournamentView
from projections.view import APPLICATION_NAME

WAIT_TIMEOUT = 5.0


class Queries:
    """Read-only queries over a view store."""

    def __init__(
        self,
        store: ViewStore,
        application_name: str = APPLICATION_NAME,
        *,
        head: Callable[[], int] | None = None,
        shards: int = 1,
        heads: Callable[[], Sequence[int]] | None = None,
        head_of: Callable[[int], int] | None = None,
    ) -> None:
        """``head``: the log's last position (one shard); ``heads``: each
        shard's last notification, by shard (several); ``head_of``: one
        shard's, asked of that shard alone (else read from ``heads``), so
        that a read about one shard does not wait on, or fail with, another."""
        if shards < 1:
            raise ValueError(f"{shards} shards: there must be one or more")
        self.store = store
        self.shards = shards
        self.application_name = application_name
        # the name each shard's position is tracked under, by shard
        self.upstreams = upstream_names(shards, application_name)
        if heads is None and head is not None:
            heads = partial(_one, head)
        self._heads = heads
        self._head_of = head_of

    def heads(self) -> list[int]:
        """Each shard's last notification (0 when empty), by shard."""
        if self._heads is None:
            raise RuntimeError("these queries were opened without the event log's head")
        found = list(self._heads())
        if len(found) != self.shards:
            raise RuntimeError(f"{len(found)} heads for {self.shards} shard(s)")
        return found

    def head_of(self, shard: int) -> int:
        """Shard ``shard``'s last notification (0 when empty)."""
        if self._head_of is not None:
            return self._head_of(shard)
        return self.heads()[shard]

    def head(self) -> int:
        """The log's last position: no view can ever show a later one. With
        shards, the largest position a client sees of a shard's last
        notification (``capped`` tells whether a position is written)."""
        return max(position_of(k, head, self.shards) for k, head in enumerate(self.heads()))

    def capped(self, position: int) -> int:
        """``position``, or its shard's last written position when it lies
        past it (one shard: the log's head): the most a view can reach of
        what it asks (the web pages wait for no more). Less than
        ``position`` exactly when it is not written in its shard's log."""
        shard, local = shard_position(position, self.shards)
        return position_of(shard, min(local, self.head_of(shard)), self.shards)

    def lags(
        self,
        projection: str,
        heads: Sequence[int] | Mapping[int, int] | None = None,
        *,
        generation: str | None = None,
    ) -> dict[int, int]:
        """How far ``projection`` is behind each shard's log (``heads``: each
        shard's head, or some shards' by shard; the logs' now when None), by
        shard: notifications not yet taken in."""
        heads = self.heads() if heads is None else heads
        by_shard = heads if isinstance(heads, Mapping) else dict(enumerate(heads))
        lags = {}
        for shard, head in sorted(by_shard.items()):
            reached = self.position(projection, shard=shard, generation=generation) or 0
            lags[shard] = max(0, head - reached)
        return lags

    def _ns(self, projection: str, generation: str | None) -> str:
        return namespace(projection, generation or self.store.active_generation(projection))

    def _ready(
        self, projection: str, after: int | None, timeout: float, generation: str | None
    ) -> str:
        ns = self._ns(projection, generation)
        if after is not None:
            self.wait_for(projection, after, timeout, generation=generation)
        return ns

    # ---- positions -------------------------------------------------------------

    def heartbeats(self) -> dict[str, float]:
        """Each projection's runner's last heartbeat (seconds since the
        epoch; projections/runner.py writes it while following)."""
        return self.store.beats()

    def position(
        self, projection: str, *, shard: int = 0, generation: str | None = None
    ) -> int | None:
        """The last position ``projection`` has taken in (None: nothing yet);
        with shards, the last notification of shard ``shard``'s log."""
        return self.store.position(self._ns(projection, generation), self.upstreams[shard])

    def reflected(
        self, projection: str, shard: int | None = None, *, generation: str | None = None
    ) -> dict[str, Any]:
        """What an answer read from ``projection`` says it reflects, to pass
        back as ``after=``. One shard: ``position``, the view's. Several:
        an answer about one aggregate, on ``shard``, has the view's position
        in that shard (``position_of``) as ``position``; an answer spanning
        the shards (``shard`` None) has ``position`` None and ``positions``,
        the view's position in each shard (None where it has taken nothing
        in). Read before the data, which then reflects at least that."""
        if self.shards == 1:
            return {"position": self.position(projection, generation=generation)}
        if shard is not None:
            local = self.position(projection, shard=shard, generation=generation)
            return {"position": None if local is None else position_of(shard, local, self.shards)}
        reached = [
            self.position(projection, shard=k, generation=generation) for k in range(self.shards)
        ]
        return {
            "position": None,
            "positions": [
                None if local is None else position_of(k, local, self.shards)
                for k, local in enumerate(reached)
            ],
        }

    def wait_for(
        self,
        projection: str | Sequence[str],
        position: int,
        timeout: float = WAIT_TIMEOUT,
        *,
        generation: str | None = None,
    ) -> None:
        """Block until ``projection`` (or each of several) has reached
        ``position``, or raise TimeoutError after ``timeout`` seconds. With
        shards, ``position`` names a shard and its notification: that
        shard's position is waited for, the others' are not looked at."""
        names = [projection] if isinstance(projection, str) else list(projection)
        shard, local = shard_position(position, self.shards)
        deadline = time.monotonic() + timeout
        pause = 0.002
        while names:
            reached = self.position(names[0], shard=shard, generation=generation)
            if reached is not None and reached >= local:
                names.pop(0)
                continue
            if time.monotonic() >= deadline:
                wanted = str(position)
                if self.shards > 1:
                    wanted = f"{position} (shard {shard}'s notification {local})"
                raise TimeoutError(
                    f"{names[0]} is at position {reached}"
                    + (f" of shard {shard}" if self.shards > 1 else "")
                    + f", not yet {wanted} (waited {timeout} s)"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    # ---- views ---------------------------------------------------------------------

    def table_view(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """The public table of a game (see projections/table.py); None if unknown."""
        ns = self._ready(TableView.name, after, timeout, generation)
        return self._doc(ns, str(game_id))

    def cabinet(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, list[int]]:
        """Every cabinet stack of a running or ended game, whole (bottom
        first): the public view shows only the tops; empty before the start."""
        ns = self._ready(TableView.name, after, timeout, generation)
        text = self.store.get(ns, f"{game_id}:cabinet")
        return {} if text is None else {k: list(v) for k, v in json.loads(text).items()}

    def seats(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, int] | None:
        """Token hash -> seat, for the seats of a game; None if unknown."""
        ns = self._ready(Seats.name, after, timeout, generation)
        text = self.store.get(ns, str(game_id))
        return None if text is None else dict(json.loads(text)["seats"])

    def seat_of(
        self,
        game_id: UUID | str,
        token_hash: str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> int | None:
        """The seat a token holds in a game, by the token's hash, as the
        ``seats`` view has it: the read side's one lookup of it (the API's
        ``/hand``, the web pages). None when the token holds no seat there,
        or the view holds no such game (``seats`` tells which)."""
        seats = self.seats(game_id, after=after, timeout=timeout, generation=generation)
        return None if seats is None else seats.get(token_hash)

    def hand(
        self,
        game_id: UUID | str,
        seat: int,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> list[int] | None:
        """One seat's private hand, in order; None if that seat has no cards dealt."""
        ns = self._ready(Hands.name, after, timeout, generation)
        text = self.store.get(ns, f"{game_id}:{seat}")
        return None if text is None else list(json.loads(text))

    def scoreboard(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """Each player's total and the awards behind it; None if unknown."""
        ns = self._ready(Scoreboard.name, after, timeout, generation)
        names = [json.loads(n) for n in self.store.items(ns, f"{game_id}:players")]
        if not names:
            return None
        totals = self.store.scores(ns, f"{game_id}:totals")
        awards = [json.loads(a) for a in self.store.items(ns, f"{game_id}:awards")]
        return {
            "game": str(game_id),
            "players": [
                {
                    "seat": seat,
                    "name": name,
                    "points": totals.get(str(seat), 0),
                    "awards": [a for a in awards if a["seat"] == seat],
                }
                for seat, name in enumerate(names)
            ],
        }

    def move_log(
        self,
        game_id: UUID | str,
        *,
        since: int = 0,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> list[dict[str, Any]]:
        """The public log of a game, from version ``since`` + 1 on; hidden
        cards and the secret are redacted until the game has ended. Each
        entry's line of text is rendered here (projections/move_log.py)."""
        ns = self._ready(MoveLog.name, after, timeout, generation)
        game = str(game_id)
        items, names = self.store.items_and_doc(ns, game, since, f"{game}:names")
        return with_text([json.loads(e) for e in items], json.loads(names) if names else [])

    def leaderboard(
        self,
        limit: int | None = None,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> list[dict[str, Any]]:
        """Players by wins, then points, then fewer games, then player id."""
        ns = self._ready(Leaderboard.name, after, timeout, generation)
        games = self.store.scores(ns, "games")
        wins = self.store.scores(ns, "wins")
        points = self.store.scores(ns, "points")
        rows: list[dict[str, Any]] = [
            {
                "player_id": player,
                "games": n,
                "wins": wins.get(player, 0),
                "points": points.get(player, 0),
            }
            for player, n in games.items()
        ]
        rows.sort(key=lambda r: (-r["wins"], -r["points"], r["games"], r["player_id"]))
        for row in rows[:limit]:  # names only for the rows shown
            text = self.store.get(ns, f"name:{row['player_id']}")
            row["name"] = json.loads(text) if text else ""
            # an account's row: its public id (a UUID; a token's is 16 hex digits)
            row["account"] = row["player_id"] if len(row["player_id"]) == 36 else None
        return [{"rank": i + 1, **row} for i, row in enumerate(rows[:limit])]

    def tournament(
        self,
        tournament_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """A tournament: state, players, rounds with their tables and seals,
        corrections (projections/tournaments.py); None if unknown."""
        ns = self._ready(TournamentView.name, after, timeout, generation)
        return self._doc(ns, str(tournament_id))

    def standings(
        self,
        tournament_id: UUID | str,
        round_: int | None = None,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """The standings now, or as round ``round_``'s close sealed them
        (T9.1); None if there are none."""
        ns = self._ready(TournamentView.name, after, timeout, generation)
        key = f"{tournament_id}:standings" + (f":{round_}" if round_ is not None else "")
        return self._doc(ns, key)

    def lobby(
        self,
        limit: int = 50,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """The games open to join and running (the latest ``limit`` of each,
        newest first), the last games to end (latest first) and the
        tournaments (newest first), as projections/lobby.py keeps them."""
        ns = self._ready(Lobby.name, after, timeout, generation)

        def latest(key: str) -> list[dict[str, Any]]:
            ranked = sorted(self.store.scores(ns, key).items(), key=lambda m: -m[1])[:limit]
            return self._docs(ns, [member for member, _ in ranked])

        ended = self.store.get(ns, "ended")
        return {
            "open": latest("open"),
            "running": latest("running"),
            "ended": self._docs(ns, list(reversed(json.loads(ended))) if ended else []),
            "tournaments": latest("tournaments"),
        }

    def lobby_game(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """What the lobby holds of one game (its rule-set variant among it)."""
        ns = self._ready(Lobby.name, after, timeout, generation)
        return self._doc(ns, str(game_id))

    def account(
        self,
        account_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """An account's public face (projections/accounts.py), with its games
        and tournaments, oldest first; None for no account."""
        ns = self._ready(AccountsView.name, after, timeout, generation)
        doc = self._doc(ns, f"account:{account_id}")
        if doc is None:
            return None
        for part in ("games", "tournaments"):
            text = self.store.get(ns, f"{part}:{account_id}")
            doc[part] = json.loads(text) if text else []
        return doc

    def accounts_like(
        self,
        name: str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> list[dict[str, Any]]:
        """The accounts whose names look like ``name`` (domain/confusables.py's
        ``look``: "Аda" with a Cyrillic А and "ADA" look like "Ada")."""
        ns = self._ready(AccountsView.name, after, timeout, generation)
        ids = self._doc_list(ns, look_key(name))
        return self._docs(ns, [f"account:{account_id}" for account_id in ids])

    def members(
        self,
        aggregate_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[int, dict[str, Any]]:
        """The accounts seated at a game (by seat, from 0) or registered in a
        tournament (by registration number, from 1): each one's public id,
        name and kind."""
        ns = self._ready(AccountsView.name, after, timeout, generation)
        members = self._doc(ns, f"members:{aggregate_id}") or {}
        found = {}
        for number, account_id in members.items():
            doc = self._doc(ns, f"account:{account_id}")
            if doc is not None:
                found[int(number)] = doc
        return found

    def ratings(
        self,
        limit: int | None = None,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any]:
        """The accounts by rating (the first ``limit``), the seats' effects,
        and the library, version and parameters they were computed with
        (projections/ratings.py)."""
        ns = self._ready(RatingsView.name, after, timeout, generation)
        return board(self.store, ns, limit)

    def rating(
        self,
        account_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """One account's rating, rank and history, one point per rated game;
        None for no account."""
        ns = self._ready(RatingsView.name, after, timeout, generation)
        return account_rating(self.store, ns, str(account_id))

    def ratings_record(
        self, *, history: bool = False, generation: str | None = None
    ) -> dict[str, Any]:
        """The ratings whole, with the view's position (with shards, each
        shard's too: ``positions``): what ``opus verify --ratings``
        recomputes and the export carries."""
        ns = self._ns(RatingsView.name, generation)
        return ratings_record(self.store, ns, history=history, upstreams=self.upstreams)

    def clocks_due(self, until: int, *, generation: str | None = None) -> list[tuple[str, int]]:
        """The games whose turn's deadline (microseconds since the epoch) is
        at or before ``until``, earliest first, as the clocks view has them
        now (projections/clocks.py): what the scheduler fires."""
        ns = self._ns(ClocksView.name, generation)
        due = [(game, int(score)) for game, score in self.store.scores(ns, DUE).items()]
        return sorted((item for item in due if item[1] <= until), key=lambda item: item[1])

    def clocks(
        self,
        game_id: UUID | str,
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        generation: str | None = None,
    ) -> dict[str, Any] | None:
        """A timed game's clocks (the fold, and the seat whose time expired
        this turn); None for an untimed or unknown game."""
        ns = self._ready(ClocksView.name, after, timeout, generation)
        return self._doc(ns, str(game_id))

    def _doc(self, ns: str, key: str) -> dict[str, Any] | None:
        """A document of a view; None if there is none."""
        text = self.store.get(ns, key)
        return None if text is None else dict(json.loads(text))

    def _doc_list(self, ns: str, key: str) -> list[Any]:
        """A list a view keeps under a key; [] if there is none."""
        text = self.store.get(ns, key)
        return [] if text is None else list(json.loads(text))

    def _docs(self, ns: str, keys: list[str]) -> list[dict[str, Any]]:
        """The documents there are of these keys, in order."""
        docs = (self._doc(ns, key) for key in keys)
        return [doc for doc in docs if doc is not None]


def _one(head: Callable[[], int]) -> list[int]:
    """The heads of a log of one shard."""
    return [head()]

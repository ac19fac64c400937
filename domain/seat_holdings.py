"""Which account holds which seat: the holdings an export's ratings line
carries, so that ``opus verify --ratings --file`` derives every rated
seat's account from the log instead of taking the line's word for it
(README, Ratings; issue 35, item 5).

The rule (README, Account decisions): a seat is an account's when the
token hash it was taken with (PlayerJoined's ``token_hash``, in the log and
its chain) is the account's holder hash (AccountOpened) or a token hash the
account adopted (TokensAdopted), from that event on; a token adopted again
by another account is that one's from then on. The accounts' events are
private (never exported), so the ratings line carries, for every token
hash that took a seat at a rated game, each event that made it an
account's, reduced to what the rule reads::

    {"account": "<account id>", "position": <the event's position>,
     "timestamp": "<its ISO time>", "token_hashes": ["<hex>", ...]}

in log order. This discloses nothing the line did not: each of these
token hashes sits at a rated seat whose account the line names.

What the holdings must be to be read at all (``problems``): each at a
position of the log that is not an exported event's (an account's event
sits at a position no public event takes), not after the ratings' position
(with shards: on the home shard, not after the view's position there),
with well-formed token hashes. A consistent rewrite of the holdings
themselves (a token made another account's at a private position) is not
caught here: the accounts' events are not in the signed log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.sharding import HOME_SHARD, shard_position

TOKEN_HASH = re.compile(r"[0-9a-f]{64}")
SHOWN_PROBLEMS = 5  # problems named; the count says how many there are


@dataclass(frozen=True)
class Holding:
    """One account's event that made token hashes its own, from ``position``."""

    account: str
    position: int
    timestamp: str
    token_hashes: tuple[str, ...]

    def to_doc(self) -> dict[str, Any]:
        return {
            "account": self.account,
            "position": self.position,
            "timestamp": self.timestamp,
            "token_hashes": list(self.token_hashes),
        }

    @classmethod
    def from_doc(cls, doc: Any, number: int) -> Holding:
        """A holding of the line; ``number`` (from 1) names it in the error."""
        if not isinstance(doc, Mapping):
            raise ValueError(f"holding {number} is not an object")
        account, position, timestamp, hashes = (
            doc.get(name) for name in ("account", "position", "timestamp", "token_hashes")
        )
        if not isinstance(account, str) or not account:
            raise ValueError(f"holding {number} names no account")
        if not isinstance(position, int) or isinstance(position, bool) or position < 1:
            raise ValueError(f"holding {number} ({account}) has no position of the log")
        if not isinstance(timestamp, str):
            raise ValueError(f"holding {number} ({account}) has no timestamp")
        if not isinstance(hashes, list) or not hashes:
            raise ValueError(f"holding {number} ({account}) holds no token hash")
        for token_hash in hashes:
            if not isinstance(token_hash, str) or not TOKEN_HASH.fullmatch(token_hash):
                raise ValueError(
                    f"holding {number} ({account}): {token_hash!r} is not a token hash "
                    "(64 lowercase hex digits)"
                )
        return cls(account, position, timestamp, tuple(hashes))


def read_holdings(docs: Any) -> list[Holding]:
    """The line's holdings, each checked for its form (ValueError naming the
    first that is not a holding)."""
    if not isinstance(docs, list):
        raise ValueError("the holdings are not a list")
    return [Holding.from_doc(doc, number) for number, doc in enumerate(docs, start=1)]


def problems(
    holdings: Sequence[Holding],
    public: Iterable[int],
    stop: int | None,
    stops: Sequence[int | None] | None = None,
) -> list[str]:
    """Why these holdings cannot be what the accounts' events were (empty
    when none): a position a public event takes (``public``: the exported
    events' positions), after the ratings' position ``stop``; with shards
    (``stops``: the view's position in each shard, as a client sees it), a
    position not on the home shard or after the view's position there."""
    taken = set(public)
    found: list[str] = []
    for number, holding in enumerate(holdings, start=1):
        where = f"holding {number} ({holding.account}, position {holding.position})"
        if holding.position in taken:
            found.append(f"{where}: an exported event is at that position, not an account's")
        if stops is not None:
            shard, _ = shard_position(holding.position, len(stops))
            home = stops[HOME_SHARD]
            if shard != HOME_SHARD:
                found.append(f"{where}: on shard {shard}, where the accounts are on shard 0")
            elif home is None or holding.position > home:
                found.append(f"{where}: after the ratings' position on shard 0 ({home})")
        elif stop is None or holding.position > stop:
            found.append(f"{where}: after the ratings' position ({stop})")
    return found

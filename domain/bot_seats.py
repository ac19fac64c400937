"""The service's bots at a lobby game's table: seating them, knowing them.

A bot is an account of the service's (``Opus.accounts.bot(kind, number)``:
"Greedy bot", "Greedy bot 2", … of kind ``bot:greedy``, opened on first
use) and plays as any client does: its seat holds its account's holder
hash, and the service acts for it with that hash (infra/bot_driver.py
plays its moves through ``Opus.play``). A seat per account per game, so a
table with three greedy bots seats the kind's accounts 1, 2 and 3.

Which seats of a game are bots, and of which kind, is the store's to say:
a seat whose token hash is a bot account's holder hash. Each process reads
the bot accounts from the store (``Roster``) and keeps them: an account's
holder hash never changes, and a restarted process reads them again. A seat
named as a bot whose hash the roster does not know yet (an account another
process opened since) makes it read the store again, at most once every
``REFRESH_SECONDS``.
"""

from __future__ import annotations

import secrets
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from uuid import UUID

from domain.accounts.aggregate import bot_account_id, reserved_for_bots
from domain.application import Opus
from domain.bots import BOTS
from domain.errors import AccountNotFoundError, NameTakenError, SetupError
from domain.names import look_alike
from domain.pipeline import Caller
from domain.ruleset import MAX_PLAYERS

MAX_OF_A_KIND = MAX_PLAYERS  # a table may seat this many bots of one kind
REFRESH_SECONDS = 5.0  # the store is read again for unknown bots at most this often


def named_as_bot(name: str) -> bool:
    """Whether a seat's name is a bot account's (a person may take such a
    name too: only the seat's token hash says it is a bot)."""
    return reserved_for_bots(name)


@dataclass(frozen=True)
class BotAccount:
    kind: str  # a key of domain.bots.BOTS
    number: int
    id: UUID
    name: str
    holder_hash: str


class Roster:
    """The bot accounts this process has read from the store, by holder hash."""

    def __init__(self, opus: Opus) -> None:
        self._accounts = opus.accounts
        self._lock = threading.Lock()
        self._by_hash: dict[str, BotAccount] = {}
        self._by_number: dict[tuple[str, int], BotAccount] = {}
        self._read_at: float | None = None
        self._refreshing = threading.Lock()  # one reading of the store at a time

    def _keep(self, kind: str, number: int, account_id: UUID) -> BotAccount:
        view = self._accounts.view(account_id)
        bot = BotAccount(
            view.kind.removeprefix("bot:"), number, view.id, view.name, view.holder_hash
        )
        with self._lock:
            self._by_hash[bot.holder_hash] = bot
            self._by_number[(kind, number)] = bot
        return bot

    def refresh(self, *, now: bool = False) -> None:
        """Read the bot accounts not known yet from the store: at most once
        every ``REFRESH_SECONDS``, unless ``now``. A caller that comes while
        another thread reads waits for that reading, and takes it as its own."""
        with self._refreshing:
            with self._lock:
                clock = time.monotonic()
                recent = self._read_at is not None and clock - self._read_at < REFRESH_SECONDS
                if recent and not now:
                    return
                self._read_at = clock
                missing = [
                    (kind, number)
                    for kind in BOTS
                    for number in range(1, MAX_OF_A_KIND + 1)
                    if (kind, number) not in self._by_number
                ]
            for kind, number in missing:
                try:
                    self._keep(kind, number, bot_account_id(f"{kind}:{number}"))
                except AccountNotFoundError:
                    continue

    def account(self, kind: str, number: int) -> BotAccount:
        """A kind's ``number``-th bot account, opened on first use;
        AccountNotFoundError if it cannot be (a person's account holds its name)."""
        with self._lock:
            known = self._by_number.get((kind, number))
        if known is not None:
            return known
        try:
            account_id = self._accounts.bot(kind, number)
        except NameTakenError:  # another process opened it just now, or a person holds the name
            account_id = bot_account_id(f"{kind}:{number}")
        return self._keep(kind, number, account_id)

    def of(self, token_hash: str) -> BotAccount | None:
        """The bot account whose holder hash this is, if this process knows it."""
        with self._lock:
            return self._by_hash.get(token_hash)

    def seated(self, token_hashes: Sequence[str], names: Sequence[str]) -> dict[int, BotAccount]:
        """The bots among a game's seats (its token hashes and names by seat)."""

        def found() -> dict[int, BotAccount]:
            with self._lock:
                return {
                    seat: self._by_hash[held]
                    for seat, held in enumerate(token_hashes)
                    if held in self._by_hash
                }

        bots = found()
        if any(named_as_bot(name) for seat, name in enumerate(names) if seat not in bots):
            self.refresh()
            bots = found()
        return bots

    def kinds_by_seat(self, seats: Mapping[str, int], names: Sequence[str]) -> dict[int, str]:
        """The bots' kinds by seat, from the seats view's token hash -> seat."""
        hashes = [""] * len(names)
        for held, seat in seats.items():
            if 0 <= seat < len(hashes):
                hashes[seat] = held
        return {seat: bot.kind for seat, bot in self.seated(hashes, names).items()}


_rosters: weakref.WeakKeyDictionary[Opus, Roster] = weakref.WeakKeyDictionary()
_rosters_lock = threading.Lock()


def roster(opus: Opus) -> Roster:
    """This process's roster of the bot accounts of ``opus``'s store."""
    with _rosters_lock:
        found = _rosters.get(opus)
        if found is None:
            found = _rosters[opus] = Roster(opus)
    return found


def bots_at(opus: Opus, game_id: UUID) -> dict[int, str]:
    """The bots seated at a game, seat -> kind, as the store has it."""
    with opus.reading(game_id) as (state, _):
        hashes, names = list(state.token_hashes), list(state.names)
    return {seat: bot.kind for seat, bot in roster(opus).seated(hashes, names).items()}


def seat_bots(opus: Opus, game_id: UUID, kinds: Sequence[str]) -> list[int]:
    """Seat a bot of each kind, in order (``Opus.join`` with the bot
    account's holder hash, under its name; with the invitation code when
    the game is by invitation): the seats taken. Each takes its kind's first
    account that is not seated at the game and whose name no seat shares."""
    for kind in kinds:
        if kind not in BOTS:
            raise SetupError(f"no bot of kind {kind!r}: the kinds are {', '.join(BOTS)}")
    bots = roster(opus)
    invitation = opus.invitation_code(game_id)
    seats = []
    for kind in kinds:
        with opus.reading(game_id) as (state, _):
            hashes, names = list(state.token_hashes), list(state.names)
        bot = free_account(bots, kind, hashes, names)
        joined = opus.join(
            game_id,
            bot.name,
            contribution(kind),
            caller=Caller(bot.holder_hash),
            invitation=invitation,
            bot=True,
        )
        assert joined.value is not None
        seats.append(joined.value)
    return seats


def contribution(kind: str) -> str:
    """A bot's seed contribution (R9.1): its own random share, as a person's,
    after ``bot:<kind>:``, which the analytics read a seat's bot from
    (projections/analytics); the game's log names the bot's kind there."""
    return f"bot:{kind}:{secrets.token_hex(16)}"


def free_account(
    bots: Roster, kind: str, token_hashes: Sequence[str], names: Sequence[str]
) -> BotAccount:
    for number in range(1, MAX_OF_A_KIND + 1):
        try:
            bot = bots.account(kind, number)
        except AccountNotFoundError:  # a person's account holds the name
            continue
        if bot.holder_hash not in token_hashes and look_alike(bot.name, names) is None:
            return bot
    raise SetupError(f"no {kind} bot is free to join this game")

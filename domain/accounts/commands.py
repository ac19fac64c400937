"""The account commands (``Opus.accounts``), on the command pipeline.

An account is opened with its name (unique across accounts by T2.1's key:
an ``AccountName`` aggregate per key, saved with the account in one
transaction), an account key (shown once; only its hash is kept) and,
from a browser, its first passkey and session. Everything else is a
``Command`` on the account run by the one ``Runner``.

Secrets in the browser and for API clients:
- the account key ``opus_<account id hex>_<43 base64url characters>``:
  signs in where there is no passkey, and is a bearer token for the API
  and the CLI (the service acts with the account's holder hash);
- a session ``<account id hex>_<43 base64url characters>`` (an HttpOnly
  cookie), open until it expires or is signed out.
The account id in them says where to look; the secret part is compared,
hashed, in constant time.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

from eventsourcing.persistence import IntegrityError

from domain.accounts.aggregate import (
    Account,
    AccountName,
    Admission,
    admission_id,
    bot_account_id,
    bot_name,
    name_id,
    reserved_for_bots,
)
from domain.errors import (
    AccountError,
    AccountNotFoundError,
    AdmissionNotSetError,
    NameTakenError,
    SignInError,
)
from domain.names import MAX_NAME, recorded_name
from domain.pipeline import SERVICE, Caller, Command, CommandOutcome, Runner, Unit, holds, id_for

MAX_ACCOUNT_NAME = MAX_NAME  # as a seat's name: an account plays under it
SESSION_DAYS = 14  # a browser stays signed in this long, unless signed out
MAX_LABEL = 60  # a passkey's or a session's label
KEY = re.compile(r"opus_([0-9a-f]{32})_([A-Za-z0-9_-]{43})")
SESSION = re.compile(r"([0-9a-f]{32})_([A-Za-z0-9_-]{43})")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key(account_id: UUID) -> tuple[str, str]:
    """A new account key and its hash."""
    key = f"opus_{account_id.hex}_{secrets.token_urlsafe(32)}"
    return key, digest(key)


def new_session(account_id: UUID) -> tuple[str, str]:
    """A new session's cookie value and its hash."""
    value = f"{account_id.hex}_{secrets.token_urlsafe(32)}"
    return value, digest(value)


def key_account(key: str) -> UUID | None:
    """The account an account key names (not yet checked), or None if it is no key."""
    found = KEY.fullmatch(key)
    return UUID(found.group(1)) if found else None


def session_account(value: str) -> UUID | None:
    found = SESSION.fullmatch(value)
    return UUID(found.group(1)) if found else None


def account_name(text: str) -> str:
    """The name as recorded; AccountError for one that cannot be."""
    return recorded_name(text, "an account's name", AccountError, MAX_ACCOUNT_NAME)


def label(text: str) -> str:
    """A label as recorded: printable, shortened."""
    kept = "".join(c for c in text if c.isprintable() and unicodedata.category(c)[0] != "C")
    return kept.strip()[:MAX_LABEL]


@dataclass(frozen=True)
class NewPasskey:
    credential_id: str
    public_key: str
    sign_count: int
    label: str


@dataclass(frozen=True)
class AccountView:
    """What a page or the API may know of an account: no secret."""

    id: UUID
    name: str
    kind: str
    holder_hash: str
    passkeys: list[tuple[str, str, str]]  # credential id, label, added
    sessions: list[tuple[str, str, str, str]]  # hash, label, via, opened: the open ones
    adopted: frozenset[str]  # hashes of tokens its browsers held when they signed in

    @classmethod
    def of(cls, account: Account) -> AccountView:
        now = datetime.now(UTC)
        return cls(
            account.id,
            account.name,
            account.kind,
            account.holder_hash,
            [(c, p.label, p.added) for c, p in account.passkeys.items()],
            [
                (h, s.label, s.via, s.opened)
                for h, s in account.sessions.items()
                if account.session(h, now) is not None
            ],
            frozenset(account.adopted),
        )

    @property
    def hashes(self) -> list[str]:
        """The token hashes it acts with: its holder's first, then the adopted."""
        return [self.holder_hash, *sorted(self.adopted)]


@dataclass(frozen=True)
class Opened:
    account: UUID
    key: str  # shown once
    session: str | None  # the browser's session cookie, when it signed up from one


class AccountCommands:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    # ---- opening -------------------------------------------------------------

    def open(
        self,
        name: str,
        *,
        caller: Caller = SERVICE,
        passkey: NewPasskey | None = None,
        session_label: str | None = None,
        kind: str = "person",
        account_id: UUID | None = None,
    ) -> Opened:
        """A new account under ``name``; NameTakenError if another account's
        name shares its key. From a browser, its first passkey and session."""
        recorded = account_name(name)
        if kind == "person" and reserved_for_bots(recorded):
            raise AccountError(f"{recorded!r} is a name of the service's bots")
        account_id = account_id or (
            id_for(caller.command, "account:") if caller.command else uuid4()
        )
        key, key_hash = new_key(account_id) if kind == "person" else ("", "")
        holder_hash = digest(secrets.token_urlsafe(32))
        session, session_hash = new_session(account_id)

        def make() -> Account:
            """The account's first events (made again for a second try: a
            save takes the events it was given, stored or not)."""
            account = Account.open(account_id, recorded, kind, key_hash, holder_hash)
            if passkey is not None:
                account.add_passkey(
                    passkey.credential_id,
                    passkey.public_key,
                    passkey.sign_count,
                    label(passkey.label),
                    caller.command,
                )
            if session_label is not None:
                via = "passkey" if passkey else "key"
                account.open_session(
                    session_hash,
                    expiry(),
                    via,
                    label(session_label),
                    passkey.credential_id if passkey else "",
                    passkey.sign_count if passkey else 0,
                )
            return account

        try:
            self.runner.create(
                make(),
                caller,
                lambda made: made.name == recorded,
                "this Idempotency-Key opened another account",
                also=[AccountName.take(recorded, account_id)],
            )
        except IntegrityError:
            self._claim_name(recorded, make)
        return Opened(account_id, key, session if session_label is not None else None)

    def _claim_name(self, name: str, make: Callable[[], Account]) -> None:
        """The name's key was taken once: claim it if it was released since."""

        def claim(owner: AccountName, unit: Unit, caller: Caller) -> None:
            if owner.account:
                raise NameTakenError(f"the name {name!r} is taken by another account")
            account = make()
            owner.claim(account.id)
            unit.add(account)

        self.runner.run(Command(name_id(name), AccountName, claim, fresh=True), SERVICE)

    def bot(self, kind: str, number: int = 1) -> UUID:
        """The service's bot account of a kind (its ``number``-th, for a
        table with several of that kind), opened on first use."""
        account_id = bot_account_id(f"{kind}:{number}")
        try:
            self.view(account_id)
        except AccountNotFoundError:
            self.open(bot_name(kind, number), kind=f"bot:{kind}", account_id=account_id)
        return account_id

    # ---- commands on an account ------------------------------------------------

    def _run(
        self,
        account_id: UUID,
        act: Callable[[Account, Unit, Caller], None],
        caller: Caller = SERVICE,
    ) -> CommandOutcome:
        return self.runner.run(Command(account_id, Account, act), caller)

    def rename(self, account_id: UUID, name: str, *, caller: Caller = SERVICE) -> CommandOutcome:
        """A new name (its key unique across accounts); the old one is released."""
        recorded = account_name(name)
        if reserved_for_bots(recorded):
            raise AccountError(f"{recorded!r} is a name of the service's bots")
        new_id = name_id(recorded)

        def touches(account: Account) -> Iterable[UUID]:
            return {name_id(account.name), new_id}

        def rename(account: Account, unit: Unit, caller: Caller) -> None:
            old_id = name_id(account.name)
            if new_id != old_id:
                try:
                    owner = unit.get(new_id, AccountName)
                except AccountNotFoundError:
                    unit.add(AccountName.take(recorded, account.id))
                else:
                    if owner.account:
                        raise NameTakenError(f"the name {recorded!r} is taken by another account")
                    owner.claim(account.id, caller.command)
                with contextlib.suppress(AccountNotFoundError):
                    unit.get(old_id, AccountName).release(caller.command)
            account.rename(recorded, caller.command)

        return self.runner.run(Command(account_id, Account, rename, touches=touches), caller)

    def rotate_key(self, account_id: UUID, *, caller: Caller = SERVICE) -> str:
        """A new account key (returned, to be shown once); the old one stops working."""
        key, key_hash = new_key(account_id)

        def rotate(account: Account, unit: Unit, caller: Caller) -> None:
            if account.is_bot:
                raise AccountError("a bot's account has no key")
            account.rotate_key(key_hash, caller.command)

        self._run(account_id, rotate, caller)
        return key

    def add_passkey(self, account_id: UUID, passkey: NewPasskey) -> CommandOutcome:
        def add(account: Account, unit: Unit, caller: Caller) -> None:
            if passkey.credential_id in account.passkeys:
                raise AccountError("this passkey is this account's already")
            account.add_passkey(
                passkey.credential_id, passkey.public_key, passkey.sign_count, label(passkey.label)
            )

        return self._run(account_id, add)

    def remove_passkey(self, account_id: UUID, credential_id: str) -> CommandOutcome:
        def remove(account: Account, unit: Unit, caller: Caller) -> None:
            if credential_id not in account.passkeys:
                raise AccountError("this account has no such passkey")
            account.remove_passkey(credential_id)

        return self._run(account_id, remove)

    def sign_in(
        self,
        account_id: UUID,
        via: str,
        session_label: str,
        *,
        key: str = "",
        credential_id: str = "",
        sign_count: int = 0,
    ) -> str:
        """A new session (its cookie value returned), once the caller has
        proved itself: by the account key (checked here), or by a passkey
        whose assertion the caller verified (its new signature counter)."""
        session, session_hash = new_session(account_id)

        def sign_in(account: Account, unit: Unit, caller: Caller) -> None:
            if via == "key" and not holds(account.key_hash, digest(key)):
                raise SignInError("this account key does not sign in (rotated, or mistyped)")
            if via == "passkey" and credential_id not in account.passkeys:
                raise SignInError("this passkey is not this account's (removed?)")
            account.open_session(
                session_hash,
                expiry(),
                via,
                label(session_label),
                credential_id,
                sign_count,
            )

        try:
            self._run(account_id, sign_in)
        except AccountNotFoundError:
            raise SignInError("no account holds this key or passkey") from None
        return session

    def adopt(self, account_id: UUID, token_hashes: Iterable[str]) -> None:
        """The tokens a browser held when it signed in become the account's
        too (it proved it holds them): its seats, games and registrations
        taken signed out stay its own, signed in."""

        def adopt(account: Account, unit: Unit, caller: Caller) -> None:
            new = sorted(set(token_hashes) - account.adopted - {account.holder_hash})
            if new:
                account.adopt(new)

        if token_hashes:
            self._run(account_id, adopt)

    def sign_out(self, account_id: UUID, session_hash: str) -> CommandOutcome:
        def sign_out(account: Account, unit: Unit, caller: Caller) -> None:
            if session_hash not in account.sessions:
                raise AccountError("no such session of this account")
            account.close_session(session_hash)

        return self._run(account_id, sign_out)

    # ---- lobby games' admission ---------------------------------------------------

    def admission(self, game_id: UUID) -> str:
        """Who may join a lobby game: "open" (no admission recorded) or "invitation"."""
        self.runner.placement(admission_id(game_id), game_id)
        try:
            with self.runner.reading(admission_id(game_id), Admission) as found:
                return found.mode
        except AdmissionNotSetError:
            return "open"

    # ---- queries --------------------------------------------------------------------

    def view(self, account_id: UUID) -> AccountView:
        with self.runner.reading(account_id, Account) as account:
            return AccountView.of(account)

    def passkey(self, account_id: UUID, credential_id: str) -> tuple[str, int] | None:
        """A passkey's public key and signature counter, for an assertion's check."""
        with self.runner.reading(account_id, Account) as account:
            found = account.passkeys.get(credential_id)
            return (found.public_key, found.sign_count) if found else None

    def by_session(self, value: str) -> AccountView | None:
        """The account whose open session this cookie value is, or None."""
        account_id = session_account(value)
        if account_id is None:
            return None
        try:
            with self.runner.reading(account_id, Account) as account:
                if account.session(digest(value)) is None:
                    return None
                return AccountView.of(account)
        except AccountNotFoundError:
            return None

    def by_key(self, key: str) -> AccountView | None:
        """The account whose current key this is, or None."""
        account_id = key_account(key)
        if account_id is None:
            return None
        try:
            with self.runner.reading(account_id, Account) as account:
                return AccountView.of(account) if holds(account.key_hash, digest(key)) else None
        except AccountNotFoundError:
            return None


def expiry() -> datetime:
    return datetime.now(UTC) + timedelta(days=SESSION_DAYS)

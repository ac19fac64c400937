"""The private aggregates: an account, a name's owner, a game's admission.

They are chained like games (domain/chained.py: command ids, so a retried
command is answered, never applied twice), with no secret to seal: their
events hold no secret, only hashes of secrets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar
from uuid import NAMESPACE_URL, UUID, uuid5

from domain.accounts import events as ev
from domain.chained import Chained
from domain.errors import AccountNotFoundError, AdmissionNotSetError, OpusError
from domain.names import looks_like_a_bot
from domain.text import name_key

NAMES = uuid5(NAMESPACE_URL, "opus:account-names")
ADMISSION_IDS = uuid5(NAMESPACE_URL, "opus:admissions")
BOTS = uuid5(NAMESPACE_URL, "opus:bot-accounts")
ADMISSIONS = ("open", "invitation")  # who may join a lobby game: anyone, or the invited


def name_id(name: str) -> UUID:
    """The id of the aggregate that says who holds a name's key (T2.1's key)."""
    return uuid5(NAMES, name_key(name))


def admission_id(game_id: UUID) -> UUID:
    return uuid5(ADMISSION_IDS, str(game_id))


def bot_account_id(kind: str) -> UUID:
    return uuid5(BOTS, kind)


def bot_name(kind: str, number: int) -> str:
    """The name of a kind's ``number``-th bot account: "Greedy bot", "Greedy bot 2"."""
    return f"{kind.capitalize()} bot" + ("" if number == 1 else f" {number}")


def reserved_for_bots(name: str) -> bool:
    """Whether a name is one the service's bots may take (no person may):
    one that looks like a bot's, whatever its case (domain/names.py)."""
    return looks_like_a_bot(name)


class Private(Chained):
    """An aggregate of the service's own, kept out of every public reading."""

    @property
    def chain_secret(self) -> str:
        return ""

    @property
    def ended(self) -> bool:
        return False

    def evolve(self, kind: str, fields: dict[str, Any]) -> None:
        raise NotImplementedError


@dataclass
class Passkey:
    public_key: str
    sign_count: int
    label: str
    added: str


@dataclass
class Session:
    expires: str
    via: str  # "key" or "passkey": the credential that opened it
    label: str
    opened: str
    credential_id: str = ""  # the passkey that opened it ("" for the key)


class Account(Private):
    noun: ClassVar[str] = "account"
    on_home_shard: ClassVar[bool] = True
    missing: ClassVar[type[OpusError]] = AccountNotFoundError

    def __init__(self, name: str, kind: str, key_hash: str, holder_hash: str) -> None:
        self.name = name
        self.kind = kind
        self.key_hash = key_hash
        # The one token hash its seats, registrations and games hold: the
        # token itself is never made known (the service acts for the
        # account with the hash), so no one can present it.
        self.holder_hash = holder_hash
        self.passkeys: dict[str, Passkey] = {}
        self.sessions: dict[str, Session] = {}
        # tokens its browsers held when they signed in (taken signed out)
        self.adopted: set[str] = set()
        self._start_chain()

    @classmethod
    def open(
        cls, account_id: UUID, name: str, kind: str, key_hash: str, holder_hash: str
    ) -> Account:
        fields = {"name": name, "kind": kind, "key_hash": key_hash, "holder_hash": holder_hash}
        return cls._create_chained(ev.AccountOpened, account_id, "", fields)  # type: ignore[no-any-return]

    @property
    def is_bot(self) -> bool:
        return self.kind.startswith("bot:")

    # ---- commands (checked by domain/accounts/commands.py) ------------------

    def rename(self, name: str, command: str = "") -> None:
        self.trigger_event(ev.Renamed, name=name, command=command)

    def rotate_key(self, key_hash: str, command: str = "") -> None:
        self.trigger_event(ev.KeyRotated, key_hash=key_hash, command=command)

    def add_passkey(
        self, credential_id: str, public_key: str, sign_count: int, label: str, command: str = ""
    ) -> None:
        self.trigger_event(
            ev.PasskeyAdded,
            credential_id=credential_id,
            public_key=public_key,
            sign_count=sign_count,
            label=label,
            command=command,
        )

    def remove_passkey(self, credential_id: str, command: str = "") -> None:
        self.trigger_event(ev.PasskeyRemoved, credential_id=credential_id, command=command)

    def open_session(
        self,
        session_hash: str,
        expires: datetime,
        via: str,
        label: str,
        credential_id: str = "",
        sign_count: int = 0,
        command: str = "",
    ) -> None:
        self.trigger_event(
            ev.SessionOpened,
            session_hash=session_hash,
            expires=expires.isoformat(),
            via=via,
            credential_id=credential_id,
            sign_count=sign_count,
            label=label,
            command=command,
        )

    def adopt(self, token_hashes: list[str], command: str = "") -> None:
        self.trigger_event(ev.TokensAdopted, token_hashes=token_hashes, command=command)

    def close_session(self, session_hash: str, command: str = "") -> None:
        self.trigger_event(ev.SessionClosed, session_hash=session_hash, command=command)

    # ---- what it knows --------------------------------------------------------

    def session(self, session_hash: str, now: datetime | None = None) -> Session | None:
        """The open session with this hash, unless it has expired."""
        found = self.sessions.get(session_hash)
        if found is None:
            return None
        now = now or datetime.now(UTC)
        return found if datetime.fromisoformat(found.expires) > now else None

    # ---- evolving -------------------------------------------------------------

    def _close_sessions(self, opened_by: Callable[[Session], bool]) -> None:
        """The sessions a revoked credential opened end with it: they are
        derived from the events (a ``KeyRotated``, a ``PasskeyRemoved``),
        so a store recorded before this rule reads the same way."""
        for session_hash in [h for h, s in self.sessions.items() if opened_by(s)]:
            del self.sessions[session_hash]

    def evolve(self, kind: str, f: dict[str, Any]) -> None:
        at = f["timestamp"].isoformat()
        if kind == "Renamed":
            self.name = f["name"]
        elif kind == "KeyRotated":
            # revoking the key ends every session it opened
            self.key_hash = f["key_hash"]
            self._close_sessions(lambda s: s.via == "key")
        elif kind == "PasskeyAdded":
            self.passkeys[f["credential_id"]] = Passkey(
                f["public_key"], f["sign_count"], f["label"], at
            )
        elif kind == "PasskeyRemoved":
            # revoking a passkey ends every session it opened
            removed = f["credential_id"]
            self.passkeys.pop(removed, None)
            # (a sign-up's session, before it named its passkey, names none:
            # which passkey opened it is unknown, so it ends too)
            self._close_sessions(lambda s: s.via == "passkey" and s.credential_id in (removed, ""))
        elif kind == "SessionOpened":
            self.sessions[f["session_hash"]] = Session(
                f["expires"], f["via"], f["label"], at, f.get("credential_id", "")
            )
            passkey = self.passkeys.get(f["credential_id"])
            if passkey is not None:
                passkey.sign_count = f["sign_count"]
        elif kind == "TokensAdopted":
            self.adopted.update(f["token_hashes"])
        elif kind == "SessionClosed":
            self.sessions.pop(f["session_hash"], None)


class AccountName(Private):
    """Who holds a name's key: names are unique across accounts by T2.1's key."""

    noun: ClassVar[str] = "name"
    on_home_shard: ClassVar[bool] = True
    missing: ClassVar[type[OpusError]] = AccountNotFoundError

    def __init__(self, account: str) -> None:
        self.account = account
        self._start_chain()

    @classmethod
    def take(cls, name: str, account: UUID) -> AccountName:
        return cls._create_chained(  # type: ignore[no-any-return]
            ev.NameTaken, name_id(name), "", {"account": str(account)}
        )

    def claim(self, account: UUID, command: str = "") -> None:
        self.trigger_event(ev.NameClaimed, account=str(account), command=command)

    def release(self, command: str = "") -> None:
        self.trigger_event(ev.NameReleased, command=command)

    def evolve(self, kind: str, f: dict[str, Any]) -> None:
        self.account = f.get("account", "")


class Admission(Private):
    """Who may join a lobby game (absent: anyone)."""

    noun: ClassVar[str] = "admission"
    missing: ClassVar[type[OpusError]] = AdmissionNotSetError

    def __init__(self, mode: str, game: str) -> None:
        self.mode = mode
        self.game = game
        self._start_chain()

    @classmethod
    def set(cls, game_id: UUID, mode: str) -> Admission:
        return cls._create_chained(  # type: ignore[no-any-return]
            ev.AdmissionSet, admission_id(game_id), "", {"mode": mode, "game": str(game_id)}
        )

    def evolve(self, kind: str, f: dict[str, Any]) -> None:
        raise NotImplementedError(kind)

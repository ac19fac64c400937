"""The private aggregates' events: accounts, their names, game admissions.

These aggregates' events are the service's own: ``PRIVATE_TOPIC_PREFIX``
marks them, and the log's readers for the public (export, verify, the
streams) leave them out. Secrets are never recorded, only their SHA-256
hashes (the account key, sessions, held tokens).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate

from domain.events import ChainedEvent

PRIVATE_TOPIC_PREFIX = "domain.accounts."


class PrivateCreated(Aggregate.Created):
    chain: str

    def apply(self, aggregate: Any) -> None:
        aggregate.chain = self.chain


class PrivateEvent(ChainedEvent):
    """An event of a private aggregate: it hands its fields to the aggregate's
    ``evolve`` (each aggregate's own), then notes its chain and command."""

    def apply(self, aggregate: Any) -> None:
        aggregate.evolve(type(self).__name__, self.__dict__)
        aggregate.applied(self)


class AccountOpened(PrivateCreated):
    name: str
    kind: str  # "person" or "bot:<the bot's kind>"
    key_hash: str  # SHA-256 of the account key ("" for a bot's)
    holder_hash: str  # SHA-256 of the token its seats, registrations and games hold


class Renamed(PrivateEvent):
    name: str


class KeyRotated(PrivateEvent):
    key_hash: str


class PasskeyAdded(PrivateEvent):
    credential_id: str  # base64url, as WebAuthn gives it
    public_key: str  # base64url COSE key
    sign_count: int
    label: str


class PasskeyRemoved(PrivateEvent):
    credential_id: str


class SessionOpened(PrivateEvent):
    """A browser signed in: ``via`` "passkey" (its credential and the
    authenticator's signature counter) or "key"; until ``expires`` (ISO)."""

    session_hash: str
    expires: str
    via: str
    credential_id: str
    sign_count: int
    label: str  # the browser, as its User-Agent names it (shortened)


class SessionClosed(PrivateEvent):
    session_hash: str


class TokensAdopted(PrivateEvent):
    """Tokens a browser held when it signed in (seats, games, registrations
    taken signed out), now also the account's: their hashes."""

    token_hashes: list[str]


class NameTaken(PrivateCreated):
    """A name's key (T2.1's ``name_key``) first taken, by ``account``."""

    account: str


class NameClaimed(PrivateEvent):
    account: str


class NameReleased(PrivateEvent):
    pass


class AdmissionSet(PrivateCreated):
    """Who may join a lobby game: "invitation" (only with the game's
    invitation code) or "open"; ``game``: the game's id."""

    mode: str
    game: str

"""Accounts in memory: names unique by T2.1's key, keys and sessions
single and revocable, an account's holder token seating it, admissions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.accounts.aggregate import Account
from domain.accounts.commands import NewPasskey, digest, expiry, new_session, session_account
from domain.application import Opus
from domain.errors import (
    AccountError,
    NameTakenError,
    NotInvitedError,
    NotOrganiserError,
    SetupError,
    SignInError,
)
from domain.internals import evict
from domain.pipeline import SERVICE, Caller, Command, Unit
from infra.eventlog import read_records


def new_app() -> Opus:
    return Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


PASSKEY = NewPasskey("cred-1", "cose-key", 0, "laptop")


def test_a_name_is_one_accounts_by_its_key_until_released() -> None:
    app = new_app()
    ada = app.accounts.open("Ada", passkey=PASSKEY, session_label="Firefox")
    for same in ("ada", "ＡＤＡ", " Ada "):
        with pytest.raises(NameTakenError):
            app.accounts.open(same)
    app.accounts.rename(ada.account, "Ada Lovelace")
    assert app.accounts.view(ada.account).name == "Ada Lovelace"
    other = app.accounts.open("ADA")  # released by the rename: claimable again
    assert app.accounts.view(other.account).name == "ADA"
    with pytest.raises(NameTakenError):
        app.accounts.rename(other.account, "ada lovelace")
    assert app.accounts.view(other.account).name == "ADA"  # a refused rename changes nothing


def test_a_name_the_text_policy_refuses_opens_nothing() -> None:
    app = new_app()
    with pytest.raises(AccountError):
        app.accounts.open("Ada\u202e")
    with pytest.raises(AccountError):
        app.accounts.open("x" * 41)
    assert list(app.recorder.select_notifications(start=1, limit=10)) == []


def test_the_account_key_signs_in_until_rotated() -> None:
    app = new_app()
    opened = app.accounts.open("Boris")
    assert opened.key.startswith("opus_") and opened.session is None
    assert app.accounts.by_key(opened.key) is not None
    session = app.accounts.sign_in(opened.account, "key", "curl", key=opened.key)
    found = app.accounts.by_session(session)
    assert found is not None and found.id == opened.account
    new_key = app.accounts.rotate_key(opened.account)
    assert app.accounts.by_key(opened.key) is None
    assert app.accounts.by_key(new_key) is not None
    with pytest.raises(SignInError):
        app.accounts.sign_in(opened.account, "key", "curl", key=opened.key)
    forged = opened.key[:-1] + ("A" if opened.key[-1] != "A" else "B")
    assert app.accounts.by_key(forged) is None


def test_a_session_ends_when_signed_out_or_expired() -> None:
    app = new_app()
    opened = app.accounts.open("Chen", passkey=PASSKEY, session_label="Chromium")
    assert opened.session is not None
    account_id = session_account(opened.session)
    assert account_id == opened.account
    assert app.accounts.by_session(opened.session) is not None
    app.accounts.sign_out(opened.account, digest(opened.session))
    assert app.accounts.by_session(opened.session) is None
    session = app.accounts.sign_in(opened.account, "passkey", "x", credential_id="cred-1")
    with app.runner.reading(opened.account, Account) as account:
        kept = account.sessions[digest(session)]
        later = datetime.fromisoformat(kept.expires) + timedelta(seconds=1)
        assert account.session(digest(session), now=later) is None
        assert account.session(digest(session), now=datetime.now(UTC)) is not None


def test_a_passkey_removed_no_longer_signs_in() -> None:
    app = new_app()
    opened = app.accounts.open("Dana", passkey=PASSKEY, session_label="x")
    app.accounts.add_passkey(opened.account, NewPasskey("cred-2", "k2", 0, "phone"))
    with pytest.raises(AccountError):
        app.accounts.add_passkey(opened.account, NewPasskey("cred-2", "k2", 0, "phone"))
    app.accounts.remove_passkey(opened.account, "cred-1")
    with pytest.raises(SignInError):
        app.accounts.sign_in(opened.account, "passkey", "x", credential_id="cred-1")
    assert app.accounts.passkey(opened.account, "cred-2") == ("k2", 0)
    app.accounts.sign_in(opened.account, "passkey", "x", credential_id="cred-2", sign_count=7)
    assert app.accounts.passkey(opened.account, "cred-2") == ("k2", 7)


def test_an_account_seats_and_organises_with_its_holder_hash() -> None:
    app = new_app()
    ada = app.accounts.view(app.accounts.open("Ada").account)
    game = app.create_game(caller=Caller(ada.holder_hash))
    app.join(game, "Ada", caller=Caller(ada.holder_hash))
    with pytest.raises(SetupError):  # one seat per account in a game
        app.join(game, "Ada 2", caller=Caller(ada.holder_hash))
    app.join(game, "Boris", caller=Caller("b" * 64))
    with pytest.raises(NotOrganiserError):
        app.start(game, caller=Caller("b" * 64))
    app.start(game, caller=Caller(ada.holder_hash))
    assert app.legal_moves_of(game, ada.holder_hash).seat == 0


def test_an_invitation_game_takes_its_organiser_and_the_code_holders_only() -> None:
    app = new_app()
    organiser = "o" * 64
    open_game = app.create_game(caller=Caller(organiser))
    assert app.invitation_code(open_game) is None
    app.join(open_game, "Anyone", caller=Caller("a" * 64))
    game = app.create(caller=Caller(organiser), admission="invitation").aggregate_id
    code = app.invitation_code(game)
    assert code is not None
    for wrong in (None, "", code[:-1] + ("A" if code[-1] != "A" else "B")):
        with pytest.raises(NotInvitedError):
            app.join(game, "Stranger", caller=Caller("s" * 64), invitation=wrong)
    assert app.state(game).names == []  # a refused join records nothing
    app.join(game, "Host", caller=Caller(organiser))
    app.join(game, "Friend", caller=Caller("f" * 64), invitation=code)
    evict(app, game)
    assert app.state(game).names == ["Host", "Friend"]
    with pytest.raises(SetupError):
        app.create(caller=Caller(organiser), admission="friends")


def test_private_events_stay_out_of_the_public_log_and_its_listeners() -> None:
    app = new_app()
    told: list[str] = []
    app.listeners.append(lambda records: told.extend(r.type for r in records))
    app.accounts.open("Eve", passkey=PASSKEY, session_label="x")
    game = app.create(caller=Caller("o" * 64), admission="invitation").aggregate_id
    types = [r.type for r in read_records(app)]
    assert types == ["GameCreated"]
    assert told == ["GameCreated"]
    assert str(game) in {r.aggregate_id for r in read_records(app)}


def test_the_bots_names_are_no_persons() -> None:
    app = new_app()
    for name in ("Greedy bot", "greedy BOT 2", "Shrewd bot 5", "Random bot"):
        with pytest.raises(AccountError, match="bots"):
            app.accounts.open(name)
    ada = app.accounts.open("Ada").account
    with pytest.raises(AccountError, match="bots"):
        app.accounts.rename(ada, "Greedy bot 3")
    bot = app.accounts.bot("greedy", 2)
    assert app.accounts.view(bot).name == "Greedy bot 2"
    assert app.accounts.open("Greedy botanist").account  # only the bots' own names


def test_an_expired_session_is_not_listed() -> None:
    app = new_app()
    opened = app.accounts.open("Fay", passkey=PASSKEY, session_label="old laptop")
    assert opened.session is not None
    with app.runner.reading(opened.account, Account) as account:
        account.sessions[digest(opened.session)].expires = "2000-01-01T00:00:00+00:00"
    assert app.accounts.view(opened.account).sessions == []
    assert app.accounts.by_session(opened.session) is None


def test_tokens_a_browser_held_become_its_accounts_once() -> None:
    app = new_app()
    opened = app.accounts.open("Gus")
    app.accounts.adopt(opened.account, ["a" * 64, "b" * 64])
    app.accounts.adopt(opened.account, ["a" * 64])  # nothing new: nothing recorded
    view = app.accounts.view(opened.account)
    assert view.adopted == {"a" * 64, "b" * 64}
    assert view.hashes == [view.holder_hash, "a" * 64, "b" * 64]
    with app.runner.reading(opened.account, Account) as account:
        assert account.version == 2


def test_revoking_a_credential_ends_every_session_it_opened_and_no_other() -> None:
    """Sessions record what opened them (the key, or which passkey): a key
    rotation ends the key's, a passkey's removal that passkey's; the others
    stay open."""
    app = new_app()
    opened = app.accounts.open("Eva", passkey=PASSKEY, session_label="laptop")
    assert opened.session is not None
    app.accounts.add_passkey(opened.account, NewPasskey("cred-2", "k2", 0, "phone"))
    by_key = app.accounts.sign_in(opened.account, "key", "curl", key=opened.key)
    by_phone = app.accounts.sign_in(opened.account, "passkey", "phone", credential_id="cred-2")
    by_laptop = app.accounts.sign_in(opened.account, "passkey", "laptop", credential_id="cred-1")

    def open_now() -> set[str]:
        return {
            s
            for s in (opened.session, by_key, by_phone, by_laptop)
            if s is not None and app.accounts.by_session(s) is not None
        }

    assert open_now() == {opened.session, by_key, by_phone, by_laptop}
    app.accounts.rotate_key(opened.account)
    assert open_now() == {opened.session, by_phone, by_laptop}
    app.accounts.remove_passkey(opened.account, "cred-2")
    assert open_now() == {opened.session, by_laptop}
    # read again from the store (no cached copy): the same
    evict(app, opened.account)
    assert open_now() == {opened.session, by_laptop}
    app.accounts.remove_passkey(opened.account, "cred-1")  # the sign-up's and the laptop's
    assert open_now() == set()


def test_a_sign_up_session_recorded_before_it_named_its_passkey_ends_with_a_removal() -> None:
    """A store written before sessions named their passkey: a passkey
    session naming none ends when any passkey of the account is removed
    (which one opened it is not known)."""
    app = new_app()
    opened = app.accounts.open("Fedor", passkey=PASSKEY)
    session, session_hash = new_session(opened.account)

    def as_recorded_then(account: Account, unit: Unit, caller: Caller) -> None:
        account.open_session(session_hash, expiry(), "passkey", "old")  # no credential named

    app.runner.run(Command(opened.account, Account, as_recorded_then), SERVICE)
    assert app.accounts.by_session(session) is not None
    app.accounts.add_passkey(opened.account, NewPasskey("cred-2", "k2", 0, "phone"))
    app.accounts.remove_passkey(opened.account, "cred-2")
    assert app.accounts.by_session(session) is None

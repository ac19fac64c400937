"""The account pages' refusal of a name that looks like another account's.

An account's name is unique by T2.1's key in the store itself
(domain/accounts' ``AccountName``); a name that only *looks* like another
("Аda" with a Cyrillic А beside "Ada") is found in the accounts view's
look index (``Queries.accounts_like``, domain/confusables.py's ``look``)
before the account command runs, so a refused name records nothing. The
view may lag the store by a moment: two look-alike names chosen in the
same instant can both pass, which an impersonator of an existing account
cannot use (its account is long in the view).
"""

from __future__ import annotations

from uuid import UUID

from flask import g

from api.runtime import services
from api.web.i18n import text
from api.web.pages import PageError
from domain.names import differing_characters


def refuse_look_alike(name: str, account_id: UUID | None = None) -> None:
    """409 in words if ``name`` looks like the name of an account other
    than ``account_id`` (the one renamed; None for a new account)."""
    for other in services().views.accounts_like(name):
        if account_id is None or other["id"] != str(account_id):
            chars = differing_characters(name, other["name"])
            words = text(
                "names_look_alike_account", g.lang, name=name, other=other["name"], chars=chars
            )
            raise PageError(409, words)

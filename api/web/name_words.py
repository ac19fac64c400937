"""A refused name in the page's language: domain/names.py's refusals carry
their reason and its values (``name_refusal``); here they become the words
of api/web/words/names.py, in English or Russian (the domain's own message
is English)."""

from __future__ import annotations

from api.web.i18n import text


def name_words(error: BaseException, lang: str) -> str | None:
    """The words for a name refused by domain/names.py, None for any other error."""
    found = getattr(error, "name_refusal", None)
    if found is None:
        return None
    reason, values = found
    return text(f"names_{reason}", lang, **values)

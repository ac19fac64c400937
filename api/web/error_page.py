"""The web client's error page for an error the app answers outside the pages
(api/errors.py): an address nothing serves (``/nope``, ``/games/not-a-uuid``),
a method an address does not take, an API endpoint's failure, when the
request's Accept prefers text/html to application/json (a browser's
address bar). The pages' own errors have their own handler
(``pages.refused``), which renders the same template.

The pages blueprint's ``before_request`` and context processor do not run
for such a request: the page takes their context from them here (the
language, the words, the header's links) and the pages' security headers
(``pages.headers``: the Content-Security-Policy among them). It sets no
cookie: without the pages' ``prepare`` this request has no CSRF token to
keep, and its form-free page needs none.
"""

from __future__ import annotations

from flask import Response, g, make_response, render_template, request

from api.web import pages
from api.web.i18n import STRINGS, negotiate, text


def error_page(status: int, message: str, rule: str | None = None) -> Response:
    """The error page at ``status``: a line in the request's language on
    what the status means (for the statuses it knows), then the API's
    message (with its rule id, linked, when a rule refused)."""
    if "lang" not in g:
        g.lang = negotiate(request)
    lang: str = g.lang
    explain = text(f"error_{status}", lang) if f"error_{status}" in STRINGS else None
    words = text("refused", lang, rule=rule, message=message) if rule else message
    html = render_template(
        "web/error.html", status=status, message=words, explain=explain, **pages.helpers()
    )
    response = make_response(html, status)
    pages.headers(response)
    return response

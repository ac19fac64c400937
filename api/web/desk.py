"""The web client's pages for the organiser's desk: tournaments and lobby games

Its routes join the pages blueprint (api/web/pages.py)."""

from __future__ import annotations

from api.web.pages import blp  # noqa: F401

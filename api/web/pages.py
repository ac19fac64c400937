"""The web client: server-rendered pages in the service's own Flask app.

One plain Flask blueprint (not in the OpenAPI spec). Pages read the same
projections as the API (``services().views``: table, seats and hands,
scoreboard, move log, tournaments, and the lobby's list of games), ask the
application service the same decision (``Opus.legal_moves_of``) and make
the same commands (``Opus.create``/``join``/``start``/``play``, with the
caller's token hash, which the service turns into a seat or the organiser).
The replay reads a game's export (``infra.eventlog.game_export``).

- ``GET /``: the lobby: open games, games in progress, finished ones,
  tournaments; create, join, watch.
- ``GET /table/<game>``: the seat's table when this browser holds a seat of
  the game, else the spectator's; ``/view?after=N``: its live part, and
  ``/log?since=V``: the move log after version V, as the page renders them.
- ``POST /table/new``, ``/table/<game>/join``, ``/start``, ``/move``.
- ``GET /replay/<game>[?step=n]`` (``/view?step=n``: the step's part): a
  finished game, step by step; ``GET``/``POST /replay``: an uploaded export.
- ``GET /tournament/<id>[?round=r]``: standings, rounds and their tables,
  seals, corrections.
- ``GET /lang/<ru or en>?next=/path``: the language, kept in a cookie.

Every page response carries a Content-Security-Policy without inline
scripts or styles; every POST carries the CSRF token (api/web/session.py).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import orjson
from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from api.bodies import limit_chunked_body
from api.commands_http import MOVE_SCHEMAS, move_of, move_request
from api.errors import EVENTS_DOWN, ApiError, status_of
from api.receipts_http import receipt_of
from api.runtime import services
from api.web import i18n, present
from api.web.bot_marks import bot_kinds, mark_bots
from api.web.i18n import LANG_COOKIE, LANGS, card_info, negotiate, text
from api.web.name_words import name_words
from api.web.receipts_page import with_witnesses
from api.web.replay import (
    UPLOADED_REPLAYS,
    Replay,
    ReplayCache,
    ReplayError,
    Step,
    check_records,
)
from api.web.session import (
    CSRF_FIELD,
    csrf_for,
    csrf_ok,
    keep_csrf,
    keep_token,
    new_holding,
    organiser_cookie,
    organiser_hash,
    presession,
    registration_hash,
    same_origin,
    seat_cookie,
    seat_hash,
    signed_in,
)
from domain.engine import MAX_CONTRIBUTION
from domain.errors import (
    GameNotFoundError,
    NotAuthorisedError,
    RuleError,
    TournamentNotFoundError,
    VersionClashError,
)
from domain.events import EVENT_TYPES
from domain.moves import Move
from domain.names import MAX_NAME
from domain.pipeline import Caller
from domain.ruleset import DRAW_VARIANTS, MAX_PLAYERS, MIN_PLAYERS, RuleSet
from domain.state import GameState
from domain.table import PublicTable
from infra.eventlog import game_export, game_positions
from projections.describe import CardRef, seat_name
from projections.ports import ViewStoreUnavailableError
from projections.runner import EVENT_STORE_ERRORS

log = logging.getLogger(__name__)
blp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/static/web",
)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
REPLAY_MAX_BYTES = 4 * 1024 * 1024  # an uploaded export (a whole game's is about 100 KiB)
# the views one table page reads, waited for together with ``after=``
TABLE_VIEWS = ("table", "scoreboard", "seats", "hands", "lobby")


class PageError(Exception):
    """A page's refusal, in words; ``rule`` when a game rule refused it."""

    def __init__(self, status: int, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule


# ---- every page request and response --------------------------------------------------


@blp.before_request
def prepare() -> None:
    """The language and the CSRF token; a POST's body limit, then its
    origin and CSRF checks (nothing is done for a POST that fails them)."""
    g.lang = negotiate(request)
    g.presession, g.csrf_new = presession(request)
    g.csrf = csrf_for(g.presession)
    if request.method == "POST":
        limit: int | None
        if request.endpoint == "pages.replay_upload":
            limit = REPLAY_MAX_BYTES
        else:
            limit = current_app.config["MAX_CONTENT_LENGTH"]
        request.max_content_length = limit
        limit_chunked_body(limit)
        # Another origin's post (a sibling subdomain, another port: its
        # cookies may be set here) is refused by its Origin, whatever its token.
        if not same_origin(request) or not csrf_ok(request):
            raise PageError(403, text("csrf_refused", g.lang))


@blp.after_request
def headers(response: Response) -> Response:
    """The page security headers (CSP among them) on every response of the
    pages, and this browser's CSRF cookie when it is new."""
    response.headers["Content-Security-Policy"] = with_witnesses(CSP)  # receipts.js gossips
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
    if request.endpoint != "pages.static":
        response.headers["Cache-Control"] = "no-store"
        response.vary.update(("Cookie", "Accept-Language"))
    if g.get("csrf_new") and request.endpoint != "pages.static":
        keep_csrf(response, request, g.presession)
    return response


@blp.context_processor
def helpers() -> dict[str, Any]:
    lang: str = g.get("lang", i18n.DEFAULT_LANG)

    def words(key: str, **values: Any) -> str:
        return text(key, lang, **values)

    return {
        "lang": lang,
        "langs": LANGS,
        "min_players": MIN_PLAYERS,  # R2.1
        "max_players": MAX_PLAYERS,
        "csrf": g.get("csrf", ""),
        "csrf_field": CSRF_FIELD,
        "_": words,
        "card": lambda card_id: card_info(card_id, lang),
        "element_name": lambda e: i18n.element_name(e, lang),
        "symbol": lambda e: i18n.SYMBOLS[e],
        "column_name": lambda c: i18n.column_name(c, lang),
        "stage_label": lambda s: i18n.stage_label(s, lang),
        "sequence_stages": i18n.sequence_stages,
        "rule_words": lambda r: i18n.rule_words(r, lang),
        "rules_words": lambda d, gu: present.rules_words(d, gu, lang),
        "clock_words": lambda clock: present.clock_words(clock, lang),
        "describe": lambda entry, names: present.describe(entry, names, lang),
        "log_item_html": lambda entry, names: log_item_html(entry, names, lang),
        "cards_n": lambda n: i18n.cards_n(n, lang),
        "is_card": lambda part: isinstance(part, CardRef),
        "names_of": lambda names, seats: text("and", lang).join(seat_name(names, s) for s in seats),
        "max_name": MAX_NAME,
        "max_contribution": MAX_CONTRIBUTION,
        "here": request.full_path.rstrip("?"),
        "event_types": " ".join(sorted(EVENT_TYPES)),
    }


def wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


@blp.errorhandler(Exception)
def refused(e: Exception) -> Any:
    """Every error of a page: at the API's status for it (``status_of``,
    api/errors.py) or the page's own (``PageError``), in words (with its rule
    id when a rule refused), as JSON for the script's requests, else as a page."""
    status = e.status if isinstance(e, PageError) else status_of(e)
    message, rule = "internal error", None
    if isinstance(e, PageError):
        message, rule = e.message, e.rule
    elif isinstance(e, ApiError):
        message = e.message
    elif isinstance(e, GameNotFoundError):
        message = text("not_found", g.get("lang", "en"))
    elif isinstance(e, TournamentNotFoundError):
        message = text("no_tournament", g.get("lang", "en"))
    elif isinstance(e, RuleError):
        message, rule = e.detail, e.rule
    elif isinstance(e, VersionClashError):
        message = text("stale", g.get("lang", "en"))
    elif isinstance(e, ViewStoreUnavailableError):
        message = "the views cannot be read now; retry shortly"
    elif isinstance(e, EVENT_STORE_ERRORS):
        message = EVENTS_DOWN
    elif isinstance(e, HTTPException):
        message = e.description or e.name
    elif status != 500:  # another domain error (NotAuthorisedError, IdempotencyConflictError)
        message = str(e)
    else:
        log.exception("page error")
    lang = g.get("lang") or i18n.DEFAULT_LANG
    message = name_words(e, lang) or message  # a refused name, in this page's language
    if rule:
        words = text("refused", lang, rule=rule, message=message)
    else:
        words = message
    if (request.method == "POST" and wants_json()) or request.endpoint in FRAGMENTS:
        response = jsonify({"code": status, "message": words, "rule": rule})
        response.status_code = status
        return response
    if g.get("page_on_error") is not None:  # a form post from a page that shows it again, with why
        try:
            page = g.page_on_error(e, words)
        except Exception:  # the page cannot be shown: the plain error page
            log.exception("page after a refusal")
        else:
            if page is not None:
                return page, status
    if g.get("table_on_error") is not None:  # a form post from a table: the table, with why
        game_id = g.table_on_error
        try:
            context = table_context(game_id, None)
            entries = log_entries(game_id, 0)
        except Exception:  # the table cannot be shown: the plain error page
            log.exception("table page after a refusal")
        else:
            page = render_template("web/table.html", notice=words, entries=entries, **context)
            return page, status
    if "lang" not in g:
        g.lang = lang
    return render_template("web/error.html", status=status, message=words), status


FRAGMENTS = frozenset({"pages.table_view", "pages.table_log", "pages.replay_view"})


# ---- reading the views --------------------------------------------------------------------


def after_arg() -> int | None:
    raw = request.args.get("after", "")
    return int(raw) if raw.isdigit() and len(raw) <= 18 else None


def caught_up(views: Iterable[str], after: int | None) -> bool:
    """Wait (bounded) for the views to reach ``after``; False if they did not."""
    if after is None:
        return True
    svc = services()
    after = svc.views.capped(after)  # with shards, its shard's log
    try:
        svc.views.wait_for(list(views), after, svc.query_wait_seconds)
    except TimeoutError:
        return False
    return True


def game_table(game_id: UUID) -> dict[str, Any]:
    """The game's public table, from the table view; a game the log has and
    the view not yet is waited for, once."""
    svc = services()
    doc = svc.views.table_view(game_id)
    if doc is None:
        positions = game_positions(svc.opus, game_id)
        if not positions:
            raise GameNotFoundError(f"no game {game_id}")
        caught_up(TABLE_VIEWS, max(positions.values()))
        doc = svc.views.table_view(game_id)
        if doc is None:
            raise PageError(503, "the table is not projected yet: reload in a moment")
    return doc


def table_context(game_id: UUID, after: int | None) -> dict[str, Any]:
    """Everything a table page shows, from the views (and the seat's legal
    moves, from the service): the spectator's when this browser holds no
    seat of the game, the seat's with its hand when it does."""
    svc = services()
    views = svc.views
    fresh = caught_up(TABLE_VIEWS, after)
    doc = game_table(game_id)
    lobby = views.lobby_game(game_id) or {}
    rules = {
        "draw": lobby.get("draw", "five"),
        "guild": lobby.get("guild", bool(doc.get("sequences"))),
        "stage_points": lobby.get("stage_points") or list(RuleSet().stage_points),
    }
    stacks = views.cabinet(game_id)
    board = views.scoreboard(game_id) or {"players": []}
    awards = {p["seat"]: p["awards"] for p in board["players"]}
    me: int | None = None
    hand: list[int] = []
    offers = None
    digest = seat_holder(game_id, lobby)
    if digest is not None:
        me = views.seat_of(game_id, digest)
    if me is not None:
        assert digest is not None
        hand = views.hand(game_id, me) or []
        try:
            legal = svc.opus.legal_moves_of(game_id, digest) if doc["status"] == "running" else None
        except NotAuthorisedError:  # the seats view is ahead of this process's game
            legal = None
        if legal is not None:
            ruleset = RuleSet(rules["draw"], rules["guild"], tuple(rules["stage_points"]))
            seen = GameState.seen_by(PublicTable.from_doc(doc, stacks), me, hand, ruleset)
            offers = present.offers_of(
                [(m, move_request(game_id, m)) for m in legal.moves],
                state=seen,
                me=me,
                reason=legal.reason,
                version=legal.version,
                lang=g.lang,
            )
    return {
        "game": str(game_id),
        "doc": doc,
        "rules": rules,
        "tournament": lobby.get("tournament"),
        "stacks": stacks,
        "awards": awards,
        "me": me,
        "hand": hand,
        "offers": offers,
        "organiser": organiser_hash(request, game_id) is not None,
        "bots": bot_kinds(game_id, doc["players"]),  # seat -> kind (api/web/bot_marks.py)
        "fresh": fresh,
        "award_href": lambda award: f"#log-{award['cause_version']}",
    }


def seat_holder(game_id: UUID, lobby: dict[str, Any] | None = None) -> str | None:
    """The hash of the token this browser may hold a seat of the game with:
    the seat's own, else, in a tournament's game (the lobby view names its
    tournament), the player's registration token, which took the seat (T2.1)."""
    digest = seat_hash(request, game_id)
    if digest is not None:
        return digest
    if lobby is None:
        lobby = services().views.lobby_game(game_id) or {}
    tournament = lobby.get("tournament")
    return registration_hash(request, UUID(tournament["id"])) if tournament else None


LOG_ITEMS_CACHED = 20_000
_log_items: OrderedDict[tuple[str, tuple[str, ...], bytes], Markup] = OrderedDict()
_log_items_lock = threading.Lock()


def log_item_html(entry: dict[str, Any], names: list[str], lang: str) -> Markup:
    """One move-log item as the page shows it. A written entry changes only
    when GameEnded reveals what it hid (and then the entry itself differs),
    so its HTML is kept, per language and seating: a table page of a long
    game renders hundreds of them, and rendering each anew was most of its
    time."""
    key = (lang, tuple(names), orjson.dumps(entry, option=orjson.OPT_SORT_KEYS))
    with _log_items_lock:
        html = _log_items.get(key)
        if html is not None:
            _log_items.move_to_end(key)
            return html
    html = Markup(render_template("web/_log_item.html", entry=entry, names=names))
    with _log_items_lock:
        _log_items[key] = html
        if len(_log_items) > LOG_ITEMS_CACHED:
            _log_items.popitem(last=False)
    return html


def log_entries(game_id: UUID, since: int) -> list[dict[str, Any]]:
    """The move log after ``since``, each of a bot's moves with its kind."""
    return mark_bots(services().views.move_log(game_id, since=since), bot_kinds(game_id))


# ---- the lobby -------------------------------------------------------------------------------


@blp.get("/")
def lobby() -> str:
    caught_up(("lobby",), after_arg())
    views = services().views
    games = views.lobby()
    account = signed_in(request)
    seated = {  # this browser's seats: its cookies' and, signed in, its account's
        doc["game"]
        for doc in games["open"] + games["running"]
        if request.cookies.get(seat_cookie(UUID(doc["game"])))
    }
    if account is not None:
        mine = views.account(account.id) or {"games": []}
        seated.update(entry["game"] for entry in mine["games"] if entry["seat"] is not None)
    return render_template(
        "web/lobby.html",
        games=games,
        seated=seated,
        draws=DRAW_VARIANTS,
    )


@blp.post("/table/new")
def create() -> BaseResponse:
    """A new game; this browser keeps its organiser token (to start it)."""
    draw = request.form.get("draw", "five")
    if draw not in DRAW_VARIANTS:
        raise PageError(422, f"draw: one of {', '.join(DRAW_VARIANTS)}")
    guild = request.form.get("guild") in ("on", "1", "true")
    admission = request.form.get("admission", "open")  # who may join: the domain refuses others
    token, digest = new_holding(request)
    result = services().opus.create(
        RuleSet(draw=draw, guild=guild), caller=Caller(digest), admission=admission
    )
    response = redirect(table_url(result.aggregate_id, result.position), 303)
    if token is not None:
        keep_token(response, request, organiser_cookie(result.aggregate_id), token)
    return response


def table_url(game_id: UUID, position: int | None) -> str:
    if position is None:
        return url_for("pages.table", game_id=game_id)
    return url_for("pages.table", game_id=game_id, after=position)


@blp.post("/table/<uuid:game_id>/join")
def join(game_id: UUID) -> BaseResponse:
    """Take the next seat; this browser keeps the seat's token."""
    g.table_on_error = game_id
    account = signed_in(request)
    name = request.form.get("name") or (account.name if account is not None else "")
    contribution = request.form.get("contribution", "")
    if len(contribution) > MAX_CONTRIBUTION:
        raise PageError(422, f"a seed contribution has at most {MAX_CONTRIBUTION} characters")
    svc = services()
    held = seat_hash(request, game_id)
    if held is not None and svc.views.seat_of(game_id, held) is not None:
        raise PageError(409, text("already_seated", g.lang))
    token, digest = new_holding(request)
    invitation = request.form.get("invite") or None  # a game by invitation: its link's code
    result = svc.opus.join(
        game_id, name, contribution, caller=Caller(digest), invitation=invitation
    )
    response = redirect(table_url(game_id, result.position), 303)
    if token is not None:
        keep_token(response, request, seat_cookie(game_id), token)
    return response


@blp.post("/table/<uuid:game_id>/start")
def start(game_id: UUID) -> BaseResponse:
    g.table_on_error = game_id
    digest = organiser_hash(request, game_id)
    if digest is None:
        raise PageError(403, "only the game's organiser may start it")
    result = services().opus.start(game_id, caller=Caller(digest))
    return redirect(table_url(game_id, result.position), 303)


# ---- the table -------------------------------------------------------------------------------


@blp.get("/table/<uuid:game_id>")
def table(game_id: UUID) -> str:
    context = table_context(game_id, after_arg())
    entries = log_entries(game_id, 0)
    return render_template("web/table.html", entries=entries, **context)


@blp.get("/table/<uuid:game_id>/view")
def table_view(game_id: UUID) -> str:
    """The live part of the table page (the same template as the page's)."""
    return render_template("web/_live.html", **table_context(game_id, after_arg()))


@blp.get("/table/<uuid:game_id>/log")
def table_log(game_id: UUID) -> str:
    raw = request.args.get("since", "0")
    since = int(raw) if raw.isdigit() and len(raw) <= 9 else 0
    caught_up(("move_log", "table"), after_arg())
    doc = game_table(game_id)
    entries = log_entries(game_id, since)
    return render_template("web/_log_items.html", entries=entries, doc=doc)


@blp.post("/table/<uuid:game_id>/move")
def move(game_id: UUID) -> Any:
    """One move, as the legal-moves query gives it (its kind and body), for
    the seat this browser's token holds: ``Opus.play`` with the token's hash,
    the call the API's move commands make."""
    if request.is_json:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise PageError(400, "the body must be a JSON object")
        raw, version = data.get("move"), data.get("version")
    else:
        g.table_on_error = game_id
        try:
            raw = json.loads(request.form.get("move", ""))
        except (ValueError, RecursionError):  # nested past Python's limit: no move either
            raise PageError(422, "move: a move as the page offers it") from None
        version = request.form.get("version")
    chosen = parse_move(raw)
    expected = parse_version(version)
    digest = seat_holder(game_id)
    if digest is None:
        raise PageError(403, text("not_seated", g.lang))
    result = services().opus.play(game_id, chosen, caller=Caller(digest, expected_version=expected))
    if request.is_json:
        receipt = receipt_of(game_id, result.version)  # the move's signed receipt (receipts)
        return jsonify({"position": result.position, "version": result.version, "receipt": receipt})
    return redirect(table_url(game_id, result.position), 303)


def parse_move(raw: Any) -> Move:
    if not isinstance(raw, dict) or raw.get("kind") not in MOVE_SCHEMAS:
        raise PageError(422, f"move: kind is one of {', '.join(MOVE_SCHEMAS)}")
    kind = str(raw["kind"])
    try:
        args = MOVE_SCHEMAS[kind]().load(raw.get("body") or {})
    except ValidationError as e:
        raise PageError(422, f"move: {e.messages}") from None
    return move_of(kind, args)


def parse_version(raw: Any) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isdigit() and len(raw) <= 18:
        return int(raw)
    raise PageError(422, "version: the game version the page shows")


# ---- the replay ------------------------------------------------------------------------------


def replays() -> ReplayCache:
    """This app's replays of stored games: a finished game's, parsed,
    verified and walked once (an ended game's log never changes)."""
    cache: ReplayCache = current_app.extensions.setdefault("opus_web_replays", ReplayCache())
    return cache


def uploaded_replays() -> ReplayCache:
    """Uploads' replays, by digest, apart and fewer: anyone may upload, and
    their uploads must not push the stored games' replays out."""
    cache: ReplayCache = current_app.extensions.setdefault(
        "opus_web_uploaded_replays", ReplayCache(UPLOADED_REPLAYS)
    )
    return cache


def stored_replay(game_id: UUID) -> Replay:
    def make() -> Replay:
        records = game_export(services().opus, game_id)
        if not records:
            raise GameNotFoundError(f"no game {game_id}")
        try:
            replay = Replay(check_records(list(records)))
        except ReplayError as e:
            raise PageError(409, str(e)) from None
        replay.verdict()
        return replay

    return replays().get(("stored", game_id), make)


def step_arg(default: int) -> int:
    raw = request.values.get("step", "")
    return int(raw) if raw.isdigit() and len(raw) <= 9 else default


def replay_context(replay: Replay, n: int) -> dict[str, Any]:
    at: Step = replay.step(n)
    awards: dict[int, list[dict[str, Any]]] = {}
    for award in at.awards:
        awards.setdefault(award["seat"], []).append(award)
    return {
        "at": at,
        "doc": at.table,
        "stacks": at.stacks,
        "awards": awards,
        "rules": at.rules,
        "award_href": lambda award: f"?step={award['cause_version']}",
    }


@blp.get("/replay/<uuid:game_id>")
def replay(game_id: UUID) -> str:
    stored = stored_replay(game_id)
    context = replay_context(stored, step_arg(stored.total))
    return render_template("web/replay.html", verdict=stored.verdict(), stored=True, **context)


@blp.get("/replay/<uuid:game_id>/view")
def replay_view(game_id: UUID) -> str:
    context = replay_context(stored_replay(game_id), step_arg(1))
    return render_template("web/_replay_step.html", **context)


@blp.get("/replay")
def replay_form() -> str:
    return render_template(
        "web/replay_upload.html", games=services().views.lobby()["ended"], problem=None
    )


@blp.post("/replay")
def replay_upload() -> Any:
    """An uploaded export, replayed as the stored game is: the whole page,
    or (``part=view``) the step's part of it, for the script."""
    upload = request.files.get("export")
    if upload is None:
        raise PageError(422, "export: choose an export file")
    try:
        uploaded = uploaded_replays().uploaded(upload.read())
    except (UnicodeDecodeError, ReplayError) as e:
        if request.form.get("part") == "view":
            raise PageError(422, str(e)) from None
        games = services().views.lobby()["ended"]
        page = render_template("web/replay_upload.html", games=games, problem=str(e))
        return page, 422
    context = replay_context(uploaded, step_arg(uploaded.total))
    if request.form.get("part") == "view":
        return render_template("web/_replay_step.html", **context)
    checked = uploaded.verdict()
    return render_template("web/replay.html", verdict=checked, stored=False, **context)


# ---- tournaments ---------------------------------------------------------------------------


@blp.get("/tournament/<uuid:tournament_id>")
def tournament(tournament_id: UUID) -> str:
    caught_up(("tournaments",), after_arg())
    views = services().views
    doc = views.tournament(tournament_id)
    if doc is None:
        raise TournamentNotFoundError(f"no tournament {tournament_id}")
    raw = request.args.get("round", "")
    sealed_round = int(raw) if raw.isdigit() and len(raw) <= 5 else None
    standings = views.standings(tournament_id, sealed_round)
    if standings is None and sealed_round is not None:
        raise PageError(404, f"round {sealed_round} is not closed")
    return render_template(
        "web/tournament.html",
        t=doc,
        standings=standings,
        sealed_round=sealed_round,
        members=views.members(tournament_id),  # registrations that are accounts'
    )


# ---- the language ---------------------------------------------------------------------------


@blp.get("/lang/<lang>")
def language(lang: str) -> BaseResponse:
    if lang not in LANGS:
        raise PageError(404, f"languages: {', '.join(LANGS)}")
    response = redirect(local_path(request.args.get("next", "/")), 303)
    response.set_cookie(
        LANG_COOKIE,
        lang,
        max_age=365 * 24 * 3600,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Lax",
    )
    return response


def local_path(target: str) -> str:
    """``target`` if it is a path on this site, else the lobby (no open redirect)."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    if "\\" in target or any(ord(c) < 32 for c in target):
        return "/"
    return target

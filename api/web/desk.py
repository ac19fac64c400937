"""The organiser's desk: a page for every tournament command, the players'
own part of a tournament's page, and a lobby game's organiser controls.

Its routes join the pages blueprint (api/web/pages.py); its words are
api/web/words/desk.py.

- ``GET``/``POST /desk/tournament/new``: create a tournament (T1.1) with
  every option of the API's ``CreateTournamentSchema``: the form is drawn
  from that schema and read back through it (``form_body``), so the API and
  the page take the same options with the same bounds. The organiser's
  token is kept in an HttpOnly cookie (``opus_org_<tournament>``), as a
  lobby game's creator's is.
- ``GET /desk/tournament/<id>``: the desk; ``POST …/register``, ``/drop``,
  ``/pair``, ``/games/<game>/call``, ``/correct``, ``/penalise``,
  ``/finish``: each one command of ``Opus.tournaments``, its form read by
  the API's schema for it. A registration's token is shown once, on the
  page that answers it, to be handed to the player, who enters it on the
  tournament's page (``/claim``) or sends it to the API.
- ``POST /tournament/<id>/register``, ``/claim``, ``/drop-out``: a player's
  own registration (anyone may register), taking a registration token the
  organiser handed over, and a player's own drop (T2.2). The registration
  token (``opus_reg_<tournament>``) holds the player's seat in each of the
  tournament's games, which the table page looks for (``pages.seat_holder``).
- ``POST /table/<game>/remove-seat``, ``/withdraw``: a lobby game's
  organiser removes a seat before the start, or withdraws one (R3.5).
- A lobby game by invitation: its organiser's table page shows the
  invitation link (``/table/<game>?invite=<code>``); a table page opened
  by it keeps the code (a cookie) for its join form, and anyone else is
  told the game is by invitation (``invitation_for``); the join checks the
  code (``Opus.join``'s ``invitation``), as the API's does.

Who is asking is the cookie's token hash, never a form field; every
command's own authorisation decides (the pipeline refuses another's token:
403). Every desk form carries the tournament's version as the page showed
it, and its command expects that version (the API's If-Match): a form from
a page another organiser's tab has overtaken is refused (409) and the desk
is shown again as it is now, saying so. A refusal is shown on the page the
form came from, with the rule that refused it.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from flask import g, redirect, render_template, request, url_for
from marshmallow import Schema, ValidationError, fields, missing, validate
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response as BaseResponse

from api.identity import new_token, token_hash
from api.runtime import services
from api.schemas import WithdrawSchema
from api.tournament_schemas import (
    CallSchema,
    ConstraintSchema,
    CorrectionSchema,
    CreateTournamentSchema,
    DropSchema,
    PairSchema,
    PenaltySchema,
    RegisterSchema,
)
from api.web.i18n import STRINGS, text
from api.web.pages import PageError, after_arg, blp, caught_up, parse_version, table_url
from api.web.session import (
    TOKEN,
    keep_token,
    new_holding,
    organiser_cookie,
    organiser_hash,
    registration_cookie,
    registration_hash,
    signed_in,
)
from domain.errors import NotAuthorisedError, TournamentNotFoundError, VersionClashError
from domain.pipeline import Caller, CommandOutcome
from domain.ruleset import RuleSet
from domain.tournaments.commands import TournamentCommands

# the API's schemas, built once (as the API builds its own)
CREATE = CreateTournamentSchema()
REGISTER = RegisterSchema()
DROP = DropSchema()
PAIR = PairSchema()
CALL = CallSchema()
CORRECT = CorrectionSchema()
PENALISE = PenaltySchema()
CONSTRAIN = ConstraintSchema()  # T11.1 (revision 4)
SEAT = WithdrawSchema()

INTEGER = re.compile(r"-?[0-9]{1,18}")
# what a desk command did, said by the desk it leads to (``?done=``)
DONE = frozenset(
    {"created", "registered", "dropped", "paired", "called", "corrected", "penalised", "finished"}
    | {"constrained"}  # T11.1 (revision 4)
)


def tournaments() -> TournamentCommands:
    return services().opus.tournaments


# ---- forms read by the API's schemas ----------------------------------------------------


def form_body(schema: Schema, form: MultiDict[str, str], prefix: str = "") -> dict[str, Any]:
    """A form as the JSON body the API's ``schema`` reads: each of the
    schema's fields under its own name (a nested schema's as
    ``outer.inner``); a whole number's text becomes the number; a list is
    one input per item (or one input, its items separated by commas); a
    check box is true when sent. An empty field that is not required is
    left out, so the schema's default stands; anything else is passed as it
    came, for the schema to refuse in its own words."""
    body: dict[str, Any] = {}
    for name, field in schema.fields.items():
        key = f"{prefix}{name}"
        if isinstance(field, fields.Nested):
            nested = field.schema
            assert isinstance(nested, Schema)
            body[name] = form_body(nested, form, f"{key}.")
        elif isinstance(field, fields.Boolean):
            body[name] = form.get(key) in ("on", "1", "true")
        elif isinstance(field, fields.List):
            items = [item.strip() for raw in form.getlist(key) for item in raw.split(",")]
            if any(items):
                body[name] = [_scalar(field.inner, item) for item in items]
        else:
            raw = form.get(key, "")
            if raw != "" or field.required:
                body[name] = _scalar(field, raw)
    return body


def _scalar(field: fields.Field[Any], raw: str) -> Any:
    if isinstance(field, fields.Integer) and INTEGER.fullmatch(raw.strip()):
        return int(raw.strip())
    return raw


def load(schema: Schema, form: MultiDict[str, str]) -> dict[str, Any]:
    """The form read by the API's schema; 422 naming each invalid field."""
    try:
        args: dict[str, Any] = schema.load(form_body(schema, form))
    except ValidationError as e:
        problems = "; ".join(f"{where}: {what}" for where, what in _messages(e.messages))
        raise PageError(422, text("desk_invalid", g.lang, problems=problems)) from None
    return args


def _messages(messages: Any, where: str = "") -> list[tuple[str, str]]:
    if isinstance(messages, dict):
        found: list[tuple[str, str]] = []
        for key, inner in messages.items():
            found += _messages(inner, f"{where}.{key}" if where else str(key))
        return found
    if isinstance(messages, list):
        return [(where, " ".join(str(m) for m in messages))]
    return [(where, str(messages))]


@dataclass(frozen=True)
class FormField:
    """One input of a form drawn from a schema (``form_fields``)."""

    name: str  # the form's name for it: the schema's ("tables.min" for a nested one)
    kind: str  # "text", "number", "check", "choice", "numbers" (a list: one input each) or "group"
    default: Any = None
    required: bool = False
    low: int | None = None
    high: int | None = None
    length: int | None = None  # at most this many characters (or, for "numbers", items)
    choices: tuple[str, ...] = ()
    parts: tuple[FormField, ...] = ()  # a group's

    description: str = ""  # the schema's, for an option the pages have no words for yet

    @property
    def words(self) -> str:
        """Its words' key stem (api/web/words/desk.py): desk_field_<name>."""
        return "desk_field_" + self.name.replace(".", "_")

    def said(self, suffix: str, lang: str, **values: Any) -> str:
        """Its words (``suffix``: "", "_hint", "_<choice>", "_item") in
        ``lang``; for an option the schema has and the words do not yet,
        its name, its description, its choice as it is."""
        key = self.words + suffix
        if key in STRINGS:
            return text(key, lang, **values)
        unsaid = {"": self.name, "_hint": self.description, "_item": str(values.get("n", ""))}
        return unsaid.get(suffix, suffix.removeprefix("_"))

    @property
    def dom_id(self) -> str:
        return "f-" + self.name.replace(".", "-")


def form_fields(
    schema: Schema, prefix: str = "", defaults: dict[str, Any] | None = None
) -> tuple[FormField, ...]:
    """The inputs of a form for ``schema``, with its bounds and defaults:
    the required fields first, then the schema's order."""
    defaults = defaults or {}
    made: list[FormField] = []
    for name, field in schema.fields.items():
        key = f"{prefix}{name}"
        default = field.load_default
        default = default() if callable(default) else default
        default = defaults.get(key, None if default is missing else default)
        bounds = _bounds(field)
        if isinstance(field, fields.Nested):
            nested = field.schema
            assert isinstance(nested, Schema)
            parts = form_fields(nested, f"{key}.", defaults)
            made.append(FormField(key, "group", parts=parts))
        elif isinstance(field, fields.Boolean):
            made.append(FormField(key, "check", default=bool(default)))
        elif isinstance(field, fields.List):
            inner = _bounds(field.inner)
            made.append(
                FormField(
                    key,
                    "numbers",
                    default=list(default or []),
                    required=field.required,
                    low=inner["low"],
                    high=inner["high"],
                    length=bounds["length"],
                )
            )
        elif bounds["choices"]:
            made.append(FormField(key, "choice", default=default, choices=bounds["choices"]))
        elif isinstance(field, fields.Integer):
            made.append(
                FormField(
                    key,
                    "number",
                    default=default,
                    required=field.required,
                    low=bounds["low"],
                    high=bounds["high"],
                )
            )
        else:
            made.append(
                FormField(
                    key,
                    "text",
                    default=default,
                    required=field.required,
                    length=bounds["length"],
                )
            )
    described = [
        replace(
            f,
            description=str(
                schema.fields[f.name.rpartition(".")[2]].metadata.get("description", "")
            ),
        )
        for f in made
    ]
    described.sort(key=lambda f: not f.required)
    return tuple(described)


def _bounds(field: fields.Field[Any]) -> dict[str, Any]:
    bounds: dict[str, Any] = {"low": None, "high": None, "length": None, "choices": ()}
    for validator in field.validators:
        if isinstance(validator, validate.Range):
            bounds["low"], bounds["high"] = validator.min, validator.max
        elif isinstance(validator, validate.Length):
            bounds["length"] = validator.equal if validator.equal is not None else validator.max
        elif isinstance(validator, validate.OneOf):
            bounds["choices"] = tuple(str(c) for c in validator.choices)
    return bounds


# the create form's fields that are not the command's options by their own names
RULES_AND_SIZES = frozenset({"name", "draw", "guild", "stage_points", "tables"})
CREATE_FIELDS = form_fields(CREATE, defaults={"stage_points": list(RuleSet().stage_points)})


def longest(schema: Schema, name: str) -> int | None:
    """The most characters ``schema``'s field ``name`` takes (for maxlength)."""
    length: int | None = _bounds(schema.fields[name])["length"]
    return length


LIMITS = {
    "name": longest(REGISTER, "name"),
    "contribution": longest(REGISTER, "contribution"),
    "team": longest(REGISTER, "team"),  # T11.1
    "by": longest(CALL, "by"),
    "reason": longest(CORRECT, "reason"),
    "beacon": longest(PAIR, "beacon"),
}


# ---- who asks ----------------------------------------------------------------------------


def organiser_of(tournament_id: UUID) -> str:
    """The hash of the organiser token this browser holds for the
    tournament; 403 without one. Whether it is the organiser's is the
    command's to decide (the pipeline), never a form's."""
    digest = organiser_hash(request, tournament_id)
    if digest is None:
        raise PageError(403, text("desk_not_organiser", g.lang))
    return digest


def form_version() -> int:
    """The tournament version the desk showed (its forms' hidden field)."""
    version = parse_version(request.form.get("version"))
    if version is None:
        raise PageError(422, text("desk_no_version", g.lang))
    return version


def as_organiser(tournament_id: UUID) -> Caller:
    """The organiser's caller for a desk form: its cookie's token hash and
    the version the form was made from."""
    digest = organiser_of(tournament_id)
    g.page_on_error = desk_again(tournament_id)
    return Caller(digest, expected_version=form_version())


# ---- creating a tournament ---------------------------------------------------------------


@blp.get("/desk/tournament/new")
def desk_new() -> str:
    return render_template("web/desk_new.html", fields=CREATE_FIELDS, form=MultiDict(), notice="")


@blp.post("/desk/tournament/new")
def desk_create() -> BaseResponse:
    """T1.1: a tournament with the options the form gives, read by the
    API's schema; this browser keeps its organiser token (a signed-in
    browser's account holds the tournament: api/web/session.py's
    ``new_holding``)."""

    def again(e: Exception, words: str) -> str:
        return render_template(
            "web/desk_new.html", fields=CREATE_FIELDS, form=request.form, notice=words
        )

    g.page_on_error = again
    args = load(CREATE, request.form)
    rules = RuleSet(
        draw=args["draw"],
        guild=args["guild"],
        stage_points=tuple(args["stage_points"] or RuleSet().stage_points),
    )
    tables = args["tables"]
    # every other option of the schema is the command's own (weight, late_until, …)
    options = {k: v for k, v in args.items() if k not in RULES_AND_SIZES}
    token, digest = new_holding(request)
    result = tournaments().create(
        args["name"],
        caller=Caller(digest),
        rules=rules,
        sizes=(tables["min"], tables["preferred"], tables["max"]),
        **options,
    )
    response = desk_redirect(result.aggregate_id, result, "created")
    if token is not None:  # a signed-in browser's account holds it instead
        keep_token(response, request, organiser_cookie(result.aggregate_id), token)
    return response


# ---- the desk ------------------------------------------------------------------------------


def desk_context(tournament_id: UUID, after: int | None) -> dict[str, Any]:
    """What the desk shows: the tournament as the view holds it (once it has
    reached ``after``), and its version, which every form carries."""
    caught_up(("tournaments",), after)
    views = services().views
    t = views.tournament(tournament_id)
    if t is None:
        raise TournamentNotFoundError(f"no tournament {tournament_id}")
    rounds = t["rounds_paired"]
    current = rounds[-1] if rounds else None
    return {
        "t": t,
        "standings": views.standings(tournament_id, None),
        "version": t["version"],
        "current": current,
        "open_round": current is not None and not current["closed"],
        "registering": t["status"] != "finished"
        and len(rounds) < t["late_until"]
        and not last_round_paired(t),
        "needs_beacon": not rounds and bool(t["beacon"]),
        # revision 4: constraints until round 1 is paired (T11.1); the cut next (T12)
        "constraining": not rounds and t["status"] != "finished" and t.get("revision") == 4,
        "cut_next": bool(t.get("cut")) and t["rounds"] is not None and len(rounds) == t["rounds"],
        "results": [(r, table) for r in rounds for table in r["tables"] if table["result"]],
        "active": [p for p in t["players"] if not p["dropped"]],
        "names": {p["player"]: p["name"] for p in t["players"]},
        "limits": LIMITS,
        "issued": None,
        "done": "",
        "notice": "",
    }


def last_round_paired(t: dict[str, Any]) -> bool:
    """T2.3 from revision 4 on: no registration once the last (Swiss) round is paired."""
    return (
        t.get("revision") == 4
        and t["rounds"] is not None
        and len(t["rounds_paired"]) >= t["rounds"]
    )


def desk_again(tournament_id: UUID) -> Callable[[Exception, str], str | None]:
    """The desk again after a refusal, as it is now, saying why; None (the
    plain error page) for a caller who is not the organiser, or a
    tournament that is not there."""

    def again(e: Exception, words: str) -> str | None:
        if isinstance(e, NotAuthorisedError | TournamentNotFoundError):
            return None
        if isinstance(e, PageError) and e.status == 403:
            return None
        if isinstance(e, VersionClashError):
            words = text("desk_stale", g.lang)
        context = desk_context(tournament_id, services().views.head())
        return render_template("web/desk_tournament.html", **{**context, "notice": words})

    return again


def desk_redirect(tournament_id: UUID, result: CommandOutcome, done: str) -> BaseResponse:
    """To the desk, once its view has reached the command (``after``)."""
    return redirect(
        url_for("pages.desk", tournament_id=tournament_id, after=result.position, done=done),
        303,
    )


@blp.get("/desk/tournament/<uuid:tournament_id>")
def desk(tournament_id: UUID) -> str:
    organiser_of(tournament_id)
    context = desk_context(tournament_id, after_arg())
    done = request.args.get("done", "")
    context["done"] = done if done in DONE else ""
    return render_template("web/desk_tournament.html", **context)


@blp.post("/desk/tournament/<uuid:tournament_id>/register")
def desk_register(tournament_id: UUID) -> str:
    """T2.1 on a player's behalf: a new token holds the registration, and
    the page that answers shows it once, to be handed to the player."""
    caller = as_organiser(tournament_id)
    args = load(REGISTER, request.form)
    token, digest = new_token()
    result = tournaments().register(
        tournament_id,
        args["name"],
        args["contribution"],
        caller=Caller(digest, expected_version=caller.expected_version),
        team=args["team"],
    )
    context = desk_context(tournament_id, result.position)
    context["issued"] = {"player": result.value, "name": args["name"], "token": token}
    context["done"] = "registered"
    return render_template("web/desk_tournament.html", **context)


@blp.post("/desk/tournament/<uuid:tournament_id>/constrain")
def desk_constrain(tournament_id: UUID) -> BaseResponse:
    """T11.1: two players kept apart, until round 1 is paired."""
    caller = as_organiser(tournament_id)
    args = load(CONSTRAIN, request.form)
    result = tournaments().constrain(
        tournament_id, args["players"], args["reason"], args["by"], caller=caller
    )
    return desk_redirect(tournament_id, result, "constrained")


@blp.post("/desk/tournament/<uuid:tournament_id>/drop")
def desk_drop(tournament_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    args = load(DROP, request.form)
    result = tournaments().drop(tournament_id, args["player"], caller=caller)
    return desk_redirect(tournament_id, result, "dropped")


@blp.post("/desk/tournament/<uuid:tournament_id>/pair")
def desk_pair(tournament_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    args = load(PAIR, request.form)
    result = tournaments().pair(tournament_id, caller=caller, beacon=args["beacon"])
    return desk_redirect(tournament_id, result, "paired")


@blp.post("/desk/tournament/<uuid:tournament_id>/games/<uuid:game_id>/call")
def desk_call(tournament_id: UUID, game_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    args = load(CALL, request.form)
    result = tournaments().call(tournament_id, game_id, args["by"], caller=caller)
    return desk_redirect(tournament_id, result, "called")


@blp.post("/desk/tournament/<uuid:tournament_id>/correct")
def desk_correct(tournament_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    args = load(CORRECT, request.form)
    result = tournaments().correct(
        tournament_id, args["game"], args["places"], args["reason"], args["by"], caller=caller
    )
    return desk_redirect(tournament_id, result, "corrected")


@blp.post("/desk/tournament/<uuid:tournament_id>/penalise")
def desk_penalise(tournament_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    args = load(PENALISE, request.form)
    result = tournaments().penalise(
        tournament_id, args["player"], args["points"], args["reason"], args["by"], caller=caller
    )
    return desk_redirect(tournament_id, result, "penalised")


@blp.post("/desk/tournament/<uuid:tournament_id>/finish")
def desk_finish(tournament_id: UUID) -> BaseResponse:
    caller = as_organiser(tournament_id)
    result = tournaments().finish(tournament_id, caller=caller)
    return desk_redirect(tournament_id, result, "finished")


# ---- the players' own part of a tournament's page ----------------------------------------


@blp.app_template_global()
def tournament_visitor(t: dict[str, Any]) -> dict[str, Any]:
    """Who this browser is in the tournament ``t`` (the view's document):
    its organiser (a link to the desk), a registered player (their number,
    name and current game), or neither (who may register while T2.3 allows)."""
    tournament_id = UUID(t["tournament"])
    digest = registration_hash(request, tournament_id)
    player = tournaments().player_of(tournament_id, digest) if digest else None
    game = None
    if player is not None and t["rounds_paired"]:
        for table in t["rounds_paired"][-1]["tables"]:
            if player in table["players"] and table["result"] is None:
                game = table["game"]
    entrants = {p["player"]: p for p in t["players"]}
    me = entrants.get(player) if player is not None else None
    return {
        "organiser": organiser_hash(request, tournament_id) is not None,
        "player": player,
        "me": me,
        "game": game,
        "registering": t["status"] != "finished"
        and len(t["rounds_paired"]) < t["late_until"]
        and not last_round_paired(t),
        # a signed-in browser acts with its account alone: a token cookie is not looked at
        "takes_tokens": signed_in(request) is None,
        "limits": LIMITS,
    }


def tournament_again(tournament_id: UUID) -> Callable[[Exception, str], str | None]:
    """The tournament's page again after a refusal of a player's form, saying why."""

    def again(e: Exception, words: str) -> str | None:
        caught_up(("tournaments",), services().views.head())
        views = services().views
        t = views.tournament(tournament_id)
        if t is None:
            return None
        standings = views.standings(tournament_id, None)
        return render_template(
            "web/tournament.html", t=t, standings=standings, sealed_round=None, notice=words
        )

    return again


def tournament_redirect(tournament_id: UUID, result: CommandOutcome) -> BaseResponse:
    return redirect(
        url_for("pages.tournament", tournament_id=tournament_id, after=result.position), 303
    )


@blp.post("/tournament/<uuid:tournament_id>/register")
def tournament_register(tournament_id: UUID) -> BaseResponse:
    """T2.1: a player registers themselves; this browser keeps the
    registration token, which holds their seat in each of their games."""
    g.page_on_error = tournament_again(tournament_id)
    args = load(REGISTER, request.form)
    held = registration_hash(request, tournament_id)
    if held is not None and tournaments().player_of(tournament_id, held) is not None:
        raise PageError(409, text("desk_registered_already", g.lang))
    token, digest = new_holding(request)
    result = tournaments().register(
        tournament_id, args["name"], args["contribution"], caller=Caller(digest), team=args["team"]
    )
    response = tournament_redirect(tournament_id, result)
    if token is not None:  # a signed-in browser's account holds it instead
        keep_token(response, request, registration_cookie(tournament_id), token)
    return response


@blp.post("/tournament/<uuid:tournament_id>/claim")
def tournament_claim(tournament_id: UUID) -> BaseResponse:
    """A registration token the organiser handed over, kept by this browser
    once the tournament knows it as a registration of its own."""
    g.page_on_error = tournament_again(tournament_id)
    token = request.form.get("token", "").strip()
    if not TOKEN.fullmatch(token):
        raise PageError(422, text("desk_token_shape", g.lang))
    player = tournaments().player_of(tournament_id, token_hash(token))
    if player is None:
        raise PageError(403, text("desk_not_a_registration", g.lang))
    response = redirect(url_for("pages.tournament", tournament_id=tournament_id), 303)
    keep_token(response, request, registration_cookie(tournament_id), token)
    return response


@blp.post("/tournament/<uuid:tournament_id>/drop-out")
def tournament_drop_out(tournament_id: UUID) -> BaseResponse:
    """T2.2: the player this browser's registration token holds drops."""
    g.page_on_error = tournament_again(tournament_id)
    digest = registration_hash(request, tournament_id)
    player = tournaments().player_of(tournament_id, digest) if digest else None
    if digest is None or player is None:
        raise PageError(403, text("desk_not_registered", g.lang))
    result = tournaments().drop(tournament_id, player, caller=Caller(digest))
    return tournament_redirect(tournament_id, result)


# ---- a lobby game's organiser ----------------------------------------------------------------


@blp.app_template_global()
def organiser_idle_seconds() -> int:
    """R3.5: how long a seat's turn waits before its organiser may withdraw it."""
    return round(services().inactivity_seconds)


def seat_arg() -> int:
    """The seat a form names, numbered from 1 as the pages show seats, as
    the API's schema takes it (from 0)."""
    raw = request.form.get("seat", "").strip()
    body = {"seat": int(raw) - 1 if INTEGER.fullmatch(raw) else raw}
    try:
        seat: int = SEAT.load(body)["seat"]
    except ValidationError:
        raise PageError(422, text("desk_seat_invalid", g.lang)) from None
    return seat


def game_organiser(game_id: UUID) -> str:
    g.table_on_error = game_id
    digest = organiser_hash(request, game_id)
    if digest is None:
        raise PageError(403, text("desk_not_game_organiser", g.lang))
    return digest


@blp.post("/table/<uuid:game_id>/remove-seat")
def table_remove_seat(game_id: UUID) -> BaseResponse:
    """Before the start: a seat removed, those after it move down. The form
    carries the game's version: a seat's number changes when one before it
    goes, so a form from before another change is refused."""
    digest = game_organiser(game_id)
    seat = seat_arg()
    expected = parse_version(request.form.get("version"))
    result = services().opus.remove_seat(
        game_id, seat, caller=Caller(digest, expected_version=expected)
    )
    return redirect(table_url(game_id, result.position), 303)


@blp.post("/table/<uuid:game_id>/withdraw")
def table_withdraw(game_id: UUID) -> BaseResponse:
    """R3.5: the seat whose turn it is, once it has waited the game's
    inactivity limit (the API's withdraw, with the same limit)."""
    digest = game_organiser(game_id)
    seat = seat_arg()
    svc = services()
    result = svc.opus.withdraw(
        game_id, seat, caller=Caller(digest), idle_seconds=svc.inactivity_seconds
    )
    return redirect(table_url(game_id, result.position), 303)


# ---- a lobby game by invitation ------------------------------------------------------------

INVITE_COOKIE = "opus_invite_"
INVITE = re.compile(r"[A-Za-z0-9_-]{1,100}")  # an invitation code as a link carries it


def invite_cookie(game_id: UUID) -> str:
    return f"{INVITE_COOKIE}{game_id}"


@blp.app_template_global()
def invitation_for(game: str) -> dict[str, Any]:
    """Who may join the game from this browser: ``open`` (anyone may), or
    ``invite``, the game's code when this browser brought it (the
    invitation link's ``?invite=``, kept by the table page in a cookie so
    the table's live part, rendered again, keeps it); else neither, and the
    page says the game is by invitation."""
    game_id = UUID(game)
    code = services().opus.invitation_code(game_id)
    if code is None:
        return {"open": True, "invite": None}
    sent = request.args.get("invite") or request.cookies.get(invite_cookie(game_id)) or ""
    brought = hmac.compare_digest(sent.encode(), code.encode())
    return {"open": False, "invite": code if brought or organises(game_id) else None}


def organises(game_id: UUID) -> bool:
    """Whether this browser holds the game's organiser token, as the game
    records it (a cookie's presence alone says nothing: anyone may set one)."""
    digest = organiser_hash(request, game_id)
    return digest is not None and services().opus.organises(game_id, digest)


@blp.app_template_global()
def invitation_link(game: str) -> str | None:
    """The invitation link of a game by invitation, for its organiser to
    send; None for an open game, and for anyone else."""
    game_id = UUID(game)
    code = services().opus.invitation_code(game_id)
    if code is None or not organises(game_id):
        return None
    return url_for("pages.table", game_id=game, invite=code, _external=True)


@blp.after_request
def keep_invitation(response: BaseResponse) -> BaseResponse:
    """A table page opened by its invitation link keeps the link's code in
    an HttpOnly cookie for that game alone (checked by the join, never
    trusted here): the join form the table's script renders again carries
    it too."""
    code = request.args.get("invite", "")
    if request.endpoint == "pages.table" and response.status_code == 200 and INVITE.fullmatch(code):
        game_id = (request.view_args or {}).get("game_id")
        if isinstance(game_id, UUID):
            response.set_cookie(
                invite_cookie(game_id),
                code,
                max_age=7 * 24 * 3600,
                path="/",
                secure=request.is_secure,
                httponly=True,
                samesite="Strict",
            )
    return response

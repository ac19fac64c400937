"""``opus ratings``: the accounts by rating, one account's history, the
seats' effects (the ratings view, projections/ratings.py); and the check
``opus verify --ratings`` runs (``check_ratings``), on the store or on an
export that carries the ratings (``opus export --ratings``: the ratings
line, with the holdings that bind its seats to their accounts,
domain/seat_holdings.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import click

from domain.audit import Record
from domain.ratings import TOLERANCE, VERSION, Ledger, Parameters, differences
from domain.seat_holdings import SHOWN_PROBLEMS, Holding, problems, read_holdings
from domain.sharding import shard_position
from infra.bootstrap import log_head, open_application, open_views
from infra.settings import Settings
from infra.shards import shard_apps
from projections.ports import ViewStoreError
from projections.queries import Queries
from projections.ratings import holder_of, holdings_of, ledger_from_log, rate_across_shards

SHOWN_DIFFERENCES = 5  # differences printed by verify; the count says how many there are


def describe(model: Mapping[str, Any]) -> str:
    """What the ratings were computed with, in one line."""
    p = model["parameters"]
    scale = "a settled table's scale" if p.get("seat_scale") else "each game's scale"
    return (
        f"{model['library']} {model['version']} {model['model']}: μ₀ {p['mu']:g}, "
        f"σ₀ {p['sigma']:.4g}, β {p['beta']:.4g}, τ {p['tau']:.4g}, κ {p['kappa']:g}, "
        f"seats μ₀ {p['seat_mu']:g}, σ₀ {p['seat_sigma']:.4g} on {scale}; "
        f"shown {model['shown']}"
    )


@click.command()
@click.argument("account", required=False)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--seats", is_flag=True, help="The seats' effects too.")
@click.option("--json", "as_json", is_flag=True, help="Print the view's answer as JSON.")
@click.option("--generation", help="Read this generation (e.g. asof1234) instead of the live one.")
@click.option("--after", type=int, help="Wait until the view has reached this position.")
def ratings(
    account: str | None,
    limit: int,
    seats: bool,
    as_json: bool,
    generation: str | None,
    after: int | None,
) -> None:
    """The accounts by rating (the conservative estimate μ − 3σ, scaled), or
    ACCOUNT's rating with its history, one line per rated game."""
    settings = Settings.from_env()
    store = open_views(settings)
    queries = Queries(store, shards=settings.shard_count)
    try:
        reflected = queries.reflected("ratings", generation=generation)
        if account is not None:
            found = queries.rating(account, after=after, generation=generation)
            if found is None:
                raise click.ClickException(f"no account {account} in the ratings view")
            lines = account_lines(found)
            result: Any = found
        else:
            result = queries.ratings(limit, after=after, generation=generation)
            lines = board_lines(result, seats)
    except (ViewStoreError, TimeoutError) as e:
        raise click.ClickException(str(e)) from e
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    at = f"position {reflected['position']}"
    if "positions" in reflected:  # with shards: each shard's
        at = "positions " + ", ".join(str(p) for p in reflected["positions"])
    click.echo(f"ratings view at {at}; {describe(result['model'])}")
    for line in lines:
        click.echo(line)


def board_lines(found: Mapping[str, Any], seats: bool) -> list[str]:
    lines = [f"{found['rated']} accounts rated"]
    if found["players"]:
        lines.append(f"{'rank':>4} {'rating':>7} {'μ':>7} {'σ':>6} {'games':>6}  name")
        for row in found["players"]:
            bot = f" ({row['kind']})" if row["kind"].startswith("bot:") else ""
            lines.append(
                f"{row['rank']:>4} {row['rating']:>7} {row['mu']:>7.2f} {row['sigma']:>6.2f} "
                f"{row['games']:>6}  {row['name']}{bot}  {row['account']}"
            )
    if seats:
        lines.append("seats (seat 1 plays first; effect: μ less its table's mean; share of the")
        lines.append("wins at a table of equals):")
        for row in found["seats"]:
            lines.append(
                f"  table of {row['players']}, seat {row['seat'] + 1}: effect {row['effect']:+.3f} "
                f"(μ {row['mu']:+.3f}, σ {row['sigma']:.3f}, {row['games']} games), "
                f"share {row['share']:.1%}"
            )
    return lines


def account_lines(found: Mapping[str, Any]) -> list[str]:
    rank = f"rank {found['rank']} of {found['rated']}" if found["rank"] else "not rated yet"
    lines = [
        f"{found['name']} ({found['account']}): rating {found['rating']} "
        f"(μ {found['mu']:.2f}, σ {found['sigma']:.2f}), {rank}, {found['games']} rated games"
    ]
    if found["history"]:
        lines.append(
            f"{'position':>9} {'seat':>5} {'place':>9} {'rating':>7} {'μ':>7} {'σ':>6}  game"
        )
        for point in found["history"]:
            place = f"{point['place']}/{point['rated']}" + (" w" if point["withdrawn"] else "")
            lines.append(
                f"{point['position']:>9} {point['seat'] + 1:>3}/{point['players']} {place:>9} "
                f"{point['rating']:>7} {point['mu']:>7.2f} {point['sigma']:>6.2f}  {point['game']}"
            )
    return lines


# ---- opus verify --ratings ---------------------------------------------------------------


def check_ratings(
    recorded: Mapping[str, Any], ledger: Ledger, where: str
) -> tuple[bool, list[str]]:
    """Whether the recorded ratings equal the recomputed ones (every rated
    game, seat, account and seat pseudo-player, within ``TOLERANCE``), and
    the lines that say so."""
    found = differences(recorded, ledger)
    version = recorded.get("version")
    with_what = f"recorded with {recorded.get('library')} {version}, recomputed with {VERSION}"
    if version != VERSION:
        with_what += " (another version: a difference may be the library's)"
    counts = (
        f"{len(ledger.games)} rated games, {len(ledger.accounts())} accounts, "
        f"{len(ledger.seats())} seats"
    )
    if not found:
        return True, [
            f"ok   ratings {where}: {counts} recomputed from the games within {TOLERANCE:g} "
            f"({with_what})"
        ]
    lines = [f"FAIL ratings {where}: {len(found)} differences from the games ({with_what})"]
    lines.extend(f"  {line}" for line in found[:SHOWN_DIFFERENCES])
    if len(found) > SHOWN_DIFFERENCES:
        lines.append(f"  … and {len(found) - SHOWN_DIFFERENCES} more")
    return False, lines


def parameters_of(recorded: Mapping[str, Any]) -> Parameters:
    try:
        return Parameters.from_doc(recorded["parameters"])
    except (KeyError, TypeError, ValueError) as e:
        raise click.ClickException(f"the ratings' parameters cannot be read: {e}") from None


def carried_holdings(recorded: Mapping[str, Any], records: Sequence[Record]) -> list[Holding]:
    """The holdings an export's ratings line carries (domain/seat_holdings.py),
    refused (ClickException, naming why) when it carries none, when one is
    not a holding, or when they cannot be what the accounts' events were:
    without them the line's accounts would be its word alone."""
    if "holdings" not in recorded:
        raise click.ClickException(
            "the export's ratings name the accounts at the seats but do not bind them to "
            "the log (no holdings: a line written before they were carried); export the "
            "ratings again with `opus export --ratings`"
        )
    try:
        holdings = read_holdings(recorded["holdings"])
    except ValueError as e:
        raise click.ClickException(f"the export's ratings line: {e}") from None
    positions = recorded.get("positions") or None
    found = problems(
        holdings,
        (r.position for r in records if r.position is not None),
        recorded.get("position"),
        positions,
    )
    if found:
        shown = "; ".join(found[:SHOWN_PROBLEMS])
        more = f" (and {len(found) - SHOWN_PROBLEMS} more)" if len(found) > SHOWN_PROBLEMS else ""
        raise click.ClickException(
            f"the export's ratings line binds seats to accounts falsely: {shown}{more}"
        )
    return holdings


def ledger_of_records(recorded: Mapping[str, Any], records: Sequence[Record]) -> Ledger:
    """The ratings recomputed from an export's games, up to the record's
    position, each seat's account derived from the token hash it was taken
    with and the holdings the line carries (``carried_holdings``), as on
    the store from the accounts' events."""
    holdings = carried_holdings(recorded, records)
    ledger = Ledger(parameters_of(recorded))
    if recorded.get("positions"):  # with shards: each shard's, its games in order across them
        return _across_shards(recorded["positions"], records, holdings, ledger)
    stop = recorded.get("position") or 0
    events = [
        (r.position, r.type, r.aggregate_id, r.payload)
        for r in records
        if r.position is not None and r.position <= stop and r.payload is not None
    ]
    events.extend(
        (h.position, "TokensAdopted", h.account, {"token_hashes": list(h.token_hashes)})
        for h in holdings
    )
    for position, kind, key, fields in sorted(events, key=lambda event: event[0]):
        ledger.feed(kind, key, fields, position)
    return ledger


def _across_shards(
    positions: list[int | None],
    records: Iterable[Record],
    holdings: Sequence[Holding],
    ledger: Ledger,
) -> Ledger:
    """An export of several shards: each shard's games up to the view's
    position in it (``positions``, each naming its shard), each seat the
    account's that held its token hash then (``holder_of``), rated in the
    order the ratings view rates them (``rate_across_shards``)."""
    shards = len(positions)
    stops = [0 if p is None else shard_position(p, shards)[1] for p in positions]
    logs: list[list[Record]] = [[] for _ in range(shards)]
    for record in records:
        if record.position is None or record.payload is None:
            continue
        shard, local = shard_position(record.position, shards)
        if local <= stops[shard]:
            logs[shard].append(record)
    events = [
        [
            (r.position or 0, r.timestamp, r.type, r.aggregate_id, r.payload or {})
            for r in sorted(log, key=lambda r: r.position or 0)
        ]
        for log in logs
    ]
    return rate_across_shards(events, shards, ledger, holder_of(holdings, shards))


def verify_ratings(
    settings: Settings,
    app: Any,
    records: Iterable[Record],
    carried: list[dict[str, Any]],
) -> tuple[bool, list[str]]:
    """``opus verify --ratings``: on the store (``app``), the ratings view
    against every rating recomputed from the log up to the view's position
    (the accounts' holdings read from their events); on an export, the
    ratings line it carries (``carried``, ``opus export --ratings``) against
    those recomputed from its games, each seat's account derived from the
    holdings the line carries (``ledger_of_records``). With shards, the
    view's position in each shard, and every shard's log up to it."""
    if app is not None:
        logs = shard_apps(app)
        store = open_views(settings)
        try:
            recorded = Queries(store, shards=len(logs)).ratings_record(history=True)
        finally:
            store.close()
        position = recorded["position"]
        if position is None:
            if log_head(app) == 0:
                return True, ["--   ratings: not built yet (the log is empty)"]
            return False, ["FAIL ratings: the ratings view is not built: run `opus project`"]
        if len(logs) == 1:
            stops, where = [position], f"at position {position}"
        else:  # as of the view's position in every shard
            stops = [
                0 if p is None else shard_position(p, len(logs))[1] for p in recorded["positions"]
            ]
            where = "at " + ", ".join(f"{n} of shard {k}" for k, n in enumerate(stops))
        ledger = ledger_from_log(logs, stop=stops, params=parameters_of(recorded))
        return check_ratings(recorded, ledger, where)
    if not carried:
        return False, [
            "FAIL ratings: the file carries no ratings (export them with `opus export --ratings`)"
        ]
    recorded = carried[-1]
    at = f"position {recorded.get('position')}"
    if recorded.get("positions"):  # with shards: the view's in each shard
        at = "positions " + ", ".join(str(p) for p in recorded["positions"])
    try:
        ledger = ledger_of_records(recorded, list(records))
    except click.ClickException as e:
        return False, [f"FAIL ratings of the export, at {at}: {e.message}"]
    return check_ratings(recorded, ledger, f"of the export, at {at}")


def ratings_line(settings: Settings) -> str:
    """The ratings as the view holds them now, as the export's last line:
    ``{"ratings": {...}}`` (with shards, the view's position in each), with
    the holdings that bind its rated seats to their accounts
    (domain/seat_holdings.py), read from the store up to the same position."""
    store = open_views(settings)
    try:
        recorded = Queries(store, shards=settings.shard_count).ratings_record()
    finally:
        store.close()
    app = open_application(settings)
    try:
        recorded["holdings"] = holdings_of(shard_apps(app), recorded)
    finally:
        app.close()
    return json.dumps({"ratings": recorded}, ensure_ascii=False, sort_keys=True)

"""Reading the application's event log as audit records, in log order.

What leaves the service as a log (the export, the live stream) is in the
auditor's form (domain/disclosure.py): ``game_export`` and ``export_lines``
are the two ways it is read, one game or the whole log; ``tournament_lines``
a tournament with its games (TOURNAMENT.md T10.1).

With shards (infra/shards.py) each shard has its own log: the whole log is
read shard by shard, shard 0 first, each in its order, and every record's
position is the one a client sees (``position_of``: it names its shard); a
game or a tournament is read from its shard alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from uuid import UUID

from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from domain.accounts.events import PRIVATE_TOPIC_PREFIX
from domain.application import Opus
from domain.audit import REVEALING, Record, secret_in
from domain.events import EVENT_TYPES, GameEnded
from domain.internals import positions_by_version
from domain.sharding import position_of, shard_position
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES, TournamentFinished
from domain.tournaments.verify import named_games
from infra.shards import home_shard, shard_apps

PAGE = 1000
# A position, or several: each names its shard (domain/sharding.py)
Positions = int | Iterable[int]


def read_records(
    app: Opus, after: Positions = 0, stop: Positions | None = None
) -> Iterator[Record]:
    """Every game's and tournament's event after ``after`` (up to ``stop``),
    as records (the private aggregates' are the service's own: accounts,
    names, admissions); a stored event that cannot be decoded becomes a
    record carrying the error. With shards, shard by shard: ``after`` and
    ``stop`` are positions, each naming its shard (the last read of each
    shard, to resume); a shard none names is read from its start, or to its
    end."""
    apps = shard_apps(app)
    since = per_shard(after, len(apps))
    until = per_shard(stop, len(apps)) if stop is not None else {}
    for k, shard in enumerate(apps):
        local = since.get(k, 0)
        while True:
            page = shard.recorder.select_notifications(
                start=local, limit=PAGE, stop=until.get(k), inclusive_of_start=False
            )
            for notification in page:
                if not notification.topic.startswith(PRIVATE_TOPIC_PREFIX):
                    yield to_record(shard, notification, position_of(k, notification.id, len(apps)))
            if len(page) < PAGE:
                break
            local = page[-1].id


def per_shard(positions: Positions, shards: int) -> dict[int, int]:
    """Shard -> its notification, of positions a client sees (the last
    named of each shard)."""
    found: dict[int, int] = {}
    for position in [positions] if isinstance(positions, int) else positions:
        shard, local = shard_position(position, shards)
        found[shard] = max(local, found.get(shard, 0))
    return found


def to_record(app: Opus, n: Notification, position: int | None = None) -> Record:
    """A notification as a record at ``position`` (its own id by default: one shard)."""
    type_ = n.topic.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    position = n.id if position is None else position
    try:
        record = Record.of_event(app.mapper.to_domain_event(n), position)
        # The chain covers the timestamp as isoformat() writes it; the stored
        # text must be that very text (Python reads "2026-11-30U16:48" too).
        plain = app.mapper.cipher is None and app.mapper.compressor is None
        if plain and f'"_data_":"{record.timestamp}"'.encode() not in n.state:
            raise ValueError("the stored timestamp is not written as the chain covers it")
        return record
    except Exception as e:  # a damaged row must become a verdict, not a crash
        return Record(
            position=position,
            aggregate_id=str(n.originator_id),
            version=n.originator_version,
            type=type_ if type_ in EVENT_TYPES or type_ in TOURNAMENT_EVENT_TYPES else n.topic,
            timestamp="",
            payload=None,
            chain="",
            error=f"{type(e).__name__}: {e}",
        )


def finished_games(app: Opus) -> set[str]:
    """Ids of the games whose GameEnded is in the log now, and of the
    tournaments whose TournamentFinished is."""
    topics = [get_topic(GameEnded), get_topic(TournamentFinished)]
    ended: set[str] = set()
    for shard in shard_apps(app):
        position = 0
        while True:
            page = shard.recorder.select_notifications(
                start=position, limit=PAGE, topics=topics, inclusive_of_start=False
            )
            ended.update(str(n.originator_id) for n in page)
            if len(page) < PAGE:
                break
            position = page[-1].id
    return ended


def game_records(app: Opus, game_id: UUID) -> list[Record]:
    """One game's (or tournament's) records in version order, each with its
    log position; none for an unknown id or a private aggregate's."""
    positions = game_positions(app, game_id)
    if not positions:
        return []
    # up to the last version whose position was read: an event saved since
    # is left for the next read, never given without its position
    return [
        Record.of_event(event, positions[event.originator_version])
        for event in app.events.get(game_id, lte=max(positions))
    ]


def game_records_after(
    app: Opus, game_id: UUID, version: int, *, known_public: bool
) -> list[Record]:
    """The records after ``version`` of a game whose records up to it were
    read by ``game_records`` (which found it is no private aggregate: the
    caller says so, ``known_public``), each with its log position: what was
    saved since."""
    if not known_public:
        raise ValueError("only a game read before: its first records say whether it is public")
    positions = game_positions(app, game_id, after=version, public=True)
    if not positions:
        return []
    return [
        Record.of_event(event, positions[event.originator_version])
        for event in app.events.get(game_id, gt=version, lte=max(positions))
    ]


def game_positions(
    app: Opus, game_id: UUID, *, after: int = 0, public: bool = False
) -> dict[int, int]:
    """Version -> position of one game's (or tournament's) events after
    version ``after``; empty for an unknown id or a private aggregate's (an
    account's id is public: it must read as no game), unless the caller
    knows it is ``public``. With shards, from the shard it lives on."""
    apps = shard_apps(app)
    if len(apps) > 1:
        shard = home_shard(app, game_id)
        if shard is None:
            return {}
        found = positions_by_version(apps[shard], game_id, after) or {}
        if found and not public and is_private(app, game_id):
            return {}
        return {v: position_of(shard, p, len(apps)) for v, p in found.items()}
    positions = positions_by_version(app, game_id, after)
    if positions is None:  # in memory: a scan is cheap enough
        return {
            r.version: r.position
            for r in read_records(app)
            if r.aggregate_id == str(game_id) and r.position is not None and r.version > after
        }
    if positions and not public and is_private(app, game_id):
        return {}
    return positions


def is_private(app: Opus, aggregate_id: UUID) -> bool:
    """Whether the aggregate is one of the service's own (domain/accounts)."""
    first = next(iter(app.events.get(aggregate_id, lte=1)), None)
    return first is not None and get_topic(type(first)).startswith(PRIVATE_TOPIC_PREFIX)


def game_export(app: Opus, game_id: UUID, after_version: int = 0) -> list[Record]:
    """One game's records after ``after_version``, in the auditor's form:
    hidden information only once the game has ended. Empty for an unknown game."""
    records = game_records(app, game_id)
    if not records:
        return []
    ended = records[-1].type in REVEALING
    secret = secret_in(records)
    return auditor_form([r for r in records if r.version > after_version], ended, secret)


def auditor_form(records: Iterable[Record], ended: bool, secret: str) -> list[Record]:
    """A game's records as anyone may see them (``Record.for_auditor``)."""
    return [r.for_auditor(ended, secret) for r in records]


def export_lines(app: Opus, after: Positions = 0) -> Iterator[str]:
    """The whole log after position ``after`` as NDJSON lines, in the
    auditor's form: whole for the games that have ended. With shards, shard
    by shard; ``after`` as ``read_records``'."""
    ended = finished_games(app)
    secrets: dict[str, str] = {}
    for record in read_records(app, after):
        game = record.aggregate_id
        if game not in secrets:
            secrets[game] = secret_of(app, UUID(game))
        yield record.for_auditor(game in ended, secrets[game]).line()


def secret_of(app: Opus, game_id: UUID) -> str:
    """A game's secret, from its GameCreated in the store (a tournament's,
    from its TournamentCreated)."""
    created = next(iter(app.events.get(game_id, lte=1)))
    return secret_in([Record.of_event(created, None)])


def tournament_records(
    app: Opus, tournament_id: UUID
) -> tuple[list[Record], dict[str, list[Record]]]:
    """A tournament's records and its games' (by id, in round and table
    order), in version order and in clear, as the store holds them at one
    moment: nothing recorded after the first read is taken, so a game's end
    and its result (saved together) are both in, or neither. Empty records
    for an unknown tournament."""
    apps = shard_apps(app)
    shard = home_shard(app, tournament_id) or 0  # its games' too
    stop = position_of(shard, apps[shard].recorder.max_notification_id() or 0, len(apps))
    records = _as_of(game_records(app, tournament_id), stop)
    games: dict[str, list[Record]] = {}
    for _, _, game in named_games(records):
        if game in games:
            continue
        try:
            game_id = UUID(game)
        except ValueError:
            continue  # not a game's id: verify names it
        games[game] = _as_of(game_records(app, game_id), stop)
    return records, {game: found for game, found in games.items() if found}


def _as_of(records: list[Record], stop: int) -> list[Record]:
    return [r for r in records if r.position is None or r.position <= stop]


def tournament_lines(app: Opus, tournament_id: UUID) -> Iterator[str]:
    """A tournament's export as NDJSON lines: its records, then each of its
    games' records (round by round, table by table), each in the auditor's
    form: the tournament's secret and round 1's seed sealed until it has
    finished (T9.3), a game's hidden fields until it has ended (R9.3)."""
    records, games = tournament_records(app, tournament_id)
    for group in [records, *games.values()]:
        if not group:
            continue
        ended = any(r.type in REVEALING for r in group)
        secret = secret_in(group)
        for record in group:
            yield record.for_auditor(ended, secret).line()

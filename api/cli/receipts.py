"""``opus receipts``: keys, a client's kept receipts, the global log's tree;
and ``verify_receipts``, what ``opus verify --receipts DIR`` runs.

- ``opus receipts keygen --name NAME --out FILE``: a signing key (Go's note
  format), its vkey printed;
- ``opus receipts keep --server URL (--log ID | --log global [--shard K] |
  --receipt FILE) [--store DIR]``: take the log's checkpoint now (or a
  command's receipt), check it against the one kept, keep it; ``global``:
  every shard's global log (the one store's: one), or shard K's;
- ``opus receipts check --server URL [--store DIR]``: every kept log
  against the server's checkpoint now;
- ``opus receipts rebuild [--shard K]``: the global log's tree dropped and
  made again from the log (it is a function of the log); with shards each
  shard's (all by default), each from its own log into its own database.

Exit status: 0 consistent; 1 the server misbehaved (two signed statements
printed and kept in the store's evidence/) or gave a checkpoint not signed
by its current key; 4 the client's own store is corrupted (no statement of
the server: the file is set aside).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import click

from api.cli.receipts_rotate import rotate
from domain.application import Opus
from domain.audit import Record
from domain.sharding import shard_position
from domain.transparency.evidence import Statement, analyse
from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.logs import (
    aggregate_of,
    chain_leaf,
    global_shard,
    head_leaf,
    log_verifiers,
)
from domain.transparency.note import NoteError, Signer, Verifier, open_note
from infra.receipts.aggregates import collecting
from infra.receipts.keeper import Corrupted, Keeper, Misbehaviour, Refused
from infra.receipts.keys import load_retired, load_signer
from infra.receipts.service import open_receipts
from infra.receipts.witness import write_atomically
from infra.settings import Settings

DEFAULT_STORE = "./var/kept-receipts"
CORRUPTED = 4


@click.group()
def receipts() -> None:
    """Signed receipts: keys, kept receipts, the global log (README, Receipts)."""


receipts.add_command(rotate)


@receipts.command()
@click.option("--name", required=True, help="The key's name (the logs' origin): e.g. opus.example")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, exists=False))
def keygen(name: str, out: str) -> None:
    """A new signing key in OUT (never overwritten); prints its vkey."""
    if Path(out).exists():
        raise click.ClickException(f"{out} exists: a key is never overwritten")
    signer = load_signer(out, name)
    click.echo(signer.vkey())


def _keeper(store: str, server: str) -> Keeper:
    return Keeper(store, server)


def _run(action: Callable[[], list[str]]) -> None:
    try:
        for line in action():
            click.echo(line)
    except Misbehaviour as e:
        click.echo(e.report())
        sys.exit(1)
    except Refused as e:
        click.echo(f"REFUSED: {e}")
        sys.exit(1)
    except Corrupted as e:
        click.echo(f"LOCAL STORE CORRUPTED: {e}", err=True)
        sys.exit(CORRUPTED)
    except OSError as e:
        raise click.ClickException(f"the server could not be asked: {e}") from None


@receipts.command()
@click.option("--server", required=True, help="The service's URL, e.g. http://127.0.0.1:8000")
@click.option("--log", "log", default=None, help="A game's or tournament's id, or 'global'.")
@click.option(
    "--receipt",
    "receipt_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="A command's receipt (a tlog-proof) to keep ('-': stdin).",
)
@click.option("--store", default=DEFAULT_STORE, show_default=True, help="This client's store.")
@click.option("--key", "vkey", default=None, help="The server's vkey (else trusted on first use).")
@click.option(
    "--shard",
    type=click.IntRange(0),
    default=None,
    help="With --log global: this shard's global log only (default: every shard's).",
)
def keep(
    server: str,
    log: str | None,
    receipt_file: Iterable[str] | None,
    store: str,
    vkey: str | None,
    shard: int | None,
) -> None:
    """Take a log's checkpoint (or a receipt), check it against the kept one
    by a consistency proof, keep it."""
    if (log is None) == (receipt_file is None):
        raise click.UsageError("give --log or --receipt")
    if shard is not None and log != "global":
        raise click.UsageError("--shard names a global log's shard: give it with --log global")
    text = None if receipt_file is None else "".join(receipt_file)

    def action() -> list[str]:
        keeper = _keeper(store, server)
        keys = keeper.keys(vkey)
        if log != "global":
            return [keeper.keep_latest(log or "", keys, text)]
        if shard is not None and shard >= keys.shards:
            raise click.UsageError(
                f"--shard {shard}: the server has {keys.shards} global log(s), shards 0 to "
                f"{keys.shards - 1}"
            )
        shards = range(keys.shards) if shard is None else [shard]
        return [keeper.keep_latest("global", keys, shard=k) for k in shards]

    _run(action)


@receipts.command()
@click.option("--server", required=True)
@click.option("--store", default=DEFAULT_STORE, show_default=True)
def check(server: str, store: str) -> None:
    """Every kept log against the server's checkpoint now."""

    def action() -> list[str]:
        keeper = _keeper(store, server)
        lines = keeper.check_all(keeper.keys())
        return lines or ["nothing kept yet"]

    _run(action)


@receipts.command()
@click.option(
    "--shard",
    "chosen",
    type=click.IntRange(0),
    multiple=True,
    help="This shard's global log (repeat for several; default: every shard's).",
)
def rebuild(chosen: tuple[int, ...]) -> None:
    """Drop the global log's tree and make it again from the log: with
    shards, each shard's from its own log."""
    from infra.bootstrap import open_application
    from infra.receipts.globallog import Sequencer, open_global_store
    from infra.shards import shard_apps

    settings = Settings.from_env()
    count = settings.shard_count
    for shard in chosen:
        if shard >= count:
            raise click.UsageError(
                f"--shard {shard}: the event store has {count} shard(s), 0 to {count - 1}"
            )
    app = open_application(settings)
    try:
        apps = shard_apps(app)
        for shard in sorted(set(chosen)) or range(count):
            store = open_global_store(apps[shard])
            store.drop()
            appended = Sequencer(apps[shard], store).catch_up()
            last = store.state()[1]
            if count == 1:
                click.echo(f"the global log's tree: {appended} leaves, up to position {last}")
            else:
                click.echo(
                    f"shard {shard}'s global log's tree: {appended} leaves, up to notification "
                    f"{last} of its log"
                )
    finally:
        app.close()


# ---- the receipts of the command line's own commands --------------------------------------

RECEIPTS_OUT = "./var/receipts"  # where a command's receipt is written


@contextlib.contextmanager
def cli_receipts(settings: Settings, app: Opus) -> Iterator[None]:
    """The receipts of the commands run within (``opus tournament …``), each
    written to ``RECEIPTS_OUT/<aggregate id>-<version>.tlog-proof`` and its
    path printed as ``receipt: <path>``; nothing with receipts off."""
    if open_receipts(settings.receipts, app) is None:
        yield
        return
    with collecting() as made:
        yield
    for aggregate_id, receipt in made.items():
        out = Path(RECEIPTS_OUT)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{aggregate_id}-{receipt.index + 1}.tlog-proof"
        write_atomically(path, receipt.encode())
        click.echo(f"receipt: {path}")


# ---- opus verify --receipts DIR -------------------------------------------------------------


def statement_keys(directory: Path, vkeys: tuple[str, ...]) -> list[Verifier]:
    """The keys a kept statement may be signed with: ``--key``, else the
    store's ``server.json`` (current and retired), else this service's."""
    if vkeys:
        return [Verifier.from_vkey(v) for v in vkeys]
    pinned = directory / "server.json"
    if pinned.exists():
        document = json.loads(pinned.read_text())
        return [Verifier.from_vkey(v) for v in [*document["vkeys"], *document["retired"]]]
    settings = Settings.from_env().receipts
    signer: Signer = load_signer(settings.key_file, settings.name)
    retired = load_retired(settings.retired_keys_file)
    return [signer.verifier, *(key.verifier for key in retired)]


def gather(directory: Path, keys: list[Verifier]) -> tuple[list[Statement], list[str]]:
    """Every signed statement kept under ``directory``, and what was set
    aside: each signed by one of ``keys``, or by one under the origin of a
    shard's global log (``log_verifiers``)."""
    statements, ignored = [], []
    for path in sorted(directory.rglob("*")):
        if path.suffix not in (".tlog-proof", ".checkpoint") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            receipt = TlogProof.parse(text) if path.suffix == ".tlog-proof" else None
            signed = receipt.checkpoint if receipt else SignedCheckpoint.parse(text)
            open_note(signed.encode(), log_verifiers(keys, signed.checkpoint.origin))
        except (OSError, UnicodeDecodeError, NoteError) as e:
            ignored.append(f"ignored {path}: not a statement signed by the server's keys ({e})")
            continue
        statements.append(Statement(str(path), signed, receipt))
    return statements, ignored


def verify_receipts(
    directory: str,
    records: Iterable[Record],
    vkeys: tuple[str, ...],
    whole_log: bool,
    shards: int = 1,
) -> int:
    """Kept statements against each other and against the log; the number
    of contradictions found (each printed with its two statements). With
    ``shards``, the records' positions name their shards (domain/sharding.py)
    and each shard's global log is the heads of that shard's records."""
    folder = Path(directory)
    keys = statement_keys(folder, vkeys)
    names = {key.name for key in keys}
    statements, ignored = gather(folder, keys)
    for line in ignored:
        click.echo(line)
    chains: dict[str, list[Record]] = {}
    heads: dict[int, list[bytes]] = {}
    last: dict[int, int] = {}
    ordered = True
    for record in records:
        if record.error is not None or not record.chain:
            continue
        chains.setdefault(record.aggregate_id, []).append(record)
        shard, local = shard_position(record.position or 0, shards)
        heads.setdefault(shard, []).append(
            head_leaf(record.aggregate_id, record.version, record.chain)
        )
        ordered = ordered and local > last.get(shard, 0)
        last[shard] = local

    def global_of(origin: str) -> int | None:
        for name in names:
            shard = global_shard(name, origin)
            if shard is not None:
                return shard
        return None

    def leaves_of(origin: str) -> list[bytes] | None:
        shard = global_of(origin)
        if shard is not None:
            return heads.get(shard, []) if whole_log and ordered else None
        for name in names:
            aggregate = aggregate_of(name, origin)
            if aggregate is not None:
                found = sorted(chains.get(str(aggregate), []), key=lambda r: r.version)
                return [chain_leaf(r.chain) for r in found] or None
        return None

    checked = [s for s in statements if global_of(s.origin) is None or (whole_log and ordered)]
    for skipped in set(statements) - set(checked):
        click.echo(f"not checked: {skipped.source}: the global log needs the whole log")
    findings = analyse(checked, leaves_of)
    for finding in findings:
        click.echo(finding.report())
    logs = len({s.origin for s in checked})
    if not findings:
        click.echo(
            f"no misbehaviour: {len(checked)} signed statements of {logs} logs agree with "
            "each other and with the log"
        )
    return len(findings)

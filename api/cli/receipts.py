"""``opus receipts``: keys, a client's kept receipts, the global log's tree;
and ``verify_receipts``, what ``opus verify --receipts DIR`` runs.

- ``opus receipts keygen --name NAME --out FILE``: a signing key (Go's note
  format), its vkey printed;
- ``opus receipts keep`` and ``opus receipts check``: a player's kept
  receipts, demanding the witnesses (api/cli/receipts_client.py);
- ``opus receipts rebuild [--shard K]``: the global log's tree dropped and
  made again from the log (it is a function of the log); with shards each
  shard's (all by default), each from its own log into its own database.

``verify_receipts`` takes the keys a store pinned (its ``trust.json``,
each player's when several stores are pooled) or ``--key``; never a key
nobody pinned.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import click

from api.cli.receipts_client import check, keep
from api.cli.receipts_rotate import rotate
from domain.application import Opus
from domain.audit import Record
from domain.sharding import shard_position
from domain.transparency.evidence import Finding, Statement, analyse, unpinned_keys
from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.logs import (
    aggregate_of,
    chain_leaf,
    global_shard,
    head_leaf,
    log_verifiers,
)
from domain.transparency.note import NoteError, Verifier, open_note
from domain.transparency.transitions import follow_transitions
from domain.transparency.trust import Trust, TrustError
from infra.receipts.aggregates import collecting
from infra.receipts.files import write_atomically
from infra.receipts.keeper import WELL_KNOWN_KEPT
from infra.receipts.keys import load_signer
from infra.receipts.service import open_receipts
from infra.settings import Settings


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


receipts.add_command(keep)
receipts.add_command(check)


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
    shards, each shard's from its own log. Refused, the tree untouched, when
    the log no longer gives the root the signer signed (infra/receipts/rebuild.py)."""
    from domain.transparency.history import TwoHistories
    from infra.bootstrap import open_application
    from infra.receipts.rebuild import key_name, rebuild_global_log
    from infra.receipts.signed import SignerState
    from infra.shards import shard_apps

    settings = Settings.from_env()
    count = settings.shard_count
    for shard in chosen:
        if shard >= count:
            raise click.UsageError(
                f"--shard {shard}: the event store has {count} shard(s), 0 to {count - 1}"
            )
    app = open_application(settings)
    state = SignerState(settings.receipts.signer_state_path)  # what the signer signed
    try:
        apps = shard_apps(app)
        for shard in sorted(set(chosen)) or range(count):
            try:
                done = rebuild_global_log(apps[shard], shard, key_name(settings.receipts), state)
            except TwoHistories as e:
                raise click.ClickException(f"rebuild refused: {e}") from None
            appended, last = done.leaves, done.position
            if count == 1:
                click.echo(f"the global log's tree: {appended} leaves, up to position {last}")
            else:
                click.echo(
                    f"shard {shard}'s global log's tree: {appended} leaves, up to notification "
                    f"{last} of its log"
                )
    finally:
        state.close()
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


def statement_keys(directory: Path, vkeys: tuple[str, ...]) -> tuple[list[Verifier], list[str]]:
    """The keys a kept statement may be signed with, and what the pinned
    trust files say against each other: ``--key``, else every ``trust.json``
    under ``directory`` (each player's store pins its log key and the keys
    handed over to it). No key pinned or given: a ClickException, never a
    key taken from the server that is being checked."""
    if vkeys:
        try:
            return [Verifier.from_vkey(v) for v in vkeys], []
        except NoteError as e:
            raise click.BadParameter(str(e), param_hint="--key") from None
    pinned: list[tuple[Path, Trust]] = []
    for path in sorted(directory.rglob("trust.json")):
        try:
            pinned.append((path, Trust.from_json(path.read_text(encoding="utf-8"))))
        except (OSError, UnicodeDecodeError, TrustError) as e:
            click.echo(f"ignored {path}: {e}")
    if not pinned:
        raise click.ClickException(
            f"no key to check with: {directory} holds no trust.json (a store of opus receipts "
            "keep) and no --key was given; give the log's vkey as its operator published it"
        )
    keys: list[Verifier] = []
    for _, trust in pinned:
        keys += [k for k in trust.log_keys() if k not in keys]
    return keys, _disagreements(pinned)


def _disagreements(pinned: list[tuple[Path, Trust]]) -> list[str]:
    """Two stores that pinned keys of one log name with no transition
    statement joining them: the server gave the two players two keys."""
    said = []
    for (path_a, a), (path_b, b) in itertools.combinations(pinned, 2):
        names_a = {k.name for k in a.log_keys()}
        shared = names_a & {k.name for k in b.log_keys()}
        if shared and not set(a.log_keys()) & set(b.log_keys()):
            said.append(
                f"MISBEHAVIOUR (key-change): {path_a} and {path_b} pinned different keys for "
                f"{', '.join(sorted(shared))} ({a.log} and {b.log}) and no transition statement "
                "joins them: the server gave two players two keys"
            )
    return said


def served_keys(directory: Path, keys: list[Verifier]) -> list[Finding]:
    """Each well-known document a client kept as a key change's evidence,
    checked again: its key is a pinned one, or one the transition
    statements it served lead to from a pinned one; else the key changed in
    silence."""
    findings = []
    for path in sorted(directory.rglob(WELL_KNOWN_KEPT)):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            served = Verifier.from_vkey(str(document["vkey"]))
            notes = [str(n) for n in document.get("key_transitions") or []]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
            click.echo(f"ignored {path}: not a well-known document ({e})")
            continue
        if served in keys:
            continue
        reached = False
        for pinned in keys:
            try:
                reached = reached or follow_transitions(pinned, notes)[-1] == served
            except NoteError:
                continue
        if not reached:
            findings.append(
                Finding(
                    "key-change",
                    served.name,
                    f"the server served the key {served.vkey()} (kept in {path}); no pinned key "
                    "hands over to it by a transition statement: its key changed in silence",
                )
            )
    return findings


def gather(
    directory: Path, keys: list[Verifier]
) -> tuple[list[Statement], list[Statement], list[str]]:
    """Every signed statement kept under ``directory``; those signed under
    the log's name by a key not pinned (a key changed in silence); and what
    was set aside (not a statement of the log's name)."""
    statements, unpinned, ignored = [], [], []
    for path in sorted(directory.rglob("*")):
        if path.suffix not in (".tlog-proof", ".checkpoint") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            receipt = TlogProof.parse(text) if path.suffix == ".tlog-proof" else None
            signed = receipt.checkpoint if receipt else SignedCheckpoint.parse(text)
        except (OSError, UnicodeDecodeError, NoteError) as e:
            ignored.append(f"ignored {path}: not a checkpoint or a receipt ({e})")
            continue
        allowed = log_verifiers(keys, signed.checkpoint.origin)
        try:
            open_note(signed.encode(), allowed)
        except NoteError as e:
            names = {key.name for key in allowed}
            if any(s.name in names for s in signed.note.signatures):
                unpinned.append(Statement(str(path), signed, receipt))
            else:
                ignored.append(f"ignored {path}: not signed under the log's name ({e})")
            continue
        statements.append(Statement(str(path), signed, receipt))
    return statements, unpinned, ignored


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
    keys, disagreements = statement_keys(folder, vkeys)
    names = {key.name for key in keys}
    statements, unpinned, ignored = gather(folder, keys)
    for line in ignored:
        click.echo(line)
    for line in disagreements:
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
    findings = analyse(checked, leaves_of) + unpinned_keys(unpinned) + served_keys(folder, keys)
    for finding in findings:
        click.echo(finding.report())
    logs = len({s.origin for s in checked})
    if not checked:
        click.echo(
            f"nothing proven: no statement under {directory} is signed by the pinned keys "
            "and checkable against this log"
        )
        return len(findings) + len(disagreements) + 1
    if not findings and not disagreements:
        click.echo(
            f"no misbehaviour: {len(checked)} signed statements of {logs} logs agree with "
            "each other and with the log"
        )
    return len(findings) + len(disagreements)

"""``opus receipts keep`` and ``opus receipts check``: a player's client of
the receipts, its store kept by ``infra.receipts.keeper.Keeper``.

- ``opus receipts keep --server URL (--log ID | --log global [--shard K] |
  --receipt FILE [--event LINE]) [--store DIR]``: the log's checkpoint now
  (or a command's receipt, with the event line of the player's move),
  checked against the one kept, its head proven in a global checkpoint a
  quorum of the trusted witnesses cosigned lately, kept;
- ``opus receipts check --server URL [--store DIR]``: every kept log so,
  against the server now.

Trust (``trust.json`` in the store) is pinned at first use and printed:
``--key`` the log's vkey, ``--witness '<URL> <vkey>'`` (repeat), ``--quorum``,
``--max-age`` (seconds); given later, they change what the file says.

Exit status: 0 consistent and witnessed; 1 the server misbehaved (what it
signed contradicts itself or what it says now: the statements printed and
kept in the store's evidence/), or answered a checkpoint not signed by the
pinned key; 2 a bad flag or file; 3 not proven (a witness quorum, a fresh
cosignature or an answer missing: nothing is kept); 4 the client's own
store is corrupted (no statement of the server: the file is set aside).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from uuid import UUID

import click

from domain.transparency.formats import TlogProof
from domain.transparency.note import NoteError
from domain.transparency.trust import TrustError
from infra.receipts.keeper import (
    BadInput,
    Corrupted,
    Given,
    Keeper,
    Keys,
    Misbehaviour,
    NotProven,
    Refused,
)

DEFAULT_STORE = "./var/kept-receipts"
MISBEHAVED, BAD_INPUT, NOT_PROVEN, CORRUPTED = 1, 2, 3, 4


def server_url(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """The service's URL, checked before anything is asked of it."""
    if not value.startswith(("http://", "https://")) or len(value) < 10:
        raise click.BadParameter(f"{value!r} is not an http(s) URL, e.g. http://127.0.0.1:8000")
    return value


def trust_options(command: Callable[..., None]) -> Callable[..., None]:
    """The flags that pin (or change) the store's trust file."""
    for option in reversed(
        [
            click.option(
                "--key", "vkey", default=None, help="The log's vkey (else pinned at first use)."
            ),
            click.option(
                "--witness",
                "witnesses",
                multiple=True,
                help="A trusted witness, '<URL> <vkey>' (repeat; else the server's list at "
                "first use).",
            ),
            click.option(
                "--quorum",
                type=click.IntRange(0),
                default=None,
                help="How many trusted witnesses must cosign (1 at first use; 0: the server's "
                "word alone).",
            ),
            click.option(
                "--max-age",
                type=click.IntRange(1),
                default=None,
                help="Seconds a witness's cosignature may be old (600 at first use).",
            ),
        ]
    ):
        command = option(command)
    return command


def _run(store: str, server: str, given: Given, action: Callable[[Keeper, Keys], int]) -> None:
    """``action`` with the store's keeper and keys; every outcome said in
    words, with its exit status (never a traceback)."""
    try:
        keeper = Keeper(store, server)
        keys = keeper.keys(given)
        for line in keys.said:
            click.echo(line)
        status = action(keeper, keys)
    except Misbehaviour as e:
        click.echo(e.report())
        status = MISBEHAVED
    except Refused as e:
        click.echo(f"REFUSED: {e}")
        status = MISBEHAVED
    except (BadInput, TrustError) as e:
        click.echo(f"Error: {e}", err=True)
        status = BAD_INPUT
    except NotProven as e:
        click.echo(f"NOT PROVEN: {e}")
        status = NOT_PROVEN
    except Corrupted as e:
        click.echo(f"LOCAL STORE CORRUPTED: {e}", err=True)
        status = CORRUPTED
    except OSError as e:
        click.echo(f"NOT PROVEN: the server or a witness could not be asked: {e}")
        status = NOT_PROVEN
    sys.exit(status)


@click.command()
@click.option(
    "--server",
    required=True,
    callback=server_url,
    help="The service's URL, e.g. http://127.0.0.1:8000",
)
@click.option("--log", "log", default=None, help="A game's or tournament's id, or 'global'.")
@click.option(
    "--receipt",
    "receipt_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="A command's receipt (a tlog-proof) to keep ('-': stdin).",
)
@click.option(
    "--event",
    default=None,
    help="With --receipt: the event line of your move (a line of the game's export), kept "
    "bound to the receipt.",
)
@click.option("--store", default=DEFAULT_STORE, show_default=True, help="This client's store.")
@trust_options
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
    event: str | None,
    store: str,
    vkey: str | None,
    witnesses: tuple[str, ...],
    quorum: int | None,
    max_age: int | None,
    shard: int | None,
) -> None:
    """Take a log's checkpoint (or a receipt), check it against the kept one,
    prove its head in a witnessed global checkpoint, keep it."""
    if (log is None) == (receipt_file is None):
        raise click.UsageError("give --log or --receipt")
    if shard is not None and log != "global":
        raise click.UsageError("--shard names a global log's shard: give it with --log global")
    if event is not None and receipt_file is None:
        raise click.UsageError("--event binds your move's event line to its --receipt")
    aggregate = None
    if log not in (None, "global"):
        try:
            aggregate = UUID(log)
        except ValueError:
            raise click.UsageError(
                f"--log {log!r}: a game's or tournament's id, or 'global'"
            ) from None
    try:
        text = None if receipt_file is None else "".join(receipt_file)
        if text is not None:
            TlogProof.parse(text)  # a file that is no receipt is told before anything is asked
    except UnicodeDecodeError:
        raise click.UsageError("--receipt: the file is not text (UTF-8): not a receipt") from None
    except NoteError as e:
        raise click.UsageError(
            f"--receipt: the file is not a receipt (C2SP tlog-proof): {e}"
        ) from None
    if event is not None and event.startswith("@"):
        try:
            with open(event[1:], encoding="utf-8") as source:
                event = source.read()
        except OSError as e:
            raise click.UsageError(f"--event {event}: {e.strerror}") from None

    def action(keeper: Keeper, keys: Keys) -> int:
        if text is not None:
            lines = keeper.keep_receipt(text, keys, event)
        elif aggregate is not None:
            lines = [keeper.keep_log(aggregate, keys)]
        else:
            if shard is not None and shard >= keys.shards:
                raise BadInput(
                    f"--shard {shard}: the server has {keys.shards} global log(s), shards 0 "
                    f"to {keys.shards - 1}"
                )
            chosen = range(keys.shards) if shard is None else [shard]
            lines = [keeper.keep_global(k, keys) for k in chosen]
        for line in lines:
            click.echo(line)
        return 0

    _run(store, server, Given(vkey, witnesses, quorum, max_age), action)


@click.command()
@click.option(
    "--server",
    required=True,
    callback=server_url,
    help="The service's URL, e.g. http://127.0.0.1:8000",
)
@click.option("--store", default=DEFAULT_STORE, show_default=True, help="This client's store.")
@trust_options
def check(
    server: str,
    store: str,
    vkey: str | None,
    witnesses: tuple[str, ...],
    quorum: int | None,
    max_age: int | None,
) -> None:
    """Every kept log against the server now: consistent, and witnessed."""

    def action(keeper: Keeper, keys: Keys) -> int:
        results = keeper.check_all(keys)
        if not results:
            click.echo("nothing kept yet")
        for _, said in results:
            click.echo(said)
        statuses = {status for status, _ in results}
        return MISBEHAVED if MISBEHAVED in statuses else max(statuses, default=0)

    _run(store, server, Given(vkey, witnesses, quorum, max_age), action)

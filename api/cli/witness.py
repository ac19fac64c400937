"""``opus witness``: cosign the service's global checkpoints (C2SP
tlog-witness), a process of its own (infra/receipts/witness.py). The log
keys it follows are pinned in its store at first start; a key not pinned
is followed only through a transition statement from a pinned one
(``--transitions``) or when the operator says the log is new
(``--add-log``): infra/receipts/witness_keys.py."""

from __future__ import annotations

import json
import signal
import threading
import time

import click
from werkzeug.serving import make_server

from domain.transparency.note import COSIGNATURE_V1, NoteError, Verifier
from infra.receipts.gossip import ask
from infra.receipts.keys import load_signer, load_transitions
from infra.receipts.service import WELL_KNOWN
from infra.receipts.witness import Witness, WitnessStore, create_witness_app
from infra.receipts.witness_keys import KeyRefused, follow_logs

FOLLOW_WAIT = 120.0  # seconds the followed service may take to answer at start


def followed(service: str) -> tuple[list[Verifier], list[str]]:
    """The global logs' keys and the key transitions ``service`` serves,
    asked until it answers (it may be starting beside the witness)."""
    url = service.rstrip("/") + WELL_KNOWN
    deadline = time.monotonic() + FOLLOW_WAIT
    while True:
        try:
            answer = ask(url)
        except OSError as e:
            said = str(e)
        else:
            if answer.ok:
                break
            said = answer.said()
        if time.monotonic() > deadline:
            raise click.ClickException(f"{url} did not answer: {said}")
        time.sleep(1.0)
    try:
        document = json.loads(answer.text)
        keys = [Verifier.from_vkey(str(o["vkey"])) for o in document["global_origins"]]
        transitions = [str(n) for n in document.get("key_transitions") or []]
    except (ValueError, KeyError, TypeError) as e:
        raise click.ClickException(f"{url} is not a receipts document ({e})") from None
    return keys, transitions


@click.command()
@click.option("--store", "store_dir", required=True, help="Its own folder: what it cosigned.")
@click.option(
    "--key", "key_file", required=True, help="Its key file (made on first start if missing)."
)
@click.option(
    "--name", default="witness.opus.localhost", show_default=True, help="A new key's name."
)
@click.option(
    "--log",
    "logs",
    multiple=True,
    help="A log's vkey to follow (its origin is the key's name); repeat for several.",
)
@click.option(
    "--follow",
    "service",
    default=None,
    help="A service's URL: follow the logs its /.well-known/opus-receipts names (each "
    "shard's global log), and a new key only by the transitions served there.",
)
@click.option(
    "--transitions",
    "transitions_file",
    default=None,
    type=click.Path(dir_okay=False, exists=True),
    help="The service's key transitions (a JSON list of signed notes, as the service "
    "serves them at /.well-known/opus-receipts): how a new --log key is followed.",
)
@click.option("--add-log", is_flag=True, help="A --log key not pinned yet is a new log: follow it.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8800, show_default=True, type=click.IntRange(0, 65535))
def witness(
    store_dir: str,
    key_file: str,
    name: str,
    logs: tuple[str, ...],
    service: str | None,
    transitions_file: str | None,
    add_log: bool,
    host: str,
    port: int,
) -> None:
    """Serve add-checkpoint: cosign a checkpoint consistent with the last
    one cosigned, refuse any other (its signed checkpoint kept as evidence)."""
    cosigner = load_signer(key_file, name).as_type(COSIGNATURE_V1)
    try:
        keys = [Verifier.from_vkey(vkey) for vkey in logs]
    except NoteError as e:
        raise click.BadParameter(str(e), param_hint="--log") from None
    try:
        transitions = load_transitions(transitions_file) if transitions_file else []
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--transitions") from None
    if service is not None:
        served, served_transitions = followed(service)
        keys += [k for k in served if k not in keys]
        transitions += served_transitions
    if not keys:
        raise click.UsageError("give the logs to follow: --log VKEY, or --follow URL")
    store = WitnessStore(store_dir)
    try:
        for line in follow_logs(store, keys, transitions, add_log):
            click.echo(line)
    except KeyRefused as e:
        raise click.ClickException(str(e)) from None
    app = create_witness_app(Witness(cosigner, keys, store))
    server = make_server(host, port, app, threaded=True)
    click.echo(f"witness {cosigner.vkey()} on http://{host}:{server.server_port}", err=False)
    signal.signal(
        signal.SIGTERM,
        lambda signum, frame: threading.Thread(target=server.shutdown, daemon=True).start(),
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

"""``opus witness``: cosign the service's global checkpoints (C2SP
tlog-witness), a process of its own (infra/receipts/witness.py)."""

from __future__ import annotations

import signal
import threading

import click
from werkzeug.serving import make_server

from domain.transparency.note import COSIGNATURE_V1, Verifier
from infra.receipts.keys import load_signer
from infra.receipts.witness import Witness, WitnessStore, create_witness_app


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
    required=True,
    help="A log's vkey to follow (its origin is the key's name); repeat for several.",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8800, show_default=True, type=click.IntRange(0, 65535))
def witness(
    store_dir: str, key_file: str, name: str, logs: tuple[str, ...], host: str, port: int
) -> None:
    """Serve add-checkpoint: cosign a checkpoint consistent with the last
    one cosigned, refuse any other (its signed checkpoint kept as evidence)."""
    cosigner = load_signer(key_file, name).as_type(COSIGNATURE_V1)
    keys = [Verifier.from_vkey(vkey) for vkey in logs]
    app = create_witness_app(Witness(cosigner, keys, WitnessStore(store_dir)))
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

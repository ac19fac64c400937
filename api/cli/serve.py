"""``opus serve``: the HTTP API on the embedded defaults, in one process,
serving the event streams its web client listens to (``EMBEDDED_DEFAULTS``:
up to ``EMBEDDED_API_STREAMS`` at once, a thread each, unless
``OPUS_API_STREAMS`` says)."""

from __future__ import annotations

import signal
import threading

import click
from werkzeug.serving import make_server

from api.app import create_app
from infra.settings import EMBEDDED_DEFAULTS, Settings


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
def serve(host: str, port: int) -> None:
    """Run the web client and the API: SQLite event store and views by default, projections in a
    background thread. Production runs gunicorn 'api.app:create_app()' with
    PostgreSQL, Redis and separate 'opus project' processes."""
    app = create_app(Settings.from_env(defaults=EMBEDDED_DEFAULTS))
    server = make_server(host, port, app, threaded=True)
    click.echo(
        f"Opus listening on http://{host}:{server.server_port} "
        "(the web client's lobby at /, the API's docs at /docs)"
    )
    # SIGTERM stops it as Ctrl-C does: the runners and stores close cleanly.
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
        app.extensions["opus"].close()

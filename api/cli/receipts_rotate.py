"""``opus receipts rotate --old OLD.key --new NEW.key``: the key transition
from the service's signing key to a new one (domain/transparency/transitions.py),
signed by both keys and appended to the transitions' file the service serves
at ``/.well-known/opus-receipts`` (``OPUS_RECEIPTS_TRANSITIONS``, else
``receipts-transitions.json`` beside ``OPUS_RECEIPTS_KEY_FILE``).

Then point ``OPUS_RECEIPTS_KEY_FILE`` at NEW.key and restart: clients that
pinned the old key follow the transition to the new one; a key that no
transition reaches is refused by them as a key changed in silence.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from domain.transparency.note import NoteError, Signer
from domain.transparency.transitions import make_transition
from infra.receipts.keys import key_chain, load_transitions, save_transitions
from infra.settings import Settings


def _signer(path: str, which: str) -> Signer:
    try:
        return Signer.from_text(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise click.ClickException(f"{which} key {path} could not be read: {e}") from None
    except NoteError as e:
        raise click.ClickException(f"{which} key {path} is not a signing key: {e}") from None


@click.command()
@click.option(
    "--old", "old_file", required=True, type=click.Path(dir_okay=False), help="The key signing now."
)
@click.option(
    "--new", "new_file", required=True, type=click.Path(dir_okay=False), help="Its successor."
)
@click.option(
    "--transitions",
    default=None,
    type=click.Path(dir_okay=False),
    help="The transitions' file (default: OPUS_RECEIPTS_TRANSITIONS, else beside the key file).",
)
def rotate(old_file: str, new_file: str, transitions: str | None) -> None:
    """Sign the key transition from OLD to NEW with both keys and add it to
    the transitions the service serves."""
    old, new = _signer(old_file, "the old"), _signer(new_file, "the new")
    path = Path(transitions) if transitions else Settings.from_env().receipts.transitions_path
    try:
        notes = load_transitions(path)
        chain = key_chain(notes)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    if chain and chain[-1] != old.verifier:
        raise click.ClickException(
            f"{path}: the last transition leads to {chain[-1].vkey()}, not to the old key "
            f"{old.vkey()}: a transition is from the key signing now"
        )
    if new.verifier in chain:
        raise click.ClickException(f"{new.vkey()} was a key of this service already")
    try:
        note = make_transition(old, new, datetime.now(UTC))
    except NoteError as e:
        raise click.ClickException(str(e)) from None
    save_transitions(path, [*notes, note])
    click.echo(f"key transition {len(notes) + 1} written to {path}:")
    click.echo(note, nl=False)
    click.echo(f"now set OPUS_RECEIPTS_KEY_FILE={new_file} and restart the service")

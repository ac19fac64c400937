"""The service's signing key, the keys it has retired and the key
transitions that link them.

The key file holds one signer key (``PRIVATE+KEY+...``, Go's note format),
readable by its owner alone; a missing file is made once with a new key
(``O_EXCL``: two processes starting together cannot both make one). Rotating:
make a new key file (``opus receipts keygen``), sign the transition from the
old key to it (``opus receipts rotate``, which appends it to the transitions'
file), optionally add the old key's vkey and the time to the retired keys'
file, point ``OPUS_RECEIPTS_KEY_FILE`` at the new key, restart. Clients
follow the transitions from the key they pinned and refuse a new checkpoint
signed by a retired key; receipts kept before stay the statements they were
(README, Receipts). A retired key that no transition links to the key
signing now is a key changed in silence: the service refuses to start
(``check_keys``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from domain.transparency.note import NoteError, Signer, Verifier
from domain.transparency.transitions import follow_transitions, read_transition
from infra.receipts.files import write_atomically


@dataclass(frozen=True)
class RetiredKey:
    verifier: Verifier
    retired_at: str  # ISO 8601, UTC

    def line(self) -> str:
        return f"{self.verifier.vkey()} {self.retired_at}"


def load_signer(path: str | Path, name: str) -> Signer:
    """The key in ``path``; made (named ``name``) if there is none yet."""
    file = Path(path)
    if not file.exists():
        file.parent.mkdir(parents=True, exist_ok=True)
        signer = Signer.generate(name)
        try:
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first: read theirs
        else:
            with os.fdopen(fd, "w") as out:
                out.write(signer.to_text())
                out.flush()
                os.fsync(out.fileno())
            return signer
    return Signer.from_text(file.read_text())


def load_retired(path: str | Path) -> list[RetiredKey]:
    """The retired keys' file: a vkey and its retirement time a line."""
    if not path:
        return []
    keys = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{number}: '<vkey> <retired at, ISO 8601>'")
        datetime.fromisoformat(parts[1])  # a time, or a ValueError naming it
        keys.append(RetiredKey(Verifier.from_vkey(parts[0]), parts[1]))
    return keys


def load_transitions(path: str | Path) -> list[str]:
    """The key transitions' notes in ``path``, oldest first (none if there is
    no file): a JSON list of strings, as ``save_transitions`` writes it."""
    file = Path(path)
    if not file.exists():
        return []
    try:
        notes = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError(f"{file}: not a JSON list of key transitions") from None
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ValueError(f"{file}: not a JSON list of key transitions (each a signed note)")
    return notes


def save_transitions(path: str | Path, notes: list[str]) -> None:
    """``notes`` in ``path``, whole or not at all."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(file, json.dumps(notes, indent=1) + "\n")


def key_chain(notes: list[str]) -> list[Verifier]:
    """Every key the transitions ``notes`` name, from the first one's old key
    (none without transitions); ValueError where the chain breaks."""
    if not notes:
        return []
    try:
        first, _, _ = read_transition(notes[0])
        return follow_transitions(first, notes)
    except NoteError as e:
        raise ValueError(f"the key transitions: {e}") from None


def check_keys(signer: Signer, notes: list[str], retired: list[RetiredKey]) -> None:
    """That no key changed in silence: the transitions lead to the key that
    signs (when there are any), and every retired key is one they lead from.
    ValueError saying what to do otherwise."""
    chain = key_chain(notes)
    if chain and chain[-1] != signer.verifier:
        raise ValueError(
            f"the key file's key {signer.vkey()} is not the one the last key transition "
            f"names ({chain[-1].vkey()}): sign a transition to it (opus receipts rotate)"
        )
    for key in retired:
        if key.verifier not in chain[:-1]:
            raise ValueError(
                f"the retired key {key.verifier.vkey()} has no key transition to its successor: "
                "a key changed in silence. Sign one with that key (opus receipts rotate "
                "--old OLD.key --new NEW.key)"
            )


def transition_retirements(notes: list[str]) -> list[RetiredKey]:
    """Each transition's old key, retired at the transition's time."""
    retired = []
    for note in notes:
        old, _, when = read_transition(note)
        retired.append(RetiredKey(old, when))
    return retired

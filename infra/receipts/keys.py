"""The service's signing key and the keys it has retired.

The key file holds one signer key (``PRIVATE+KEY+...``, Go's note format),
readable by its owner alone; a missing file is made once with a new key
(``O_EXCL``: two processes starting together cannot both make one). Rotating:
make a new key file (``opus receipts keygen``), add the old key's vkey and
the time to the retired keys' file, restart. Clients then refuse a new
checkpoint signed by the retired key; receipts kept before stay the
statements they were (README, Receipts).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from domain.transparency.note import Signer, Verifier


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

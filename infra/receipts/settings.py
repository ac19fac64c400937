"""The receipts' settings, read by ``infra.settings.Settings.from_env``.

- ``OPUS_RECEIPTS`` (1): commands answer with receipts and the service keeps
  the global log (one per shard with ``OPUS_SHARDS``); 0 turns it all off
  (the benchmark's baseline);
- ``OPUS_RECEIPTS_KEY_FILE`` (``receipts.key`` beside a SQLite event store's
  file, else ``./var/receipts.key``): the signing key, as
  ``PRIVATE+KEY+<name>+<key id>+<base64>`` (Go's note format); made on first
  start if missing, named ``OPUS_RECEIPTS_NAME`` (``opus.localhost``);
- ``OPUS_RECEIPTS_RETIRED_KEYS`` (none): a file of the keys rotated out,
  one vkey a line, each followed by the UTC time it was retired; each must
  also be the old key of a key transition (no key changes in silence);
- ``OPUS_RECEIPTS_TRANSITIONS`` (``receipts-transitions.json`` in the key
  file's folder): the key transitions, oldest first, as ``opus receipts
  rotate`` writes them (domain/transparency/transitions.py);
- ``OPUS_RECEIPTS_SIGNER_STATE`` (``receipts-signed.sqlite`` in the key
  file's folder): the last checkpoint signed of each log, kept beside the
  key and outside the event store, shared by every process signing with it
  (infra/receipts/signed.py): no checkpoint inconsistent with it is signed;
- ``OPUS_RECEIPTS_WITNESSES`` (none): the witnesses asked to cosign global
  checkpoints, ``<url> <vkey>`` pairs separated by commas;
- ``OPUS_RECEIPTS_INTERVAL`` (0.5): seconds between two global checkpoints
  at most while the log grows (the issue asks at least one a second);
- ``OPUS_RECEIPTS_PUBLISH`` (1): this process appends to the global log and
  publishes checkpoints (every process may: one at a time, by a lock).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

FALSE = ("0", "no", "false")
DEFAULT_KEY_FILE = "./var/receipts.key"
DEFAULT_NAME = "opus.localhost"
DEFAULT_INTERVAL = 0.5
TRANSITIONS_NAME = "receipts-transitions.json"
SIGNER_STATE_NAME = "receipts-signed.sqlite"


@dataclass(frozen=True)
class Witness:
    url: str  # its submission prefix: add-checkpoint is POSTed at <url>/add-checkpoint
    vkey: str  # its cosignature key (type 0x04)


@dataclass(frozen=True)
class ReceiptsSettings:
    enabled: bool = True
    key_file: str = DEFAULT_KEY_FILE
    name: str = DEFAULT_NAME
    retired_keys_file: str = ""
    transitions_file: str = ""  # "": TRANSITIONS_NAME beside the key file
    signer_state_file: str = ""  # "": SIGNER_STATE_NAME beside the key file
    witnesses: tuple[Witness, ...] = field(default=())
    interval: float = DEFAULT_INTERVAL
    publish: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ReceiptsSettings:
        interval = float(env.get("OPUS_RECEIPTS_INTERVAL", DEFAULT_INTERVAL))
        if not 0 < interval <= 1:
            raise ValueError(f"OPUS_RECEIPTS_INTERVAL={interval}: more than 0, at most 1 second")
        return cls(
            enabled=env.get("OPUS_RECEIPTS", "1") not in FALSE,
            key_file=env.get("OPUS_RECEIPTS_KEY_FILE") or default_key_file(env),
            name=env.get("OPUS_RECEIPTS_NAME") or DEFAULT_NAME,
            retired_keys_file=env.get("OPUS_RECEIPTS_RETIRED_KEYS", ""),
            transitions_file=env.get("OPUS_RECEIPTS_TRANSITIONS", ""),
            signer_state_file=env.get("OPUS_RECEIPTS_SIGNER_STATE", ""),
            witnesses=parse_witnesses(env.get("OPUS_RECEIPTS_WITNESSES", "")),
            interval=interval,
            publish=env.get("OPUS_RECEIPTS_PUBLISH", "1") not in FALSE,
        )

    @property
    def transitions_path(self) -> Path:
        """The key transitions' file: as set, else beside the key file."""
        return Path(self.transitions_file or Path(self.key_file).parent / TRANSITIONS_NAME)

    @property
    def signer_state_path(self) -> Path:
        """The signer's record of what it signed: as set, else beside the key file."""
        return Path(self.signer_state_file or Path(self.key_file).parent / SIGNER_STATE_NAME)


def default_key_file(env: Mapping[str, str]) -> str:
    """Where the key lives when ``OPUS_RECEIPTS_KEY_FILE`` is not set: beside
    a SQLite event store's file (so the signer's record of what it signed,
    kept beside the key, is that store's: a second store in another folder
    is another log, never a fork of the first), else ``./var/receipts.key``.
    On the embedded defaults both are ``./var/receipts.key``."""
    dbname = env.get("SQLITE_DBNAME", "")
    sqlite = env.get("PERSISTENCE_MODULE", "").endswith("sqlite")
    if sqlite and dbname and not dbname.startswith((":memory:", "file:")):
        return str(Path(dbname).parent / Path(DEFAULT_KEY_FILE).name)
    return DEFAULT_KEY_FILE


def parse_witnesses(text: str) -> tuple[Witness, ...]:
    witnesses = []
    for item in text.split(","):
        if not item.strip():
            continue
        parts = item.split()
        if len(parts) != 2:
            raise ValueError(f"OPUS_RECEIPTS_WITNESSES: '<url> <vkey>' pairs, not {item!r}")
        witnesses.append(Witness(parts[0].rstrip("/"), parts[1]))
    return tuple(witnesses)

"""``opus receipts rebuild``'s work: a global log's tree made again from the
event log, only if it is the history the signer signed.

The tree is a function of the log, so an honest rebuild gives the roots
signed before. A store whose events were edited gives others: signing them
would be signing two histories. So the log is first read through without
touching the stored tree, keeping only the few subtrees that make the root
at the size the signer signed last (``SignerState``); if that root is not
the one signed, or the log is now shorter, the rebuild is refused
(``TwoHistories``: the log, the size, both roots) and the stored tree is
left as it was. Only then is the tree dropped and appended again, and
checked once more.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from domain.application import Opus
from domain.transparency.history import Signed, TwoHistories
from domain.transparency.logs import global_origin
from domain.transparency.merkle import Node, from_nodes, nodes_needed, subtree_hash
from domain.transparency.note import Signer
from infra.receipts.globallog import Leaf, Sequencer, open_global_store
from infra.receipts.publisher import stored_root
from infra.receipts.settings import ReceiptsSettings
from infra.receipts.signed import SignerState


@dataclass(frozen=True)
class Rebuilt:
    origin: str
    leaves: int  # appended
    position: int  # the last position of the log read


def key_name(settings: ReceiptsSettings) -> str:
    """The name of the service's key (the global log's origin): the key
    file's, else the name a key would be made with."""
    path = Path(settings.key_file)
    return Signer.from_text(path.read_text()).name if path.exists() else settings.name


class _PrefixRoot:
    """An appender that stores nothing: it keeps the tree's size and the
    subtrees that make the root of its first ``size`` leaves."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.wanted = nodes_needed(lambda read: subtree_hash(0, size, read))
        self.kept: dict[Node, bytes] = {}
        self._state = (0, 0)

    # the GlobalStore and Appender the Sequencer uses
    def state(self) -> tuple[int, int]:
        return self._state

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]:
        return {}  # asked only for a size it has not appended: never here

    @contextlib.contextmanager
    def appending(self) -> Iterator[_PrefixRoot]:
        yield self

    def append(
        self,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[Leaf],
        size: int,
        position: int,
    ) -> None:
        for level, index, value in nodes:
            if (level, index) in self.wanted:
                self.kept[(level, index)] = value
        self._state = (size, position)

    def root(self) -> bytes:
        return subtree_hash(0, self.size, from_nodes(self.kept))


def _refuse_unless(origin: str, signed: Signed, size: int, root: bytes | None) -> None:
    if size < signed.size or root is None:
        raise TwoHistories(
            origin,
            signed,
            size,
            root or b"",
            f"the rebuilt tree has {size} leaves, fewer than the {signed.size} signed",
        )
    if root != signed.root:
        raise TwoHistories(
            origin,
            signed,
            signed.size,
            root,
            f"the rebuilt tree's root at size {signed.size} is not the root signed for it",
        )


def rebuild_global_log(app: Opus, shard: int, name: str, state: SignerState) -> Rebuilt:
    """Shard ``shard``'s global log's tree dropped and made again from
    ``app``'s log (that shard's), unless it differs from what the signer
    signed of it: then TwoHistories, and the stored tree is untouched."""
    origin = global_origin(name, shard)
    signed = state.latest(origin)
    if signed is not None:
        dry = _PrefixRoot(signed.size)
        Sequencer(app, dry).catch_up()  # type: ignore[arg-type]
        size = dry.state()[0]
        _refuse_unless(origin, signed, size, dry.root() if size >= signed.size else None)
    store = open_global_store(app)
    store.drop()
    appended = Sequencer(app, store).catch_up()
    size, position = store.state()
    if signed is not None:  # the log changed between the two readings
        root = stored_root(store, signed.size) if size >= signed.size else None
        _refuse_unless(origin, signed, size, root)
    return Rebuilt(origin, appended, position)

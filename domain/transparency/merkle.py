"""RFC 6962 §2.1 Merkle trees over SHA-256.

MTH({}) = SHA-256(), MTH({d0}) = SHA-256(0x00 ‖ d0), and for n > 1, with k
the largest power of two below n, MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖
MTH(D[k:n])). Inclusion proofs are RFC 6962's PATH(m, D[n]) and consistency
proofs its PROOF(m, D[n]), each listed from the leaf's level up; both are
verified by RFC 9162's algorithms (§2.1.3.2, §2.1.4.2), which accept exactly
RFC 6962's proofs.

Every subtree the recursion of MTH visits from the root is either perfect
(2^l leaves starting at a multiple of 2^l) or on the tree's right border, so
a tree is kept as its perfect subtrees' hashes, ``(level, index)`` for the
subtree of leaves [index·2^level, (index+1)·2^level), and any MTH(D[a:b])
of the recursion is read from at most log₂ n of them (``subtree_hash``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

Node = tuple[int, int]  # (level, index) of a perfect subtree
NodeReader = Callable[[int, int], bytes]


class ProofError(ValueError):
    """A proof that does not verify, or is not well formed."""


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree_hash(start: int, end: int, node: NodeReader) -> bytes:
    """MTH(D[start:end]) for a range the recursion from the root visits."""
    size = end - start
    if size == 0:
        return EMPTY_ROOT
    if size & (size - 1) == 0:
        level = size.bit_length() - 1
        return node(level, start >> level)
    k = split(size)
    return node_hash(subtree_hash(start, start + k, node), subtree_hash(start + k, end, node))


def inclusion_path(index: int, size: int, node: NodeReader) -> list[bytes]:
    """PATH(index, D[size]): the audit path, from the leaf's sibling up."""
    if not 0 <= index < size:
        raise ValueError(f"no leaf {index} in a tree of {size}")
    path = []
    start, end = 0, size
    while end - start > 1:
        k = split(end - start)
        if index < start + k:
            path.append(subtree_hash(start + k, end, node))
            end = start + k
        else:
            path.append(subtree_hash(start, start + k, node))
            start += k
    return path[::-1]


def consistency_path(old: int, size: int, node: NodeReader) -> list[bytes]:
    """PROOF(old, D[size]) (RFC 6962 §2.1.2); empty for old 0 or old = size."""
    if not 0 <= old <= size:
        raise ValueError(f"no consistency proof from {old} to {size}")
    if old == 0 or old == size:
        return []
    proof = []
    start, end, m, whole = 0, size, old, True
    while True:
        if m == end - start:
            if not whole:
                proof.append(subtree_hash(start, end, node))
            break
        k = split(end - start)
        if m <= k:
            proof.append(subtree_hash(start + k, end, node))
            end = start + k
        else:
            proof.append(subtree_hash(start, start + k, node))
            start, m, whole = start + k, m - k, False
    return proof[::-1]


def nodes_needed(read: Callable[[NodeReader], object]) -> set[Node]:
    """The perfect subtrees ``read`` reads: its control flow never depends
    on a hash's value, so a dry run with dummy hashes lists them, and a store
    can fetch them in one query."""
    wanted: set[Node] = set()

    def record(level: int, index: int) -> bytes:
        wanted.add((level, index))
        return EMPTY_ROOT

    read(record)
    return wanted


# ---- verification (RFC 9162) ----------------------------------------------------------


def _check_hash(value: bytes, what: str) -> None:
    if len(value) != HASH_SIZE:
        raise ProofError(f"{what} is {len(value)} bytes, not {HASH_SIZE}")


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root an inclusion proof of leaf hash ``leaf`` at ``index`` gives
    (RFC 9162 §2.1.3.2, steps 1-4); ProofError if it cannot be one."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    _check_hash(leaf, "the leaf hash")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        _check_hash(p, "a proof hash")
        if sn == 0:
            raise ProofError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> None:
    """That leaf hash ``leaf`` is leaf ``index`` of the tree of ``size`` with ``root``."""
    _check_hash(root, "the root")
    if root_from_inclusion(index, size, leaf, proof) != root:
        raise ProofError(f"the inclusion proof of leaf {index} does not give the root")


def verify_consistency(
    old_size: int, size: int, old_root: bytes, root: bytes, proof: Sequence[bytes]
) -> None:
    """That the tree (old_size, old_root) is a prefix of (size, root) (RFC
    9162 §2.1.4.2; sizes equal: the roots equal and the proof empty; from the
    empty tree: an empty proof, the old root the empty tree's)."""
    if old_size < 0 or size < old_size:
        raise ProofError(f"no consistency from size {old_size} to {size}")
    if old_size == size:
        if proof:
            raise ProofError("a proof between equal sizes must be empty")
        if old_root != root:
            raise ProofError(f"two different roots at size {size}")
        return
    _check_hash(old_root, "the old root")
    _check_hash(root, "the new root")
    if old_size == 0:
        if proof:
            raise ProofError("a proof from the empty tree must be empty")
        if old_root != EMPTY_ROOT:
            raise ProofError("the empty tree's root is SHA-256 of nothing")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    for p in path:
        _check_hash(p, "a proof hash")
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != old_root:
        raise ProofError(f"the consistency proof does not give the old root at {old_size}")
    if sr != root:
        raise ProofError(f"the consistency proof does not give the new root at {size}")


# ---- trees ------------------------------------------------------------------------------


@dataclass
class Frontier:
    """A tree's perfect subtrees along its right border, largest first: all
    it takes to append leaves, give the root, and prove the newest leaf.
    ``append`` returns the perfect subtrees it completed (to store them)."""

    size: int = 0
    levels: list[int] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        index = self.size
        made = [(0, index, leaf)]
        self.levels.append(0)
        self.hashes.append(leaf)
        while len(self.levels) > 1 and self.levels[-1] == self.levels[-2]:
            level = self.levels.pop() + 1
            right = self.hashes.pop()
            self.levels[-1] = level
            self.hashes[-1] = node_hash(self.hashes[-1], right)
            made.append((level, index >> level, self.hashes[-1]))
        self.size += 1
        return made

    def root(self) -> bytes:
        if not self.hashes:
            return EMPTY_ROOT
        root = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            root = node_hash(left, root)
        return root

    def next_path(self) -> list[bytes]:
        """The inclusion path of the next leaf appended, in the tree it makes."""
        return self.hashes[::-1]

    def copy(self) -> Frontier:
        return Frontier(self.size, list(self.levels), list(self.hashes))


class Tree:
    """A whole tree in memory, from its leaf hashes (a game's: hundreds)."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        self.levels: list[list[bytes]] = [[]]
        for leaf in leaves:
            self.append(leaf)

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def append(self, leaf: bytes) -> None:
        self.levels[0].append(leaf)
        level, index = 0, len(self.levels[0]) - 1
        while index & 1:
            if len(self.levels) == level + 1:
                self.levels.append([])
            row = self.levels[level]
            self.levels[level + 1].append(node_hash(row[index - 1], row[index]))
            level, index = level + 1, index >> 1

    def node(self, level: int, index: int) -> bytes:
        return self.levels[level][index]

    def root(self, size: int | None = None) -> bytes:
        return subtree_hash(0, self.size if size is None else size, self.node)

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        return inclusion_path(index, self.size if size is None else size, self.node)

    def consistency(self, old: int, size: int | None = None) -> list[bytes]:
        return consistency_path(old, self.size if size is None else size, self.node)


def from_nodes(nodes: Mapping[Node, bytes]) -> NodeReader:
    """A reader of nodes fetched beforehand (``nodes_needed``)."""

    def read(level: int, index: int) -> bytes:
        try:
            return nodes[(level, index)]
        except KeyError:
            raise LookupError(f"no stored subtree at level {level}, index {index}") from None

    return read

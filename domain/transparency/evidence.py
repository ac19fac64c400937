"""Kept checkpoints and receipts held against each other and against a log.

A signed checkpoint is the server's statement "the log of <origin> had
<size> leaves with this root". Two of them contradict when no consistency
proof can exist between them: the same size with two roots (a fork), or,
given leaves that hash to the larger one's root, a smaller one whose root
is not their prefix's (a rewritten history). A log that holds fewer leaves
than a statement (truncated), or leaves whose tree is not the statement's
(rewritten), contradicts the server's own signature. A receipt's extra
data (the event's chain value) that the log holds otherwise names the
event that was changed. A statement signed under the log's name by a key
nobody pinned is a key changed in silence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from domain.transparency.formats import SignedCheckpoint, TlogProof
from domain.transparency.merkle import ProofError, Tree, leaf_hash


@dataclass(frozen=True)
class Statement:
    """A signed checkpoint someone kept (verified by the caller), and the
    receipt it came in, if it did."""

    source: str  # where it was kept (a file)
    signed: SignedCheckpoint
    receipt: TlogProof | None = None

    @property
    def origin(self) -> str:
        return self.signed.checkpoint.origin

    @property
    def size(self) -> int:
        return self.signed.checkpoint.size

    @property
    def root(self) -> bytes:
        return self.signed.checkpoint.root


@dataclass
class Finding:
    kind: str  # fork, rewritten, truncated, missing, bad-receipt, key-change
    origin: str
    message: str
    statements: list[Statement] = field(default_factory=list)

    def report(self) -> str:
        lines = [f"MISBEHAVIOUR ({self.kind}) in {self.origin}: {self.message}"]
        for number, statement in enumerate(self.statements, start=1):
            lines.append(f"--- signed statement {number} (kept in {statement.source}):")
            lines.append(statement.signed.encode().rstrip("\n"))
        return "\n".join(lines)


LeavesOf = Callable[[str], Sequence[bytes] | None]


def analyse(statements: Sequence[Statement], leaves_of: LeavesOf) -> list[Finding]:
    """Every contradiction among ``statements`` and with the log
    (``leaves_of(origin)``: the leaf hashes the log holds for an origin,
    None when it holds none)."""
    findings: list[Finding] = []
    by_origin: dict[str, list[Statement]] = {}
    for statement in statements:
        by_origin.setdefault(statement.origin, []).append(statement)
    for origin, kept in by_origin.items():
        findings.extend(_forks(origin, kept))
        findings.extend(_receipts(origin, kept))
        leaves = leaves_of(origin)
        findings.extend(_against_log(origin, kept, leaves))
    return findings


def unpinned_keys(statements: Sequence[Statement]) -> list[Finding]:
    """Statements signed under the log's name by a key nobody pinned, and
    that no transition statement hands over to: the log's key changed in
    silence (``statements``: the caller's, found so)."""
    return [
        Finding(
            "key-change",
            statement.origin,
            "signed under the log's name by a key that was not pinned and that no "
            "transition statement names: a new key in silence, whose history may be another",
            [statement],
        )
        for statement in statements
    ]


def _distinct(kept: Sequence[Statement]) -> list[Statement]:
    seen: dict[tuple[int, bytes], Statement] = {}
    for statement in kept:
        seen.setdefault((statement.size, statement.root), statement)
    return sorted(seen.values(), key=lambda s: s.size)


def _forks(origin: str, kept: Sequence[Statement]) -> list[Finding]:
    findings = []
    by_size: dict[int, list[Statement]] = {}
    for statement in _distinct(kept):
        by_size.setdefault(statement.size, []).append(statement)
    for size, same in by_size.items():
        if len(same) > 1:
            findings.append(
                Finding(
                    "fork",
                    origin,
                    f"two roots signed for size {size}: two different logs were shown",
                    same[:2],
                )
            )
    return findings


def _receipts(origin: str, kept: Sequence[Statement]) -> list[Finding]:
    findings = []
    for statement in kept:
        receipt = statement.receipt
        if receipt is None or receipt.extra is None:
            continue
        try:
            receipt.verify_leaf(leaf_hash(receipt.extra))
        except ProofError as e:
            findings.append(
                Finding(
                    "bad-receipt",
                    origin,
                    f"the receipt's inclusion proof does not verify ({e}): the server "
                    "signed a tree that does not hold what it said it appended",
                    [statement],
                )
            )
    return findings


def _against_log(
    origin: str, kept: Sequence[Statement], leaves: Sequence[bytes] | None
) -> list[Finding]:
    distinct = _distinct(kept)
    if leaves is None:
        return [
            Finding(
                "missing",
                origin,
                f"the log holds nothing of it, the server signed {distinct[-1].size} leaves",
                [distinct[-1]],
            )
        ]
    tree = Tree(leaves)
    matching = [s for s in distinct if s.size <= tree.size and tree.root(s.size) == s.root]
    findings = []
    for statement in distinct:
        if statement in matching:
            continue
        later = [s for s in matching if s.size >= statement.size]
        if statement.size > tree.size:
            message = f"the server signed {statement.size} leaves; the log holds {tree.size}"
            kind = "truncated"
            if matching:
                message += (
                    f", and its tree of {matching[-1].size} is signed too: the log was cut "
                    "and went on"
                )
            findings.append(Finding(kind, origin, message, [statement, *matching[-1:]]))
            continue
        changed = _first_changed(statement, tree)
        message = f"the log's first {statement.size} leaves are not the tree the server signed"
        if changed is not None:
            message += f"; leaf {changed} (version {changed + 1}) differs from the receipt's"
        if later:
            message += (
                f"; the log's {later[0].size} leaves are the tree signed in statement 2, so "
                "no consistency proof can join the two: history was rewritten"
            )
        findings.append(Finding("rewritten", origin, message, [statement, *later[:1]]))
    return findings


def _first_changed(statement: Statement, tree: Tree) -> int | None:
    receipt = statement.receipt
    if receipt is None or receipt.extra is None or receipt.index >= tree.size:
        return None
    if tree.levels[0][receipt.index] != leaf_hash(receipt.extra):
        return receipt.index
    return None

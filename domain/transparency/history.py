"""The rule that keeps a log's signer from signing two histories (C2SP
tlog-checkpoint: "A log MUST not sign any checkpoint which is inconsistent
with any checkpoint it previously signed").

The signer remembers, for each log (its origin), the largest checkpoint it
signed: its size and root (``Signed``). A new checkpoint of that log is
signed only if it is consistent with it:

- the same size: the same root;
- a larger size: the tree extends the signed one, proven either by the
  caller's own construction (``extends``: the new tree is the signed one
  with leaves appended, as a game's frontier makes its next checkpoint) or
  by a consistency proof from the signed size, read from the log's stored
  tree and verified against the signed root (a rewritten store cannot make
  one);
- a smaller size (a receipt at an older size): a consistency proof from it
  to the signed size that verifies against the signed root, so the older
  root is the one the signed history had.

Anything else, or a proof the store cannot give (a log now shorter than
what was signed), is refused with ``TwoHistories``, naming the log, both
sizes and both roots. Since the remembered checkpoint only grows along one
history, every checkpoint signed is consistent with every other.

Pure: the record is kept by the caller (infra/receipts/signed.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.transparency.merkle import ProofError, verify_consistency
from domain.transparency.note import b64

ProofSource = Callable[[int, int], Sequence[bytes]]
"""(old size, new size) -> the consistency proof between them, from the
log's own stored tree; LookupError when the store cannot give it."""


@dataclass(frozen=True)
class Signed:
    """A log's checkpoint as the signer remembers it: size and root."""

    size: int
    root: bytes


class TwoHistories(Exception):
    """A checkpoint the signer refuses: it contradicts one signed before."""

    def __init__(self, origin: str, signed: Signed, size: int, root: bytes, why: str) -> None:
        self.origin = origin
        self.signed = signed
        self.size = size
        self.root = root
        super().__init__(
            f"refused to sign the log {origin} at size {size} (root {b64(root) or 'none'}): "
            "it is not "
            f"consistent with the checkpoint signed at size {signed.size} (root "
            f"{b64(signed.root)}): {why}. The log's store no longer holds the history that "
            "was signed; nothing is signed until it does"
        )


def admit(
    origin: str,
    signed: Signed | None,
    size: int,
    root: bytes,
    *,
    extends: Signed | None = None,
    proof: ProofSource | None = None,
) -> bool:
    """Whether the checkpoint (size, root) of ``origin`` may be signed given
    ``signed``, the largest one signed before: True when it becomes the one
    to remember (it is larger, or the first), False when it may be signed
    and the remembered one stays; TwoHistories when it may not be signed."""
    if signed is None:
        return True
    if size == signed.size:
        if root != signed.root:
            raise TwoHistories(origin, signed, size, root, "two roots for one size")
        return False
    if size > signed.size and extends == signed:
        return True  # the signed tree with leaves appended
    old, new = min(size, signed.size), max(size, signed.size)
    old_root, new_root = (root, signed.root) if size < signed.size else (signed.root, root)
    if proof is None:
        raise TwoHistories(origin, signed, size, root, "no consistency proof was given")
    try:
        verify_consistency(old, new, old_root, new_root, proof(old, new))
    except LookupError as e:
        raise TwoHistories(
            origin, signed, size, root, f"the store cannot prove {old} to {new}: {e}"
        ) from None
    except ProofError as e:
        raise TwoHistories(
            origin, signed, size, root, f"the store's tree does not prove it ({e})"
        ) from None
    return size > signed.size

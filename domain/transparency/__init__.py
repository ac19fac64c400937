"""Signed receipts: the logs as RFC 6962 Merkle trees, and the C2SP formats
that sign them (README, Receipts).

- ``merkle``: RFC 6962 §2.1 hashing, inclusion and consistency proofs (made
  and verified, RFC 9162 §2.1.3.2 and §2.1.4.2), a tree's frontier for
  appends, and trees read from stored perfect subtrees;
- ``note``: C2SP signed-note (Ed25519 signatures, key ids, vkeys) and
  tlog-cosignature (timestamped Ed25519 cosignatures, type 0x04);
- ``formats``: C2SP tlog-checkpoint and tlog-proof;
- ``logs``: what the service's logs hold (an aggregate's chain values; the
  global log's heads) and their origins;
- ``evidence``: kept checkpoints and receipts held against each other and
  against a log: misbehaviour proven by two signed statements.

Pure: no I/O, no clock (a cosignature's time is given).
"""

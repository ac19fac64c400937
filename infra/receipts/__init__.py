"""Signed receipts in the running service (README, Receipts).

- ``settings``: the ``OPUS_RECEIPTS*`` variables (read by infra/settings.py);
- ``keys``: the service's signing key, loaded (or made once) from its file,
  and the keys it has retired;
- ``aggregates``: each game's and tournament's tree, kept as its frontier
  in the process and caught up from the log, signing a checkpoint and a
  receipt for what a command appended;
- ``globallog``: the global log's tree, stored beside the events and
  appended to from the log in commit order (``Sequencer``); with shards,
  one per shard, each beside that shard's events (``service.GlobalLog``);
- ``publisher``: the thread that appends, signs a global checkpoint at
  least every second while the log grows, asks the witnesses to cosign it
  and keeps it with its cosignatures;
- ``witness``: ``opus witness``'s server (C2SP tlog-witness) and its store;
  ``witness_keys``: the log keys it follows, pinned, changed by transition;
- ``keeper``: a player's store of receipts (``opus receipts keep|check``),
  demanding the witnesses; ``gossip``: its talk with witnesses and server;
- ``service``: the parts together, as the HTTP service and the commands
  open them.
"""

"""gunicorn's settings for the API (``gunicorn -c infra/gunicorn_api.py
'api.app:create_app()'``): gthread workers, one per core, four threads each.

Sized by bench/live.py on 2 cores (16 concurrent games, PostgreSQL, Redis,
``opus project`` and the stream service on the same host): 2 workers × 4
threads made 424 moves/s with a p99 of 36 ms, where 4 × 8 made 349–383 with
54–68 ms. More processes than cores share the cores with the projector and
the stream service and each keeps its own cache of games, which another
process's move makes stale (a read of the store to catch up); more threads
than a few only wait on the GIL. At most 8 workers by default: each holds
its own pool of PostgreSQL connections (the library's, 5 or more), and
``os.cpu_count()`` counts the host's cores, also inside a container.
``WEB_CONCURRENCY`` and ``OPUS_API_THREADS`` override both. An open event
stream would hold one of these threads for a whole game: the API serves
none (``OPUS_API_STREAMS``, 0 by default; the stream service serves them).
"""

from __future__ import annotations

import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY") or min(os.cpu_count() or 1, 8))
threads = int(os.environ.get("OPUS_API_THREADS") or 4)

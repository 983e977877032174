"""The cycle collector of a server process.

Objects made at start-up live as long as the process: they are frozen out of the collector's
way, and the young generations are collected seldom, since each collection pauses every game
of the process. So seldom that, at steady play, a full collection might never come on its own:
CPython runs one only after a hundred middle ones *and* once a quarter as many objects as
survived the last full one wait in the oldest generation. Garbage that only the collector
frees (reference cycles: a closed connection's tasks, an exception and its traceback) would
then pile up; ``collect_every`` runs a full collection on a timer instead
(``GIN_FULL_GC_SECONDS``, docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)

#: Allocations between two collections of the youngest generation, and the collections of
#: each generation between two of the next one.
THRESHOLDS = (50_000, 20, 100)


def settle() -> None:
    """Collect what start-up left, freeze what survives, collect the young seldom."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


async def collect_every(seconds: float) -> None:
    """A full collection every ``seconds`` (0: never, CPython's own rule alone)."""
    if seconds <= 0:
        return
    while True:
        await asyncio.sleep(seconds)
        start = time.perf_counter()
        found = gc.collect()
        log.debug(
            "full collection",
            extra={"unreachable": found, "ms": round((time.perf_counter() - start) * 1000, 1)},
        )

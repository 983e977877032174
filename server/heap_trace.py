"""``GIN_TRACEMALLOC=N``: trace the process's allocations (N frames a traceback, 1 is enough
to name the line that allocates) to find what grows over a long run (``bench.soak``).

Each ``SIGUSR2`` takes a snapshot: the first one is the baseline; every later one writes the
lines that grew most since the baseline to ``GIN_TRACEMALLOC_FILE`` (appended; the process's
standard error when unset). The process's exit writes one more. Off (nothing traced, no
signal taken) unless the variable is set: tracing slows the process and costs memory.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import time
import tracemalloc
from collections.abc import Mapping
from types import FrameType

#: Lines of growth a dump shows.
TOP = 25
_IGNORED = (
    tracemalloc.Filter(False, tracemalloc.__file__),
    tracemalloc.Filter(False, "<frozen importlib._bootstrap*>"),
    tracemalloc.Filter(False, "<unknown>"),
)


class HeapTrace:
    """The baseline snapshot and where dumps go."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.baseline: tracemalloc.Snapshot | None = None

    def snapshot(self) -> None:
        snap = tracemalloc.take_snapshot().filter_traces(_IGNORED)
        traced, peak = tracemalloc.get_traced_memory()
        stamp = time.strftime("%H:%M:%S", time.gmtime())
        if self.baseline is None:
            self.baseline = snap
            self._write(f"tracemalloc {os.getpid()} {stamp}: baseline, {traced / 2**20:.1f} MiB"
                        f" traced (peak {peak / 2**20:.1f} MiB)\n")  # fmt: skip
            return
        stats = sorted(
            snap.compare_to(self.baseline, "lineno"), key=lambda stat: stat.size_diff, reverse=True
        )
        grown = sum(stat.size_diff for stat in stats)
        lines = [
            f"tracemalloc {os.getpid()} {stamp}: {grown / 1024:+.1f} KiB since the baseline, "
            f"{traced / 2**20:.1f} MiB traced (peak {peak / 2**20:.1f} MiB); top growth:\n"
        ]
        for stat in stats[:TOP]:
            frame = stat.traceback[0]
            lines.append(
                f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  "
                f"{frame.filename}:{frame.lineno}\n"
            )
        self._write("".join(lines))

    def _write(self, text: str) -> None:
        if self.path:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(text)
        else:
            sys.stderr.write(text)
            sys.stderr.flush()


def install(env: Mapping[str, str]) -> HeapTrace | None:
    """Start tracing and answer ``SIGUSR2`` when ``GIN_TRACEMALLOC`` is set (a number of
    frames, 1 or more); None (and nothing done) otherwise."""
    value = env.get("GIN_TRACEMALLOC", "").strip()
    if not value or value == "0":
        return None
    try:
        frames = int(value)
    except ValueError:
        raise ValueError(f"GIN_TRACEMALLOC must be a number of frames, got {value!r}") from None
    if frames < 1:
        raise ValueError(f"GIN_TRACEMALLOC must be a number of frames, got {value!r}")
    trace = HeapTrace(env.get("GIN_TRACEMALLOC_FILE") or None)
    tracemalloc.start(frames)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        trace.snapshot()

    def at_exit() -> None:
        if trace.baseline is not None:
            trace.snapshot()

    signal.signal(signal.SIGUSR2, on_signal)
    atexit.register(at_exit)
    return trace

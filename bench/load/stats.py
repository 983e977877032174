"""What one phase measures: answered requests, latencies, CPU shares over its window."""

from __future__ import annotations

import asyncio
import collections
import gc
import time
from dataclasses import dataclass, field

from bench.load.processes import TICKS, cpu_of


@dataclass
class Stats:
    """What one phase measured."""

    name: str
    key: str = ""  # "game saturated", "game paced", "echo saturated", ..., "floor paced"
    measuring: bool = False
    done: int = 0  # applied actions (acks) or echoes, inside the window
    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    seconds: float = 0.0
    started: float = 0.0  # perf_counter at the start of the measured window
    cpu: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    def sample(self, sent: float, now: float) -> None:
        """The latency of a request answered now, if it was sent inside the measured window: one
        sent before it waited through what came before (the collection that opens the window,
        the previous phase's load) and would charge that to the window."""
        if self.measuring and sent >= self.started:
            self.latencies.append(now - sent)

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
        return ordered[index] * 1000


#: What a CPU column reads: one process (a pid, or "self"), or the sum of several.
Processes = dict[str, int | str | tuple[int, ...]]


def cpu_of_all(pids: int | str | tuple[int, ...]) -> float:
    """User + system CPU seconds of a process, or of several together."""
    if isinstance(pids, tuple):
        return sum(cpu_of(pid) for pid in pids)
    return cpu_of(pids)


class CpuWatch:
    """CPU seconds of the processes of interest over a window."""

    def __init__(self, processes: Processes) -> None:
        self.processes = processes
        self.start = {name: cpu_of_all(pid) for name, pid in processes.items()}
        self.machine = machine_busy()
        self.t0 = time.perf_counter()

    def shares(self) -> dict[str, float]:
        """Per process, and ``others``: the rest of the machine (other users' work)."""
        wall = time.perf_counter() - self.t0
        shares = {
            name: (cpu_of_all(pid) - self.start[name]) / wall * 100
            for name, pid in self.processes.items()
        }
        busy = (machine_busy() - self.machine) / wall * 100
        shares["others"] = max(0.0, busy - sum(shares.values()))
        return shares


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy (all CPUs), from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / TICKS


async def measure(stats: Stats, warmup: float, seconds: float, processes: Processes) -> None:
    await asyncio.sleep(warmup)
    gc.collect()
    stats.measuring = True
    watch = CpuWatch(processes)
    stats.started = time.perf_counter()
    await asyncio.sleep(seconds)
    stats.measuring = False
    stats.seconds = time.perf_counter() - stats.started
    stats.cpu = watch.shares()

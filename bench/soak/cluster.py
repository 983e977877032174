"""The soak's processes: a redis-server, two game servers on it, one AI worker; and what is
read of them every interval (RSS, open descriptors, Redis memory and keys)."""

from __future__ import annotations

import os
import signal
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import redis.asyncio as redis

from bench.load.processes import PYTHON, ROOT, Child, Children, rss_of
from bench.load.servers import WORKER_KEY, start_game_server, start_redis


def collector_line(metrics: str) -> str:
    """``full collections N; freed by generation 0/1/2: a/b/c`` from a ``/metrics`` page."""
    counts: dict[str, dict[str, str]] = {"collections": {}, "objects_collected": {}}
    for line in metrics.splitlines():
        for kind, found in counts.items():
            prefix = f'python_gc_{kind}_total{{generation="'
            if line.startswith(prefix):
                found[line[len(prefix)]] = line.split()[-1].removesuffix(".0")
    freed = "/".join(counts["objects_collected"].get(g, "?") for g in "012")
    full = counts["collections"].get("2", "?")
    return f"full collections {full}; freed by generation 0/1/2: {freed}"


@dataclass
class Cluster:
    redis: Child
    redis_url: str
    servers: list[tuple[Child, int]]
    worker: Child
    #: The tracemalloc files of the servers that trace (``GIN_TRACEMALLOC_FILE``), by name.
    traces: dict[str, Path]

    def url(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.servers[index][1]}/ws"

    def processes(self) -> list[Child]:
        return [*(child for child, _ in self.servers), self.worker, self.redis]

    def collector_figures(self) -> dict[str, str]:
        """Each live server's full collections and the objects its collector freed, by
        generation, from its ``/metrics`` (``server/collector.py``)."""
        figures = {}
        for child, port in self.servers:
            if child.alive():
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                    figures[child.name] = collector_line(r.read().decode())
        return figures

    def snapshot_heaps(self) -> None:
        """Ask every tracing server for a tracemalloc snapshot (``server/heap_trace.py``)."""
        for child, _ in self.servers:
            if child.name in self.traces and child.alive():
                child.proc.send_signal(signal.SIGUSR2)


async def start(
    work: Path,
    children: Children,
    *,
    traced: int,
    grace: float,
    ai_think: float,
    ai_capacity: int,
) -> Cluster:
    """Redis, servers ``a`` and ``b`` (the first ``traced`` of them with tracemalloc on) and a
    worker connected to ``a``."""
    redis_child, port = start_redis(work, children)
    redis_url = f"redis://127.0.0.1:{port}/0"
    servers = []
    traces = {}
    for index, name in enumerate(("server-a", "server-b")):
        env = {"GIN_DISCONNECT_GRACE": str(grace)}
        if index >= 2 - traced:
            traces[name] = work / f"{name}.tracemalloc"
            env.update(GIN_TRACEMALLOC="1", GIN_TRACEMALLOC_FILE=str(traces[name]))
        servers.append(
            await start_game_server(name, redis_url, work, children=children, extra_env=env)
        )
    paths = [str(ROOT), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    worker_env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(paths),
        GIN_SERVER_URL=f"ws://127.0.0.1:{servers[0][1]}/ws",
        GIN_AI_WORKER_KEY=WORKER_KEY,
        GIN_AI_THINK_SECONDS=str(ai_think),
        GIN_AI_CAPACITY=str(ai_capacity),
        GIN_AI_PROCESSES="0",
        GIN_AI_DRAIN_SECONDS="2",
        GIN_DISCONNECT_GRACE=str(grace),  # its paused AI rooms are given up after the grace
        GIN_LOG_LEVEL="WARNING",
    )
    worker = Child("ai-worker", [PYTHON, "-m", "client.ai"], work, worker_env, children=children)
    return Cluster(redis_child, redis_url, servers, worker, traces)


def fds_of(pid: int) -> int:
    """Open file descriptors of a process."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def rss_or_zero(child: Child) -> int:
    try:
        return rss_of(child.pid)
    except OSError:
        return 0


async def redis_figures(client: redis.Redis) -> tuple[int, int]:
    """Redis's ``used_memory`` and number of keys."""
    memory = await client.info("memory")
    keys = await client.dbsize()
    return int(memory["used_memory"]), int(keys)

"""Starting the servers a run measures, each on a free loopback port, and Redis."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import time
from pathlib import Path

from bench.load.processes import PYTHON, ROOT, Child, Children
from tests.support.ports import free_port
from tests.support.redis_cluster import RedisCluster

WORKER_KEY = "bench-worker-key"


async def wait_http(port: int, path: str, child: Child, timeout: float = 20.0) -> None:
    """Until GET path answers 200 (or the child dies, or timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not child.alive():
            raise RuntimeError(f"{child.name} exited at start:\n{child.log_tail()}")
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            line = await asyncio.wait_for(reader.readline(), 2.0)
            writer.close()
            if b" 200 " in line:
                return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{child.name} did not answer {path} in {timeout}s:\n{child.log_tail()}")


def redis_ping(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as s:
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        return s.recv(64).startswith(b"+PONG")
    return False


def start_redis(
    work: Path, children: Children | None = None, extra_args: tuple[str, ...] = ()
) -> tuple[Child, int]:
    """A redis-server of the run's own on a free port (``extra_args``: a TLS port...)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: run scripts/ensure-redis.sh")
    for _attempt in range(5):
        port = free_port()
        data = work / f"redis-{port}"
        data.mkdir()
        child = Child(
            "redis",
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
             "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning",
             "--maxclients", "10000", *extra_args],
            work,
            children=children,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and child.alive():
            if redis_ping(port):
                return child, port
            time.sleep(0.02)
        tail = child.log_tail()
        child.stop()
        if "Address already in use" not in tail:
            raise RuntimeError(f"redis-server did not start:\n{tail}")
    raise RuntimeError("no free port for redis-server")


#: The cluster's node timeout: a master starved of CPU on a busy machine for a moment must
#: not be failed over in the middle of a phase (Redis's own default).
CLUSTER_NODE_TIMEOUT_MS = 15_000


def new_cluster(children: Children) -> RedisCluster:
    """A Redis Cluster of six nodes on free ports, not started yet (``start()``), closed on
    the run's way out whichever way it goes (``tests.support.redis_cluster``, which the
    cluster tests use)."""
    cluster = RedisCluster(node_timeout_ms=CLUSTER_NODE_TIMEOUT_MS)
    children.on_stop(cluster.close)
    return cluster


def _pythonpath() -> str:
    """The project first, then whatever PYTHONPATH the bench was given."""
    extra = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([str(ROOT), *(p for p in extra.split(os.pathsep) if p)])


def server_env(redis_url: str, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=_pythonpath(),
        REDIS_URL=redis_url,
        GIN_PORT=str(port),
        GIN_HOST="127.0.0.1",
        GIN_AI_WORKER_KEY=WORKER_KEY,
        GIN_RATE_PER_SECOND="1000000",
        GIN_RATE_BURST="1000000",
        # Every simulated player comes from 127.0.0.1: no per-address or per-player limits.
        GIN_MAX_CONNECTIONS_PER_ADDRESS="0",
        GIN_NEW_PLAYERS_PER_MINUTE="100000000",
        GIN_LOOKUP_FAILURES_PER_MINUTE="100000000",
        GIN_MAX_OPEN_ROOMS="100000",
        GIN_MAX_AI_ROOMS="100000",
        GIN_LOG_LEVEL="WARNING",
        GIN_IDLE_TIMEOUT="3600",
    )
    return env


def cluster_env(wait_replicas: int) -> dict[str, str]:
    """A game server's settings on a Redis Cluster whose commits wait for that many replicas."""
    return {"GIN_REDIS_CLUSTER": "1", "GIN_REDIS_WAIT_REPLICAS": str(wait_replicas)}


async def start_game_server(
    name: str,
    redis_url: str,
    work: Path,
    module: str = "server",
    cprofile: Path | None = None,
    children: Children | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[Child, int]:
    port = free_port()
    if cprofile is not None:
        args = [PYTHON, "-m", "cProfile", "-o", str(cprofile), "-m", module]
        stop = signal.SIGINT  # uvicorn shuts down cleanly and cProfile writes its file
    else:
        args = [PYTHON, "-m", module]
        stop = signal.SIGTERM
    env = {**server_env(redis_url, port), **(extra_env or {})}
    child = Child(name, args, work, env, stop, children)
    await wait_http(port, "/readyz", child)
    return child, port


async def start_floor_server(
    work: Path,
    redis_url: str,
    children: Children | None = None,
    *,
    cluster: bool = False,
    wait_replicas: int = 0,
    name: str = "floor",
    tls_ca: Path | None = None,
) -> tuple[Child, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    args = [PYTHON, "-m", "bench.floor_server", "--port", str(port), "--redis", redis_url]
    if cluster:
        args += ["--cluster", "--wait-replicas", str(wait_replicas)]
    if tls_ca is not None:
        args += ["--tls-ca", str(tls_ca)]
    child = Child(name, args, work, env, children=children)
    await wait_http(port, "/healthz", child)
    return child, port


async def start_echo_server(work: Path, children: Children | None = None) -> tuple[Child, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    args = [PYTHON, "-m", "bench.echo_server", "--port", str(port)]
    child = Child("echo", args, work, env, children=children)
    await wait_http(port, "/healthz", child)
    return child, port

"""Redis CPU and server CPU per move, over a played series of matches (docs/scaling.md).

    PYTHONPATH=. .venv/bin/python scripts/measure_move_cpu.py [--cluster] [--matches 20]

Starts its own Redis (one, or a cluster of three masters with a replica each), one server
process on it (commits wait for a replica in cluster mode), and plays ``--matches`` matches
to 100 between scripted people at once, as fast as they can. Before and after, it reads the
server process's CPU time (``/proc/PID/stat``) and each Redis node's ``INFO cpu`` and
``INFO commandstats``, and prints the CPU per move (a move: one acknowledged action) and what
the commands of those moves cost inside Redis. It is a measurement, not a test: run it on a
quiet machine; the figures move with the machine's speed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
from collections import Counter
from pathlib import Path

from tests.support.players import close_all, play_match, private_match
from tests.support.redis_cluster import RedisCluster
from tests.support.redis_server import RedisServer, _command
from tests.support.server_process import ServerProcess

FAST = {"GIN_RATE_PER_SECOND": "100000", "GIN_RATE_BURST": "100000", "GIN_LOG_LEVEL": "WARNING"}


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _info(port: int, section: str) -> dict[str, str]:
    text = subprocess.run(
        ["redis-cli", "-p", str(port), "INFO", section], capture_output=True, check=True
    ).stdout.decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _redis_cpu(ports: list[int]) -> float:
    total = 0.0
    for port in ports:
        info = _info(port, "cpu")
        total += float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    return total


def _commandstats(ports: list[int]) -> Counter[str]:
    stats: Counter[str] = Counter()
    for port in ports:
        for name, value in _info(port, "commandstats").items():
            fields = dict(part.split("=") for part in value.strip().split(","))
            command = name.removeprefix("cmdstat_")
            stats[f"{command}:calls"] += int(fields["calls"])
            stats[f"{command}:usec"] += int(float(fields["usec"]))
    return stats


async def _series(url: str, matches: int) -> int:
    async def one(index: int) -> int:
        a, b, room = await private_match(url, url, target=100)
        try:
            logs = await play_match([a, b], room, seed=index, timeout=600)
        finally:
            await close_all(a, b)
        return sum(len(log.acked) for log in logs)

    return sum(await asyncio.gather(*(one(index) for index in range(matches))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", action="store_true", help="a Redis Cluster, not one Redis")
    parser.add_argument("--matches", type=int, default=20)
    options = parser.parse_args()
    cluster: RedisCluster | None = None
    single: RedisServer | None = None
    if options.cluster:
        cluster = RedisCluster().start()
        url = cluster.url
        env = {**FAST, "GIN_REDIS_CLUSTER": "1", "GIN_REDIS_WAIT_REPLICAS": "1"}
    else:
        single = RedisServer().start()
        url = single.url
        env = dict(FAST)
    server = ServerProcess(url, env=env)
    try:
        server.start()
        assert server.pid is not None
        if cluster is not None:
            masters = [node.port for node in cluster.masters()]
            replicas = [node.port for node in cluster.nodes if node.port not in masters]
        else:
            assert single is not None and single.port is not None
            masters, replicas = [single.port], []
        for port in masters + replicas:
            _command(port, "CONFIG", "RESETSTAT")
        server_before = _process_cpu(server.pid)
        masters_before, replicas_before = _redis_cpu(masters), _redis_cpu(replicas)
        moves = asyncio.run(_series(server.ws_url, options.matches))
        server_cpu = _process_cpu(server.pid) - server_before
        masters_cpu = _redis_cpu(masters) - masters_before
        replicas_cpu = _redis_cpu(replicas) - replicas_before
        stats = _commandstats(masters)
    finally:
        server.kill()
        if cluster is not None:
            cluster.close()
        if single is not None:
            single.close()
    kind = "cluster (3 masters + 3 replicas, WAIT 1)" if cluster else "one Redis"
    print(f"{kind}: {options.matches} matches to 100, {moves} moves (acknowledged actions)")
    print(f"server process CPU per move: {server_cpu / moves * 1e6:.0f} us")
    print(f"Redis CPU per move (masters, INFO cpu): {masters_cpu / moves * 1e6:.0f} us")
    if replicas:
        print(f"Redis CPU per move (replicas): {replicas_cpu / moves * 1e6:.0f} us")
    commands = sorted({key.split(":")[0] for key in stats}, key=lambda name: -stats[f"{name}:usec"])
    for name in commands[:8]:
        calls, usec = stats[f"{name}:calls"], stats[f"{name}:usec"]
        print(
            f"  {name:<18} {calls / moves:6.2f} calls/move  {usec / max(calls, 1):6.1f} us/call"
            f"  {usec / moves:6.1f} us/move"
        )


if __name__ == "__main__":
    main()

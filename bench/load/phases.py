"""The phases of a run, in order: game, echo, floor (each saturated then paced), idle."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import msgpack

from bench import engine_moves
from bench.load.game_clients import GameLoad
from bench.load.pair_clients import FloorPair, PairLoad
from bench.load.processes import Child, Children
from bench.load.profiles import start_py_spy, summarize_cprofile, summarize_py_spy
from bench.load.report import Memory, Report
from bench.load.servers import (
    cluster_env,
    new_cluster,
    start_echo_server,
    start_floor_server,
    start_game_server,
    start_redis,
)
from bench.load.stats import Processes, Stats, measure
from bench.load.websocket import WSClient, bounded, close_all, open_ws
from tests.support.ports import free_port
from tests.support.tls import make_certificates, redis_tls_args


def _warmup_count(total: int) -> int:
    """Connections opened before the "before" RSS reading (0 for small runs)."""
    return min(total // 20, 50)


async def settle(child: Child, seconds: float = 1.0) -> int:
    """The RSS once the process has had a moment (allocations after the last reply)."""
    await asyncio.sleep(seconds)
    return child.rss()


async def run_game(
    report: Report,
    server: Child,
    port: int,
    processes: Processes,
    py_spy: Path | None,
    *,
    label: str = "game",
) -> None:
    """The saturated phase, then the paced one: at the rate asked for, or a share of the
    saturated rate for the first game (``label`` "game"; the cluster's passes keep its rate)."""
    args = report.args
    rooms = args.rooms
    first_game = label == "game"
    load = GameLoad(port)
    first = _warmup_count(rooms)
    await load.open(first)
    before = await settle(server)
    started = time.perf_counter()
    await load.open(rooms - first)
    setup = time.perf_counter() - started
    after = await settle(server)
    gc.freeze()
    if first_game:
        report.memory.append(
            Memory("game server", 2 * (rooms - first), before, after,
                   f"seated in {rooms - first} rooms, opened in {setup:.1f} s")
        )  # fmt: skip

    saturated = Stats(f"{label}, saturated ({rooms} rooms)", f"{label} saturated")
    load.go(saturated, 0.0)
    spy = None
    if py_spy is not None:
        spy = start_py_spy(server.pid, py_spy, args.warmup + args.seconds)
    await measure(saturated, args.warmup, args.seconds, processes)
    report.phases.append(saturated)
    stalled = load.stalled(saturated.started)
    if first_game:
        report.stalled = stalled
    elif stalled:
        report.notes.append(f"{label}: {stalled} tables with no update in the saturated window")
    if spy is not None and py_spy is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            spy.wait(30)
        report.profile = summarize_py_spy(py_spy)

    if first_game:
        report.rate = args.rate or max(1.0, saturated.rate * args.load_factor)
    rate = report.rate
    paced = Stats(f"{label}, paced ~{rate:,.0f}/s", f"{label} paced")
    load.go(paced, rooms / rate)
    await measure(paced, max(args.warmup, 2 * rooms / rate), args.seconds, processes)
    report.phases.append(paced)
    load.stop()
    await asyncio.sleep(0.5)
    report.unanswered += load.unanswered(5.0)
    report.matches += load.matches
    if first_game:
        report.memory.append(
            Memory("game server after play", 2 * rooms, before, server.rss(), "same connections")
        )
    await load.close()


async def run_echo(report: Report, echo: Child, port: int) -> None:
    args = report.args
    pairs = args.rooms
    load = PairLoad(port)
    first = _warmup_count(pairs)
    await load.open(first)
    before = await settle(echo)
    await load.open(pairs - first)
    after = await settle(echo)
    report.memory.append(Memory("echo server", 2 * (pairs - first), before, after, "no state"))
    processes: Processes = {"server": echo.pid, "client": "self"}
    await run_pairs(report, load, "echo", processes)
    await load.close()


async def run_floor(report: Report, port: int, processes: Processes, label: str = "floor") -> None:
    load = PairLoad(port, FloorPair)
    await load.open(report.args.rooms)
    await run_pairs(report, load, label, processes)
    await load.close()


async def run_pairs(report: Report, load: PairLoad, name: str, processes: Processes) -> None:
    """The saturated phase, then the paced one at the game's paced rate."""
    args = report.args
    pairs = len(load.pairs)
    saturated = Stats(f"{name}, saturated ({pairs} pairs)", f"{name} saturated")
    load.go(saturated, 0.0)
    await measure(saturated, args.warmup, args.seconds, processes)
    report.phases.append(saturated)
    paced = Stats(f"{name}, paced ~{report.rate:,.0f}/s", f"{name} paced")
    load.go(paced, pairs / report.rate)
    await measure(paced, max(args.warmup, 2 * pairs / report.rate), args.seconds, processes)
    report.phases.append(paced)


async def run_idle(report: Report, server: Child, port: int) -> None:
    count = report.args.idle
    if count <= 0:
        return
    clients: list[WSClient] = []
    failures: collections.Counter[str] = collections.Counter()

    async def make(_index: int) -> None:
        replies: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def on_message(data: Any) -> None:
            if not replies.done():
                replies.set_result(msgpack.unpackb(data))

        try:
            client = await open_ws(port, on_message)
        except (OSError, TimeoutError) as error:
            failures[type(error).__name__] += 1
            return
        clients.append(client)
        client.send(msgpack.packb({"t": "hello", "id": 1, "version": "1.0", "name": "idle"}))
        try:
            reply = await asyncio.wait_for(replies, 30.0)
        except TimeoutError:
            failures["hello timeout"] += 1
            return
        if reply.get("t") != "ack":
            failures[f"hello {reply.get('code')}"] += 1

    first = _warmup_count(count)
    await bounded(first, make)
    before = await settle(server)
    started = time.perf_counter()
    await bounded(count - first, make)
    report.idle_seconds = time.perf_counter() - started
    after = await settle(server, 2.0)
    opened = len(clients) - first
    alive = sum(1 for c in clients if not c.closed.done())
    extra = f"{alive:,} open at the end"
    if failures:
        extra += "; failed: " + ", ".join(f"{k} x{v}" for k, v in failures.items())
    report.idle = Memory("idle (hello only)", opened, before, after, extra)
    await close_all(clients, timeout=10.0)


async def run(args: argparse.Namespace, work: Path, children: Children) -> Report:
    """Every phase in turn, each server started for its phases and stopped after them."""
    report = Report(args)
    report.client_note = f"1 process (this one, pid {os.getpid()})"
    report.engine_us = engine_moves.speed()
    print(f"  pure game code: {report.engine_us:.1f} us/move (bench.engine_moves)", flush=True)
    redis, redis_port = start_redis(work, children)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    print(f"  redis-server pid {redis.pid} on port {redis_port}", flush=True)

    server, port = await start_game_server(
        "server", redis_url, work, args.server_module, args.cprofile, children
    )
    print(f"  game server pid {server.pid} on port {port}: {args.rooms} rooms ...", flush=True)
    processes: Processes = {"server": server.pid, "redis": redis.pid, "client": "self"}
    await run_game(report, server, port, processes, args.py_spy)
    server.stop(30)
    if args.cprofile is not None:
        report.profile = summarize_cprofile(args.cprofile)

    echo, echo_port = await start_echo_server(work, children)
    print(f"  echo server pid {echo.pid} on port {echo_port}: {args.rooms} pairs ...", flush=True)
    await run_echo(report, echo, echo_port)
    echo.stop()

    floor, floor_port = await start_floor_server(work, redis_url, children)
    print(
        f"  floor server pid {floor.pid} on port {floor_port}: {args.rooms} pairs ...", flush=True
    )
    processes = {"server": floor.pid, "redis": redis.pid, "client": "self"}
    await run_floor(report, floor_port, processes)
    floor.stop()

    if args.idle > 0:
        idle_server, idle_port = await start_game_server(
            "server-idle", redis_url, work, args.server_module, children=children
        )
        print(
            f"  fresh game server pid {idle_server.pid} on port {idle_port}: "
            f"{args.idle:,} idle connections ...",
            flush=True,
        )
        await run_idle(report, idle_server, idle_port)
        idle_server.stop()
    redis.stop()
    if args.tls:
        await run_tls(report, work, children)
    if args.redis_cluster:
        await run_cluster(report, work, children)
    return report


async def run_tls(report: Report, work: Path, children: Children) -> None:
    """The game and the floor again on a Redis that the servers reach over TLS only
    (``rediss://``, certificates made for the run by ``tests.support.tls``), at the single
    node's paced rate: what TLS costs beside plain TCP."""
    files = await asyncio.to_thread(make_certificates, work / "tls")
    tls_port = free_port()
    redis, _plain = start_redis(work, children, redis_tls_args(files, tls_port))
    url = f"rediss://127.0.0.1:{tls_port}/0"
    print(f"  redis-server pid {redis.pid}, TLS on port {tls_port}", flush=True)
    server, port = await start_game_server(
        "server-tls", url, work, report.args.server_module, children=children,
        extra_env={"GIN_REDIS_CA": str(files.ca)},
    )  # fmt: skip
    print(f"  game server pid {server.pid} on port {port}, TLS: {report.args.rooms} rooms ...",
          flush=True)  # fmt: skip
    processes: Processes = {"server": server.pid, "redis": redis.pid, "client": "self"}
    await run_game(report, server, port, processes, None, label="tls game")
    server.stop(30)
    floor, floor_port = await start_floor_server(
        work, url, children, name="floor-tls", tls_ca=files.ca
    )
    print(f"  floor server pid {floor.pid} on port {floor_port}, TLS: {report.args.rooms} pairs"
          " ...", flush=True)  # fmt: skip
    await run_floor(report, floor_port, {**processes, "server": floor.pid}, "tls floor")
    floor.stop()
    redis.stop()


async def run_cluster(report: Report, work: Path, children: Children) -> None:
    """The game and the floor again on a Redis Cluster of six nodes (three masters, a
    replica each), at the single node's paced rate: once as it is, once with each commit
    waiting for one replica (``WAIT 1``)."""
    args = report.args
    cluster = new_cluster(children)
    await asyncio.to_thread(cluster.start)
    masters = tuple(node.server.pid or 0 for node in cluster.masters())
    replicas = tuple(
        node.server.pid or 0 for node in cluster.nodes_running() if node.role() == "slave"
    )
    ports = ", ".join(str(node.port) for node in cluster.nodes)
    print(f"  redis cluster: masters pids {masters}, replicas {replicas}; ports {ports}",
          flush=True)  # fmt: skip
    for wait, label in ((0, "cluster"), (1, "cluster+WAIT")):
        await asyncio.to_thread(cluster.flushall)
        server, port = await start_game_server(
            f"server-{label}", cluster.url, work, args.server_module, children=children,
            extra_env=cluster_env(wait),
        )  # fmt: skip
        print(f"  game server pid {server.pid} on port {port}, {label}: {args.rooms} rooms ...",
              flush=True)  # fmt: skip
        processes: Processes = {
            "server": server.pid, "redis": masters, "replicas": replicas, "client": "self",
        }  # fmt: skip
        await run_game(report, server, port, processes, None, label=f"{label} game")
        server.stop(30)
        floor, floor_port = await start_floor_server(
            work, cluster.url, children, cluster=True, wait_replicas=wait, name=f"floor-{label}"
        )
        print(f"  floor server pid {floor.pid} on port {floor_port}, {label}: {args.rooms} pairs"
              " ...", flush=True)  # fmt: skip
        processes = {**processes, "server": floor.pid}
        await run_floor(report, floor_port, processes, f"{label} floor")
        floor.stop()
    await asyncio.to_thread(cluster.close)

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
from bench.load.servers import start_echo_server, start_floor_server, start_game_server, start_redis
from bench.load.stats import Stats, measure
from bench.load.websocket import WSClient, bounded, close_all, open_ws


def _warmup_count(total: int) -> int:
    """Connections opened before the "before" RSS reading (0 for small runs)."""
    return min(total // 20, 50)


async def settle(child: Child, seconds: float = 1.0) -> int:
    """The RSS once the process has had a moment (allocations after the last reply)."""
    await asyncio.sleep(seconds)
    return child.rss()


async def run_game(
    report: Report, server: Child, port: int, redis: Child, py_spy: Path | None
) -> None:
    args = report.args
    rooms = args.rooms
    load = GameLoad(port)
    first = _warmup_count(rooms)
    await load.open(first)
    before = await settle(server)
    started = time.perf_counter()
    await load.open(rooms - first)
    setup = time.perf_counter() - started
    after = await settle(server)
    gc.freeze()
    report.memory.append(
        Memory("game server", 2 * (rooms - first), before, after,
               f"seated in {rooms - first} rooms, opened in {setup:.1f} s")
    )  # fmt: skip
    processes: dict[str, int | str] = {"server": server.pid, "redis": redis.pid, "client": "self"}

    saturated = Stats(f"game, saturated ({rooms} rooms)", "game saturated")
    load.go(saturated, 0.0)
    spy = None
    if py_spy is not None:
        spy = start_py_spy(server.pid, py_spy, args.warmup + args.seconds)
    await measure(saturated, args.warmup, args.seconds, processes)
    report.phases.append(saturated)
    report.stalled = load.stalled(saturated.started)
    if spy is not None and py_spy is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            spy.wait(30)
        report.profile = summarize_py_spy(py_spy)

    rate = args.rate or max(1.0, saturated.rate * args.load_factor)
    report.rate = rate
    paced = Stats(f"game, paced ~{rate:,.0f}/s", "game paced")
    load.go(paced, rooms / rate)
    await measure(paced, max(args.warmup, 2 * rooms / rate), args.seconds, processes)
    report.phases.append(paced)
    load.stop()
    await asyncio.sleep(0.5)
    report.unanswered = load.unanswered(5.0)
    report.matches = load.matches
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
    processes: dict[str, int | str] = {"server": echo.pid, "client": "self"}
    await run_pairs(report, load, "echo", processes)
    await load.close()


async def run_floor(report: Report, floor: Child, port: int, redis: Child) -> None:
    load = PairLoad(port, FloorPair)
    await load.open(report.args.rooms)
    processes: dict[str, int | str] = {"server": floor.pid, "redis": redis.pid, "client": "self"}
    await run_pairs(report, load, "floor", processes)
    await load.close()


async def run_pairs(
    report: Report, load: PairLoad, name: str, processes: dict[str, int | str]
) -> None:
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
    await run_game(report, server, port, redis, args.py_spy)
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
    await run_floor(report, floor, floor_port, redis)
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
    return report

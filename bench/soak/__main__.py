"""The command: ``python -m bench.soak --minutes N [--ai-rooms N] [--human-rooms N] ...``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import redis.asyncio as redis

from bench import soak
from bench.load.__main__ import raise_fd_limit
from bench.load.processes import Children
from bench.soak import clients
from bench.soak.abandoned import Abandoned, run_case
from bench.soak.cluster import Cluster, fds_of, redis_figures, rss_or_zero, start
from bench.soak.counts import Totals
from bench.soak.report import (
    GROWTH_LIMIT,
    GROWTH_WINDOW,
    MIB,
    Row,
    growth,
    header,
    make_row,
    render_row,
    render_totals,
)

DESCRIPTION = (soak.__doc__ or "").split("\n", 1)[0]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=DESCRIPTION)
    add = parser.add_argument
    add("--minutes", type=float, default=10.0, help="minutes of mixed load (default 10)")
    add("--ai-rooms", type=int, default=40, help="AI rooms, one person each (default 40)")
    add("--human-rooms", type=int, default=40, help="rooms between two people (default 40)")
    add("--split", type=int, default=15, help="of those, with one person on each server (15)")
    add("--watchers", type=int, default=10, help="watchers of the rooms between people (10)")
    add("--drop-every", type=float, default=30.0, help="a person drops every S s (default 30)")
    add("--sample-every", type=float, default=30.0, help="a row every S s (default 30)")
    add("--abandoned", type=int, default=40, help="abandoned AI rooms, then as many new (40)")
    add("--think", type=float, default=2.0, help="a person's mean pause before a move (2 s)")
    add("--ai-think", type=float, default=0.3, help="the AI worker's pause (default 0.3 s)")
    add("--ai-capacity", type=int, default=50, help="the AI worker's seats (default 50, its own)")
    add("--target", type=int, default=100, help="points to win a match (default 100)")
    add("--grace", type=float, default=10.0, help="GIN_DISCONNECT_GRACE of the servers (10 s)")
    add("--stall", type=float, default=60.0, help="a wait for one's turn over S s is a stall")
    add(
        "--tracemalloc",
        type=int,
        choices=(0, 1, 2),
        default=1,
        help="servers run with GIN_TRACEMALLOC=1 (default 1: the second one)",
    )
    add("--seed", type=int, default=27, help="seed of the players' choices")
    add("--keep", action="store_true", help="keep the work folder (logs, tracemalloc files)")
    args = parser.parse_args(argv)
    if not 0.1 <= args.minutes <= 24 * 60:
        parser.error("--minutes is 0.1..1440")
    for name in ("ai_rooms", "human_rooms", "watchers", "abandoned"):
        if not 0 <= getattr(args, name) <= 1000:
            parser.error(f"--{name.replace('_', '-')} is 0..1000")
    if not 0 <= args.split <= args.human_rooms:
        parser.error("--split is 0..--human-rooms")
    if args.watchers and not args.human_rooms:
        parser.error("watchers watch the rooms between people: --human-rooms must be positive")
    if args.drop_every <= 0 or args.sample_every <= 0 or args.stall <= 0:
        parser.error("--drop-every, --sample-every and --stall must be positive")
    if not 1 <= args.ai_capacity <= 10_000:
        parser.error("--ai-capacity is 1..10000")
    if args.think < 0 or args.ai_think < 0 or args.grace <= 0 or not 1 <= args.target <= 500:
        parser.error("--think/--ai-think >= 0, --grace > 0, --target 1..500")
    return args


async def sample(cluster: Cluster, client: redis.Redis, started: float, totals: Totals) -> Row:
    servers = [child for child, _ in cluster.servers]
    rss = {child.name: rss_or_zero(child) for child in cluster.processes()}
    fds = {child.name: fds_of(child.pid) for child in servers}
    memory = await redis_figures(client)
    return make_row(time.monotonic() - started, rss, fds, memory, totals)


async def mixed_load(
    args: argparse.Namespace, cluster: Cluster, totals: Totals, rows: list[Row]
) -> None:
    pace = clients.Pace(args.think, args.stall, args.target)
    a, b = cluster.url(0), cluster.url(1)

    async def session(url: str, name: str) -> clients.CountingSession:
        return await clients.connect(url, name, totals)

    tables = []
    for index in range(args.human_rooms):
        pair = await asyncio.gather(
            session(a, f"Ann{index}"), session(b if index < args.split else a, f"Bob{index}")
        )
        tables.append(clients.Table(index, (pair[0], pair[1])))
    persons = [
        clients.AiPerson(await session(a if index % 2 == 0 else b, f"Cy{index}"))
        for index in range(args.ai_rooms)
    ]
    watchers = [
        await session(b if index % 2 == 0 else a, f"Wat{index}") for index in range(args.watchers)
    ]
    people = [s for table in tables for s in table.sessions] + [p.session for p in persons]
    tasks = [
        *(asyncio.create_task(clients.run_table(t, pace, totals, args.seed)) for t in tables),
        *(
            asyncio.create_task(clients.run_ai_room(p, pace, totals, args.seed + i))
            for i, p in enumerate(persons)
        ),
        *(
            asyncio.create_task(clients.run_watcher(w, tables[i % len(tables)], pace, totals))
            for i, w in enumerate(watchers)
        ),
    ]
    if people:
        tasks.append(
            asyncio.create_task(clients.run_dropper(people, args.drop_every, totals, args.seed))
        )
    client = redis.Redis.from_url(cluster.redis_url)
    seconds = args.minutes * 60
    # tracemalloc's baseline: where the window of the growth judged at the end begins
    baseline_at = seconds - GROWTH_WINDOW if seconds >= 2 * GROWTH_WINDOW else seconds / 2
    baseline_taken = False
    try:
        started = time.monotonic()
        print(header([child.name for child in cluster.processes()]), flush=True)
        next_row = started
        rows.append(await sample(cluster, client, started, totals))
        print(render_row(rows[-1]), flush=True)
        while time.monotonic() - started < seconds:
            next_row += args.sample_every
            await asyncio.sleep(max(0.0, min(next_row, started + seconds) - time.monotonic()))
            for task in tasks:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            if not baseline_taken and time.monotonic() - started >= baseline_at:
                cluster.snapshot_heaps()
                baseline_taken = True
            rows.append(await sample(cluster, client, started, totals))
            print(render_row(rows[-1]), flush=True)
        cluster.snapshot_heaps()  # the growth since the baseline
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(s.close() for s in [*people, *watchers]), return_exceptions=True)
        await client.aclose()


def heap_report(cluster: Cluster, lines: int = 12) -> list[str]:
    out = []
    for name, path in cluster.traces.items():
        with contextlib.suppress(OSError):
            text = path.read_text().splitlines()
            starts = [i for i, line in enumerate(text) if line.startswith("tracemalloc ")]
            if len(starts) >= 2:  # the baseline, then the end of the load (then the exit's)
                last = text[starts[1] : starts[1] + 1 + lines]
                out.append(f"-- {name}: {last[0]}")
                out.extend(last[1:])
    return out


async def run(args: argparse.Namespace, work: Path, children: Children) -> int:
    cluster = await start(
        work,
        children,
        traced=args.tracemalloc,
        grace=args.grace,
        ai_think=args.ai_think,
        ai_capacity=args.ai_capacity,
    )
    print(
        f"bench.soak: redis {cluster.redis_url}, servers {cluster.url(0)} and {cluster.url(1)}, "
        f"AI worker on the first; {args.ai_rooms} AI rooms, {args.human_rooms} rooms between "
        f"people ({args.split} split), {args.watchers} watchers, a drop every "
        f"{args.drop_every:g} s, think {args.think:g} s (AI {args.ai_think:g} s, "
        f"{args.ai_capacity} seats), target "
        f"{args.target}; tracemalloc on {', '.join(cluster.traces) or 'none'}",
        flush=True,
    )
    totals = Totals()
    rows: list[Row] = []
    await mixed_load(args, cluster, totals, rows)
    print("\n== totals", flush=True)
    for line in render_totals(totals, rows[-1].at / 60):
        print(line)
    span, grown = growth(rows)
    print(
        f"server RSS growth over the last {span / 60:.1f} min: "
        + ", ".join(
            f"{name} {size / MIB:+.2f} MiB"
            + (
                " (traced: tracemalloc's own memory and its snapshots' in it)"
                if name in cluster.traces
                else ""
            )
            for name, size in grown.items()
        )
        + f" (limit {GROWTH_LIMIT / MIB:g} MiB over {GROWTH_WINDOW / 60:g} min)"
    )
    for name, line in (await asyncio.to_thread(cluster.collector_figures)).items():
        print(f"{name} collector: {line}")
    case: Abandoned | None = None
    if args.abandoned:
        await asyncio.sleep(args.grace + 4.0)  # the load's own AI rooms wait, seats given up
        case = await run_case(
            cluster.url(0), cluster.url(1), cluster.redis_url, args.abandoned, args.grace
        )
        print(case.line())
    for line in heap_report(cluster):
        print(line)
    for child in cluster.processes():
        if not child.alive():
            print(f"  ! {child.name} exited with {child.proc.returncode}:\n{child.log_tail()}")
            return 1
    faults = totals.faults()
    if case is not None and case.slow():
        faults.append(f"{case.slow()} new AI rooms waited over 5 s for their AI")
    if faults:
        print("FAULTS: " + "; ".join(faults))
        return 1
    print("no fault")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    raise_fd_limit(4096)
    work = Path(tempfile.mkdtemp(prefix="gin-soak-"))
    children = Children()

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    budget = args.minutes * 60 + 300 + args.abandoned * 3
    print(f"bench.soak: work folder {work}, time limit {budget:.0f} s", flush=True)
    code = 1

    async def bounded() -> int:
        async with asyncio.timeout(budget) as scope:
            try:
                return await run(args, work, children)
            except TimeoutError:
                if scope.expired():
                    raise
                raise RuntimeError("a wait ran out") from None

    try:
        code = asyncio.run(bounded())
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the processes", file=sys.stderr)
        code = 130
    except TimeoutError:
        print(f"\nthe soak ran over its time limit ({budget:.0f} s): stopped", file=sys.stderr)
    finally:
        children.stop_all()
        if args.keep:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""Rated quick match under arrivals: how close the pairs are and how long players wait.

Runs the real pairing (``server/lua/rated_pair.lua`` through the ``Store``) on a redis-server
of its own: players arrive at ``--rate`` a second (Poisson), ratings drawn around 1500 (normal,
sigma ``--spread``), each queued as the server queues them, and the matcher runs every
``--every`` seconds (as every server process does, and once more at each arrival). Prints the
median and p95 rating gap of the pairs and the p95 wait (seconds, from joining to paired).
Targets (issue #22): median gap <= 100, p95 wait <= 20 s. Real time: ``--seconds`` long.

    python -m bench.matchmaking --seconds 120
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from server.matchmaking import ANYONE_AFTER_SECONDS, BASE_GAP, GAP_PER_SECOND, LOOKED_AT
from server.store import Store
from tests.support.redis_server import RedisServer


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    with RedisServer() as server:
        store = await Store.connect(server.url)
        gaps: list[float] = []
        waits: list[float] = []
        joined: dict[str, float] = {}

        async def match() -> None:
            for note in await store.rated_pair(
                BASE_GAP, GAP_PER_SECOND, int(ANYONE_AFTER_SECONDS * 1000), LOOKED_AT
            ):
                now = time.monotonic()
                gaps.append(note["gap"])
                for player in (note["host"], note["guest"]):
                    waits.append(now - joined.pop(player))
                await store.rated_seated(note["guest"])

        async def matcher(stop: float) -> None:
            while time.monotonic() < stop:
                await asyncio.sleep(args.every)
                await match()

        stop = time.monotonic() + args.seconds
        task = asyncio.create_task(matcher(stop))
        count = 0
        while time.monotonic() < stop:
            await asyncio.sleep(rng.expovariate(args.rate))
            count += 1
            player = f"p{count}"
            rating = rng.gauss(1500, args.spread)
            joined[player] = time.monotonic()
            await store.rated_join(
                player, {"room": f"r{count}", "rating": rating, "rd": 80, "name": player}
            )
            await match()
        await task
        left = len(joined)
        await store.close()
    spread = f"{args.rate:g}/s, 1500 ± {args.spread:g}"
    print(f"rated quick match: {count} arrivals in {args.seconds:g} s ({spread})")
    window = f"{BASE_GAP:g} + {GAP_PER_SECOND:g}/s of waiting"
    print(f"window: {window}, anyone after {ANYONE_AFTER_SECONDS:g} s")
    print(f"pairs: {len(gaps)}, still waiting at the end: {left}")
    if gaps:
        median_gap, p95_gap = statistics.median(gaps), percentile(gaps, 0.95)
        print(f"rating gap: median {median_gap:.0f}, p95 {p95_gap:.0f}  (target: median <= 100)")
        median_wait, p95_wait = statistics.median(waits), percentile(waits, 0.95)
        print(
            f"wait: median {median_wait:.1f} s, p95 {p95_wait:.1f} s, max {max(waits):.1f} s"
            "  (target: p95 <= 20 s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.matchmaking", description=__doc__)
    parser.add_argument("--seconds", type=float, default=120.0, help="real seconds of arrivals")
    parser.add_argument("--rate", type=float, default=2.0, help="arrivals a second (default 2)")
    parser.add_argument("--spread", type=float, default=300.0, help="rating sigma (default 300)")
    parser.add_argument("--every", type=float, default=1.0, help="matcher period, s (default 1)")
    parser.add_argument("--seed", type=int, default=22)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

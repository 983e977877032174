"""Blocking in quick match: no blocked pair is ever made, and the waits barely grow.

Casual: 10,000 pairings (``--pairs``) through the real ``lua/quick_match.lua`` (``Store``) on
a redis-server of its own, on a simulated clock: players arrive at ``--rate`` a second
(Poisson); as each arrives, each player waiting then blocks it or is blocked by it with
probability ``--blocked`` (5%: that share of the pairs that may meet are blocked pairs). The
same arrivals run once without any block, as the baseline. Rated: ``--rated-seconds`` of real
time through ``lua/rated_pair.lua`` (the matcher each second and at each arrival), ratings
1500 ± 300, blocks drawn alike, with and without blocks side by side. Prints the blocked pairs
made (target 0) and the p95 wait with blocks against without (target: at most 10% longer).

    python -m bench.blocking
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from server.matchmaking import ANYONE_AFTER_SECONDS, BASE_GAP, GAP_PER_SECOND, LOOKED_AT
from server.store import QuickMatchStatus, Store
from tests.support.redis_server import RedisServer


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


class Blocks:
    """The blocks drawn for one run: the same draws whether or not they are written."""

    def __init__(self, store: Store, share: float, seed: int, write: bool) -> None:
        self._store = store
        self._share = share
        self._rng = random.Random(seed)
        self._write = write
        self.pairs: set[frozenset[str]] = set()

    async def meet(self, newcomer: str, waiting: list[str]) -> None:
        for other in waiting:
            if self._rng.random() < self._share:
                blocker, blocked = (
                    (newcomer, other) if self._rng.random() < 0.5 else (other, newcomer)
                )
                if self._write:
                    self.pairs.add(frozenset((blocker, blocked)))
                    await self._store.add_block(blocker, blocked, 0)


async def casual(args: argparse.Namespace, with_blocks: bool) -> tuple[list[float], int]:
    """The waits (simulated seconds, every paired player) and the blocked pairs made."""
    arrivals = random.Random(args.seed)
    with RedisServer() as server:
        store = await Store.connect(server.url)
        blocks = Blocks(store, args.blocked, args.seed + 1, with_blocks)
        now, count, bad = 0.0, 0, 0
        waiting: dict[str, float] = {}
        waits: list[float] = []
        while len(waits) < 2 * args.pairs:
            now += arrivals.expovariate(args.rate)
            count += 1
            player = f"p{count}"
            await blocks.meet(player, list(waiting))
            outcome = await store.quick_match(player, f"r{count}")
            if outcome.status is QuickMatchStatus.PAIRED:
                assert outcome.opponent_id is not None
                other = outcome.opponent_id
                bad += frozenset((player, other)) in blocks.pairs
                waits += [now - waiting.pop(other), 0.0]
            else:
                waiting[player] = now
        await store.close()
    return waits, bad


async def rated(args: argparse.Namespace, with_blocks: bool) -> tuple[list[float], int]:
    """The waits (real seconds) and the blocked pairs made, over ``--rated-seconds``."""
    rng = random.Random(args.seed)
    with RedisServer() as server:
        store = await Store.connect(server.url)
        blocks = Blocks(store, args.blocked, args.seed + 1, with_blocks)
        joined: dict[str, float] = {}
        waits: list[float] = []
        bad = 0

        async def match() -> None:
            nonlocal bad
            for note in await store.rated_pair(
                BASE_GAP, GAP_PER_SECOND, int(ANYONE_AFTER_SECONDS * 1000), LOOKED_AT
            ):
                now = time.monotonic()
                bad += frozenset((note["host"], note["guest"])) in blocks.pairs
                for player in (note["host"], note["guest"]):
                    waits.append(now - joined.pop(player))
                await store.rated_seated(note["guest"])

        async def matcher(stop: float) -> None:
            while time.monotonic() < stop:
                await asyncio.sleep(1.0)
                await match()

        stop = time.monotonic() + args.rated_seconds
        task = asyncio.create_task(matcher(stop))
        count = 0
        while time.monotonic() < stop:
            await asyncio.sleep(rng.expovariate(args.rated_rate))
            count += 1
            player = f"p{count}"
            await blocks.meet(player, list(joined))
            joined[player] = time.monotonic()
            entry = {"room": f"r{count}", "rating": rng.gauss(1500, 300), "rd": 80, "name": player}
            await store.rated_join(player, entry)
            await match()
        await task
        await store.close()
    return waits, bad


def report(kind: str, base: list[float], blocked: list[float], bad: int) -> None:
    p95_base, p95_blocked = percentile(base, 0.95), percentile(blocked, 0.95)
    longer = (p95_blocked / p95_base - 1) * 100 if p95_base else 0.0
    print(f"{kind}: {len(blocked) // 2:,} pairings with blocks, {len(base) // 2:,} without")
    print(f"  blocked pairs made: {bad}  (target: 0)")
    print(
        f"  p95 wait: {p95_blocked:.2f} s with blocks, {p95_base:.2f} s without: "
        f"{longer:+.1f}%  (target: at most +10%)"
    )


async def run(args: argparse.Namespace) -> None:
    print(f"blocked: {args.blocked:.0%} of the pairs that may meet; casual at {args.rate:g}/s")
    base, _ = await casual(args, with_blocks=False)
    blocked, bad = await casual(args, with_blocks=True)
    report("casual quick match (simulated clock)", base, blocked, bad)
    if args.rated_seconds > 0:
        (rbase, _), (rblocked, rbad) = await asyncio.gather(
            rated(args, with_blocks=False), rated(args, with_blocks=True)
        )
        report(
            f"rated quick match ({args.rated_seconds:g} s at {args.rated_rate:g}/s)",
            rbase,
            rblocked,
            rbad,
        )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.blocking", description=__doc__)
    parser.add_argument("--pairs", type=int, default=10_000, help="casual pairings (10,000)")
    parser.add_argument("--rate", type=float, default=1.0, help="casual arrivals a second")
    parser.add_argument("--blocked", type=float, default=0.05, help="share of pairs blocked")
    parser.add_argument("--rated-seconds", type=float, default=30.0, help="0: no rated run")
    parser.add_argument("--rated-rate", type=float, default=10.0, help="rated arrivals a second")
    parser.add_argument("--seed", type=int, default=26)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

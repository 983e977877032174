"""Redis memory per finished hand, beside a baseline, and the retention of hand records.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.hand_memory [--hands N] [--retention]``

It starts a redis-server of its own (free port, temporary folder) and one ``python -m server``
process, then:

1. baseline: ``INFO memory`` and ``MEMORY USAGE`` of every key of one empty room (created,
   nobody joined), and of one player;
2. N finished hands (default 200): two scripted people play private matches to 1 point (one
   scored hand each, a dead hand now and then), 10 at a time. Printed: ``used_memory`` growth
   per hand, and ``MEMORY USAGE`` (exact, ``SAMPLES 0``) of the hand records (``hand:ID``),
   of the finished rooms' keys (room blob, change stream, applied request ids) per hand, of
   the ``hands:recent`` index and of the player hashes;
   then M whole matches to 100 (default 20): the room keys and hand records of one finished
   match, which Redis holds while it is retained;
3. retention (with ``--retention``; ``tests/deploy/test_retention.py`` checks it for every
   test run): a second server process with the smallest
   retention the settings accept, ``GIN_HAND_RETENTION=60`` and ``GIN_ROOM_IDLE=60``, plays a
   few hands on a fresh database; the bench shows the TTLs, waits until the keys are gone
   (about a minute), and prints what is left.

Nothing is asserted: figures are printed side by side.

Measured 2026-11-29 (Redis 7.0.15, 2 vCPU, defaults; the scripted players play longer matches
than people: 8.4 hands to 100): a hand record 2.5-2.7 KB (1.3-5.4 KB); the keys of a finished
one-hand room 10.0 KB (an empty room 5.3 KB, mostly the change stream's first node); a finished
match to 100 while retained 91 KB (room keys 70 KB for GIN_ROOM_IDLE + hand records 21 KB for
GIN_HAND_RETENTION); ``used_memory`` grows 15.6 KB per one-hand match, 97 KB per whole match.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import redis

from client.session import Session
from tests.support.players import play
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

FAST = {"GIN_RATE_PER_SECOND": "100000", "GIN_RATE_BURST": "100000"}
EMPTY_ROOMS = 50
_FAMILIES = {
    "room": "room blob",
    "version": "room version",
    "events": "room change stream",
    "requests": "room request ids",
}


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def usage(client: redis.Redis, keys: Iterable[bytes | str]) -> dict[str, int]:
    out = {}
    for key in keys:
        size = client.memory_usage(key, samples=0)
        if size is not None:
            out[key.decode() if isinstance(key, bytes) else key] = int(size)
    return out


def family(key: str) -> str:
    """The key's family as named in server/keys.py (``{room:ID}:events`` -> room events)."""
    if key.startswith("{room:"):
        return _FAMILIES.get(key.rsplit(":", 1)[1], key)
    if key.startswith("{quickmatch}"):
        return "quick match"
    return key.split(":", 1)[0] if ":" in key else key


async def play_matches(url: str, count: int, parallel: int = 10, target: int = 1) -> list[str]:
    """``count`` private matches to ``target`` points between two new players; their rooms."""
    rooms: list[str] = []
    semaphore = asyncio.Semaphore(parallel)

    async def one(index: int) -> None:
        async with semaphore:
            a = await Session.connect(url, name=f"A{index}")
            b = await Session.connect(url, name=f"B{index}")
            try:
                created = await a.request("create_room", mode="private", rules={"target": target})
                room = created.result["room"]
                await b.request("join_room", invite=created.result["invite"])
                await asyncio.gather(
                    play(a, room, random.Random(f"{index}/0")),
                    play(b, room, random.Random(f"{index}/1")),
                )
                rooms.append(room)
            finally:
                await a.close()
                await b.close()

    await asyncio.gather(*(one(index) for index in range(count)))
    return rooms


def describe(sizes: list[int]) -> str:
    if not sizes:
        return "-"
    return (
        f"{statistics.mean(sizes):8.0f} B avg  (min {min(sizes)}, max {max(sizes)}, n={len(sizes)})"
    )


async def measure(hands: int, full: int, folder: Path) -> None:
    with RedisServer() as server_redis:
        client = redis.Redis.from_url(server_redis.url)
        server = ServerProcess(server_redis.url, env=FAST, log_dir=folder)
        server.start()
        try:
            # 1. baseline: empty rooms (created, nobody joined), each by a new player
            before_empty = used_memory(client)
            empty_rooms = []
            owner_id = ""
            for index in range(EMPTY_ROOMS):
                owner = await Session.connect(server.ws_url, name=f"Owner{index}")
                created = await owner.request("create_room", mode="private")
                empty_rooms.append(created.result["room"])
                owner_id = owner.player_id or ""
                await owner.close()
            empty = usage(client, client.scan_iter(match=f"{{room:{empty_rooms[-1]}}}*"))
            player = usage(client, [f"player:{owner_id}"])
            per_empty_room = (used_memory(client) - before_empty) / EMPTY_ROOMS

            # 2. N finished hands
            start_memory = used_memory(client)
            started = time.perf_counter()
            rooms = await play_matches(server.ws_url, hands)
            seconds = time.perf_counter() - started
            end_memory = used_memory(client)
            hand_keys = list(client.scan_iter(match="hand:*", count=1000))
            hand_sizes = list(usage(client, hand_keys).values())
            per_family: dict[str, list[int]] = defaultdict(list)
            for room in rooms:
                for key, size in usage(client, client.scan_iter(match=f"{{room:{room}}}*")).items():
                    per_family[family(key)].append(size)
            players = usage(client, client.scan_iter(match="player:*", count=1000))
            recent = usage(client, ["hands:recent"])
            finished_hands = len(hand_keys)
            per_room = sum(sum(sizes) for sizes in per_family.values()) / max(1, len(rooms))
            hands_per_room = finished_hands / max(1, len(rooms))
            print(f"\n== {len(rooms)} matches, {finished_hands} finished hands in {seconds:.0f} s")
            print(f"{'':42}{'this run':>40}   baseline")
            print(
                f"{'used_memory growth per hand':42}"
                f"{(end_memory - start_memory) / max(1, finished_hands):>38.0f} B"
                f"   {per_empty_room:>8.0f} B per empty room (+ its player)"
            )
            print(f"{'hand record (hand:ID)':42}{describe(hand_sizes):>40}")
            for name, sizes in sorted(per_family.items()):
                empty_size = sum(size for key, size in empty.items() if family(key) == name)
                print(
                    f"{name + ' (per finished room)':42}{describe(sizes):>40}"
                    f"   {empty_size:>8} B in the empty room"
                )
            print(
                f"{'room keys per finished hand':42}{per_room / max(1, hands_per_room):>38.0f} B"
                f"   {sum(empty.values()):>8} B all keys of the empty room"
            )
            print(
                f"{'hands:recent index':42}"
                f"{recent.get('hands:recent', 0) / max(1, finished_hands):>36.0f} B/hand"
                f"   (capped at 1000 entries)"
            )
            print(
                f"{'player hash (name, token, stats)':42}{describe(list(players.values())):>40}"
                f"   {sum(player.values()):>8} B a new player"
            )
            # 2b. whole matches (to 100): what one finished room costs while it is retained
            before_full = set(hand_keys)
            full_start = used_memory(client)
            full_rooms = await play_matches(server.ws_url, full, target=100)
            full_memory = used_memory(client) - full_start
            full_hands = [
                key
                for key in client.scan_iter(match="hand:*", count=1000)
                if key not in before_full
            ]
            full_hand_sizes = list(usage(client, full_hands).values())
            full_room_sizes = [
                sum(usage(client, client.scan_iter(match=f"{{room:{room}}}*")).values())
                for room in full_rooms
            ]
            per_match = len(full_hands) / max(1, len(full_rooms))
            records_per_room = sum(full_hand_sizes) / max(1, len(full_rooms))
            print(
                f"\n== {len(full_rooms)} whole matches to 100: {len(full_hands)} hands "
                f"({per_match:.1f} a match)"
            )
            print(f"{'hand record (hand:ID)':42}{describe(full_hand_sizes):>40}")
            print(f"{'room keys per finished room':42}{describe(full_room_sizes):>40}")
            print(
                f"{'a finished match while retained':42}"
                f"{statistics.mean(full_room_sizes) + records_per_room:>38.0f} B"
                f"   (room keys {statistics.mean(full_room_sizes):.0f} B, GIN_ROOM_IDLE; "
                f"+ {per_match:.1f} hand records {records_per_room:.0f} B, GIN_HAND_RETENTION)"
            )
            print(
                f"{'used_memory growth per whole match':42}"
                f"{full_memory / max(1, len(full_rooms)):>38.0f} B   (players included)"
            )

            ttls = [client.ttl(key) for key in hand_keys[:20]]
            room_ttls = [client.ttl(f"{{room:{room}}}:events") for room in rooms[:20]]
            player_ttls = {client.ttl(key) for key in list(players)[:20]}
            print(
                f"TTL of hand records: {min(ttls)}..{max(ttls)} s (GIN_HAND_RETENTION, 30 days); "
                f"finished rooms: {min(room_ttls)}..{max(room_ttls)} s (GIN_ROOM_IDLE, 7 days); "
                f"players: {sorted(player_ttls)} (-1: kept forever)"
            )
        finally:
            server.kill()
            client.close()


async def retention(folder: Path, hands: int = 5) -> None:
    with RedisServer() as server_redis:
        client = redis.Redis.from_url(server_redis.url)
        env = {**FAST, "GIN_HAND_RETENTION": "60", "GIN_ROOM_IDLE": "60"}
        server = ServerProcess(server_redis.url, env=env, log_dir=folder)
        server.start()
        try:
            baseline = used_memory(client)
            rooms = await play_matches(server.ws_url, hands)
            hand_keys = [key.decode() for key in client.scan_iter(match="hand:*")]
            room_keys = [
                key.decode()
                for room in rooms
                for key in client.scan_iter(match=f"{{room:{room}}}*")
            ]
            loaded = used_memory(client)
            print(
                f"\n== retention: GIN_HAND_RETENTION=60, GIN_ROOM_IDLE=60; {len(rooms)} matches, "
                f"{len(hand_keys)} hand records, {len(room_keys)} room keys; used_memory "
                f"{baseline} -> {loaded} B"
            )
            print(
                f"TTLs now: hand records {sorted({client.ttl(k) for k in hand_keys})}, "
                f"room keys {sorted({client.ttl(k) for k in room_keys})}"
            )
            started = time.monotonic()
            while time.monotonic() - started < 90:
                left = sum(client.exists(key) for key in hand_keys + room_keys)
                if not left:
                    break
                await asyncio.sleep(1)
            waited = time.monotonic() - started
            hands_left = sum(client.exists(key) for key in hand_keys)
            rooms_left = sum(client.exists(key) for key in room_keys)
            listed = client.zcard("hands:recent")
            api_status, body = server.get("/api/hands?limit=100")
            print(
                f"after {waited:.0f} s: hand records left {hands_left}/{len(hand_keys)}, room "
                f"keys left {rooms_left}/{len(room_keys)}; used_memory {used_memory(client)} B "
                f"(baseline {baseline} B)"
            )
            print(
                f"hands:recent still lists {listed} ids (trimmed only when the next hand is "
                f"saved); GET /api/hands -> {api_status} {body[:80]!r}"
            )
            print(f"players kept: {len(list(client.scan_iter(match='player:*')))} (no TTL)")
        finally:
            server.kill()
            client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="one-hand matches")
    parser.add_argument("--matches", type=int, default=20, help="whole matches to 100")
    parser.add_argument(
        "--retention", action="store_true", help="also watch the records expire (a minute)"
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gin-hand-memory-"))
    asyncio.run(measure(args.hands, args.matches, folder))
    if args.retention:
        asyncio.run(retention(folder))


if __name__ == "__main__":
    main()

"""What a finished match leaves in Redis, and what to provision per 1,000 matches a day.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.room_memory [--matches N] [--parallel P]``

It starts a redis-server of its own (free port, temporary folder) and one ``python -m server``
process (default settings but loose rate limits), and has two scripted people play N private
matches to 100 (default 30, P at a time). Once every match's records are written (nothing left
in ``records:pending``), it reads ``MEMORY USAGE`` (exact, ``SAMPLES 0``) of:

- each finished room's keys (``server/keys.py``): the blob and the version (kept
  ``GIN_ROOM_IDLE`` after the room's last change), the change stream (``GIN_FINISHED_HISTORY``
  once the match is over) and the applied request ids (``StoreConfig.request_ttl_seconds``
  after the room's last action). A key is counted as kept with the room when its TTL is over
  an hour, else as gone sooner (by its TTL: before 2026-12 every key stayed a day);
- each finished hand's record (``hand:ID``, kept ``GIN_HAND_RETENTION``) and its share of the
  players' own hand lists (``hands:player:ID``, kept as long);

and prints them per finished match and per finished hand, with ``used_memory_dataset`` growth
per match as a cross-check (from a baseline read after a few matches; it also counts the
players, Redis's own per-key bookkeeping and the allocator's rounding), also once the keys that
go sooner are gone (deleted as their TTL would); then the memory to provision per 1,000 matches
a day for several retention settings: matches a day x (room bytes x days of ``GIN_ROOM_IDLE``
+ the keys gone sooner x the share of a day they stay + hands a match x hand bytes x days of
``GIN_HAND_RETENTION``).

Nothing is asserted: the figures are printed (``docs/scaling.md`` quotes them).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import redis

from bench.hand_memory import FAST, family, usage
from client.session import Session
from tests.support.players import play
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

DAY = 24 * 3600
#: ``GIN_ROOM_IDLE`` and ``GIN_HAND_RETENTION`` settings the provisioning table shows (days).
ROOM_IDLE_DAYS = (1, 7)
HAND_RETENTION_DAYS = (1, 7, 30, 90)
MATCHES_A_DAY = 1000
#: Matches played before the baseline of ``used_memory_dataset`` is read.
WARM_UP = 10
#: A room key with no more than this TTL (s) once its match is over is not counted as kept
#: with the room: it goes long before ``GIN_ROOM_IDLE`` (1 day at least).
SHORT_LIVED = 3600


async def play_matches(url: str, count: int, parallel: int, prefix: str = "") -> list[str]:
    """``count`` private matches to 100 between two new scripted people; their rooms."""
    rooms: list[str] = []
    semaphore = asyncio.Semaphore(parallel)

    async def one(index: int) -> None:
        async with semaphore:
            a = await Session.connect(url, name=f"Ann{prefix}{index}")
            b = await Session.connect(url, name=f"Bob{prefix}{index}")
            try:
                created = await a.request("create_room", mode="private", rules={"target": 100})
                room = created.result["room"]
                await b.request("join_room", invite=created.result["invite"])
                await asyncio.gather(
                    play(a, room, random.Random(f"{index}/0"), timeout=600),
                    play(b, room, random.Random(f"{index}/1"), timeout=600),
                )
                rooms.append(room)
            finally:
                await a.close()
                await b.close()

    await asyncio.gather(*(one(index) for index in range(count)))
    return rooms


def _room_keys(client: redis.Redis, room: str) -> tuple[dict[str, int], int, dict[str, int]]:
    """MEMORY USAGE of each key of ``room`` by family (blob, version, stream, request ids);
    how many of those bytes are in keys that outlive ``SHORT_LIVED`` seconds (the keys kept
    ``GIN_ROOM_IDLE``); and the TTL (s) of each family that goes sooner."""
    sizes: dict[str, int] = defaultdict(int)
    kept = 0
    short: dict[str, int] = {}
    for key, size in usage(client, client.scan_iter(match=f"{{room:{room}}}*")).items():
        sizes[family(key)] += size
        ttl = client.ttl(key)
        if ttl > SHORT_LIVED:
            kept += size
        else:
            short[family(key)] = ttl
    return sizes, kept, short


def dataset_memory(client: redis.Redis) -> int:
    """``used_memory_dataset``: Redis's memory less its own overhead (clients' buffers, the
    replication backlog, scripts, the keyspace's fixed part)."""
    return int(client.info("memory")["used_memory_dataset"])


async def _records_written(client: redis.Redis, timeout: float = 30.0) -> None:
    """Wait until no finished match owes a record (``records:pending`` is empty)."""
    deadline = time.monotonic() + timeout
    while client.zcard("records:pending") and time.monotonic() < deadline:
        await asyncio.sleep(0.2)


def _kib(size: float) -> str:
    return f"{size / 1024:.1f} KiB"


def _mib(size: float) -> str:
    return f"{size / 1024 / 1024:,.0f} MiB" if size < 10 * 1024**3 else f"{size / 1024**3:.1f} GiB"


async def measure(matches: int, parallel: int, folder: Path) -> None:
    with RedisServer() as server_redis:
        client = redis.Redis.from_url(server_redis.url)
        server = ServerProcess(server_redis.url, env=FAST, log_dir=folder)
        server.start()
        try:
            # Redis's own first growth (about 0.8 MB, whatever the number of matches) comes
            # with the first matches: the baseline is taken after a few.
            await play_matches(server.ws_url, WARM_UP, parallel, prefix="W")
            await _records_written(client)
            before = dataset_memory(client)
            started = time.perf_counter()
            rooms = await play_matches(server.ws_url, matches, parallel)
            await _records_written(client)
            seconds = time.perf_counter() - started
            grown = dataset_memory(client) - before

            per_family: dict[str, list[int]] = defaultdict(list)
            kept: list[int] = []
            totals: list[int] = []
            short_ttls: dict[str, list[int]] = defaultdict(list)
            hands_per_match: list[int] = []
            hand_sizes: list[int] = []
            for room in rooms:
                room_sizes, kept_bytes, short_lived = _room_keys(client, room)
                for name, ttl in short_lived.items():
                    short_ttls[name].append(ttl)
                totals.append(sum(room_sizes.values()))
                for name in ("room blob", "room version", "room change stream", "room request ids"):
                    per_family[name].append(room_sizes.get(name, 0))
                kept.append(kept_bytes)
                records = usage(client, client.scan_iter(match=f"hand:{room}-*"))
                hands_per_match.append(len(records))
                hand_sizes.extend(records.values())
            own_lists = sum(usage(client, client.scan_iter(match="hands:player:*")).values())
            players = list(usage(client, client.scan_iter(match="player:*")).values())
            counted = ("{room:", "hand:", "hands:player:", "player:")
            others: dict[str, int] = defaultdict(int)
            for key, size in usage(client, client.scan_iter(count=1000)).items():
                if not key.startswith(counted):
                    others[family(key)] += size
            hands = len(hand_sizes)
            every_hand = sum(1 for _ in client.scan_iter(match="hand:*", count=1000))
            per_hand = statistics.mean(hand_sizes) + own_lists / max(1, every_hand)
            room_bytes = statistics.mean(kept)
            short = statistics.mean(totals) - room_bytes
            short_ttl = max((max(ttls) for ttls in short_ttls.values()), default=0)
            gone = ", ".join(f"{name} {min(t)}-{max(t)} s" for name, t in short_ttls.items())
            a_match = statistics.mean(hands_per_match)

            print(
                f"\n== {len(rooms)} matches to 100 in {seconds:.0f} s: {hands} finished hands "
                f"({a_match:.1f} a match)  [MEMORY USAGE, SAMPLES 0]"
            )
            print("-- per finished match, the room's keys (mean, min-max):")
            for name, sizes in per_family.items():
                print(f"   {name:30}{statistics.mean(sizes):>9.0f} B   ({min(sizes)}-{max(sizes)})")
            print(
                f"   {'kept GIN_ROOM_IDLE':30}{room_bytes:>9.0f} B   "
                f"({_kib(room_bytes)}: the keys whose TTL is over {SHORT_LIVED} s)"
            )
            print(f"   {'gone sooner':30}{short:>9.0f} B   (TTLs now: {gone or 'none'})")
            print("-- per finished hand:")
            print(
                f"   {'hand record (hand:ID)':30}{statistics.mean(hand_sizes):>9.0f} B   "
                f"({min(hand_sizes)}-{max(hand_sizes)})"
            )
            print(f"   {'its share of hands:player:ID':30}{own_lists / max(1, every_hand):>9.0f} B")
            print(f"   {'kept GIN_HAND_RETENTION':30}{per_hand:>9.0f} B   ({_kib(per_hand)})")
            print("-- per finished match, all of it:")
            print(
                f"   {'room + its hands':30}{room_bytes + a_match * per_hand:>9.0f} B   "
                f"({_kib(room_bytes)} + {a_match:.1f} x {_kib(per_hand)})"
            )
            print(
                f"   {'other keys':30}{sum(others.values()) / (len(rooms) + WARM_UP):>9.0f} B   "
                f"({', '.join(sorted(others))})"
            )
            print(
                f"   {'used_memory_dataset growth':30}{grown / max(1, len(rooms)):>9.0f} B   "
                f"(players: {statistics.mean(players):.0f} B each, 2 a match, kept "
                f"GIN_PLAYER_RETENTION)"
            )
            # What stays, by used_memory: the short-lived keys deleted as their TTL would.
            stays = room_bytes + a_match * per_hand + sum(players) / max(1, len(rooms))
            for room in rooms:
                for key in client.scan_iter(match=f"{{room:{room}}}*"):
                    if client.ttl(key) <= SHORT_LIVED:
                        client.delete(key)
            left = (dataset_memory(client) - before) / max(1, len(rooms))
            print(
                f"   {'and once they went':30}{left:>9.0f} B   (MEMORY USAGE of what "
                f"stays, players included: {stays:.0f} B; x{left / stays:.2f})"
            )
            _provisioning(room_bytes, short * short_ttl / DAY, a_match * per_hand)
        finally:
            server.kill()
            client.close()


def _provisioning(room_bytes: float, short_bytes: float, hands_bytes: float) -> None:
    """Steady state: each day's matches are kept for the retention settings' days;
    ``short_bytes``: what goes sooner (its bytes times the share of a day it stays)."""
    print(
        f"\n== Redis memory to provision per {MATCHES_A_DAY:,} matches a day "
        f"(rooms: {_kib(room_bytes)} each for GIN_ROOM_IDLE, + {_kib(short_bytes)} a day for "
        f"what goes sooner; hands: {_kib(hands_bytes)} a match for GIN_HAND_RETENTION)"
    )
    head = "GIN_HAND_RETENTION"
    print(f"   {head:22}" + "".join(f"{f'GIN_ROOM_IDLE {d} d':>22}" for d in ROOM_IDLE_DAYS))
    for hand_days in HAND_RETENTION_DAYS:
        row = f"   {f'{hand_days} d':22}"
        for room_days in ROOM_IDLE_DAYS:
            total = MATCHES_A_DAY * (room_bytes * room_days + short_bytes + hands_bytes * hand_days)
            row += f"{_mib(total):>22}"
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=30, help="whole matches to 100")
    parser.add_argument("--parallel", type=int, default=5, help="matches played at once")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gin-room-memory-"))
    asyncio.run(measure(args.matches, args.parallel, folder))


if __name__ == "__main__":
    main()

"""What a finished match leaves in Redis, and what to provision per 1,000 matches a day.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.room_memory [--matches N] [--parallel P]``

It starts a redis-server of its own (free port, temporary folder) and one ``python -m server``
process (default settings but loose rate limits), and has two scripted people play N private
matches to 100 (default 30, P at a time). Once every match's records are written (nothing left
in ``records:pending``), it reads ``MEMORY USAGE`` (exact, ``SAMPLES 0``) of:

- each finished room's keys (``server/keys.py``): the blob, the version, the change stream
  (kept ``GIN_ROOM_IDLE`` after the room's last change) and the applied request ids (kept
  ``StoreConfig.request_ttl_seconds`` after the room's last action);
- each finished hand's record (``hand:ID``, kept ``GIN_HAND_RETENTION``) and its share of the
  players' own hand lists (``hands:player:ID``, kept as long);

and prints them per finished match and per finished hand, with ``used_memory`` growth per match
as a cross-check (it also counts the players, Redis's own per-key bookkeeping and the
allocator's rounding), then the memory to provision per 1,000 matches a day for several
retention settings: matches a day x (room bytes x days of ``GIN_ROOM_IDLE`` + hands a match x
hand bytes x days of ``GIN_HAND_RETENTION``).

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

from bench.hand_memory import FAST, family, usage, used_memory
from client.session import Session
from tests.e2e.helpers import play
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

DAY = 24 * 3600
#: ``GIN_ROOM_IDLE`` and ``GIN_HAND_RETENTION`` settings the provisioning table shows (days).
ROOM_IDLE_DAYS = (1, 7)
HAND_RETENTION_DAYS = (1, 7, 30, 90)
MATCHES_A_DAY = 1000
#: A room key with no more than this TTL (s) once its match is over is not counted as kept
#: with the room: it goes long before ``GIN_ROOM_IDLE`` (1 day at least).
SHORT_LIVED = 3600


async def play_matches(url: str, count: int, parallel: int) -> list[str]:
    """``count`` private matches to 100 between two new scripted people; their rooms."""
    rooms: list[str] = []
    semaphore = asyncio.Semaphore(parallel)

    async def one(index: int) -> None:
        async with semaphore:
            a = await Session.connect(url, name=f"Ann{index}")
            b = await Session.connect(url, name=f"Bob{index}")
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


def _room_keys(client: redis.Redis, room: str) -> tuple[dict[str, int], int]:
    """MEMORY USAGE of each key of ``room`` by family (blob, version, stream, request ids),
    and how many of those bytes are in keys that outlive ``SHORT_LIVED`` seconds (the keys
    kept ``GIN_ROOM_IDLE``; whatever expires sooner is not kept with the room)."""
    sizes: dict[str, int] = defaultdict(int)
    kept = 0
    for key, size in usage(client, client.scan_iter(match=f"{{room:{room}}}*")).items():
        sizes[family(key)] += size
        if client.ttl(key) > SHORT_LIVED:
            kept += size
    return sizes, kept


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
            before = used_memory(client)
            started = time.perf_counter()
            rooms = await play_matches(server.ws_url, matches, parallel)
            await _records_written(client)
            seconds = time.perf_counter() - started
            grown = used_memory(client) - before

            per_family: dict[str, list[int]] = defaultdict(list)
            kept: list[int] = []
            totals: list[int] = []
            hands_per_match: list[int] = []
            hand_sizes: list[int] = []
            for room in rooms:
                room_sizes, kept_bytes = _room_keys(client, room)
                totals.append(sum(room_sizes.values()))
                for name in ("room blob", "room version", "room change stream", "room request ids"):
                    per_family[name].append(room_sizes.get(name, 0))
                kept.append(kept_bytes)
                records = usage(client, client.scan_iter(match=f"hand:{room}-*"))
                hands_per_match.append(len(records))
                hand_sizes.extend(records.values())
            own_lists = sum(usage(client, client.scan_iter(match="hands:player:*")).values())
            players = list(usage(client, client.scan_iter(match="player:*")).values())
            hands = len(hand_sizes)
            per_hand = statistics.mean(hand_sizes) + own_lists / max(1, hands)
            room_bytes = statistics.mean(kept)
            short = statistics.mean(totals) - room_bytes
            request_ttl = _request_ttl(client, rooms)
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
            print(
                f"   {'gone sooner':30}{short:>9.0f} B   (the request ids' TTL now: {request_ttl})"
            )
            print("-- per finished hand:")
            print(
                f"   {'hand record (hand:ID)':30}{statistics.mean(hand_sizes):>9.0f} B   "
                f"({min(hand_sizes)}-{max(hand_sizes)})"
            )
            print(f"   {'its share of hands:player:ID':30}{own_lists / max(1, hands):>9.0f} B")
            print(f"   {'kept GIN_HAND_RETENTION':30}{per_hand:>9.0f} B   ({_kib(per_hand)})")
            print("-- per finished match, all of it:")
            print(
                f"   {'room + its hands':30}{room_bytes + a_match * per_hand:>9.0f} B   "
                f"({_kib(room_bytes)} + {a_match:.1f} x {_kib(per_hand)})"
            )
            print(
                f"   {'used_memory growth':30}{grown / max(1, len(rooms)):>9.0f} B   "
                f"(players: {statistics.mean(players):.0f} B each, 2 a match, kept "
                f"GIN_PLAYER_RETENTION)"
            )
            _provisioning(room_bytes, a_match * per_hand)
        finally:
            server.kill()
            client.close()


def _request_ttl(client: redis.Redis, rooms: list[str]) -> str:
    ttls = [client.ttl(f"{{room:{room}}}:requests") for room in rooms]
    live = [ttl for ttl in ttls if ttl >= 0]
    return f"{min(live)}-{max(live)} s" if live else "gone"


def _provisioning(room_bytes: float, hands_bytes: float) -> None:
    """Steady state: each day's matches are kept for the retention settings' days."""
    print(
        f"\n== Redis memory to provision per {MATCHES_A_DAY:,} matches a day "
        f"(rooms: {_kib(room_bytes)} each for GIN_ROOM_IDLE; hands: {_kib(hands_bytes)} a match "
        "for GIN_HAND_RETENTION)"
    )
    head = "GIN_HAND_RETENTION"
    print(f"   {head:22}" + "".join(f"{f'GIN_ROOM_IDLE {d} d':>22}" for d in ROOM_IDLE_DAYS))
    for hand_days in HAND_RETENTION_DAYS:
        row = f"   {f'{hand_days} d':22}"
        for room_days in ROOM_IDLE_DAYS:
            total = MATCHES_A_DAY * (room_bytes * room_days + hands_bytes * hand_days)
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

"""The floor server of ``bench.load`` does the I/O of a move it claims to do: one commit per
move through the real commit script (the room's version, change stream and request keys move
as for a game), the update of a real view's size to both sides, every move answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import redis.asyncio as aioredis

from bench import floor_server
from bench.load import FloorPair, PairLoad, Stats, start_floor_server
from server import keys
from server.frames import update_frame


def test_the_typical_move_has_an_update_of_the_mean_size() -> None:
    view, blob, change = floor_server.typical_move()
    update = update_frame("f" + "x" * 12, 1, [], 0, view)  # as the bench's rooms
    assert 0.95 <= len(update) / floor_server.UPDATE_BYTES < 1.25
    assert len(blob) > 1000 and 20 < len(change) < 200


async def test_every_move_is_committed_once_and_reaches_both_sides(
    redis_url: str, tmp_path: Path
) -> None:
    floor, port = await start_floor_server(tmp_path, redis_url)
    load = PairLoad(port, FloorPair)
    try:
        await load.open(3)
        stats = Stats("floor")
        stats.measuring = True
        load.go(stats, 0.0)
        await asyncio.sleep(1.0)
        load.stop()
        await asyncio.sleep(0.5)  # the moves in flight end
        assert floor.alive(), floor.log_tail()
    finally:
        await load.close()
        floor.stop()
    assert stats.done >= 30, floor.log_tail()
    redis = aioredis.from_url(redis_url)
    try:
        for pair in load.pairs:
            assert isinstance(pair, FloorPair)
            assert pair.held == [pair.n, pair.n]  # both sides got the last move's update
            room = keys.room_keys(pair.room)
            assert await redis.get(room.version) == str(pair.n).encode()
            assert await redis.xlen(room.events) == pair.n
            # every move's request key, up to the newest the room remembers
            assert await redis.zcard(room.requests) == min(pair.n, floor_server.REQUEST_KEYS_MAX)
    finally:
        await redis.aclose()

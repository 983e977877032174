"""What a finished room keeps: its blob for a rematch or a late resume (``GIN_ROOM_IDLE``), its
hands as hand records (``GIN_HAND_RETENTION``), and its change stream only for
``GIN_FINISHED_HISTORY``; a resume after that gets a snapshot."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from client.session import Session
from server import keys
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import check_view, close_all, play_match, private_match, replay_hands

HISTORY_SECONDS = 1


async def test_a_finished_room_keeps_its_hands_and_a_snapshot_not_its_history(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_FINISHED_HISTORY": str(HISTORY_SECONDS)})
    a, b, room = await private_match(server.ws_url, server.ws_url, target=30)
    raw = Redis.from_url(redis_url)
    try:
        await play_match([a, b], room, seed=7, greedy=0.9)
        final = await a.wait_for(room, lambda v: v["status"] == "finished")
        version = a.room(room).seq
        results = final["game"]["results"]
        assert results

        # The change stream goes soon after the match; the room and its hands stay.
        events = keys.room_events(room)
        for _ in range(100):
            if not await raw.exists(events):
                break
            await asyncio.sleep(0.1)
        assert not await raw.exists(events), "the finished room kept its change stream"
        assert await raw.ttl(keys.room(room)) > 23 * 3600
        assert await raw.ttl(keys.room_version(room)) > 23 * 3600
        assert await raw.pttl(keys.room_requests(room)) <= 600_000

        for number in range(1, len(results) + 1):
            status, record = await server.aget_json(f"/api/hands/{room}-{number}")
            assert status == 200, record
            assert record["hand"] == number
            replay_hands(record["events"])

        # A late resume gets the finished room whole, as a snapshot.
        back = await Session.connect(server.ws_url, token=a.token, record=True)
        try:
            ack = await back.resume(room, 0)
            assert ack.result["mode"] == "snapshot"
            assert ack.result["to_seq"] == version
            view = await back.wait_seq(room, version)
            check_view(view)
            assert view["status"] == "finished" and view["winner"] == final["winner"]
            assert view["game"]["results"] == results
            assert view["game"]["scores"] == final["game"]["scores"]
        finally:
            await back.close()

        # A rematch after that: the room's next changes are kept as before.
        assert (await a.request("rematch", room=room)).result.get("room") is None
        new_room = (await b.request("rematch", room=room)).result["room"]
        seen = await b.wait_for(room, lambda v: v["next_room"] is not None)
        assert seen["next_room"] == new_room
        joined = await a.request("join_room", room=new_room)
        assert joined.result["seat"] == 0
        fresh = await a.wait_for(new_room, lambda v: v["game"] is not None)
        assert fresh["game"]["scores"] == [0, 0]
    finally:
        await raw.aclose()
        await close_all(a, b)

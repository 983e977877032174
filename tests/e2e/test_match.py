"""Whole matches between real clients through real server processes."""

from __future__ import annotations

import asyncio
import random

import pytest

from client.session import Session
from protocol.messages import AiSeat
from tests.support.fixtures import ServerFactory
from tests.support.players import (
    MOVE_EVENTS,
    OVER,
    assert_gap_free,
    check_view,
    close_all,
    expect_error,
    play,
    play_match,
    private_match,
)
from tests.support.server_process import WORKER_KEY, ServerProcess


@pytest.mark.shared_server
async def test_whole_match_to_100_every_view_follows_the_rules(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=100)
    try:
        logs = await play_match([a, b], room, seed=100, check=True, timeout=150)
        final = [await s.wait_for(room, lambda v: v["status"] == "finished") for s in (a, b)]
        for session in (a, b):
            assert_gap_free(session, room)
            # every view each player was ever sent, not only those it acted on
            views = [applied.view for applied in session.room(room).log if applied.view]
            for view in views:
                check_view(view)
            hands_over = [v for v in views if v["game"] and v["game"]["phase"] in OVER]
            assert hands_over, "no hand ended"
        game = final[0]["game"]
        assert game["phase"] == "match_over"
        winner = game["match"]["winner"]
        assert game["scores"][winner] >= 100
        assert final[0]["winner"] == final[1]["winner"] == winner
        assert final[0]["game"]["scores"] == final[1]["game"]["scores"]
        assert final[0]["game"]["results"] == final[1]["game"]["results"]
        assert all(log.views_checked == len(log.acked) + len(log.errors) + 1 for log in logs)
    finally:
        await close_all(a, b)


async def test_two_server_processes_one_player_on_each(server_factory: ServerFactory) -> None:
    env = {"GIN_RATE_PER_SECOND": "100000", "GIN_RATE_BURST": "100000"}
    first, second = server_factory(env=env), server_factory(env=env)
    a, b, room = await private_match(first.ws_url, second.ws_url, target=30)
    try:
        await play_match([a, b], room, seed=2, check=True)
        final_a = await a.wait_for(room, lambda v: v["status"] == "finished")
        final_b = await b.wait_for(room, lambda v: v["status"] == "finished")
        assert_gap_free(a, room)
        assert_gap_free(b, room)
        assert a.room(room).seq == b.room(room).seq
        assert final_a["game"]["scores"] == final_b["game"]["scores"]
        assert max(final_a["game"]["scores"]) >= 30
        # the same public events reached both sides for every number
        for seen_a, seen_b in zip(a.room(room).log, b.room(room).log, strict=True):
            public_a = [e for e in seen_a.events if e["type"] not in ("deal", "draw")]
            public_b = [e for e in seen_b.events if e["type"] not in ("deal", "draw")]
            assert public_a == public_b
    finally:
        await close_all(a, b)


@pytest.mark.shared_server
async def test_ai_room_seat_played_by_a_scripted_worker(gin_server: ServerProcess) -> None:
    player = await Session.connect(gin_server.ws_url, name="Human")
    worker = await Session.connect(
        gin_server.ws_url, worker_key=WORKER_KEY, client="ai-worker/test"
    )
    try:
        await worker.request("ai_subscribe", capacity=5)
        created = await player.request("create_room", mode="ai", level="easy", rules={"target": 20})
        room = created.result["room"]
        offer = await worker.next_message(
            lambda msg: getattr(msg, "t", "") == "ai_seat" and getattr(msg, "room", "") == room
        )
        assert isinstance(offer, AiSeat)
        assert offer.seat == 1 and offer.level == "easy"
        joined = await worker.request("join_room", room=room)
        assert joined.result["seat"] == 1
        view = await player.wait_for(room, lambda v: v["game"] is not None)
        assert view["seats"][1]["ai"] == "easy"
        logs = await asyncio.gather(
            play(player, room, random.Random(5), check=True),
            play(worker, room, random.Random(6), check=True),
        )
        # Each seat's moves, as its own views recorded them, are the moves its player made
        # and nothing else: the worker played the AI seat, nobody played it for it. (A seat
        # may have made none: the first hand can end the match with a knock on the very
        # first discard, before the dealer's first turn.)
        made = [0, 0]
        for seat, (session, log) in enumerate(((player, logs[0]), (worker, logs[1]))):
            assert not log.lost
            acked = [action for _, action in log.acked if action["kind"] != "next_hand"]
            moves = [
                event
                for applied in session.room(room).log
                for event in applied.events
                if event["type"] in MOVE_EVENTS and event.get("seat") == seat
            ]
            assert len(moves) == len(acked), (seat, moves, acked)
            made[seat] = len(moves)
        assert sum(made) > 0
        final = await player.wait_for(room, lambda v: v["status"] == "finished")
        assert max(final["game"]["scores"]) >= 20
        # a player without the key cannot take the AI seat: by its id alone, an AI room is
        # not there for a stranger
        intruder = await Session.connect(gin_server.ws_url, name="Intruder")
        try:
            await expect_error("not_found", intruder.request("join_room", room=room))
            await expect_error("not_authenticated", intruder.request("ai_subscribe", capacity=1))
        finally:
            await intruder.close()
    finally:
        await close_all(player, worker)

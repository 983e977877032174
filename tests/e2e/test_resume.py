"""Resuming a room: from a number still in the stream (exactly the missed updates, in order,
once each) and from one the stream no longer holds (a snapshot)."""

from __future__ import annotations

import asyncio
import random

import pytest

from client.session import Session
from protocol import messages as m
from server.store import Store
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import check_view, close_all, expect_error, play, private_match
from tests.support.server_process import ServerProcess


def _room_frames(session: Session, room: str) -> list[m.Update | m.Snapshot]:
    return [
        frame
        for frame in session.frames or []
        if isinstance(frame, m.Update | m.Snapshot) and frame.room == room
    ]


@pytest.mark.shared_server
async def test_resume_from_a_past_number_gets_exactly_the_missed_updates(
    gin_server: ServerProcess,
) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=10_000)
    # a second connection of player A follows the room and plays while the first is away
    twin = await Session.connect(gin_server.ws_url, token=a.token)
    try:
        await twin.resume(room, -1)
        await twin.wait_seq(room, a.room(room).seq)
        left_at = a.room(room).seq
        await a.close()
        await asyncio.gather(
            play(twin, room, random.Random(1), until_seq=left_at + 12),
            play(b, room, random.Random(2), until_seq=left_at + 12),
        )
        now = b.room(room).seq
        assert now >= left_at + 12

        back = await Session.connect(gin_server.ws_url, token=a.token, record=True)
        try:
            ack = await back.resume(room, left_at)
            assert ack.result["mode"] == "events"
            assert ack.result["from_seq"] == left_at + 1 and ack.result["to_seq"] == now
            view = await back.wait_seq(room, now)
            frames = _room_frames(back, room)
            assert [f.seq for f in frames] == list(range(left_at + 1, now + 1))
            assert all(isinstance(f, m.Update) for f in frames)
            assert [f.view is not None for f in frames] == [False] * (len(frames) - 1) + [True]
            assert view == twin.view(room)
            assert view["seat"] == 0
            check_view(view)
            # the same events as the connection that stayed
            stayed = {applied.seq: applied.events for applied in twin.room(room).log}
            for frame in frames:
                assert isinstance(frame, m.Update)
                assert list(frame.events) == list(stayed[frame.seq])
            # nothing missed: resuming from the current number sends nothing more
            again = await back.resume(room)
            assert again.result["from_seq"] == now + 1 and again.result["to_seq"] == now
            await back.ping()
            assert len(_room_frames(back, room)) == len(frames)
        finally:
            await back.close()
    finally:
        await close_all(a, b, twin)


async def test_resume_from_a_trimmed_number_gets_a_snapshot(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_EVENT_HISTORY": "10"})
    a, b, room = await private_match(server.ws_url, server.ws_url, target=10_000)
    store = await Store.connect(redis_url)
    try:
        # XADD MAXLEN ~ trims whole stream nodes (100 entries each): play well past that
        await asyncio.gather(
            play(a, room, random.Random(3), until_seq=260),
            play(b, room, random.Random(4), until_seq=260),
        )
        assert await store.changes_since(room, 0) is None, "the stream was not trimmed"
        now = await store.room_version(room)
        assert now is not None

        back = await Session.connect(server.ws_url, token=a.token, record=True)
        try:
            ack = await back.resume(room, 0)
            assert ack.result["mode"] == "snapshot"
            assert ack.result["to_seq"] == now
            view = await back.wait_seq(room, now)
            frames = _room_frames(back, room)
            assert len(frames) == 1 and isinstance(frames[0], m.Snapshot)
            assert frames[0].seq == now
            assert view == a.view(room)
            check_view(view)
            # and it plays on from there
            assert back.room(room).log[-1].snapshot
        finally:
            await back.close()
    finally:
        await store.close()
        await close_all(a, b)


@pytest.mark.shared_server
async def test_resume_of_an_unknown_room(gin_server: ServerProcess) -> None:
    session = await Session.connect(gin_server.ws_url)
    try:
        await expect_error("not_found", session.resume("r-no-such-room", 3))
    finally:
        await session.close()

"""Issue 24, pacing: a person may ask for a faster AI when they open a room against it
(``create_room``'s ``ai_pace``). The room keeps it, its view shows it to every client of the
room, and the AI worker, an ordinary client, reads it there; a room between people has no AI
pace to set. Real Redis, a real server process, the worker's own ``Worker`` in this process
(to look at what it sees) and a scripted person."""

from __future__ import annotations

import asyncio
import random

from client.ai.pace import FAST_SHARE, move_seconds
from client.ai.worker import Worker, WorkerSettings
from client.session import Session
from protocol import codec
from protocol import messages as m
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import WORKER_KEY


async def test_a_fast_ai_room_is_fast_for_its_worker_too(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    worker = Worker(WorkerSettings(server.ws_url, WORKER_KEY, think_seconds=0, processes=0))
    running = asyncio.create_task(worker.run())
    person = await Session.connect(server.ws_url, name="Ada")
    try:
        fast = await person.request("create_room", mode="ai", level="easy", ai_pace="fast")
        plain = await person.request("create_room", mode="ai", level="easy")
        rooms = {fast.result["room"]: "fast", plain.result["room"]: "normal"}
        for room, pace in rooms.items():
            await person.resume(room)
            view = await person.wait_for(room, lambda v: v.get("game") is not None, 10)
            assert view["ai_pace"] == pace
        # the worker sees what the person's page sees, and paces its moves by it
        deadline = asyncio.get_running_loop().time() + 20
        while not all(room in (worker._session.rooms if worker._session else {}) for room in rooms):
            assert asyncio.get_running_loop().time() < deadline, "the worker took no seat"
            await asyncio.sleep(0.05)
        session = worker._session
        assert session is not None
        for room, pace in rooms.items():
            view = await session.wait_for(room, lambda v: "ai_pace" in v, 10)
            assert view["ai_pace"] == pace
        fast_view = session.rooms[fast.result["room"]].view
        plain_view = session.rooms[plain.result["room"]].view
        assert fast_view is not None and plain_view is not None
        slow = move_seconds(1.1, plain_view, random.Random(3))
        assert move_seconds(1.1, fast_view, random.Random(3)) == slow * FAST_SHARE
    finally:
        await person.close()
        worker.stop()
        worker.stop()
        await asyncio.wait_for(running, 20)


async def test_only_a_room_against_the_ai_has_an_ai_pace(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    person = await Session.connect(server.ws_url, name="Ada")
    try:
        # sent as they are (this client's own checks would refuse to send them)
        for request_id, fields in (
            ("p1", {"mode": "private", "ai_pace": "fast"}),
            ("p2", {"mode": "ai", "level": "easy", "ai_pace": "slowest"}),
        ):
            frame = codec.pack({"t": "create_room", "id": request_id, **fields})
            answer = await person.raw_request(frame, request_id)
            assert isinstance(answer, m.Error), answer
            assert answer.code == "invalid_argument", answer
            assert answer.detail is not None and answer.detail.get("field") == "ai_pace", answer
        private = await person.request("create_room", mode="private")
        await person.resume(private.result["room"])
        view = await person.wait_for(private.result["room"], lambda v: "ai_pace" in v, 10)
        assert view["ai_pace"] == "normal"
    finally:
        await person.close()

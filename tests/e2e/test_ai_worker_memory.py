"""The AI worker's memory does not grow with the length of the matches it plays (issue 27's
soak: its RSS grew about 23 MiB a minute with 40 seats, every update of every room it played
kept in its session's log until the match was over).

Real Redis, a real server process, the worker's own ``Worker`` in this process (to look at
its session) and a scripted person."""

from __future__ import annotations

import asyncio
import random

from client.ai.worker import Worker, WorkerSettings
from client.session import Session
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import play
from tests.support.server_process import WORKER_KEY


async def test_the_worker_keeps_no_log_of_the_updates_of_the_rooms_it_plays(
    server_factory: ServerFactory,
) -> None:
    """Before: the worker's session kept every applied update (with its view) of every room."""
    server = server_factory(env=FAST_CLIENT_ENV)
    worker = Worker(WorkerSettings(server.ws_url, WORKER_KEY, think_seconds=0, processes=0))
    running = asyncio.create_task(worker.run())
    person = await Session.connect(server.ws_url, name="Ada", keep_log=False)
    try:
        ack = await person.request("create_room", mode="ai", level="easy", rules={"target": 500})
        room = ack.result["room"]
        await play(person, room, random.Random(27), timeout=60, until_seq=60)
        session = worker._session
        assert session is not None and room in session.rooms, "the worker did not play"
        await session.wait_seq(room, 60, timeout=10)
        state = session.rooms[room]
        assert state.log == [], f"the worker kept {len(state.log)} updates of {room}"
    finally:
        await person.close()
        worker.stop()
        worker.stop()  # a second stop: at once, not after the drain
        await asyncio.wait_for(running, 20)

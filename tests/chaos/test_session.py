"""The Python client (``client/session.py``) in the situations the chaos test puts the AI
worker in, each made deterministic.

1. After a lost connection: "Requests in flight fail with ConnectionLost: look at the room
   again and decide anew", and a request "waits for the session to be connected (after a
   reconnect) before sending". So a caller that asks again as soon as it hears ConnectionLost
   must be held until the session is back, not be failed again at once: a loop that retries
   without a pause of its own (the AI worker's, with GIN_AI_THINK_SECONDS=0) would otherwise
   spin without ever yielding to the event loop, and the session's reader, which would notice
   the closed socket and reconnect, never runs.

2. A room the session was told to ``forget()`` (the worker forgets the room of every seat it
   stops playing) and is asked for again (``resume``, ``join_room``: the worker is handed the
   same seat again after a lease ran out) must be followed again from the frames that answer
   that request: the catch-up updates the server sends right after the ack. When the ack and
   those updates arrive together (a busy client), all of them are read before the request's
   caller runs again.
"""

from __future__ import annotations

import asyncio
import time

from client.session import ConnectionLost, Session
from tests.support.fixtures import ServerFactory

ATTEMPTS = 1000


async def test_a_request_after_a_lost_connection_waits_for_the_reconnect(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()
    session = await Session.connect(server.ws_url, name="Ada")
    try:
        await session.ping()
        assert session._ws is not None
        session._ws.transport.abort()  # the socket dies under the session
        await asyncio.sleep(0)  # the transport's callbacks run; the reader not yet
        lost = 0
        for _ in range(ATTEMPTS):
            try:
                await session.request("set_name", name="Ada again", timeout=20)
                break
            except ConnectionLost:
                lost += 1  # decide anew at once, as the documentation says one may
        print(f"\nConnectionLost {lost} times before the request went through")
        assert lost < ATTEMPTS, "the session never reconnected while it was asked again"
        assert lost <= 2, f"failed {lost} times without waiting for the reconnect"
        assert session.connections == 2
    finally:
        await session.close()


async def test_a_forgotten_room_asked_for_again_is_followed_again(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()
    ada = await Session.connect(server.ws_url, name="Ada")
    bob = await Session.connect(server.ws_url, name="Bob")
    try:
        created = await ada.request("create_room", mode="private", rules={"target": 30})
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        await ada.wait_for(room, lambda view: view["game"] is not None)
        seq = ada.room(room).seq
        ada.forget(room)
        resuming = asyncio.create_task(ada.request("resume", room=room, last_seq=-1))
        await asyncio.sleep(0)  # the resume is sent ...
        time.sleep(0.5)  # ... and the client is busy while the ack and the updates arrive
        ack = await resuming
        assert (ack.result["from_seq"], ack.result["to_seq"]) == (0, seq), ack.result
        try:
            await ada.wait_seq(room, seq, timeout=5)
        except TimeoutError:
            raise AssertionError(
                f"updates 0..{seq} were sent after the resume's ack, the session applied "
                f"none (its room is at {ada.room(room).seq})"
            ) from None
        print(f"\nthe forgotten room was followed again up to {ada.room(room).seq}")
    finally:
        await ada.close()
        await bob.close()

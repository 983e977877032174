"""A task waiting in the session is cancelled when asked, even when what it waited for arrives
in the same turn of the event loop.

Python 3.11's ``asyncio.wait_for`` returns the result instead of raising when the awaited thing
is done at the moment of the cancel, so a cancelled waiter went on waiting. Seen in the tests:
a player cancelled as its room changed kept playing alone for its whole 60 s deadline
(``tests/abuse/test_privacy.py``'s ``finish_a_hand``)."""

from __future__ import annotations

import asyncio

import pytest

from client.session import Session
from tests.support.server_process import ServerProcess


async def test_a_waiter_cancelled_as_its_room_changes_is_cancelled(
    gin_server: ServerProcess,
) -> None:
    session = await Session.connect(gin_server.ws_url, name="Ada")
    try:
        room = (await session.request("create_room", mode="ai", level="easy")).result["room"]
        await session.wait_for(room, lambda view: view["game"] is not None)
        state = session.room(room)
        waiter = asyncio.create_task(session.wait_for(room, lambda view: False, timeout=30))
        await asyncio.sleep(0.05)
        assert not waiter.done()
        # What a frame for the room does, and the cancel in the same turn.
        state._notify()
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(waiter, 5)
    finally:
        await session.close()

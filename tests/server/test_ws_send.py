"""The websocket send path: frames queued together go out together, straight to uvicorn's
sans-I/O protocol, found behind Starlette's ASGI ``send`` of the versions in use."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect

from server.ws import frame_writer
from tests.support.ports import free_port

FRAMES = [b"\x81\xa1t\xa3ack", b"\x81\xa1t\xa6update", b"x" * 70_000]


class Served:
    def __init__(self) -> None:
        self.found: list[bool] = []
        self.errors: list[BaseException] = []
        self.done = asyncio.Event()


@pytest_asyncio.fixture(loop_scope="function")
async def served() -> AsyncIterator[tuple[Served, int]]:
    state = Served()

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        writer = frame_writer(websocket)
        state.found.append(writer is not None)
        try:
            assert writer is not None
            await writer.writable()
            assert writer.write(FRAMES[:2])
            await writer.writable()
            assert writer.write(FRAMES[2:])
            await websocket.receive()  # the client's close
            await asyncio.sleep(0.05)
            with pytest.raises(ConnectionError):
                writer.write([b"too late"])
        except BaseException as error:
            state.errors.append(error)
        finally:
            state.done.set()

    port = free_port()
    config = uvicorn.Config(
        Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    yield state, port
    server.should_exit = True
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


async def test_frames_go_out_in_order_through_the_fast_path(served: tuple[Served, int]) -> None:
    state, port = served
    async with connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None) as ws:
        received = [await asyncio.wait_for(ws.recv(), 5) for _ in FRAMES]
    await asyncio.wait_for(state.done.wait(), 5)
    assert state.found == [True]
    assert received == FRAMES
    assert not state.errors, state.errors

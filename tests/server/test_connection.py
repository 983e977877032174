"""A connection's outgoing frames: together, in order, at once when flushed, waiting for a
full transport without loss, and a clean close; its client address."""

from __future__ import annotations

import asyncio
import time

import pytest

from protocol import codec
from protocol.messages import Bye
from server.connection import MAX_QUEUED_FRAMES, Connection
from server.ratelimit import TokenBucket


class FakeWriter:
    """A transport whose buffer can be made full (``paused``) or gone (``broken``)."""

    def __init__(self) -> None:
        self.writes: list[list[bytes]] = []
        self.paused = False
        self.broken = False
        self._room = asyncio.Event()
        self._room.set()

    def write(self, frames: list[bytes]) -> bool:
        if self.broken:
            raise ConnectionError("gone")
        if self.paused:
            return False
        self.writes.append(list(frames))
        return True

    async def writable(self) -> None:
        await self._room.wait()

    def pause(self) -> None:
        self.paused = True
        self._room.clear()

    def resume(self) -> None:
        self.paused = False
        self._room.set()

    def frames(self) -> list[bytes]:
        return [frame for write in self.writes for frame in write]


class Closes:
    def __init__(self) -> None:
        self.codes: list[int] = []

    async def __call__(self, code: int) -> None:
        self.codes.append(code)


async def _never(frame: bytes) -> None:
    raise AssertionError("the fast writer is used")


def _connection(writer: FakeWriter, closes: Closes) -> Connection:
    bucket = TokenBucket(1000, 1000, time.monotonic())
    return Connection(_never, closes, bucket, "test", writer=writer)


async def _turns(count: int = 3) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_frames_of_one_turn_go_out_in_one_write() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    conn.send_frame(b"a")
    conn.send_frame(b"b")
    assert writer.writes == []  # not before the end of this turn
    await _turns()
    assert writer.writes == [[b"a", b"b"]]
    assert not conn.closed.is_set()


async def test_flush_writes_at_once() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    conn.send_frame(b"ack")
    conn.send_frame(b"update")
    conn.flush()
    assert writer.writes == [[b"ack", b"update"]]
    await _turns()
    assert writer.writes == [[b"ack", b"update"]]  # nothing written twice


async def test_a_full_transport_keeps_every_frame_in_order() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    writer.pause()
    for index in range(10):
        conn.send_frame(b"%d" % index)
        conn.flush()
    await _turns()
    assert writer.writes == []
    conn.send_frame(b"10")
    writer.resume()
    await _turns(5)
    assert writer.frames() == [b"%d" % index for index in range(11)]
    assert not conn.closed.is_set()


async def test_a_client_that_never_reads_is_cut_off() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    writer.pause()
    for index in range(MAX_QUEUED_FRAMES + 1):
        conn.send_frame(b"%d" % index)
    assert conn.closed.is_set()
    await _turns()
    assert closes.codes == [1000]
    conn.send_frame(b"late")
    writer.resume()
    await _turns()
    assert writer.writes == []


async def test_frames_held_while_the_transport_is_full_count_against_the_limit() -> None:
    """A batch that found the buffer full waits for the transport; frames queued after it
    add to it. Before: the waiting batch was taken out of the count, so a client that never
    read could hold twice ``MAX_QUEUED_FRAMES`` (the batch, then a full queue) and the flood
    test's sleepy client was sometimes never cut off."""
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    writer.pause()
    for index in range(MAX_QUEUED_FRAMES - 10):
        conn.send_frame(b"%d" % index)
    await _turns()  # flushed into the full buffer: the batch waits for the transport
    assert writer.writes == [] and not conn.closed.is_set()
    for index in range(11):
        conn.send_frame(b"more %d" % index)
    assert conn.closed.is_set()
    await _turns()
    assert closes.codes == [1000]


async def test_bye_sends_what_waits_then_closes_with_its_code() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    conn.send_frame(b"update")
    conn.bye("rate_limited", "slow down", close_code=1008)
    conn.send_frame(b"after bye")
    await _turns()
    frames = writer.frames()
    assert frames[0] == b"update"
    assert isinstance(codec.decode(frames[1], direction="server"), Bye)
    assert len(frames) == 2
    assert conn.closed.is_set()
    assert closes.codes == [1008]


async def test_a_broken_socket_closes_the_connection() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    writer.broken = True
    conn.send_frame(b"x")
    conn.flush()
    assert conn.closed.is_set()
    await _turns()
    assert closes.codes == [1000]


async def test_drain_and_stop_lets_waiting_frames_out_then_closes() -> None:
    writer, closes = FakeWriter(), Closes()
    conn = _connection(writer, closes)
    writer.pause()
    conn.send_frame(b"last words")
    asyncio.get_running_loop().call_later(0.05, writer.resume)
    await conn.drain_and_stop()
    assert writer.frames() == [b"last words"]
    assert conn.closed.is_set()
    assert closes.codes == [1000]


async def test_without_a_fast_writer_frames_go_one_by_one_in_order() -> None:
    sent: list[bytes] = []

    async def send_bytes(frame: bytes) -> None:
        await asyncio.sleep(0)
        sent.append(frame)

    closes = Closes()
    conn = Connection(send_bytes, closes, TokenBucket(1000, 1000, time.monotonic()), "slow")
    for index in range(5):
        conn.send_frame(b"%d" % index)
    conn.flush()
    conn.send_frame(b"5")
    await _turns(20)
    assert sent == [b"%d" % index for index in range(6)]
    await conn.drain_and_stop()
    assert closes.codes == [1000]


@pytest.mark.parametrize(
    ("peer", "address"),
    [("203.0.113.5:51234", "203.0.113.5"), ("::1:40000", "::1"), ("?", "?"), ("", "")],
)
async def test_the_address_is_the_peer_without_its_port(peer: str, address: str) -> None:
    bucket = TokenBucket(1000, 1000, time.monotonic())
    assert Connection(_never, Closes(), bucket, peer).address == address

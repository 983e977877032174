"""A tiny TCP load balancer for the chaos tests: one local port in front of several server
processes, as nginx or a cloud load balancer would be in production.

Each accepted connection goes to the next backend (round robin) among those whose
``/readyz`` answered 200 at the last health check (every ``interval`` seconds); when none is
ready it tries every backend that accepts a TCP connection. Bytes are piped both ways
untouched (the websocket upgrade included); when either side closes, both are closed, so a
backend that dies (kill -9) drops its clients, who reconnect through the proxy to a live one.

``routes`` remembers, for every client connection (its local address as the client sees it),
which backend port served it, so a test can tell where each session landed; ``players``, the
player id the server's answer to its ``hello`` gave it (the first ack carrying one).

Faults on purpose: ``inspect`` (optional) sees every websocket message a client sends (the
payload, unmasked) and answers ``FORWARD``, ``CUT_BEFORE`` (drop the connection without
passing the message on: the request never reaches the server) or ``CUT_AFTER`` (pass it on,
then drop the connection: the request is handled but its answer is lost).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable, Sequence

from protocol import codec
from protocol import messages as m

__all__ = ["Proxy"]

_READ = 65536
FORWARD, CUT_BEFORE, CUT_AFTER = "forward", "cut_before", "cut_after"
Inspect = Callable[[bytes], str]


class _Cut(Exception):
    """Drop this connection now (a fault asked for by ``inspect``)."""


class _ClientFrames:
    """Splits the client's byte stream into its HTTP upgrade request and websocket frames,
    and unmasks each (unfragmented) message for ``inspect``."""

    def __init__(self) -> None:
        self.buffer = b""
        self.upgraded = False

    def feed(self, data: bytes) -> list[tuple[bytes, bytes | None]]:
        """(raw bytes to forward, the message payload or None) in order."""
        self.buffer += data
        out: list[tuple[bytes, bytes | None]] = []
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return out
            out.append((self.buffer[: end + 4], None))
            self.buffer = self.buffer[end + 4 :]
            self.upgraded = True
        while True:
            frame = self._frame()
            if frame is None:
                return out
            out.append(frame)

    def _frame(self) -> tuple[bytes, bytes | None] | None:
        data = self.buffer
        if len(data) < 2:
            return None
        opcode = data[0] & 0x0F
        masked = data[1] & 0x80
        length = data[1] & 0x7F
        offset = 2
        if length == 126:
            if len(data) < 4:
                return None
            length = int.from_bytes(data[2:4], "big")
            offset = 4
        elif length == 127:
            if len(data) < 10:
                return None
            length = int.from_bytes(data[2:10], "big")
            offset = 10
        mask = b""
        if masked:
            if len(data) < offset + 4:
                return None
            mask = data[offset : offset + 4]
            offset += 4
        if len(data) < offset + length:
            return None
        raw = data[: offset + length]
        self.buffer = data[offset + length :]
        payload = data[offset : offset + length]
        if mask:
            payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        return raw, payload if opcode in (1, 2) else None


class Proxy:
    def __init__(
        self,
        backend_ports: Callable[[], Sequence[int]],
        *,
        interval: float = 0.1,
        inspect: Inspect | None = None,
    ) -> None:
        """``backend_ports()`` lists the backends' ports (called at every health check, so
        backends may be added or restarted on the same port)."""
        self._backend_ports = backend_ports
        self.inspect = inspect
        self.cuts = 0
        self.interval = interval
        self.port = 0
        self.ready: list[int] = []
        self.accepted: Counter[int] = Counter()
        self.refused = 0
        #: client (host, port) as the client sees its own socket -> backend port
        self.routes: dict[tuple[str, int], int] = {}
        #: client (host, port) -> the player id its ``hello`` was answered with
        self.players: dict[tuple[str, int], str] = {}
        self._next = 0
        self._server: asyncio.Server | None = None
        self._health: asyncio.Task[None] | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def start(self) -> Proxy:
        await self._check_health()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._health = asyncio.create_task(self._health_loop(), name="proxy health")
        return self

    async def close(self) -> None:
        if self._health is not None:
            self._health.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._health
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    # --- health -------------------------------------------------------------------------------

    async def _health_loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self._check_health()

    async def _check_health(self) -> None:
        ports = list(self._backend_ports())
        answers = await asyncio.gather(*(self._ready(port) for port in ports))
        self.ready = [port for port, ok in zip(ports, answers, strict=True) if ok]

    @staticmethod
    async def _ready(port: int) -> bool:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 0.5)
        except (OSError, TimeoutError):
            return False
        try:
            writer.write(b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            line = await asyncio.wait_for(reader.readline(), 1.0)
            return line.split(b" ")[1:2] == [b"200"]
        except (OSError, TimeoutError, IndexError):
            return False
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    # --- piping -------------------------------------------------------------------------------

    def _candidates(self) -> list[int]:
        ready = list(self.ready)
        others = [port for port in self._backend_ports() if port not in ready]
        if ready:
            self._next = (self._next + 1) % len(ready)
            ready = ready[self._next :] + ready[: self._next]
        return ready + others

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._pipes.add(task)
        self._writers.add(client_w)
        backend_w: asyncio.StreamWriter | None = None
        try:
            for port in self._candidates():
                try:
                    backend_r, backend_w = await asyncio.wait_for(
                        asyncio.open_connection("127.0.0.1", port), 1.0
                    )
                except (OSError, TimeoutError):
                    continue
                self.accepted[port] += 1
                peer = client_w.get_extra_info("peername")
                key = (peer[0], peer[1])
                self.routes[key] = port
                assert backend_w is not None
                self._writers.add(backend_w)
                upstream = (
                    self._pipe(client_r, backend_w)
                    if self.inspect is None
                    else self._pipe_inspected(client_r, backend_w, client_w)
                )
                await asyncio.gather(upstream, self._pipe_hello(backend_r, client_w, key))
                return
            self.refused += 1
        except asyncio.CancelledError:
            pass  # the proxy is closing
        finally:
            for writer in (client_w, backend_w):
                if writer is not None:
                    self._writers.discard(writer)
                    writer.close()
            self._pipes.discard(task)

    async def _pipe_inspected(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        client_w: asyncio.StreamWriter,
    ) -> None:
        assert self.inspect is not None
        frames = _ClientFrames()
        try:
            while True:
                data = await reader.read(_READ)
                if not data:
                    break
                for raw, payload in frames.feed(data):
                    verdict = FORWARD if payload is None else self.inspect(payload)
                    if verdict == CUT_AFTER:
                        client_w.close()  # first: the answer must not reach the client
                    if verdict != CUT_BEFORE:
                        writer.write(raw)
                        await writer.drain()
                    if verdict != FORWARD:
                        raise _Cut
        except (OSError, asyncio.IncompleteReadError):
            pass
        except _Cut:
            self.cuts += 1
            client_w.close()
        finally:
            writer.close()

    async def _pipe_hello(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        key: tuple[str, int],
    ) -> None:
        """Pipe the server's bytes to the client, reading its frames until the ack that
        gives the client its player id (then just pipe)."""
        frames = _ClientFrames()  # server frames are the same, unmasked
        try:
            while key not in self.players:
                data = await reader.read(_READ)
                if not data:
                    writer.close()
                    return
                for _raw, payload in frames.feed(data):
                    if payload is not None and key not in self.players:
                        self._note_player(key, payload)
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            writer.close()
            return
        await self._pipe(reader, writer)

    def _note_player(self, key: tuple[str, int], payload: bytes) -> None:
        try:
            message = codec.decode(payload, direction="server")
        except m.ProtocolError:
            return
        if isinstance(message, m.Ack) and isinstance(message.result.get("player_id"), str):
            self.players[key] = message.result["player_id"]

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                data = await reader.read(_READ)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            # one side is gone: close the other too (no half-open websockets)
            writer.close()

"""An async client of the wire protocol (``docs/protocol.md``): one websocket, many rooms.

::

    session = await Session.connect("ws://127.0.0.1:8000/ws", name="Ada")
    ack = await session.request("create_room", mode="private")
    room = ack.result["room"]
    view = await session.wait_for(room, lambda view: bool(view["game"]["legal_actions"]))
    await session.act(room, "pass")
    await session.close()

- :meth:`Session.connect` opens the socket and says ``hello`` (the ack's token is kept in
  ``session.token`` to come back as the same player).
- :meth:`Session.request` sends a request with a fresh id and returns its ``ack``, or raises
  :class:`RequestError` with the server's code; ids are a random prefix and a counter, never
  reused across reconnects.
- Every room the session hears of (``update`` or ``snapshot``) gets a :class:`RoomState`: the
  last sequence number applied, the latest view, the log of what was applied and a queue of
  the frames. An update after a gap triggers a ``resume``; duplicates are dropped.
- When the socket drops (or the server says ``reconnect``), the session reconnects with
  exponential backoff, says ``hello`` with its token and resumes every followed room from its
  last number. Requests in flight fail with :class:`ConnectionLost`: look at the room again
  and decide anew. A ``bye`` for a flood, a bad origin or a bad token ends the session.

Only ``protocol`` and ``websockets`` are imported: a client can see no more than the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import codec
from protocol import messages as m

__all__ = [
    "Applied",
    "ConnectionLost",
    "RequestError",
    "RoomState",
    "Session",
    "SessionClosed",
    "View",
]

log = logging.getLogger(__name__)

View = dict[str, Any]
#: ``bye`` codes after which the session comes back by itself; any other one ends it.
RETRY_BYE_CODES = frozenset({"idle_timeout", "going_away", "internal"})
#: A connection that lasted this long resets the reconnect backoff.
STABLE_SECONDS = 5.0
_ROOM_RESULTS = ("create_room", "join_room", "quick_match", "watch", "resume")


class RequestError(Exception):
    """The server answered a request with ``error``: ``code`` says why (``docs/protocol.md``)."""

    def __init__(
        self,
        code: str,
        message: str,
        detail: Mapping[str, Any] | None = None,
        request_id: m.RequestId | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.detail: dict[str, Any] = dict(detail or {})
        self.request_id = request_id


class ConnectionLost(Exception):
    """The connection dropped before the answer came; the request may or may not have been
    applied (the room's updates, after the automatic resume, tell)."""


class SessionClosed(Exception):
    """The session is closed (``close()``, or a ``bye`` it does not come back from)."""


@dataclass(frozen=True, slots=True)
class Applied:
    """One frame applied to a room: an ``update`` (``snapshot=False``) or a ``snapshot``."""

    seq: int
    events: tuple[Mapping[str, Any], ...]
    view: View | None
    snapshot: bool = False


@dataclass(eq=False)
class RoomState:
    """What the session knows of one room, kept in sequence order."""

    room: str
    seq: int = -1
    view: View | None = None
    view_seq: int = -1
    seat: int | None = None
    followed: bool = True
    #: The error code that made the room unreachable (``not_found``, ``history_gone``).
    gone: str | None = None
    #: The watch token this session watches the room with (given again on every resume).
    watch_token: str | None = None
    #: Every frame applied, in order (unless the session was made with ``keep_log=False``).
    log: list[Applied] = field(default_factory=list)
    #: The frames applied since :meth:`Session.updates` was first called for the room.
    queue: asyncio.Queue[Applied] | None = None
    resyncing: bool = False
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def current(self) -> bool:
        """True when ``view`` is the room as of ``seq`` (not mid catch-up)."""
        return self.view is not None and self.view_seq == self.seq

    @property
    def ai_queue(self) -> int | None:
        """The room's place in the queue of seats waiting for an AI player (1: served next)
        while every AI worker is full, as the last view said; None when nothing waits."""
        place = self.view.get("ai_queue") if self.view is not None else None
        return place if isinstance(place, int) else None

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


class Session:
    """One client connection to a Gin Rummy server; see the module docstring."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        client: str | None = "py/0.1",
        worker_key: str | None = None,
        origin: str | None = None,
        version: str = m.PROTOCOL_VERSION,
        record: bool = False,
        keep_log: bool = True,
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 2.0),
        request_timeout: float = 30.0,
    ) -> None:
        self.url = url
        self.token = token
        self.name = name
        self.client = client
        self.worker_key = worker_key
        self.origin = origin
        self.version = version
        self.reconnect = reconnect
        self.keep_log = keep_log
        self.backoff = backoff
        self.request_timeout = request_timeout
        self.player_id: str | None = None
        self.server_info: dict[str, Any] = {}
        self.rooms: dict[str, RoomState] = {}
        self._forgotten: set[str] = set()
        #: Frames that answer no pending request: ``bye``, ``reconnect``, ``room_assigned``,
        #: ``said`` (the other player's quick messages), errors with no (or an unknown) id.
        self.inbox: asyncio.Queue[m.ServerMessage] = asyncio.Queue()
        #: Every frame received, in order, when ``record`` is set.
        self.frames: list[m.ServerMessage] | None = [] if record else None
        #: Frames the server sent that did not decode (should stay empty).
        self.bad_frames: list[tuple[bytes | str, m.ProtocolError]] = []
        self.connections = 0
        self.last_bye: m.Bye | None = None
        self.closed_reason: str | None = None
        self._prefix = secrets.token_hex(4)
        #: The first pause of the next reconnect: it keeps doubling while connections do not
        #: last ``STABLE_SECONDS`` (a server that accepts and drops at once is not hammered).
        self._next_delay = backoff[0]
        self._connected_at = 0.0
        self._counter = 0
        self._pending: dict[m.RequestId, deque[asyncio.Future[m.ServerMessage]]] = {}
        self._ws: ClientConnection | None = None
        self._ready = asyncio.Event()
        self._closed = asyncio.Event()
        self._retry_after: float | None = None
        self._stop_code: str | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # --- opening and closing ------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        client: str | None = "py/0.1",
        worker_key: str | None = None,
        hello: bool = True,
        **options: Any,
    ) -> Session:
        """Open a session and say ``hello`` (``hello=False``: the caller sends it, with
        :meth:`hello`, or tests what happens without). Raises :class:`RequestError` when the
        server refuses the hello (``bad_token``, ``unsupported_version``), and the
        ``websockets`` handshake errors when the socket cannot be opened."""
        session = cls(url, token=token, name=name, client=client, worker_key=worker_key, **options)
        try:
            await session._open()
            if hello:
                await session.hello()
            else:
                session._ready.set()
        except BaseException:
            await session.close()
            raise
        session._connected_at = asyncio.get_running_loop().time()
        session._supervisor = asyncio.create_task(session._supervise(), name=f"session {url}")
        return session

    async def hello(self) -> m.Ack:
        """Say ``hello`` (version, token, name, worker key) and keep the identity it returns."""
        ack = await self._hello()
        self._ready.set()
        return ack

    async def _hello(self) -> m.Ack:
        ack = await self._call(
            m.Hello(
                id=self._next_id(),
                version=self.version,
                token=self.token,
                name=self.name,
                client=self.client,
                worker_key=self.worker_key,
            ),
            ready=False,
        )
        result = ack.result
        self.server_info = dict(result)
        self.player_id = result.get("player_id")
        self.token = result.get("token", self.token)
        self.name = result.get("name", self.name)
        return ack

    async def close(self) -> None:
        """Close the socket for good; pending and later requests raise SessionClosed."""
        self._closed.set()
        self._ready.set()  # wake requests waiting for a connection: they see the session closed
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await ws.close()
        tasks = [t for t in (self._supervisor, *self._background) if t is not None]
        for task in tasks:
            if task is not asyncio.current_task():
                task.cancel()
        for task in tasks:
            if task is not asyncio.current_task():
                with contextlib.suppress(BaseException):
                    await task
        self._fail_pending(SessionClosed(self.closed_reason or "the session is closed"))

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def connected(self) -> bool:
        """True while a socket is open and the handshake (hello, resumes) is done."""
        return self._ready.is_set() and not self.closed

    async def wait_connected(self, timeout: float | None = None) -> None:
        """Return once the session is connected (after a reconnect: hello and resumes done)."""
        await self._wait_ready(self.request_timeout if timeout is None else timeout)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- requests -----------------------------------------------------------------------------

    def _next_id(self) -> str:
        self._counter += 1
        return f"{self._prefix}-{self._counter}"

    def message(self, kind: str, /, **fields: Any) -> m.ClientMessage:
        """The request ``kind`` with ``fields`` and a fresh id (unless ``id`` is given), checked
        by its declaration as the server checks it: nested maps (``action``, ``rules``) may be
        given as plain maps or as their classes; a bad field raises ``ProtocolError``."""
        if kind not in m.CLIENT_MESSAGES:
            raise ValueError(f"unknown request type {kind!r}")
        fields.setdefault("id", self._next_id())
        message = m.from_wire({**fields, "t": kind}, direction="client")
        return message  # type: ignore[return-value]  # direction="client": a client message

    async def request(
        self, request: str | m.ClientMessage, /, *, timeout: float | None = None, **fields: Any
    ) -> m.Ack:
        """Send a request (a message, or its type and fields) and return its ``ack``.

        Raises :class:`RequestError` for an ``error`` answer, :class:`ConnectionLost` when the
        socket drops first, ``TimeoutError`` after ``timeout`` (default ``request_timeout``).
        Waits for the session to be connected (after a reconnect) before sending.
        """
        message = self.message(request, **fields) if isinstance(request, str) else request
        if isinstance(message, m.Ping):
            raise TypeError("ping is answered by pong, not ack: use Session.ping()")
        room = getattr(message, "room", None)
        if message.t in _ROOM_RESULTS and isinstance(room, str):
            self._forgotten.discard(room)
        ack = await self._call(message, timeout=timeout)
        self._after_ack(message, ack)
        return ack

    async def ping(self, timeout: float | None = None) -> float:
        """Round trip of a ``ping``, in seconds."""
        started = time.perf_counter()
        await self._call(m.Ping(id=self._next_id()), timeout=timeout)
        return time.perf_counter() - started

    async def act(
        self,
        room: str,
        kind: str,
        card: str | None = None,
        *,
        seq: int | None = None,
        id: m.RequestId | None = None,
        timeout: float | None = None,
    ) -> m.Ack:
        """Play ``kind`` (and ``card``) in ``room`` on the last sequence number seen."""
        state = self.room(room)
        message = m.Act(
            id=self._next_id() if id is None else id,
            room=room,
            seq=state.seq if seq is None else seq,
            action=m.Action(kind=kind, card=card),  # type: ignore[arg-type]
        )
        return await self.request(message, timeout=timeout)

    async def resume(
        self, room: str, last_seq: int | None = None, *, timeout: float | None = None
    ) -> m.Ack:
        """Follow ``room`` from ``last_seq`` on (default: the last number applied; -1 for the
        whole history): the missing updates, or a snapshot, follow the ack."""
        state = self.room(room)
        if last_seq is not None and last_seq != state.seq:
            state.seq = last_seq
            state.view_seq = -1  # the view we may hold is not of that number
        resume = m.Resume(
            id=self._next_id(), room=room, last_seq=state.seq, watch_token=state.watch_token
        )
        return await self.request(resume, timeout=timeout)

    async def send_raw(self, frame: bytes | str) -> None:
        """Send a frame as is (tests of malformed input)."""
        await self._wait_ready(self.request_timeout)
        assert self._ws is not None
        await self._ws.send(frame)

    async def raw_request(
        self, frame: bytes | str, request_id: m.RequestId | None, timeout: float | None = None
    ) -> m.ServerMessage:
        """Send a frame as is and return its answer: the frame answering ``request_id``, or,
        when ``request_id`` is None, the next ``error`` without an id."""
        timeout = self.request_timeout if timeout is None else timeout
        if request_id is None:
            await self.send_raw(frame)
            return await self.next_message(
                lambda msg: isinstance(msg, m.Error) and msg.id is None, timeout
            )
        future = self._expect(request_id)
        try:
            await self.send_raw(frame)
            async with asyncio.timeout(timeout):
                return await asyncio.shield(future)
        finally:
            self._forget(request_id, future)

    async def next_message(
        self, predicate: Callable[[m.ServerMessage], bool] | None = None, timeout: float = 10.0
    ) -> m.ServerMessage:
        """The next unsolicited frame (see ``inbox``) that matches ``predicate``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            async with asyncio.timeout(max(remaining, 0)):
                message = await self.inbox.get()
            if predicate is None or predicate(message):
                return message

    async def _call(
        self, message: m.ClientMessage, *, timeout: float | None = None, ready: bool = True
    ) -> m.Ack:
        timeout = self.request_timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if ready:
            await self._wait_ready(timeout)
        if self.closed:
            raise SessionClosed(self.closed_reason or "the session is closed")
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        request_id = message.id
        frame = codec.encode(message)
        future = self._expect(request_id)
        try:
            try:
                await ws.send(frame)
            except ConnectionClosed as error:
                if self._ws is ws and not self.closed:
                    self._ready.clear()
                raise ConnectionLost(str(error)) from None
            async with asyncio.timeout_at(deadline):
                answer = await asyncio.shield(future)
        finally:
            self._forget(request_id, future)
        if isinstance(answer, m.Error):
            raise RequestError(answer.code, answer.message, answer.detail, answer.id)
        if isinstance(answer, m.Pong):
            return m.Ack(id=answer.id, result={})
        assert isinstance(answer, m.Ack)
        return answer

    async def _wait_ready(self, timeout: float) -> None:
        if self.closed:
            raise SessionClosed(self.closed_reason or "the session is closed")
        if not self._ready.is_set():
            async with asyncio.timeout(timeout):
                await self._ready.wait()
        if self.closed:
            raise SessionClosed(self.closed_reason or "the session is closed")

    def _expect(self, request_id: m.RequestId) -> asyncio.Future[m.ServerMessage]:
        future: asyncio.Future[m.ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(request_id, deque()).append(future)
        return future

    def _forget(self, request_id: m.RequestId, future: asyncio.Future[m.ServerMessage]) -> None:
        waiting = self._pending.get(request_id)
        if waiting is None:
            return
        with contextlib.suppress(ValueError):
            waiting.remove(future)
        if not waiting:
            del self._pending[request_id]

    def _fail_pending(self, error: Exception) -> None:
        pending, self._pending = self._pending, {}
        for waiting in pending.values():
            for future in waiting:
                if not future.done():
                    future.set_exception(error)
                    future.exception()  # retrieved: no "never retrieved" warning if abandoned

    def _after_ack(self, message: m.ClientMessage, ack: m.Ack) -> None:
        room = ack.result.get("room")
        if message.t in _ROOM_RESULTS and isinstance(room, str):
            state = self.room(room)
            state.followed = True
            state.gone = None
            seat = ack.result.get("seat")
            if message.t != "watch" and (seat is None or isinstance(seat, int)):
                state.seat = seat
            elif isinstance(message, m.Watch):
                state.seat = None
                state.watch_token = message.watch_token
            if isinstance(message, m.Resume) and message.watch_token is not None:
                state.watch_token = message.watch_token
        elif isinstance(message, m.Leave | m.Unfollow):
            self.room(message.room).followed = False

    # --- rooms --------------------------------------------------------------------------------

    def room(self, room: str) -> RoomState:
        """The state of ``room`` (created empty the first time)."""
        self._forgotten.discard(room)
        state = self.rooms.get(room)
        if state is None:
            state = self.rooms[room] = RoomState(room)
        return state

    def view(self, room: str) -> View | None:
        return self.room(room).view

    def forget(self, room: str) -> None:
        """Stop tracking a room: its frames are dropped and it is not resumed after a
        reconnect, until the room is asked for again (``room()``, a join, a resume...)."""
        self.rooms.pop(room, None)
        self._forgotten.add(room)

    async def wait_for(
        self,
        room: str,
        predicate: Callable[[View], bool] = lambda view: True,
        timeout: float = 10.0,
    ) -> View:
        """The room's view as soon as it is current (not mid catch-up) and ``predicate``
        holds; TimeoutError after ``timeout``; RequestError when the room is gone."""
        state = self.room(room)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if state.gone is not None:
                raise RequestError(state.gone, f"room {room} is gone")
            if state.current and state.view is not None and predicate(state.view):
                return state.view
            if self.closed:
                raise SessionClosed(self.closed_reason or "the session is closed")
            changed = state._changed
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"room {room} at seq {state.seq}: condition not met")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await changed.wait()

    async def wait_seq(self, room: str, seq: int, timeout: float = 10.0) -> View:
        """The room's view once it has reached sequence number ``seq``."""
        state = self.room(room)
        return await self.wait_for(room, lambda view: state.seq >= seq, timeout)

    async def updates(self, room: str) -> AsyncIterator[Applied]:
        """Every update and snapshot applied to ``room`` from now on, in order."""
        state = self.room(room)
        if state.queue is None:
            state.queue = asyncio.Queue()
        queue = state.queue
        while True:
            yield await queue.get()

    def _on_room_frame(self, message: m.Update | m.Snapshot) -> None:
        if message.room in self._forgotten:
            return
        state = self.room(message.room)
        if isinstance(message, m.Snapshot):
            if message.seq == state.seq and state.current and state.view_seq == state.seq:
                state.view = dict(message.view)  # the same number, news outside the game
                state._notify()  # (the number of watchers): no new frame to log or queue
                return
            if message.seq <= state.seq and state.current:
                return
            applied = Applied(message.seq, (), dict(message.view), snapshot=True)
        else:
            if message.seq <= state.seq:
                return  # already applied (a resume overlapping live updates)
            if message.seq != state.seq + 1:
                self._resync(state)
                return
            view = dict(message.view) if message.view is not None else None
            applied = Applied(message.seq, tuple(message.events), view)
        state.seq = applied.seq
        if applied.view is not None:
            state.view = applied.view
            state.view_seq = applied.seq
        if self.keep_log:
            state.log.append(applied)
        if state.queue is not None:
            state.queue.put_nowait(applied)
        state._notify()

    def _resync(self, state: RoomState) -> None:
        """A number was missed: ask for what follows the last one applied."""
        if state.resyncing or not self.connected:
            return
        state.resyncing = True

        async def resume() -> None:
            try:
                await self.request(
                    m.Resume(
                        id=self._next_id(),
                        room=state.room,
                        last_seq=state.seq,
                        watch_token=state.watch_token,
                    )
                )
            except RequestError as error:
                if error.code in ("not_found", "history_gone"):
                    state.gone = error.code
                    state._notify()
            except (ConnectionLost, SessionClosed, TimeoutError):
                pass  # the reconnect resumes every room anyway
            finally:
                state.resyncing = False

        self._spawn(resume())

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- the socket ---------------------------------------------------------------------------

    async def _open(self) -> None:
        ws = await connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            compression=None,
            proxy=None,
            max_size=codec.MAX_SERVER_FRAME,
            open_timeout=10,
            close_timeout=2,
        )
        self._ws = ws
        self.connections += 1
        self._retry_after = None
        self._stop_code = None
        reader = asyncio.create_task(self._read(ws), name="session reader")
        self._background.add(reader)
        reader.add_done_callback(self._background.discard)
        self._reader = reader

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                self._dispatch(frame)
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ready.clear()
                if self.closed:
                    self._ready.set()
            self._fail_pending(ConnectionLost("the connection dropped"))

    def _dispatch(self, frame: bytes | str) -> None:
        try:
            message = codec.decode(frame, direction="server")  # type: ignore[arg-type]
        except m.ProtocolError as error:
            log.warning("undecodable frame from the server: %s", error)
            self.bad_frames.append((frame, error))
            return
        assert not m.sent_by_client(message)
        server_message: m.ServerMessage = message  # type: ignore[assignment]
        if self.frames is not None:
            self.frames.append(server_message)
        if isinstance(message, m.Update | m.Snapshot):
            self._on_room_frame(message)
            return
        if isinstance(message, m.Ack | m.Error | m.Pong) and message.id is not None:
            waiting = self._pending.get(message.id)
            while waiting:
                future = waiting.popleft()
                if not future.done():
                    future.set_result(message)
                    return
        if isinstance(message, m.Reconnect):
            self._retry_after = message.retry_ms / 1000
        elif isinstance(message, m.Bye):
            self.last_bye = message
            if message.code not in RETRY_BYE_CODES and self._retry_after is None:
                self._stop_code = message.code
        self.inbox.put_nowait(server_message)

    async def _supervise(self) -> None:
        """Wait for the socket to drop, then reconnect (unless closed or told to stop)."""
        while not self.closed:
            assert self._reader is not None
            await asyncio.wait({self._reader})
            if self.closed:
                return
            if not self.reconnect or self._stop_code is not None:
                self.closed_reason = self._stop_code or "the connection dropped"
                await self.close()
                return
            low, high = self.backoff
            lasted = asyncio.get_running_loop().time() - self._connected_at
            self._next_delay = low if lasted >= STABLE_SECONDS else min(self._next_delay * 2, high)
            await self._reconnect()

    async def _reconnect(self) -> None:
        high = self.backoff[1]
        delay = self._next_delay
        first_wait = self._retry_after
        while not self.closed:
            wait = first_wait if first_wait is not None else delay * random.uniform(0.5, 1.0)
            first_wait = None
            await asyncio.sleep(wait)
            try:
                await self._open()
            except (OSError, InvalidHandshake, TimeoutError) as error:
                log.debug("reconnect failed: %s", error)
                delay = min(delay * 2, high)
                continue
            try:
                await self._hello()
                await self._resume_all()
                self._connected_at = asyncio.get_running_loop().time()
                self._ready.set()
                return
            except RequestError as error:
                if error.code in ("bad_token", "unsupported_version"):
                    self.closed_reason = error.code
                    self._stop_code = error.code
                    await self._ws_close()
                    return
                log.debug("handshake refused: %s", error)
            except (ConnectionLost, TimeoutError) as error:
                log.debug("handshake failed: %s", error)
            self._ready.clear()
            await self._ws_close()
            delay = min(delay * 2, high)

    async def _ws_close(self) -> None:
        if self._ws is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await self._ws.close()

    async def _resume_all(self) -> None:
        for state in list(self.rooms.values()):
            if not state.followed or state.gone is not None:
                continue
            try:
                ack = await self._call(
                    m.Resume(
                        id=self._next_id(),
                        room=state.room,
                        last_seq=state.seq,
                        watch_token=state.watch_token,
                    ),
                    ready=False,
                )
            except RequestError as error:
                if error.code not in ("not_found", "history_gone"):
                    raise
                state.gone = error.code
                state._notify()
                continue
            seat = ack.result.get("seat")
            if isinstance(seat, int):
                state.seat = seat

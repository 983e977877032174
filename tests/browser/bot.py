"""A scripted websocket player for the browser tests: it speaks only the wire protocol.

``SeatBot`` is an AI worker stand-in: ``hello {worker_key}``, ``ai_subscribe``, and for every
``ai_seat`` it gets, ``join_room {room}`` and plays the seat with random legal actions (it
always knocks or declares gin when it can, so hands end). ``HumanBot`` is a plain player that
joins a room by invite code or plays a room it created (``name=None``: the server names it,
as it names a new player who has not chosen a name). Both run in a thread of their own
(``BotThread``) so that the synchronous Playwright tests can drive the browser meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol import messages as m

View = dict[str, Any]
T = TypeVar("T")


class Bot:
    """One websocket connection playing every room it holds a seat in."""

    def __init__(
        self,
        url: str,
        *,
        seed: int = 7,
        delay: float = 0.05,
        deal_next: bool = False,
        name: str | None = "Bot",
        worker_key: str | None = None,
        rematch: bool = False,
        capacity: int = 16,
        leave_finished: bool = False,
    ) -> None:
        self.url = url
        self.rng = random.Random(seed)
        self.delay = delay
        self.deal_next = deal_next
        self.name = name
        self.worker_key = worker_key
        self.rematch = rematch
        #: The seats a worker bot subscribes for.
        self.capacity = capacity
        #: A worker bot leaves a finished match's room, as the real worker does (its seat's
        #: capacity is free again).
        self.leave_finished = leave_finished
        self.views: dict[str, View] = {}
        self.seqs: dict[str, int] = {}
        self.acks: dict[m.RequestId, asyncio.Future[m.ServerMessage]] = {}
        self.counter = 0
        self.token: str | None = None
        self.moves = 0
        self.ws: ClientConnection | None = None
        self.rooms_done: set[str] = set()
        self._acting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def _id(self) -> str:
        self.counter += 1
        return f"bot-{self.counter}"

    async def request(self, message: m.ClientMessage) -> m.ServerMessage:
        assert self.ws is not None
        future: asyncio.Future[m.ServerMessage] = asyncio.get_running_loop().create_future()
        self.acks[message.id] = future
        await self.ws.send(codec.encode(message))
        return await asyncio.wait_for(future, 10)

    async def run(self, on_ready: Callable[[Bot], Awaitable[None]] | None = None) -> None:
        """Play until cancelled; a dropped connection (a server restart) is opened again,
        with the same token, and every room is resumed from its last number."""
        try:
            await self._run(on_ready)
        finally:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _run(self, on_ready: Callable[[Bot], Awaitable[None]] | None) -> None:
        first = True
        while True:
            try:
                async with connect(self.url, max_size=2**20) as ws:
                    self.ws = ws
                    reader = asyncio.create_task(self._read())
                    try:
                        await self._hello()
                        if first and on_ready is not None:
                            await on_ready(self)
                        first = False
                        await reader
                    finally:
                        reader.cancel()
                        with contextlib.suppress(asyncio.CancelledError, Exception):
                            await reader
            except (OSError, ConnectionClosed, TimeoutError):
                if first:
                    raise
            self._acting.clear()
            await asyncio.sleep(0.3)

    async def _hello(self) -> None:
        ack = await self.request(
            m.Hello(
                id=self._id(),
                version=m.PROTOCOL_VERSION,
                token=self.token,
                name=None if self.token else self.name,
                client="browser-test-bot/0.1",
                worker_key=self.worker_key,
            )
        )
        assert isinstance(ack, m.Ack), ack
        self.token = str(ack.result["token"])
        if self.worker_key is not None:
            await self.request(m.AiSubscribe(id=self._id(), capacity=self.capacity))
        for room, seq in list(self.seqs.items()):
            await self.request(m.Resume(id=self._id(), room=room, last_seq=seq))

    async def _read(self) -> None:
        assert self.ws is not None
        async for frame in self.ws:
            if not isinstance(frame, bytes):
                continue
            message = codec.decode(frame, direction="server")
            if isinstance(message, (m.Ack, m.Error)) and message.id is not None:
                future = self.acks.pop(message.id, None)
                if future is not None and not future.done():
                    future.set_result(message)
            elif isinstance(message, m.AiSeat):
                self._spawn(self._join(message.room))
            elif isinstance(message, (m.Update, m.Snapshot)):
                if message.seq <= self.seqs.get(message.room, -1):
                    continue
                if message.view is not None:
                    self.views[message.room] = dict(message.view)
                self.seqs[message.room] = message.seq
                self._maybe_act(message.room)

    async def _join(self, room: str) -> None:
        await self.request(m.JoinRoom(id=self._id(), room=room))

    def _maybe_act(self, room: str) -> None:
        view = self.views.get(room)
        if view is None or room in self._acting:
            return
        if view.get("status") == "finished":
            if self.leave_finished and room not in self.rooms_done:
                self.rooms_done.add(room)
                self._spawn(self._leave(room))
            self._maybe_rematch(room, view)
            return
        game = view.get("game") or {}
        legal = game.get("legal_actions") or []
        if not legal:
            return
        if game.get("phase") == "hand_over" and not self.deal_next:
            return
        self._acting.add(room)
        self._spawn(self._act(room, legal))

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _maybe_rematch(self, room: str, view: View) -> None:
        seat = view.get("seat")
        if not self.rematch or seat is None or room in self.rooms_done:
            return
        next_room = view.get("next_room")
        if next_room is None and view.get("rematch", [False, False])[seat]:
            return  # asked already: wait for the other player
        self.rooms_done.add(room)
        self._spawn(self._rematch(room, next_room))

    async def _rematch(self, room: str, next_room: str | None) -> None:
        if next_room is None:
            ack = await self.request(m.Rematch(id=self._id(), room=room))
            assert isinstance(ack, m.Ack), ack
            next_room = ack.result.get("room")
            if next_room is None:
                self.rooms_done.discard(room)  # the other player's answer comes as an update
                return
        await self.request(m.Resume(id=self._id(), room=str(next_room), last_seq=-1))

    async def _leave(self, room: str) -> None:
        await self.request(m.Leave(id=self._id(), room=room))

    async def _act(self, room: str, legal: list[dict[str, Any]]) -> None:
        try:
            await asyncio.sleep(self.delay)
            enders = [action for action in legal if action["kind"] in ("gin", "knock")]
            choice = self.rng.choice(enders or legal)
            action = m.Action(kind=choice["kind"], card=choice.get("card"))
            seq = self.seqs.get(room, 0)
            await self.request(m.Act(id=self._id(), room=room, seq=seq, action=action))
            self.moves += 1
        finally:
            self._acting.discard(room)
        # a newer view may have come while acting
        self._maybe_act(room)


class BotThread:
    """Runs a bot's event loop in a daemon thread; ``stop()`` ends it."""

    def __init__(self, bot: Bot, on_ready: Callable[[Bot], Awaitable[None]] | None = None) -> None:
        self.bot = bot
        self.on_ready = on_ready
        self.error: BaseException | None = None
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        label = bot.name or "unnamed"
        self._thread = threading.Thread(target=self._main, name=f"bot {label}", daemon=True)

    def start(self) -> BotThread:
        self._thread.start()
        if not self.ready.wait(10):
            raise RuntimeError("the bot did not start")
        if self.error is not None:
            raise RuntimeError(f"the bot failed: {self.error!r}")
        return self

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop

        async def ready_then(bot: Bot) -> None:
            if self.on_ready is not None:
                await self.on_ready(bot)
            self.ready.set()

        async def main() -> None:
            try:
                await self.bot.run(ready_then)
            except asyncio.CancelledError:
                pass
            except BaseException as error:
                self.error = error
            finally:
                self.ready.set()

        self._task = loop.create_task(main())
        try:
            loop.run_until_complete(self._task)
        finally:
            loop.close()

    def call(self, make: Callable[[Bot], Coroutine[Any, Any, T]], timeout: float = 10) -> T:
        """Run ``make(bot)`` on the bot's event loop and return its result."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(make(self.bot), self._loop).result(timeout)

    def stop(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        self._thread.join(10)

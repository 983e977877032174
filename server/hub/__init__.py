"""Fan-out of one server process: which local connections follow which rooms, and the
delivery of every committed change to them, filtered per recipient, in sequence order.

Changes reach every process through the store's room feed (Redis pub/sub), and so do the
players' quick messages (``said``), which go to the other seat's connections only. A recipient that
missed numbers (a feed reconnect, a resume) is caught up from the room's change stream, so
each one gets every sequence number exactly once, in order.

``Hub`` composes four objects, one per job: ``FanOut`` (who follows which room here, and the
frames sent to them), ``RoomCache`` (the decoded copy of each followed room), ``CommitsInFlight``
(this process's commits in flight, and the feed's copies held for them) and ``WatcherCounts``
(spectators counted here, totals read from every process). What runs across them (the feed's
loop, catch-up, a commit's delivery) is the hub's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping

from server.blobs import RoomBlobs, decode_change, decode_room
from server.connection import Connection, Subscription
from server.engine.events import Event
from server.frames import FrameParts, RoomFrames, update_frame
from server.hub.cache import RoomCache
from server.hub.fanout import FanOut
from server.hub.in_flight import CommitsInFlight
from server.hub.watchers import WatcherCounts
from server.room import Room
from server.store import FeedReconnected, RoomFeed, RoomSaid, RoomUpdate, Store

__all__ = ["CommitsInFlight", "FanOut", "Hub", "RoomCache", "WatcherCounts"]

log = logging.getLogger(__name__)


class Hub:
    """``parts``: the parts the frames of this process reuse (``FrameParts``), its own unless
    given (to share the encoded histories with the stored rooms'). ``blobs``: the stored
    rooms' parts (``RoomBlobs``) of this process, forgotten with the frames' once it follows a
    room no more."""

    def __init__(
        self,
        store: Store,
        feed: RoomFeed,
        parts: FrameParts | None = None,
        blobs: RoomBlobs | None = None,
    ) -> None:
        self.parts = parts if parts is not None else FrameParts()
        self._blobs = blobs
        #: This process's name in the rooms' watcher counts (``Store.set_watchers``).
        self.process_id = "p" + secrets.token_hex(8)
        self.fanout = FanOut()
        self.cache = RoomCache()
        self.in_flight = CommitsInFlight()
        self.watchers = WatcherCounts(self.parts.watchers)
        #: The rooms' places in the AI seat queue, read as the watcher counts are.
        self.ai_places = WatcherCounts(self.parts.ai_queue)
        self._store = store
        self._feed = feed
        self._pending_deliveries: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        feed.skip = self.fanout.served

    @property
    def room_changed(self) -> Callable[[str, Room | None], None]:
        """Told of every change of the decoded copy of a followed room (``RoomCache``)."""
        return self.cache.changed

    @room_changed.setter
    def room_changed(self, listener: Callable[[str, Room | None], None]) -> None:
        self.cache.changed = listener

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="hub feed")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # --- following rooms ----------------------------------------------------------------------

    async def follow(
        self, conn: Connection, room_id: str, seat: int | None, last_seq: int
    ) -> Subscription:
        """Follow a room from ``last_seq`` on (updates after it will be delivered)."""
        previous = conn.rooms.get(room_id)
        if previous is not None and previous.seat == seat:
            return previous
        subscription = Subscription(room_id, seat, last_seq)
        await self.fanout.follow(conn, subscription, self._feed.add)
        return subscription

    async def unfollow(self, conn: Connection, room_id: str) -> None:
        if not self.fanout.remove(conn, room_id):
            return
        self.cache.forget(room_id)
        self.watchers.forget(room_id)
        self.ai_places.forget(room_id)
        self.parts.forget(room_id)
        if self._blobs is not None:
            # another process may commit the room's last change: this one's parts of the
            # room would stay until 20,000 other rooms passed (the one-hour soak's growth)
            self._blobs.forget(room_id)
        with contextlib.suppress(Exception):
            await self._feed.remove(room_id)

    async def drop(self, conn: Connection) -> None:
        for room_id in list(conn.rooms):
            await self.unfollow(conn, room_id)

    def followed_room_ids(self) -> list[str]:
        return list(self.fanout.followers)

    def connections(self) -> set[Connection]:
        return self.fanout.connections()

    # --- the decoded rooms --------------------------------------------------------------------

    def cached(self, room_id: str, version: int) -> Room | None:
        """The room at ``version`` if this process already holds it decoded."""
        return self.cache.at(room_id, version)

    def remember(self, room_id: str, version: int, room: Room) -> None:
        """Keep a room this process just committed, so its update needs no decoding. It
        replaces the same version decoded from the feed (whose copy can come first): only
        the committed room holds the hand's log, which the hand's record is made of."""
        if self.fanout.followed(room_id):
            self.cache.keep_newer(room_id, version, room)

    def room(self, room_id: str) -> tuple[int, Room] | None:
        """The decoded copy of a followed room this process holds, with its version."""
        return self.cache.latest(room_id)

    def followed_rooms(self) -> list[tuple[str, Room]]:
        return self.cache.rooms()

    # --- commits in flight --------------------------------------------------------------------

    def committing(self, room_id: str, seq: int) -> None:
        """This process is committing the change that makes ``seq``. The feed's copy of it
        often arrives before the commit's reply: it waits for ``committed``, and is then
        delivered from the committed room instead of a room decoded from the feed."""
        self.in_flight.start(room_id, seq)

    def committed(self, room_id: str, seq: int, room: Room | None) -> None:
        """The outcome of ``committing``: the committed room, or None when the commit did
        not make ``seq`` (another change did, or the outcome is unknown). A held copy of the
        feed then goes to the followers that ``deliver`` does not serve (it skips those
        behind or catching up); the others have it already and are skipped."""
        held = self.in_flight.finish(room_id, seq)
        if room is not None:
            self.remember(room_id, seq, room)
        if held is not None:
            # Usually ``deliver`` serves everybody first, in this very turn of the loop.
            asyncio.get_running_loop().call_soon(self._release, held)

    def _release(self, held: RoomUpdate) -> None:
        """Deliver a held copy of the feed to the followers that still need it, if any."""
        if self.fanout.served(held.room_id, held.seq):
            return
        task = asyncio.create_task(self._deliver_logged(held))
        self._pending_deliveries.add(task)
        task.add_done_callback(self._pending_deliveries.discard)

    # --- watchers -----------------------------------------------------------------------------

    def spectators(self, room_ids: list[str] | None = None) -> dict[str, int]:
        """How many local connections of people follow each room as spectators, for the
        rooms that have some, and 0 for those that had some when last asked and have none
        now (``room_ids``: of those rooms only; else of every room followed here)."""
        return self.watchers.local(self.fanout.followers, room_ids)

    def set_watchers(self, totals: Mapping[str, int]) -> None:
        """The rooms' watcher counts as read from every process: the views say them from now
        on, and the local followers of a room whose count changed get a ``snapshot`` at the
        number they have (when this process holds the room at that number; else the next
        update carries the count)."""
        for room_id in self.watchers.read(totals, self.fanout.followers):
            cached = self.cache.latest(room_id)
            if cached is not None:
                version, room = cached
                self.fanout.send_snapshots(room_id, version, self.parts.frames(room, version))

    def set_ai_queue(self, places: Mapping[str, int]) -> None:
        """Where the followed rooms that wait for an AI player stand in the AI seat queue
        (``AiSeatKeeper.queue_places``; a followed room not in ``places`` waits for none): the
        views say it from now on, and the local followers of a room whose place changed get
        a ``snapshot``, as for ``set_watchers``."""
        gone = {room_id: 0 for room_id in self.parts.ai_queue if room_id not in places}
        for room_id in self.ai_places.read({**gone, **places}, self.fanout.followers):
            cached = self.cache.latest(room_id)
            if cached is not None:
                version, room = cached
                self.fanout.send_snapshots(room_id, version, self.parts.frames(room, version))

    # --- delivery -----------------------------------------------------------------------------

    async def catch_up(self, conn: Connection, subscription: Subscription) -> tuple[str, int]:
        """Send what the subscription missed: the changes after its last number, or a snapshot
        when the stream no longer holds them. Returns the mode and the number reached."""
        async with subscription.lock:
            return await self._catch_up(conn, subscription)

    async def snapshot(self, conn: Connection, subscription: Subscription) -> int:
        async with subscription.lock:
            return await self._snapshot(conn, subscription)

    async def _catch_up(self, conn: Connection, subscription: Subscription) -> tuple[str, int]:
        subscription.started = True
        loaded = await self._load(subscription.room_id)
        if loaded is None:
            return "events", subscription.last_seq
        version, room = loaded
        if subscription.last_seq >= version:
            return "events", subscription.last_seq
        changes = await self._store.changes_since(subscription.room_id, subscription.last_seq)
        if changes is None or (changes and changes[0][0] != subscription.last_seq + 1):
            return "snapshot", await self._snapshot(conn, subscription, (version, room))
        seat = subscription.seat
        for seq, change in changes:
            if seq > version:
                break
            events = decode_change(change)
            if seq == version:
                conn.send_frame(self.parts.frames(room, seq, events).update(seat))
            else:
                conn.send_frame(update_frame(room.id, seq, events, seat, None))
            subscription.last_seq = seq
        return "events", subscription.last_seq

    async def _snapshot(
        self,
        conn: Connection,
        subscription: Subscription,
        loaded: tuple[int, Room] | None = None,
    ) -> int:
        subscription.started = True
        loaded = loaded or await self._load(subscription.room_id)
        if loaded is None:
            return subscription.last_seq
        version, room = loaded
        conn.send_frame(self.parts.frames(room, version).snapshot(subscription.seat))
        subscription.last_seq = version
        return version

    async def _load(self, room_id: str) -> tuple[int, Room] | None:
        loaded = await self._store.load_room(room_id)
        if loaded is None:
            return None
        version, blob = loaded
        cached = self.cache.latest(room_id)
        if cached is not None and cached[0] == version:
            return cached
        room = decode_room(blob)
        if self.fanout.followed(room_id):
            self.cache.keep(room_id, version, room)
        return version, room

    async def _run(self) -> None:
        async for item in self._feed:
            try:
                if isinstance(item, RoomUpdate):
                    await self._deliver(item)
                elif isinstance(item, RoomSaid):
                    self.deliver_said(item)
                elif isinstance(item, FeedReconnected):
                    for room_id in item.rooms:
                        await self._resync(room_id)
            except Exception:
                log.exception("delivery failed")

    def prepare(self, room_id: str, frames: RoomFrames) -> None:
        """Build the update frames of a change being committed for the seats that follow the
        room here, so that ``deliver`` finds them ready (``Play.act`` runs it while Redis runs
        the commit). A frame that cannot be made is left to ``deliver``, which meets the same
        error and reports it."""
        self.fanout.prepare(room_id, frames)

    def deliver(
        self,
        room_id: str,
        seq: int,
        room: Room,
        events: list[Event],
        frames: RoomFrames | None = None,
    ) -> None:
        """Send a change this process has just committed to its own followers now, without
        waiting for the feed to bring it back. Only followers that are exactly one number
        behind and not busy catching up get it here; the feed's copy reaches the others (and
        is skipped by those served here), so each still gets every number once, in order.
        ``frames``: the change's frames, if already made (``prepare``)."""
        self.remember(room_id, seq, room)
        if not self.fanout.followed(room_id):
            return
        if frames is None:
            frames = self.parts.frames(room, seq, events)
        self.fanout.send_next(room_id, seq, frames)

    def deliver_said(self, said: RoomSaid) -> None:
        """A quick message (``FanOut.send_said``)."""
        self.fanout.send_said(said)

    async def _deliver_logged(self, update: RoomUpdate) -> None:
        try:
            await self._deliver(update)
        except Exception:
            log.exception("delivery failed")

    async def _deliver(self, update: RoomUpdate) -> None:
        room_id, seq = update.room_id, update.seq
        followers = self.fanout.of(room_id)
        if not followers or self.fanout.served(room_id, seq):
            return
        if self.in_flight.hold(update):  # see ``committing``
            return
        room = self.cache.at(room_id, seq) or decode_room(update.state)
        cached = self.cache.latest(room_id)
        if cached is None or cached[0] < seq:
            self.cache.keep(room_id, seq, room)
        frames = self.parts.frames(room, seq, decode_change(update.change))
        for conn in followers:
            subscription = conn.rooms.get(room_id)
            if subscription is None or not subscription.started:
                continue
            async with subscription.lock:
                if seq <= subscription.last_seq:
                    continue
                if seq == subscription.last_seq + 1:
                    conn.send_frame(frames.update(subscription.seat))
                    conn.flush()
                    subscription.last_seq = seq
                else:
                    await self._catch_up(conn, subscription)

    async def _resync(self, room_id: str) -> None:
        for conn in self.fanout.of(room_id):
            subscription = conn.rooms.get(room_id)
            if subscription is not None:
                await self.catch_up(conn, subscription)

"""Fan-out of one server process: which local connections follow which rooms, and the
delivery of every committed change to them, filtered per recipient, in sequence order.

Changes reach every process through the store's room feed (Redis pub/sub), and so do the
players' quick messages (``said``), which go to the other seat's connections only. A recipient that
missed numbers (a feed reconnect, a resume) is caught up from the room's change stream, so
each one gets every sequence number exactly once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable, Mapping

from protocol.messages import SAID_SINCE_MINOR
from server.blobs import decode_change, decode_room
from server.connection import Connection, Subscription
from server.engine.events import Event
from server.frames import FrameParts, RoomFrames, update_frame
from server.room import Room
from server.store import FeedReconnected, RoomFeed, RoomSaid, RoomUpdate, Store

log = logging.getLogger(__name__)


class Hub:
    """``parts``: the parts the frames of this process reuse (``FrameParts``), its own unless
    given (to share the encoded histories with the stored rooms')."""

    def __init__(self, store: Store, feed: RoomFeed, parts: FrameParts | None = None) -> None:
        self.parts = parts if parts is not None else FrameParts()
        #: This process's name in the rooms' watcher counts (``Store.set_watchers``).
        self.process_id = "p" + secrets.token_hex(8)
        #: Rooms whose spectator count this process wrote last time, non-zero.
        self._watched: set[str] = set()
        self._store = store
        self._feed = feed
        self._followers: dict[str, set[Connection]] = defaultdict(set)
        #: Rooms whose first follower waits for Redis to confirm the subscription.
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._rooms: dict[str, tuple[int, Room]] = {}
        #: Told of every change of the decoded copy of a followed room (None: no longer
        #: followed); the periodic work schedules itself by it (``server.due``).
        self.room_changed: Callable[[str, Room | None], None] = _nobody
        #: Commits of this process in flight, by (room, the version they would make), and the
        #: feed's copies of those versions held until the commit's outcome is known.
        self._committing: dict[tuple[str, int], int] = {}
        self._held: dict[tuple[str, int], RoomUpdate] = {}
        self._pending_deliveries: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        feed.skip = self._delivered

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
        conn.rooms[room_id] = subscription
        # Join the followers before any await: an unfollow meanwhile must see this one and
        # keep the room's subscription. Later followers wait until Redis confirmed it.
        followers = self._followers[room_id]
        followers.add(conn)
        if len(followers) == 1:
            confirmed = asyncio.get_running_loop().create_future()
            self._confirmed[room_id] = confirmed
            try:
                await self._feed.add(room_id)
            except BaseException:
                followers.discard(conn)
                if not followers:
                    self._followers.pop(room_id, None)
                raise
            finally:
                confirmed.set_result(None)
                if self._confirmed.get(room_id) is confirmed:
                    del self._confirmed[room_id]
        elif (confirming := self._confirmed.get(room_id)) is not None:
            await asyncio.shield(confirming)
        return subscription

    async def unfollow(self, conn: Connection, room_id: str) -> None:
        conn.rooms.pop(room_id, None)
        followers = self._followers.get(room_id)
        if followers is None:
            return
        followers.discard(conn)
        if not followers:
            del self._followers[room_id]
            if self._rooms.pop(room_id, None) is not None:
                self.room_changed(room_id, None)
            self.parts.watchers.pop(room_id, None)
            with contextlib.suppress(Exception):
                await self._feed.remove(room_id)

    async def drop(self, conn: Connection) -> None:
        for room_id in list(conn.rooms):
            await self.unfollow(conn, room_id)

    def cached(self, room_id: str, version: int) -> Room | None:
        """The room at ``version`` if this process already holds it decoded."""
        cached = self._rooms.get(room_id)
        return cached[1] if cached is not None and cached[0] == version else None

    def remember(self, room_id: str, version: int, room: Room) -> None:
        """Keep a room this process just committed, so its update needs no decoding. It
        replaces the same version decoded from the feed (whose copy can come first): only
        the committed room holds the hand's log, which the hand's record is made of."""
        if room_id in self._followers:
            cached = self._rooms.get(room_id)
            if cached is None or cached[0] <= version:
                self._keep(room_id, version, room)

    def room(self, room_id: str) -> tuple[int, Room] | None:
        """The decoded copy of a followed room this process holds, with its version."""
        return self._rooms.get(room_id)

    def _keep(self, room_id: str, version: int, room: Room) -> None:
        previous = self._rooms.get(room_id)
        self._rooms[room_id] = (version, room)
        if previous is None or previous[1] is not room:
            self.room_changed(room_id, room)

    def committing(self, room_id: str, seq: int) -> None:
        """This process is committing the change that makes ``seq``. The feed's copy of it
        often arrives before the commit's reply: it waits for ``committed``, and is then
        delivered from the committed room instead of a room decoded from the feed."""
        key = (room_id, seq)
        self._committing[key] = self._committing.get(key, 0) + 1

    def committed(self, room_id: str, seq: int, room: Room | None) -> None:
        """The outcome of ``committing``: the committed room, or None when the commit did
        not make ``seq`` (another change did, or the outcome is unknown). A held copy of the
        feed then goes to the followers that ``deliver`` does not serve (it skips those
        behind or catching up); the others have it already and are skipped."""
        key = (room_id, seq)
        left = self._committing.get(key, 0) - 1
        if left > 0:
            self._committing[key] = left
        else:
            self._committing.pop(key, None)
        if room is not None:
            self.remember(room_id, seq, room)
        if left <= 0 and (held := self._held.pop(key, None)) is not None:
            # Usually ``deliver`` serves everybody first, in this very turn of the loop.
            asyncio.get_running_loop().call_soon(self._release, held)

    def _release(self, held: RoomUpdate) -> None:
        """Deliver a held copy of the feed to the followers that still need it, if any."""
        if self._delivered(held.room_id, held.seq):
            return
        task = asyncio.create_task(self._deliver_logged(held))
        self._pending_deliveries.add(task)
        task.add_done_callback(self._pending_deliveries.discard)

    # --- watchers -----------------------------------------------------------------------------

    def spectators(self, room_ids: list[str] | None = None) -> dict[str, int]:
        """How many local connections of people follow each room as spectators, for the
        rooms that have some, and 0 for those that had some when last asked and have none
        now (``room_ids``: of those rooms only; else of every room followed here)."""
        wanted = list(self._followers) if room_ids is None else room_ids
        counts: dict[str, int] = {}
        for room_id in wanted:
            count = self._spectators_of(room_id)
            if count or room_id in self._watched:
                counts[room_id] = count
        if room_ids is None:
            for room_id in self._watched.difference(wanted):
                counts[room_id] = 0
        for room_id, count in counts.items():
            if count:
                self._watched.add(room_id)
            else:
                self._watched.discard(room_id)
        return counts

    def _spectators_of(self, room_id: str) -> int:
        count = 0
        for conn in self._followers.get(room_id, ()):
            subscription = conn.rooms.get(room_id)
            if subscription is not None and subscription.seat is None and not conn.is_worker:
                count += 1
        return count

    def followed_room_ids(self) -> list[str]:
        return list(self._followers)

    def set_watchers(self, totals: Mapping[str, int]) -> None:
        """The rooms' watcher counts as read from every process: the views say them from now
        on, and the local followers of a room whose count changed get a ``snapshot`` at the
        number they have (when this process holds the room at that number; else the next
        update carries the count)."""
        known = self.parts.watchers
        for room_id, count in totals.items():
            if room_id not in self._followers or known.get(room_id, 0) == count:
                continue
            if count:
                known[room_id] = count
            else:
                known.pop(room_id, None)
            cached = self._rooms.get(room_id)
            if cached is None:
                continue
            version, room = cached
            frames = self.parts.frames(room, version)
            for conn in list(self._followers[room_id]):
                subscription = conn.rooms.get(room_id)
                if (
                    subscription is None
                    or conn.is_worker  # an AI plays from the game, not from who watches
                    or not subscription.started
                    or subscription.last_seq != version
                    or subscription.lock.locked()
                ):
                    continue
                conn.send_frame(frames.snapshot(subscription.seat))
                conn.flush()

    def followed_rooms(self) -> list[tuple[str, Room]]:
        return [(room_id, room) for room_id, (_, room) in self._rooms.items()]

    def connections(self) -> set[Connection]:
        return {conn for followers in self._followers.values() for conn in followers}

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
        cached = self._rooms.get(room_id)
        if cached is not None and cached[0] == version:
            return cached
        room = decode_room(blob)
        if room_id in self._followers:
            self._keep(room_id, version, room)
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
        with contextlib.suppress(Exception):
            for conn in list(self._followers.get(room_id, ())):
                subscription = conn.rooms.get(room_id)
                if subscription is not None:
                    frames.update(subscription.seat)

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
        followers = self._followers.get(room_id)
        if not followers:
            return
        if frames is None:
            frames = self.parts.frames(room, seq, events)
        for conn in list(followers):
            subscription = conn.rooms.get(room_id)
            if (
                subscription is None
                or not subscription.started
                or subscription.last_seq != seq - 1
                or subscription.lock.locked()
            ):
                continue
            conn.send_frame(frames.update(subscription.seat))
            conn.flush()
            subscription.last_seq = seq

    def deliver_said(self, said: RoomSaid) -> None:
        """A quick message of seat ``said.seat``: to this process's connections that play the
        room's other seat, and only to people whose protocol knows ``said``; never to a
        watcher (no seat), to the speaker's own connections or to an AI worker."""
        hearer = 1 - said.seat
        for conn in list(self._followers.get(said.room_id, ())):
            subscription = conn.rooms.get(said.room_id)
            if (
                subscription is not None
                and subscription.started
                and subscription.seat == hearer
                and not conn.is_worker
                and conn.protocol_minor >= SAID_SINCE_MINOR
            ):
                conn.send_frame(said.frame)

    async def _deliver_logged(self, update: RoomUpdate) -> None:
        try:
            await self._deliver(update)
        except Exception:
            log.exception("delivery failed")

    async def _deliver(self, update: RoomUpdate) -> None:
        followers = self._followers.get(update.room_id)
        if not followers:
            return
        seq = update.seq
        if self._delivered(update.room_id, seq):
            return
        if (update.room_id, seq) in self._committing:
            self._held[(update.room_id, seq)] = update  # see ``committing``
            return
        room = self.cached(update.room_id, seq) or decode_room(update.state)
        cached = self._rooms.get(update.room_id)
        if cached is None or cached[0] < seq:
            self._keep(update.room_id, seq, room)
        frames = self.parts.frames(room, seq, decode_change(update.change))
        for conn in list(followers):
            subscription = conn.rooms.get(update.room_id)
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

    def _delivered(self, room_id: str, seq: int) -> bool:
        """Every follower of the room has ``seq`` already: this process made the change and
        delivered it (``deliver``). The feed drops such a copy as it arrives."""
        followers = self._followers.get(room_id)
        return not followers or all(self._served(conn, room_id, seq) for conn in followers)

    @staticmethod
    def _served(conn: Connection, room_id: str, seq: int) -> bool:
        subscription = conn.rooms.get(room_id)
        return subscription is None or not subscription.started or subscription.last_seq >= seq

    async def _resync(self, room_id: str) -> None:
        for conn in list(self._followers.get(room_id, ())):
            subscription = conn.rooms.get(room_id)
            if subscription is not None:
                await self.catch_up(conn, subscription)


def _nobody(room_id: str, room: Room | None) -> None:
    """No one listens to the room changes yet."""

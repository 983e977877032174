"""Fan-out of one server process: which local connections follow which rooms, and the
delivery of every committed change to them, filtered per recipient, in sequence order.

Changes reach every process through the store's room feed (Redis pub/sub). A recipient that
missed numbers (a feed reconnect, a resume) is caught up from the room's change stream, so
each one gets every sequence number exactly once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Any

from protocol import codec
from protocol.messages import Snapshot, Update
from server.connection import Connection, Subscription
from server.engine.views import event_for
from server.room import Room, room_view
from server.store import FeedReconnected, RoomFeed, RoomUpdate, Store

log = logging.getLogger(__name__)


def encode_room(room: Room) -> bytes:
    return codec.pack(room.to_dict(), validate=False)


def decode_room(blob: bytes) -> Room:
    data = codec.unpack(blob, validate=False)
    if not isinstance(data, dict):
        raise ValueError("a room blob is a map")
    return Room.from_dict(data)


def encode_change(seq: int, events: list[dict[str, Any]], actor: int | None) -> bytes:
    return codec.pack({"seq": seq, "actor": actor, "events": events}, validate=False)


def decode_change(blob: bytes) -> list[dict[str, Any]]:
    if not blob:
        return []
    data = codec.unpack(blob, validate=False)
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise ValueError("a change blob is a map with a list of events")
    events: list[dict[str, Any]] = data["events"]
    return events


class Hub:
    def __init__(self, store: Store, feed: RoomFeed) -> None:
        self._store = store
        self._feed = feed
        self._followers: dict[str, set[Connection]] = defaultdict(set)
        self._rooms: dict[str, tuple[int, Room]] = {}
        self._task: asyncio.Task[None] | None = None

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
        if not self._followers[room_id]:
            await self._feed.add(room_id)
        self._followers[room_id].add(conn)
        return subscription

    async def unfollow(self, conn: Connection, room_id: str) -> None:
        conn.rooms.pop(room_id, None)
        followers = self._followers.get(room_id)
        if followers is None:
            return
        followers.discard(conn)
        if not followers:
            del self._followers[room_id]
            self._rooms.pop(room_id, None)
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
        """Keep a room this process just committed, so its update needs no decoding."""
        if room_id in self._followers:
            cached = self._rooms.get(room_id)
            if cached is None or cached[0] < version:
                self._rooms[room_id] = (version, room)

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
        loaded = await self._load(subscription.room_id)
        if loaded is None:
            return "events", subscription.last_seq
        version, room = loaded
        if subscription.last_seq >= version:
            return "events", subscription.last_seq
        changes = await self._store.changes_since(subscription.room_id, subscription.last_seq)
        if changes is None or (changes and changes[0][0] != subscription.last_seq + 1):
            return "snapshot", await self._snapshot(conn, subscription, (version, room))
        for seq, change in changes:
            if seq > version:
                break
            view = room_view(room, subscription.seat) if seq == version else None
            self._send_update(conn, subscription, seq, decode_change(change), view)
        return "events", subscription.last_seq

    async def _snapshot(
        self,
        conn: Connection,
        subscription: Subscription,
        loaded: tuple[int, Room] | None = None,
    ) -> int:
        loaded = loaded or await self._load(subscription.room_id)
        if loaded is None:
            return subscription.last_seq
        version, room = loaded
        conn.send(Snapshot(room=room.id, seq=version, view=room_view(room, subscription.seat)))
        subscription.last_seq = version
        return version

    def _send_update(
        self,
        conn: Connection,
        subscription: Subscription,
        seq: int,
        events: list[dict[str, Any]],
        view: dict[str, Any] | None,
    ) -> None:
        seat = subscription.seat
        conn.send(
            Update(
                room=subscription.room_id,
                seq=seq,
                events=tuple(event_for(event, seat) for event in events),
                view=view,
            )
        )
        subscription.last_seq = seq

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
            self._rooms[room_id] = (version, room)
        return version, room

    async def _run(self) -> None:
        async for item in self._feed:
            try:
                if isinstance(item, RoomUpdate):
                    await self._deliver(item)
                elif isinstance(item, FeedReconnected):
                    for room_id in item.rooms:
                        await self._resync(room_id)
            except Exception:
                log.exception("delivery failed")

    async def _deliver(self, update: RoomUpdate) -> None:
        followers = self._followers.get(update.room_id)
        if not followers:
            return
        room = self.cached(update.room_id, update.seq) or decode_room(update.state)
        cached = self._rooms.get(update.room_id)
        if cached is None or cached[0] < update.seq:
            self._rooms[update.room_id] = (update.seq, room)
        events = decode_change(update.change)
        for conn in list(followers):
            subscription = conn.rooms.get(update.room_id)
            if subscription is None:
                continue
            async with subscription.lock:
                if update.seq <= subscription.last_seq:
                    continue
                if update.seq == subscription.last_seq + 1:
                    view = room_view(room, subscription.seat)
                    self._send_update(conn, subscription, update.seq, events, view)
                else:
                    await self._catch_up(conn, subscription)

    async def _resync(self, room_id: str) -> None:
        for conn in list(self._followers.get(room_id, ())):
            subscription = conn.rooms.get(room_id)
            if subscription is not None:
                await self.catch_up(conn, subscription)

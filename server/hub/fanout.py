"""Fan-out: which local connections follow which rooms, and the frames of a change sent to
each of them in sequence order (a follower gets a number only right after the one before)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import Awaitable, Callable

from protocol.messages import SAID_SINCE_MINOR
from server.connection import Connection, Subscription
from server.frames import RoomFrames
from server.store import RoomSaid

__all__ = ["FanOut"]


class FanOut:
    """The followers of each room on this process."""

    __slots__ = ("_confirmed", "followers")

    def __init__(self) -> None:
        self.followers: dict[str, set[Connection]] = defaultdict(set)
        #: Rooms whose first follower waits for Redis to confirm the subscription.
        self._confirmed: dict[str, asyncio.Future[None]] = {}

    async def follow(
        self,
        conn: Connection,
        subscription: Subscription,
        subscribe: Callable[[str], Awaitable[None]],
    ) -> None:
        """Add a follower; the room's first one ``subscribe``s to its changes, and later ones
        wait until that is confirmed."""
        room_id = subscription.room_id
        conn.rooms[room_id] = subscription
        # Join the followers before any await: an unfollow meanwhile must see this one and
        # keep the room's subscription. Later followers wait until Redis confirmed it.
        followers = self.followers[room_id]
        followers.add(conn)
        if len(followers) == 1:
            confirmed = asyncio.get_running_loop().create_future()
            self._confirmed[room_id] = confirmed
            try:
                await subscribe(room_id)
            except BaseException:
                followers.discard(conn)
                if not followers:
                    self.followers.pop(room_id, None)
                raise
            finally:
                confirmed.set_result(None)
                if self._confirmed.get(room_id) is confirmed:
                    del self._confirmed[room_id]
        elif (confirming := self._confirmed.get(room_id)) is not None:
            await asyncio.shield(confirming)

    def remove(self, conn: Connection, room_id: str) -> bool:
        """Remove a follower: True when it was the room's last one."""
        conn.rooms.pop(room_id, None)
        followers = self.followers.get(room_id)
        if followers is None:
            return False
        followers.discard(conn)
        if followers:
            return False
        del self.followers[room_id]
        return True

    def of(self, room_id: str) -> list[Connection]:
        return list(self.followers.get(room_id, ()))

    def followed(self, room_id: str) -> bool:
        return room_id in self.followers

    def connections(self) -> set[Connection]:
        return {conn for followers in self.followers.values() for conn in followers}

    def prepare(self, room_id: str, frames: RoomFrames) -> None:
        """Build the update frames of the seats that follow the room here (see
        ``Hub.prepare``). A frame that cannot be made is left to ``send_next``."""
        with contextlib.suppress(Exception):
            for conn in list(self.followers.get(room_id, ())):
                subscription = conn.rooms.get(room_id)
                if subscription is not None:
                    frames.update(subscription.seat)

    def send_next(self, room_id: str, seq: int, frames: RoomFrames) -> None:
        """Send the update of ``seq`` to the followers exactly one number behind and not busy
        catching up (the others get it from the feed)."""
        for conn in list(self.followers.get(room_id, ())):
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

    def send_snapshots(self, room_id: str, version: int, frames: RoomFrames) -> None:
        """A snapshot at ``version`` to the people who follow the room at that number."""
        for conn in list(self.followers.get(room_id, ())):
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

    def send_said(self, said: RoomSaid) -> None:
        """A quick message of seat ``said.seat``: to this process's connections that play the
        room's other seat, and only to people whose protocol knows ``said``; never to a
        watcher (no seat), to the speaker's own connections or to an AI worker."""
        hearer = 1 - said.seat
        for conn in list(self.followers.get(said.room_id, ())):
            subscription = conn.rooms.get(said.room_id)
            if (
                subscription is not None
                and subscription.started
                and subscription.seat == hearer
                and not conn.is_worker
                and conn.protocol_minor >= SAID_SINCE_MINOR
            ):
                conn.send_frame(said.frame)

    def served(self, room_id: str, seq: int) -> bool:
        """Every follower of the room has ``seq`` already (or there is none)."""
        followers = self.followers.get(room_id)
        return not followers or all(_served(conn, room_id, seq) for conn in followers)


def _served(conn: Connection, room_id: str, seq: int) -> bool:
    subscription = conn.rooms.get(room_id)
    return subscription is None or not subscription.started or subscription.last_seq >= seq

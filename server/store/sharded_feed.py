"""The room feed on a Redis Cluster: sharded pub/sub, one connection per shard.

On a cluster every commit publishes with ``SPUBLISH`` (``lua/commit.lua``): the message goes to
the nodes of the room's shard only, not to every node as ``PUBLISH`` would. The feed keeps one
``SSUBSCRIBE`` connection (``server.store.subscriber``) to each master of the slot table and
subscribes each room's channel on the master of its slot. It delivers the same items as
``RoomFeed``, in publication order per room.

When a shard's connection is lost (its master died, a network failure) or Redis ends a
subscription by itself (``sunsubscribe``: the slot moved to another master), only that
shard's rooms are affected: the feed reads the slot table again, subscribes each of those
rooms on its master now (the promoted replica) and, once Redis confirms, reports
``FeedReconnected`` for them, so that their followers resync. Rooms of the other shards are
not disturbed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable

from redis.exceptions import ConnectionError as RedisConnectionError

from server import keys
from server.store._base import StoreConfig
from server.store.cluster import Address, ClusterConnection
from server.store.feed import FeedReconnected, RoomFeed
from server.store.subscriber import FeedSink, Subscriber, open_subscriber

__all__ = ["ShardedRoomFeed"]

log = logging.getLogger(__name__)


class ShardedRoomFeed(RoomFeed):
    """A ``RoomFeed`` over sharded pub/sub (see the module doc)."""

    def __init__(self, url: str, cluster: ClusterConnection, config: StoreConfig) -> None:
        super().__init__(url, config)
        self._cluster = cluster
        self._shards: dict[Address, _Shard] = {}
        self._pending: dict[bytes, asyncio.Future[None]] = {}  # subscriptions not confirmed
        self._rerouting: set[asyncio.Task[None]] = set()
        self._started = False

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to every master (waits up to ``feed_subscribe_timeout``; TimeoutError if
        one is not there, the feed then keeps trying in the background)."""
        if self._closed:
            raise RuntimeError("this feed is closed")
        if not self._started:
            self._started = True
            await asyncio.wait_for(self._cluster.refresh(), self._config.feed_subscribe_timeout)
            for address in self._cluster.masters:
                self._shard(address)
            for channel in self._channels:
                self._route(channel).adopt(channel, resync=False)
        await asyncio.wait_for(
            asyncio.gather(*(shard.up.wait() for shard in list(self._shards.values()))),
            self._config.feed_subscribe_timeout,
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        shards, self._shards = list(self._shards.values()), {}
        for shard in shards:
            await shard.stop()
        for task in list(self._rerouting):
            task.cancel()
        for waiter in self._pending.values():
            if not waiter.done():
                waiter.cancel()
        self._queue.put_nowait(None)

    @property
    def connected(self) -> bool:
        """Every master of the slot table has a live connection of this feed (a master it
        has none to yet, one added by a resharding, gets one now: not connected yet)."""
        if self._closed or not self._cluster.covered:
            return False
        masters = self._cluster.masters
        for address in masters - self._shards.keys():
            self._shard(address)
        return all(self._shards[address].connected for address in masters)

    # -- rooms -------------------------------------------------------------------------------

    async def add(self, room_id: str) -> None:
        channel = keys.room_channel(room_id).encode()
        self._rooms.add(room_id)
        self._channels[channel] = room_id
        if not self._started or self._closed:
            return
        if not self._route(channel).adopt(channel, resync=False):
            return
        waiter = self._pending.get(channel)
        if waiter is None or waiter.done():
            waiter = asyncio.get_running_loop().create_future()
            self._pending[channel] = waiter
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self._config.feed_subscribe_timeout)
        except TimeoutError:
            raise TimeoutError(
                f"Redis did not confirm the subscription to room {room_id}"
            ) from None

    async def remove(self, room_id: str) -> None:
        channel = keys.room_channel(room_id).encode()
        self._rooms.discard(room_id)
        self._channels.pop(channel, None)
        for shard in self._shards.values():
            shard.release(channel)

    # -- shards ------------------------------------------------------------------------------

    def _shard(self, address: Address) -> _Shard:
        shard = self._shards.get(address)
        if shard is None:
            shard = _Shard(self, address)
            self._shards[address] = shard
        return shard

    def _route(self, channel: bytes) -> _Shard:
        """The shard of the master that serves ``channel``'s slot (any known one when the
        table has a hole: it refuses with MOVED, and the shard reroutes the room)."""
        owner = self._cluster.owner(keys.hash_slot(channel))
        if owner is None:
            known = [*self._cluster.masters, *self._shards]
            if not known:
                raise RedisConnectionError("no master of the cluster is known")
            owner = known[0]
        return self._shard(owner)

    def reroute(self, channels: Iterable[bytes]) -> None:
        """Subscribe ``channels`` again where the slot table says, reporting each room's
        ``FeedReconnected`` once confirmed (a shard lost them)."""
        for channel in channels:
            if channel in self._channels and not self._closed:
                self._route(channel).adopt(channel, resync=True)

    def shard_gone(self, shard: _Shard) -> None:
        if self._shards.get(shard.address) is shard:
            del self._shards[shard.address]
        for address in self._cluster.masters:  # a promoted replica gets its connection
            self._shard(address)

    def reroute_later(self, channel: bytes) -> None:
        """Redis ended a subscription by itself (its slot moved): subscribe it again where the
        slot table, read again, says."""

        async def again() -> None:
            with contextlib.suppress(Exception):
                await self._cluster.refresh()
            self.reroute((channel,))

        task = asyncio.create_task(again())
        self._rerouting.add(task)
        task.add_done_callback(self._rerouting.discard)

    def on_subscribed(self, channel: bytes, resync: bool) -> None:
        waiter = self._pending.pop(channel, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        room_id = self._channels.get(channel)
        if resync and room_id is not None:
            self._queue.put_nowait(FeedReconnected(frozenset({room_id})))

    def on_message(self, channel: bytes, data: bytes) -> None:
        self._on_message(channel, data)


class _Shard:
    """One master's ``SSUBSCRIBE`` connection and the channels subscribed on it."""

    def __init__(self, feed: ShardedRoomFeed, address: Address) -> None:
        self.feed = feed
        self.address = address
        self.channels: set[bytes] = set()
        self._confirmed: set[bytes] = set()
        self._resync: set[bytes] = set()
        self._wire: Subscriber | None = None
        self.up = asyncio.Event()
        self._stopped = False
        self._task = asyncio.create_task(self._run(), name=f"room-feed-{address[1]}")

    @property
    def connected(self) -> bool:
        return self._wire is not None and self._wire.usable

    def adopt(self, channel: bytes, *, resync: bool) -> bool:
        """Subscribe ``channel`` here (``resync``: report ``FeedReconnected`` for its room once
        confirmed); False if it is confirmed here already."""
        if channel in self._confirmed:
            return False
        self.channels.add(channel)
        if resync:
            self._resync.add(channel)
        if self._wire is not None:
            self._wire.subscribe(channel)
        return True

    def release(self, channel: bytes) -> None:
        if channel in self.channels:
            self.channels.discard(channel)
            self._confirmed.discard(channel)
            self._resync.discard(channel)
            if self._wire is not None:
                self._wire.unsubscribe(channel)

    async def stop(self) -> None:
        self._stopped = True
        if self._wire is not None:
            self._wire.close()
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task

    # -- what the connection reports ---------------------------------------------------------

    def _subscribed(self, channel: bytes) -> None:
        if channel not in self.channels:
            return
        self._confirmed.add(channel)
        resync = channel in self._resync
        self._resync.discard(channel)
        self.feed.on_subscribed(channel, resync)

    def _unsubscribed(self, channel: bytes) -> None:
        self._confirmed.discard(channel)
        if channel in self.channels:  # Redis ended it by itself: the slot moved
            self.channels.discard(channel)
            self.feed.reroute_later(channel)

    # -- the connection task -----------------------------------------------------------------

    async def _run(self) -> None:
        config = self.feed._config
        delay = config.feed_reconnect_min
        sink = FeedSink(self.feed.on_message, self._subscribed, self._unsubscribed)
        endpoint = self.feed._cluster.endpoint(self.address)
        while not self._stopped:
            try:
                wire = await open_subscriber(endpoint, config, sink, sharded=True)
                self._wire = wire
                if self.channels:
                    wire.subscribe(*self.channels)
                self.up.set()
                delay = config.feed_reconnect_min
                raise await wire.lost
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("feed shard %s:%d lost (%r)", *self.address, exc)
            self._lost()
            await asyncio.sleep(delay)
            delay = min(delay * 2, config.feed_reconnect_max)
            if await self._moved_away():
                return

    def _lost(self) -> None:
        wire, self._wire = self._wire, None
        if wire is not None:
            wire.close()
        self.up.clear()
        self._resync |= self.channels  # whatever was published meanwhile is lost
        self._confirmed.clear()

    async def _moved_away(self) -> bool:
        """Read the slot table again; hand the channels this master no longer serves to
        their new shards. True when this node serves no slot any more (the shard ends)."""
        cluster = self.feed._cluster
        try:
            await cluster.refresh()
        except Exception as exc:
            log.info("feed shard %s:%d: slot table not refreshed (%s)", *self.address, exc)
            return False
        gone = self.address not in cluster.masters
        moved = {
            channel
            for channel in self.channels
            if gone or cluster.owner(keys.hash_slot(channel)) != self.address
        }
        self.channels -= moved
        self._resync -= moved
        if gone:
            self._stopped = True
            self.feed.shard_gone(self)
        self.feed.reroute(moved)
        return gone

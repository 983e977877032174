"""What every part of the store shares: the configuration, the client, the Lua scripts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError, ResponseError

from server.keys import RoomKeys
from server.store.slots import Arg, Command, slot_of

if TYPE_CHECKING:  # direct.py and cluster.py import StoreConfig from here
    from server.store.cluster import ClusterConnection
    from server.store.direct import DirectConnection

Client = Redis | RedisCluster
"""redis-py's client: one Redis, or a cluster (slot map, MOVED/ASK, a pool per node)."""

LUA_DIR = Path(__file__).resolve().parent.parent / "lua"
"""``server/lua/``: one file per script, each starting with its KEYS/ARGV header."""

SCRIPT_NAMES = (
    "create_room",
    "commit",
    "quick_match",
    "cancel_quick_match",
    "hash_create",
    "hash_update",
    "hash_incr",
    "claim_ai_leases",
)


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """Tunables of a Store. The defaults suit production; tests shrink some of them."""

    events_maxlen: int = 10_000
    """Approximate cap of each room's change stream (XADD MAXLEN ~)."""
    request_ttl_seconds: float = 3600.0
    """How long an applied request key is remembered for deduplication."""
    hand_ttl_seconds: int = 30 * 24 * 3600
    """Retention of finished hand records (and of their place in ``hands:recent``)."""
    recent_hands_max: int = 1000
    """Cap of the ``hands:recent`` index."""
    player_ttl_seconds: int = 365 * 24 * 3600
    """A player record not seen (``touch_player``) for this long expires."""
    ai_requests_maxlen: int = 10_000
    """Approximate cap of the ``ai:requests`` stream."""
    max_connections: int = 64
    """Connection pool size of one Store; further callers wait for a free connection."""
    pool_timeout: float = 20.0
    """Seconds a caller waits for a free pooled connection before ConnectionError."""
    socket_connect_timeout: float = 5.0
    socket_timeout: float = 5.0
    """Seconds a command may wait for its reply before the connection is deemed dead."""
    block_chunk_ms: int = 2000
    """Blocking reads (``claim_ai_requests``) wait in chunks this long, so that a long wait
    never runs into ``socket_timeout``. Must be shorter than ``socket_timeout``."""
    retries: int = 5
    """Retries of a command after a connection error (exponential backoff, jitter, 1 s cap)."""
    feed_reconnect_min: float = 0.05
    """First delay before a room feed reconnects; doubles up to ``feed_reconnect_max``."""
    feed_reconnect_max: float = 2.0
    feed_ping_interval: float = 5.0
    """A silent feed pings Redis after this many seconds; no answer by the next interval
    means the connection is dead and the feed reconnects."""
    feed_subscribe_timeout: float = 5.0
    """How long ``RoomFeed.add`` waits for Redis to confirm a subscription."""

    # -- Redis Cluster and replicas (``GIN_REDIS_*``) -------------------------------------
    cluster: bool = False
    """The URL names a node (or several, comma-separated) of a Redis Cluster."""
    failover_seconds: float = 20.0
    """On a cluster, how long a command keeps retrying while its slot has no reachable master
    (a failover): requests wait this long before they fail."""
    wait_replicas: int = 0
    """Every write script waits (``WAIT``) until this many replicas have it before it returns:
    an acknowledged change survives the promotion of a replica. 0: no waiting."""
    wait_timeout_ms: int = 20_000
    """How long a write waits for its replicas (one ``WAIT``, right behind the write on its
    connection) before it fails with ``ReplicationTimeout``. A shard that just failed over has
    no replica until its old master is back: long enough for a restart."""

    def __post_init__(self) -> None:
        if not 0 < self.block_chunk_ms < self.socket_timeout * 1000:
            raise ValueError("block_chunk_ms must be positive and shorter than socket_timeout")
        if self.wait_replicas < 0 or self.wait_timeout_ms < 1:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout_ms >= 1")


class ReplicationTimeout(RedisError):
    """A write reached its master, but fewer replicas than ``StoreConfig.wait_replicas``
    confirmed it in time: it may be lost if the master fails now, so it is not acknowledged."""


class Scripts:
    """The Lua scripts, registered on one client (EVALSHA, SCRIPT LOAD on NOSCRIPT)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis
        self.create_room = self._register(redis, "create_room")
        self.commit = self._register(redis, "commit")
        self.quick_match = self._register(redis, "quick_match")
        self.cancel_quick_match = self._register(redis, "cancel_quick_match")
        self.hash_create = self._register(redis, "hash_create")
        self.hash_update = self._register(redis, "hash_update")
        self.hash_incr = self._register(redis, "hash_incr")
        self.claim_ai_leases = self._register(redis, "claim_ai_leases")

    @staticmethod
    def _register(redis: Client, name: str) -> AsyncScript:
        return redis.register_script((LUA_DIR / f"{name}.lua").read_text(encoding="utf-8"))

    async def load(self) -> None:
        """SCRIPT LOAD every script now (on a cluster: on every master): a script that does
        not compile fails here, not in a move. (After a Redis restart or a failover the script
        cache is empty again; each call then loads its script on NOSCRIPT by itself.)"""
        for name in SCRIPT_NAMES:
            script: AsyncScript = getattr(self, name)
            script.sha = await self._redis.script_load(script.script)


class StoreBase:
    """State shared by the Store's parts (rooms, players, lobby, hands, AI seats).

    The commands of a move (its commit and the records it owes) go through the store's
    direct connection when it has one (``server.store.direct``: a fraction of the CPU and
    latency of redis-py's pool; on a cluster ``server.store.cluster``, one per master), the
    others through redis-py's client (a pool, or its cluster client)."""

    _direct: DirectConnection | ClusterConnection | None = None

    def __init__(self, redis: Client, url: str, config: StoreConfig) -> None:
        self._redis = redis
        self._url = url
        self._config = config
        self._scripts = Scripts(redis)
        #: A room's changes go out by sharded pub/sub on a cluster: to its shard's nodes only.
        self._publish = "SPUBLISH" if config.cluster else "PUBLISH"
        self._wait: Command | None = (
            ("WAIT", config.wait_replicas, config.wait_timeout_ms) if config.wait_replicas else None
        )

    async def _fast(self, *args: Arg) -> Any:
        """One command on the direct connection (or the pool without one); raises error
        replies as redis-py does."""
        direct = self._direct
        if direct is None:
            return await self._redis.execute_command(*args)
        reply = await direct.execute(*args)
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    async def _together(self, *commands: Command) -> list[Any]:
        """Commands of one hash slot, sent together and answered in order (one round trip);
        CrossSlotError, before anything is sent, if their keys span slots. Raises the first
        error reply."""
        slot_of(commands)
        direct = self._direct
        if direct is None:
            async with self._redis.pipeline(transaction=True) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                return list(await pipe.execute())
        replies = await direct.run(commands)
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    async def _run_script(
        self,
        script: AsyncScript,
        keys: Sequence[str],
        args: Sequence[Arg],
        *,
        writes: bool = True,
    ) -> Any:
        """EVALSHA, loading the script first when Redis lost it (a restart, a failover empties
        the cache); a script that ``writes`` then waits for ``StoreConfig.wait_replicas``.
        CrossSlotError, before anything is sent, if ``keys`` span hash slots."""
        direct = self._direct
        if type(keys) is not RoomKeys:  # a room's keys share its tag by construction
            slot_of((("EVALSHA", "", len(keys), *keys),))
        if direct is None:
            return await script(keys=keys, args=args)
        call: Command = ("EVALSHA", as_text(script.sha), len(keys), *keys, *args)
        wait = self._wait if writes else None
        commands: tuple[Command, ...] = (call,) if wait is None else (call, wait)
        replies = await direct.run(commands)
        if isinstance(replies[0], ResponseError) and str(replies[0]).startswith("NOSCRIPT"):
            load: Command = ("SCRIPT", "LOAD", as_bytes(script.script))
            replies = (await direct.run((load, *commands)))[1:]
        reply = replies[0]
        if isinstance(reply, ResponseError):
            raise reply
        if wait is not None:
            self._check_replicas(replies[1])
        return reply

    def _check_replicas(self, reply: object) -> None:
        if isinstance(reply, ResponseError):
            raise reply
        confirmed = int(reply)  # type: ignore[call-overload]
        if confirmed < self._config.wait_replicas:
            raise ReplicationTimeout(
                f"{confirmed} of {self._config.wait_replicas} replicas confirmed the write "
                f"within {self._config.wait_timeout_ms} ms"
            )


def as_bytes(value: object) -> bytes:
    """A Redis reply known to be a bulk string, as bytes."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"expected a bulk string reply, got {type(value).__name__}")


def socket_options(url: str) -> dict[str, Any]:
    """redis-py's socket options for ``url``: TCP keepalive, except on a Unix socket, whose
    connections refuse the option."""
    return {} if url.startswith("unix://") else {"socket_keepalive": True}


def as_text(value: object) -> str:
    """A Redis reply known to be UTF-8 text, as str."""
    if isinstance(value, str):
        return value
    return as_bytes(value).decode("utf-8")


def check_blob(value: object, what: str) -> bytes:
    """``value`` if it is bytes (the store never encodes: callers hand it encoded blobs)."""
    if not isinstance(value, bytes):
        raise TypeError(f"{what} must be bytes, got {type(value).__name__}")
    return value


def check_text(value: object, what: str, max_bytes: int = 256) -> str:
    """``value`` if it is a non-empty str of at most ``max_bytes`` UTF-8 bytes."""
    if not isinstance(value, str) or not value or len(value.encode("utf-8")) > max_bytes:
        raise ValueError(f"{what} must be a non-empty str of at most {max_bytes} UTF-8 bytes")
    return value


def check_positive(value: float, what: str) -> float:
    """``value`` if it is a positive number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"{what} must be a positive number, got {value!r}")
    return value

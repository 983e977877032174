"""The Store: the one object through which the server talks to Redis."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import RedisError

from server.store._base import StoreConfig, socket_options
from server.store.accounts import AccountOps
from server.store.ai import AiOps
from server.store.blocks import BlockOps
from server.store.challenges import ChallengeOps
from server.store.cluster import ClusterConnection, node_url, startup_nodes
from server.store.direct import DirectConnection
from server.store.feed import RoomFeed
from server.store.friends import FriendOps
from server.store.hands import HandOps
from server.store.live import LiveOps
from server.store.lobby import LobbyOps
from server.store.moderation import ModerationOps
from server.store.players import PlayerOps
from server.store.presence import PresenceOps
from server.store.quotas import QuotaOps
from server.store.ratings import RatingOps
from server.store.reviews import ReviewOps
from server.store.rooms import RoomOps
from server.store.sharded_feed import ShardedRoomFeed
from server.store.talk import TalkOps


class Store(
    RoomOps,
    PlayerOps,
    AccountOps,
    LobbyOps,
    LiveOps,
    HandOps,
    AiOps,
    QuotaOps,
    TalkOps,
    RatingOps,
    ReviewOps,
    BlockOps,
    ModerationOps,
    FriendOps,
    PresenceOps,
    ChallengeOps,
):
    """All Redis access of a server process (async; redis-py ``redis.asyncio``).

    Values are ``bytes`` blobs the caller encodes (the store never decodes them) and ids
    checked by ``server.keys``. Create one per process with ``await Store.connect(url)``;
    it holds a pool of up to ``StoreConfig.max_connections`` connections, plus one pipelined
    connection for the commands of a move (``server.store.direct``), and is safe to share
    between the tasks of its event loop. After a Redis restart commands reconnect by themselves
    (with retries), and the Lua scripts are loaded again on first use (EVALSHA, NOSCRIPT ->
    SCRIPT LOAD).

    The methods are grouped in: rooms (``RoomOps``), room feeds (``feed``), players
    (``PlayerOps``), invites and quick match (``LobbyOps``), finished hands (``HandOps``), AI
    seat requests (``AiOps``), the live rooms and their watcher counts (``LiveOps``), quotas
    of rooms per player and players per address (``QuotaOps``), quick messages between the
    players (``TalkOps``), accounts: handles, credentials, sessions (``AccountOps``), ratings,
    the leaderboard, rated quick match and abandonments (``RatingOps``), blocks
    (``BlockOps``), reports and bans (``ModerationOps``), friends (``FriendOps``) and presence
    (``PresenceOps``).
    """

    @classmethod
    async def connect(cls, url: str, config: StoreConfig | None = None) -> Store:
        """Connect to Redis at ``url`` (``redis://[USER:PASSWORD@]host:port/db``,
        ``rediss://...`` for TLS, or ``unix:///path/redis.sock?db=N``; with
        ``StoreConfig.cluster``, any node or nodes of a Redis Cluster:
        ``redis[s]://host:port[,host:port...]/0``), load the Lua scripts and create the AI
        consumer group. Raises redis ConnectionError if Redis cannot be reached, ValueError
        for a URL of another scheme."""
        config = config or StoreConfig()
        if config.cluster:
            direct: DirectConnection | ClusterConnection = ClusterConnection(url, config)
            store = cls(_cluster_client(url, config), url, config)
        else:
            direct = DirectConnection(url, config)
            store = cls(_pooled_client(url, config), url, config)
        store._direct = direct
        try:
            await store._scripts.load()
            await store.ensure_ai_group()
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        """Close every pooled connection and the direct one (feeds have their own: close them
        too)."""
        if self._direct is not None:
            self._direct.close()
        await self._redis.aclose()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def ping(self) -> bool:
        """True if Redis answers (for health checks; on a cluster: a master of every slot
        answers); never raises a Redis error."""
        try:
            if isinstance(self._direct, ClusterConnection):
                return await self._direct.ping_masters()
            return bool(await self._redis.ping())
        except (RedisError, OSError):
            return False

    def feed(self) -> RoomFeed:
        """A new room feed on its own pub/sub connection (one per server process is enough):
        ``async with store.feed() as feed: await feed.add(room_id); async for item in feed``.
        See ``server.store.feed`` for what it delivers and how to resync after a reconnect."""
        if isinstance(self._direct, ClusterConnection):
            return ShardedRoomFeed(self._url, self._direct, self._config)
        return RoomFeed(self._url, self._config)


def _pooled_client(url: str, config: StoreConfig) -> Redis:
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=config.max_connections,
        timeout=config.pool_timeout,
        protocol=2,
        socket_connect_timeout=config.socket_connect_timeout,
        socket_timeout=config.socket_timeout,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), config.retries),
        **socket_options(url),
        **_tls_options(url, config),
    )
    return Redis.from_pool(pool)


def _tls_options(url: str, config: StoreConfig) -> dict[str, Any]:
    """redis-py's TLS options for a ``rediss://`` URL: the CA and client certificate of
    ``config``, the host name checked, as on the store's own connections
    (``server.store.resp.tls_context``)."""
    if not url.startswith("rediss://"):
        return {}
    return {
        "ssl_ca_certs": config.tls_ca,
        "ssl_certfile": config.tls_cert,
        "ssl_keyfile": config.tls_key,
        "ssl_check_hostname": True,
    }


def _cluster_client(url: str, config: StoreConfig) -> RedisCluster:
    """redis-py's cluster client (slot map, MOVED/ASK, a pool per node) for the commands off
    the hot path, started from every node the URL names. Its retries (a second each at most)
    last about as long as ``failover_seconds``, as the hot path's do."""
    nodes = startup_nodes(url)
    first = node_url(url, nodes[0])
    retries = max(config.retries, round(config.failover_seconds))
    return RedisCluster.from_url(
        first,
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        max_connections=config.max_connections,
        protocol=2,
        socket_connect_timeout=config.socket_connect_timeout,
        socket_timeout=config.socket_timeout,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), retries),
        socket_keepalive=True,
        **_tls_options(url, config),
    )

"""The tunables of a Store."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """Tunables of a Store. The defaults suit production; tests shrink some of them."""

    events_maxlen: int = 10_000
    """Approximate cap of each room's change stream (XADD MAXLEN ~)."""
    request_ttl_seconds: float = 600.0
    """How long an applied request key is remembered for deduplication (a resend comes
    seconds to a minute or two after the first try: ``docs/protocol.md``, Retrying)."""
    request_keys_max: int = 128
    """How many applied request keys a room remembers at most, the newest. Turns alternate,
    so a player's own latest action is always among them; 128 keeps Redis's compact
    encoding of a small sorted set (``zset-max-listpack-entries``)."""
    hand_ttl_seconds: int = 30 * 24 * 3600
    """Retention of finished hand records (and of their place in ``hands:recent``)."""
    recent_hands_max: int = 1000
    """Cap of the ``hands:recent`` index."""
    player_ttl_seconds: int = 365 * 24 * 3600
    """A player record not seen (``touch_player``) for this long expires, once the player
    finished a hand."""
    new_player_ttl_seconds: int = 24 * 3600
    """A player who never finished a hand is forgotten after this long unseen."""
    room_ttl_seconds: int = 24 * 3600
    """A room expires this long after its last change (each commit pushes it forward)."""
    finished_history_seconds: int = 600
    """A finished room's change stream expires this long after its last change, the rest of
    the room after ``room_ttl_seconds``: its hands are kept as hand records, and a resume
    after that gets a snapshot."""
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

    # -- TLS (``rediss://`` URLs; ``GIN_REDIS_CA``, ``GIN_REDIS_CERT``, ``GIN_REDIS_KEY``) ------
    tls_ca: str | None = None
    """A PEM file of the CAs that sign Redis's certificate; None: the system's (which
    honours ``SSL_CERT_FILE``)."""
    tls_cert: str | None = None
    """A PEM client certificate, for a Redis that asks for one (``tls-auth-clients``)."""
    tls_key: str | None = None
    """The client certificate's private key (PEM; None: it is in ``tls_cert``)."""

    def __post_init__(self) -> None:
        if self.request_keys_max < 1 or self.request_ttl_seconds <= 0:
            raise ValueError("request_keys_max must be >= 1 and request_ttl_seconds positive")
        if not 0 < self.block_chunk_ms < self.socket_timeout * 1000:
            raise ValueError("block_chunk_ms must be positive and shorter than socket_timeout")
        if self.wait_replicas < 0 or self.wait_timeout_ms < 1:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout_ms >= 1")
        if self.tls_key is not None and self.tls_cert is None:
            raise ValueError("a TLS client key needs its certificate (GIN_REDIS_CERT, tls_cert)")

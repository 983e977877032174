"""Server settings, read once from environment variables (documented in the README)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from server.addresses import Network, parse_networks

#: Hosts always served: this machine's own names (a rebinding page's Host is its own name),
#: for health checks and ``make run``; ``GIN_ALLOWED_HOSTS`` adds to them, and so does the
#: address in ``GIN_HOST`` when it is a particular one.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def _int(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _float(env: Mapping[str, str], name: str, default: float, minimum: float = 0.0) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise ValueError(f"{name} must be 0 or 1, got {raw!r}")


def _list(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in env.get(name, "").split(",") if item.strip())


def _hosts(env: Mapping[str, str]) -> tuple[str, ...]:
    bound = env.get("GIN_HOST", "").strip()
    own = () if bound in ("", "0.0.0.0", "::") else (f"[{bound}]" if ":" in bound else bound,)
    hosts = (*LOCAL_HOSTS, *own, *_list(env, "GIN_ALLOWED_HOSTS"))
    for host in hosts:
        if "*" in host[1:] or (host.startswith("*") and host != "*" and not host.startswith("*.")):
            raise ValueError(f"GIN_ALLOWED_HOSTS: {host!r} is not a host, *.domain or *")
    return tuple(dict.fromkeys(hosts))


def _networks(env: Mapping[str, str], name: str) -> tuple[Network, ...]:
    try:
        return parse_networks(_list(env, name))
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    #: Extra origins allowed to open websockets; the server's own origin is always allowed.
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)
    #: Host header names served (``*.example.com`` patterns, ``*`` for any): DNS rebinding.
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    #: Peers whose ``X-Forwarded-For`` names the client (the reverse proxy).
    trusted_proxies: tuple[Network, ...] = field(default_factory=tuple)
    #: Open websockets per client address and process (0: no limit).
    max_connections_per_address: int = 32
    #: A websocket that has not said ``hello`` after this many seconds is closed.
    hello_timeout_seconds: float = 10.0
    max_frame_bytes: int = 16 * 1024
    #: The same for a worker (``hello`` with the worker key): a long hand's review is one frame.
    max_worker_frame_bytes: int = 64 * 1024
    rate_per_second: float = 20.0
    rate_burst: int = 40
    #: Pings have a bucket of their own.
    ping_rate_per_second: float = 20.0
    ping_burst: int = 40
    #: Refused frames within ``strike_window_seconds`` that cut a connection off as a flood.
    flood_strikes: int = 50
    strike_window_seconds: float = 10.0
    idle_timeout_seconds: float = 300.0
    disconnect_grace_seconds: float = 60.0
    default_turn_seconds: int = 30
    #: Each seat's time bank per match in rooms with a turn clock, for slow thinkers.
    turn_bank_seconds: int = 120
    hand_retention_seconds: int = 30 * 24 * 3600
    room_idle_seconds: int = 24 * 3600
    #: A finished room keeps its change stream this long (a resume after: a snapshot).
    finished_history_seconds: int = 600
    player_retention_seconds: int = 365 * 24 * 3600
    event_history: int = 10_000
    log_level: str = "INFO"
    log_format: str = "json"
    #: Shared secret of the AI workers: a connection that presents it may take AI seats.
    ai_worker_key: str | None = None
    #: An AI-played seat whose worker is gone without a word is asked for again after this.
    ai_lease_seconds: float = 10.0
    #: A player's presence lapses this long after their process last renewed it (it renews
    #: every third of it): a process that died shows its players offline within this.
    presence_seconds: float = 30.0
    turn_clock_interval: float = 1.0
    #: A full collection of reference cycles this often (0: only CPython's own rule).
    full_gc_seconds: float = 600.0

    # -- Redis Cluster and replicas ----------------------------------------------------------
    #: ``REDIS_URL`` names a node (or ``HOST:PORT,HOST:PORT`` several) of a Redis Cluster.
    redis_cluster: bool = False
    #: Each commit waits (``WAIT``) for this many replicas before it is acknowledged.
    redis_wait_replicas: int = 0
    redis_wait_timeout_ms: int = 20_000
    #: How long a request waits for a failed-over slot to have a master again.
    redis_failover_seconds: float = 20.0
    #: ``rediss://`` URLs: the CA file (None: the system's, ``SSL_CERT_FILE``), and a client
    #: certificate and key for a Redis that asks for one (docs/operations.md).
    redis_ca: str | None = None
    redis_cert: str | None = None
    redis_key: str | None = None

    # -- resource limits (docs/security.md, "Resource limits") ------------------------------
    #: Unfinished rooms one player may sit in at once (AI, private, quick match).
    max_open_rooms: int = 5
    #: Of those, rooms against the AI (each holds an AI seat).
    max_ai_rooms: int = 3
    #: New players one client address may create per minute.
    new_players_per_minute: int = 10
    #: A player who never finished a hand is forgotten after this long unseen.
    new_player_retention_seconds: int = 24 * 3600
    #: A private room nobody joined expires this long after its last change.
    unjoined_room_seconds: int = 3600
    #: Failed invite-code and room lookups one client address may make per minute.
    lookup_failures_per_minute: int = 20
    #: A challenge (``server.challenges``) may be accepted this long after it was sent.
    challenge_seconds: int = 60
    #: Quick messages (``say``) a seat may send at once, and the seconds until one more.
    talk_burst: int = 3
    talk_seconds: float = 2.0
    #: New hand reviews one player may ask for per hour (``review_hand``).
    reviews_per_hour: int = 30
    #: A review whose worker went quiet this long is handed to another worker.
    review_lease_seconds: float = 60.0

    # -- accounts (docs/security.md, "Accounts") --------------------------------------------
    #: The origin people open the site at (``https://gin.example.org``): passkeys are bound to
    #: it (its host is the WebAuthn RP ID). None: the origin of each request's own Host.
    public_origin: str | None = None
    #: Failed sign-ins one account takes per window (then ``signin_limited_account``), and
    #: sign-in attempts one client address makes (then ``signin_limited_address``).
    signin_account_failures: int = 10
    signin_address_attempts: int = 30
    signin_window_seconds: int = 900

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        log_format = env.get("GIN_LOG_FORMAT", "json")
        if log_format not in ("json", "text"):
            raise ValueError(f"GIN_LOG_FORMAT must be json or text, got {log_format!r}")
        return cls(
            redis_url=env.get("REDIS_URL") or cls.redis_url,
            allowed_origins=_list(env, "GIN_ALLOWED_ORIGINS"),
            allowed_hosts=_hosts(env),
            trusted_proxies=_networks(env, "GIN_TRUSTED_PROXIES"),
            max_connections_per_address=_int(
                env, "GIN_MAX_CONNECTIONS_PER_ADDRESS", cls.max_connections_per_address
            ),
            hello_timeout_seconds=_float(env, "GIN_HELLO_TIMEOUT", cls.hello_timeout_seconds, 0.1),
            max_frame_bytes=_int(env, "GIN_MAX_FRAME_BYTES", cls.max_frame_bytes, 256),
            max_worker_frame_bytes=_int(
                env, "GIN_MAX_WORKER_FRAME_BYTES", cls.max_worker_frame_bytes, 256
            ),
            rate_per_second=_float(env, "GIN_RATE_PER_SECOND", cls.rate_per_second, 0.1),
            rate_burst=_int(env, "GIN_RATE_BURST", cls.rate_burst, 1),
            ping_rate_per_second=_float(env, "GIN_PING_RATE", cls.ping_rate_per_second, 0.1),
            ping_burst=_int(env, "GIN_PING_BURST", cls.ping_burst, 1),
            flood_strikes=_int(env, "GIN_FLOOD_STRIKES", cls.flood_strikes, 1),
            strike_window_seconds=_float(env, "GIN_STRIKE_WINDOW", cls.strike_window_seconds, 0.1),
            idle_timeout_seconds=_float(env, "GIN_IDLE_TIMEOUT", cls.idle_timeout_seconds, 1.0),
            disconnect_grace_seconds=_float(
                env, "GIN_DISCONNECT_GRACE", cls.disconnect_grace_seconds
            ),
            default_turn_seconds=_int(env, "GIN_TURN_SECONDS", cls.default_turn_seconds),
            turn_bank_seconds=_int(env, "GIN_TURN_BANK_SECONDS", cls.turn_bank_seconds),
            hand_retention_seconds=_int(env, "GIN_HAND_RETENTION", cls.hand_retention_seconds, 1),
            room_idle_seconds=_int(env, "GIN_ROOM_IDLE", cls.room_idle_seconds, 1),
            finished_history_seconds=_int(
                env, "GIN_FINISHED_HISTORY", cls.finished_history_seconds, 1
            ),
            player_retention_seconds=_int(
                env, "GIN_PLAYER_RETENTION", cls.player_retention_seconds, 1
            ),
            event_history=_int(env, "GIN_EVENT_HISTORY", cls.event_history, 10),
            log_level=env.get("GIN_LOG_LEVEL", cls.log_level).upper(),
            log_format=log_format,
            ai_worker_key=env.get("GIN_AI_WORKER_KEY") or None,
            ai_lease_seconds=_float(env, "GIN_AI_LEASE_SECONDS", cls.ai_lease_seconds, 0.5),
            presence_seconds=_float(env, "GIN_PRESENCE_SECONDS", cls.presence_seconds, 1.0),
            full_gc_seconds=_float(env, "GIN_FULL_GC_SECONDS", cls.full_gc_seconds),
            redis_cluster=_flag(env, "GIN_REDIS_CLUSTER"),
            redis_wait_replicas=_int(env, "GIN_REDIS_WAIT_REPLICAS", cls.redis_wait_replicas),
            redis_wait_timeout_ms=_int(
                env, "GIN_REDIS_WAIT_TIMEOUT_MS", cls.redis_wait_timeout_ms, 1
            ),
            redis_failover_seconds=_float(
                env, "GIN_REDIS_FAILOVER_SECONDS", cls.redis_failover_seconds, 0.1
            ),
            redis_ca=_file(env, "GIN_REDIS_CA"),
            redis_cert=_file(env, "GIN_REDIS_CERT"),
            redis_key=_file(env, "GIN_REDIS_KEY"),
            talk_burst=_int(env, "GIN_TALK_BURST", cls.talk_burst, 1),
            talk_seconds=_float(env, "GIN_TALK_SECONDS", cls.talk_seconds, 0.01),
            reviews_per_hour=_int(env, "GIN_REVIEWS_PER_HOUR", cls.reviews_per_hour, 1),
            review_lease_seconds=_float(
                env, "GIN_REVIEW_LEASE_SECONDS", cls.review_lease_seconds, 1.0
            ),
            **_limits_from_env(env),  # type: ignore[arg-type]
            **_accounts_from_env(env),  # type: ignore[arg-type]
        )


def _file(env: Mapping[str, str], name: str) -> str | None:
    """A setting naming a file that must exist (unset or empty: None)."""
    value = env.get(name) or None
    if value is not None and not os.path.isfile(value):
        raise ValueError(f"{name}: no such file: {value!r}")
    return value


def _limits_from_env(env: Mapping[str, str]) -> dict[str, int]:
    """The resource-limit fields of Settings (``GIN_MAX_OPEN_ROOMS`` ...)."""
    s = Settings
    return {
        "max_open_rooms": _int(env, "GIN_MAX_OPEN_ROOMS", s.max_open_rooms, 1),
        "max_ai_rooms": _int(env, "GIN_MAX_AI_ROOMS", s.max_ai_rooms, 0),
        "new_players_per_minute": _int(
            env, "GIN_NEW_PLAYERS_PER_MINUTE", s.new_players_per_minute, 1
        ),
        "new_player_retention_seconds": _int(
            env, "GIN_NEW_PLAYER_RETENTION", s.new_player_retention_seconds, 1
        ),
        "unjoined_room_seconds": _int(env, "GIN_UNJOINED_ROOM_SECONDS", s.unjoined_room_seconds, 1),
        "lookup_failures_per_minute": _int(
            env, "GIN_LOOKUP_FAILURES_PER_MINUTE", s.lookup_failures_per_minute, 1
        ),
        "challenge_seconds": _int(env, "GIN_CHALLENGE_SECONDS", s.challenge_seconds, 1),
    }


def _accounts_from_env(env: Mapping[str, str]) -> dict[str, int | str | None]:
    """The account fields of Settings (``GIN_PUBLIC_ORIGIN``, ``GIN_SIGNIN_*``)."""
    s = Settings
    return {
        "public_origin": _origin(env, "GIN_PUBLIC_ORIGIN"),
        "signin_account_failures": _int(
            env, "GIN_SIGNIN_ACCOUNT_FAILURES", s.signin_account_failures, 1
        ),
        "signin_address_attempts": _int(
            env, "GIN_SIGNIN_ADDRESS_ATTEMPTS", s.signin_address_attempts, 1
        ),
        "signin_window_seconds": _int(env, "GIN_SIGNIN_WINDOW", s.signin_window_seconds, 1),
    }


def _origin(env: Mapping[str, str], name: str) -> str | None:
    """An origin: ``http(s)://host[:port]``, nothing after it."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"{name} must be an origin like https://gin.example.org, got {raw!r}")
    if parts.query or parts.fragment or parts.username:
        raise ValueError(f"{name} must be an origin like https://gin.example.org, got {raw!r}")
    return f"{parts.scheme}://{parts.netloc}"

"""Server settings, read once from environment variables (documented in the README)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field


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


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    #: Extra origins allowed to open websockets; the server's own origin is always allowed.
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)
    max_frame_bytes: int = 16 * 1024
    rate_per_second: float = 20.0
    rate_burst: int = 40
    idle_timeout_seconds: float = 300.0
    disconnect_grace_seconds: float = 60.0
    default_turn_seconds: int = 0
    hand_retention_seconds: int = 30 * 24 * 3600
    room_idle_seconds: int = 7 * 24 * 3600
    player_retention_seconds: int = 365 * 24 * 3600
    event_history: int = 10_000
    log_level: str = "INFO"
    log_format: str = "json"
    #: Shared secret of the AI workers: a connection that presents it may take AI seats.
    ai_worker_key: str | None = None
    #: An AI-played seat whose worker is gone without a word is asked for again after this.
    ai_lease_seconds: float = 10.0
    turn_clock_interval: float = 1.0

    # -- Redis Cluster and replicas ----------------------------------------------------------
    #: ``REDIS_URL`` names a node (or ``HOST:PORT,HOST:PORT`` several) of a Redis Cluster.
    redis_cluster: bool = False
    #: Each commit waits (``WAIT``) for this many replicas before it is acknowledged.
    redis_wait_replicas: int = 0
    redis_wait_timeout_ms: int = 20_000
    #: How long a request waits for a failed-over slot to have a master again.
    redis_failover_seconds: float = 20.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        log_format = env.get("GIN_LOG_FORMAT", "json")
        if log_format not in ("json", "text"):
            raise ValueError(f"GIN_LOG_FORMAT must be json or text, got {log_format!r}")
        return cls(
            redis_url=env.get("REDIS_URL") or cls.redis_url,
            allowed_origins=_list(env, "GIN_ALLOWED_ORIGINS"),
            max_frame_bytes=_int(env, "GIN_MAX_FRAME_BYTES", cls.max_frame_bytes, 256),
            rate_per_second=_float(env, "GIN_RATE_PER_SECOND", cls.rate_per_second, 0.1),
            rate_burst=_int(env, "GIN_RATE_BURST", cls.rate_burst, 1),
            idle_timeout_seconds=_float(env, "GIN_IDLE_TIMEOUT", cls.idle_timeout_seconds, 1.0),
            disconnect_grace_seconds=_float(
                env, "GIN_DISCONNECT_GRACE", cls.disconnect_grace_seconds
            ),
            default_turn_seconds=_int(env, "GIN_TURN_SECONDS", cls.default_turn_seconds),
            hand_retention_seconds=_int(env, "GIN_HAND_RETENTION", cls.hand_retention_seconds, 1),
            room_idle_seconds=_int(env, "GIN_ROOM_IDLE", cls.room_idle_seconds, 1),
            player_retention_seconds=_int(
                env, "GIN_PLAYER_RETENTION", cls.player_retention_seconds, 1
            ),
            event_history=_int(env, "GIN_EVENT_HISTORY", cls.event_history, 10),
            log_level=env.get("GIN_LOG_LEVEL", cls.log_level).upper(),
            log_format=log_format,
            ai_worker_key=env.get("GIN_AI_WORKER_KEY") or None,
            ai_lease_seconds=_float(env, "GIN_AI_LEASE_SECONDS", cls.ai_lease_seconds, 0.5),
            redis_cluster=_flag(env, "GIN_REDIS_CLUSTER"),
            redis_wait_replicas=_int(env, "GIN_REDIS_WAIT_REPLICAS", cls.redis_wait_replicas),
            redis_wait_timeout_ms=_int(
                env, "GIN_REDIS_WAIT_TIMEOUT_MS", cls.redis_wait_timeout_ms, 1
            ),
            redis_failover_seconds=_float(
                env, "GIN_REDIS_FAILOVER_SECONDS", cls.redis_failover_seconds, 0.1
            ),
        )

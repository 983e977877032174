"""What every part of the store shares: the configuration, the client, the Lua scripts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from server.store.config import StoreConfig
from server.store.direct import DirectConnection

__all__ = ["LUA_DIR", "StoreBase", "StoreConfig"]

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
    "claim_room",
    "count_new_player",
    "touch_player",
)


class Scripts:
    """The Lua scripts, registered on one client (EVALSHA, SCRIPT LOAD on NOSCRIPT)."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self.create_room = self._register(redis, "create_room")
        self.commit = self._register(redis, "commit")
        self.quick_match = self._register(redis, "quick_match")
        self.cancel_quick_match = self._register(redis, "cancel_quick_match")
        self.hash_create = self._register(redis, "hash_create")
        self.hash_update = self._register(redis, "hash_update")
        self.hash_incr = self._register(redis, "hash_incr")
        self.claim_ai_leases = self._register(redis, "claim_ai_leases")
        self.claim_room = self._register(redis, "claim_room")
        self.count_new_player = self._register(redis, "count_new_player")
        self.touch_player = self._register(redis, "touch_player")

    @staticmethod
    def _register(redis: Redis, name: str) -> AsyncScript:
        return redis.register_script((LUA_DIR / f"{name}.lua").read_text(encoding="utf-8"))

    async def load(self) -> None:
        """SCRIPT LOAD every script now: a script that does not compile fails here, not in a
        move. (After a Redis restart the script cache is empty again; each call then loads its
        script on NOSCRIPT by itself.)"""
        for name in SCRIPT_NAMES:
            script: AsyncScript = getattr(self, name)
            script.sha = await self._redis.script_load(script.script)


class StoreBase:
    """State shared by the Store's parts (rooms, players, lobby, hands, AI seats).

    The commands of a move (its commit and the records it owes) go through the store's
    direct connection when it has one (``server.store.direct``: a fraction of the CPU and
    latency of redis-py's pool), the others through the pool."""

    _direct: DirectConnection | None = None

    def __init__(self, redis: Redis, url: str, config: StoreConfig) -> None:
        self._redis = redis
        self._url = url
        self._config = config
        self._scripts = Scripts(redis)

    async def _fast(self, *args: bytes | str | int | float) -> Any:
        """One command on the direct connection (or the pool without one); raises error
        replies as redis-py does."""
        direct = self._direct
        if direct is None:
            return await self._redis.execute_command(*args)  # type: ignore[no-untyped-call]
        reply = await direct.execute(*args)
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    async def _run_script(
        self,
        script: AsyncScript,
        keys: Sequence[str],
        args: Sequence[bytes | str | int | float],
        written: Callable[[], None] | None = None,
    ) -> Any:
        """EVALSHA, loading the script first when Redis lost it (a restart empties the cache).
        ``written`` runs once the command is on its way (``DirectConnection.execute``); the
        pool tells no such moment, so without a direct connection it runs first."""
        direct = self._direct
        if direct is None:
            if written is not None:
                written()
            return await script(keys=keys, args=args)
        sha = as_text(script.sha)
        reply = await direct.execute("EVALSHA", sha, len(keys), *keys, *args, written=written)
        if isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT"):
            loaded = await direct.execute("SCRIPT", "LOAD", as_bytes(script.script))
            if isinstance(loaded, ResponseError):
                raise loaded
            reply = await direct.execute("EVALSHA", sha, len(keys), *keys, *args)
        if isinstance(reply, ResponseError):
            raise reply
        return reply


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

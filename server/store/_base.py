"""What every part of the store shares: the configuration, the client, the Lua scripts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError, ResponseError

from server.keys import RoomKeys
from server.store.cluster import ClusterConnection
from server.store.config import StoreConfig
from server.store.direct import DirectConnection
from server.store.slots import Arg, Command, slot_of

__all__ = ["LUA_DIR", "ReplicationTimeout", "StoreBase", "StoreConfig"]

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
    "take_ai_seats",
    "claim_room",
    "count_new_player",
    "touch_player",
    "say",
    "claim_review",
    "take_review",
    "claim_handle",
    "release_handle",
    "add_session",
    "revoke_sessions",
    "rate_player",
    "leaderboard_put",
    "leaderboard_top",
    "abandon",
    "rated_join",
    "rated_cancel",
    "rated_pair",
    "friends",
    "challenges",
)


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
        self.take_ai_seats = self._register(redis, "take_ai_seats")
        self.claim_room = self._register(redis, "claim_room")
        self.count_new_player = self._register(redis, "count_new_player")
        self.touch_player = self._register(redis, "touch_player")
        self.say = self._register(redis, "say")
        self.claim_review = self._register(redis, "claim_review")
        self.take_review = self._register(redis, "take_review")
        self.claim_handle = self._register(redis, "claim_handle")
        self.release_handle = self._register(redis, "release_handle")
        self.add_session = self._register(redis, "add_session")
        self.revoke_sessions = self._register(redis, "revoke_sessions")
        self.rate_player = self._register(redis, "rate_player")
        self.leaderboard_put = self._register(redis, "leaderboard_put")
        self.leaderboard_top = self._register(redis, "leaderboard_top")
        self.abandon = self._register(redis, "abandon")
        self.rated_join = self._register(redis, "rated_join")
        self.rated_cancel = self._register(redis, "rated_cancel")
        self.rated_pair = self._register(redis, "rated_pair")
        self.friends = self._register(redis, "friends")
        self.challenges = self._register(redis, "challenges")

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
        written: Callable[[], None] | None = None,
    ) -> Any:
        """EVALSHA, loading the script first when Redis lost it (a restart, a failover empties
        the cache); a script that ``writes`` then waits for ``StoreConfig.wait_replicas``.
        CrossSlotError, before anything is sent, if ``keys`` span hash slots. ``written`` runs
        once the command is on its way (``DirectConnection.run``); the pool tells no such
        moment, so without a direct connection it runs first."""
        direct = self._direct
        if type(keys) is not RoomKeys:  # a room's keys share its tag by construction
            slot_of((("EVALSHA", "", len(keys), *keys),))
        if direct is None:
            if written is not None:
                written()
            return await script(keys=keys, args=args)
        call: Command = ("EVALSHA", as_text(script.sha), len(keys), *keys, *args)
        wait = self._wait if writes else None
        commands: tuple[Command, ...] = (call,) if wait is None else (call, wait)
        replies = await direct.run(commands, written)
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

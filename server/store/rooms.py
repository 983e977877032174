"""Rooms: create, load, the atomic commit of a change, history since a sequence number."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from server import keys
from server.store._base import StoreBase, as_bytes, as_text, check_blob, check_positive
from server.store.slots import Command

#: A player id (at most 64 bytes) and a request id (64 characters: at most 256 UTF-8 bytes),
#: with room to spare.
REQUEST_KEY_MAX_BYTES = 512


class CommitStatus(StrEnum):
    """How a commit ended. Only OK changed anything."""

    OK = "ok"
    """Stored, appended to the stream, published."""
    STALE = "stale"
    """The room's version is not the expected one (someone else committed first)."""
    DUPLICATE = "duplicate"
    """The request key was applied before (a resent request)."""
    MISSING = "missing"
    """There is no such room."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of ``Store.commit``.

    ``version`` is the new version when OK, the room's current version when STALE or
    DUPLICATE, and -1 when MISSING.
    """

    status: CommitStatus
    version: int

    @property
    def ok(self) -> bool:
        return self.status is CommitStatus.OK


def _check_request_key(request_key: str | None) -> str:
    if request_key is None:
        return ""
    if (
        not isinstance(request_key, str)
        or not request_key
        or len(request_key.encode("utf-8")) > REQUEST_KEY_MAX_BYTES
    ):
        raise ValueError(
            f"request_key must be None or a non-empty str of at most "
            f"{REQUEST_KEY_MAX_BYTES} UTF-8 bytes"
        )
    return request_key


def _check_seq(value: int, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, got {value!r}")
    return value


class RoomOps(StoreBase):
    """Room state, version and change stream (all keys under the ``{room:ID}`` hash tag).

    The commands of a move (``commit``, ``load_room``) go through the store's direct
    connection when it has one (``StoreBase._fast``), the others through redis-py's pool.
    """

    def _room_ttl_ms(self, ttl_seconds: float | None) -> int:
        if ttl_seconds is None:
            ttl_seconds = self._config.room_ttl_seconds
        return max(1, int(check_positive(ttl_seconds, "ttl_seconds") * 1000))

    def _history_ttl_ms(self, room_ttl_ms: int) -> int:
        """How long a finished room keeps its change stream (at most as long as the room)."""
        return max(1, min(room_ttl_ms, self._config.finished_history_seconds * 1000))

    def _request_ttl_ms(self) -> int:
        return max(1, int(self._config.request_ttl_seconds * 1000))

    async def create_room(
        self,
        room_id: str,
        blob: bytes,
        change: bytes = b"",
        *,
        ttl_seconds: float | None = None,
    ) -> bool:
        """Create a room at version 0, atomically (``lua/create_room.lua``).

        The room's stream gets its first entry, sequence number 0, holding ``change`` (empty
        by default), so its history starts at 0. The room joins ``rooms:active``. Its keys
        expire ``ttl_seconds`` from now (None: ``StoreConfig.room_ttl_seconds``) unless a
        commit pushes that forward. Returns False, changing nothing, if the room already exists.
        """
        room_keys = keys.room_keys(room_id)
        check_blob(blob, "blob")
        check_blob(change, "change")
        created = await self._run_script(
            self._scripts.create_room,
            [room_keys.room, room_keys.version, room_keys.events, room_keys.requests],
            [blob, change, self._config.events_maxlen, self._room_ttl_ms(ttl_seconds)],
        )
        if int(created) != 1:
            return False
        # After the script: rooms:active is a global key (another slot group, ``server.keys``).
        await self._redis.zadd(keys.rooms_active(), {room_id: int(time.time() * 1000)}, nx=True)
        return True

    async def room_for_request(
        self, player_id: str, request_id: str, candidate: str, ttl_seconds: float
    ) -> str:
        """The room id the player's ``create_room`` request ``request_id`` makes: ``candidate``
        the first time, the id it got before when the request is sent again (within
        ``ttl_seconds`` of the player's last creation)."""
        key = keys.player_created_rooms(player_id)
        check_positive(ttl_seconds, "ttl_seconds")
        field = _check_request_key(request_id)
        _, room_id, _ = await self._together(
            ("HSETNX", key, field, keys.check_id(candidate, "room id")),
            ("HGET", key, field),
            ("PEXPIRE", key, int(ttl_seconds * 1000)),
        )
        return as_text(room_id)

    async def load_room(self, room_id: str) -> tuple[int, bytes] | None:
        """The room's version and blob, read atomically (one MGET), or None if there is none."""
        room_keys = keys.room_keys(room_id)
        version, blob = await self._fast("MGET", room_keys.version, room_keys.room)
        if version is None or blob is None:
            return None
        return int(version), as_bytes(blob)

    async def room_version(self, room_id: str) -> int | None:
        """The room's version (its last sequence number), or None if there is no such room."""
        version = await self._redis.get(keys.room_version(room_id))
        return None if version is None else int(version)

    async def commit(
        self,
        room_id: str,
        expected_version: int,
        new_blob: bytes,
        change: bytes,
        request_key: str | None = None,
        *,
        finished: bool = False,
        while_waiting: Callable[[], None] | None = None,
        ttl_seconds: float | None = None,
    ) -> CommitResult:
        """Apply one change to a room: ONE atomic Lua script (``lua/commit.lua``).

        In order: no such room -> MISSING; ``request_key`` given and already applied (within
        ``StoreConfig.request_ttl_seconds``, among the room's newest
        ``StoreConfig.request_keys_max``) -> DUPLICATE; stored version != ``expected_version``
        -> STALE. Otherwise the script stores ``new_blob``, increments the version, appends
        ``{seq: new version, change: change}`` to the room's stream (entry id ``<seq>-1``, capped
        at about ``StoreConfig.events_maxlen`` entries), remembers the request key, publishes
        the change on the room's channel (format in ``server.store.feed``), pushes the expiry of
        the room's keys to ``ttl_seconds`` from now (None: ``StoreConfig.room_ttl_seconds``)
        and returns OK with the new version. Nothing changes unless the result is OK.

        ``request_key`` identifies the request across resends, e.g. ``"<player>:<client id>"``.
        ``finished=True`` (a change of a finished room) takes the room out of ``rooms:active``
        once the commit is OK, and its change stream expires
        ``StoreConfig.finished_history_seconds`` from now (no later than the room); see also
        ``expire_room``. ``while_waiting`` runs once the script is
        sent, while Redis runs it (work that needs no outcome, e.g. the update's frames).
        """
        room_keys = keys.room_keys(room_id)
        _check_seq(expected_version, "expected_version", 0)
        check_blob(new_blob, "new_blob")
        check_blob(change, "change")
        request = _check_request_key(request_key)
        room_ttl_ms = self._room_ttl_ms(ttl_seconds)
        reply = await self._run_script(
            self._scripts.commit,
            room_keys,
            [
                expected_version,
                new_blob,
                change,
                request,
                self._request_ttl_ms(),
                self._config.events_maxlen,
                room_ttl_ms,
                self._publish,
                self._config.request_keys_max,
                self._history_ttl_ms(room_ttl_ms) if finished else room_ttl_ms,
            ],
            written=while_waiting,
        )
        status, version = reply
        result = CommitResult(CommitStatus(as_text(status)), int(version))
        if result.ok and finished:
            await self._fast("ZREM", keys.rooms_active(), room_id)
        return result

    async def request_applied(self, room_id: str, request_key: str) -> bool:
        """True if ``request_key`` was applied to the room within the dedup window (a replay)."""
        room_keys = keys.room_keys(room_id)
        score = await self._redis.zscore(room_keys.requests, _check_request_key(request_key))
        return score is not None and float(score) > time.time() * 1000

    async def changes_since(
        self, room_id: str, after_seq: int, *, limit: int | None = None
    ) -> list[tuple[int, bytes]] | None:
        """The changes with a sequence number above ``after_seq``, in order, as (seq, change).

        ``[]`` when ``after_seq`` is the current version. None when the caller must send a
        snapshot instead: the stream no longer holds ``after_seq + 1`` (trimmed), more than
        ``limit`` changes are missing, ``after_seq`` is ahead of the room, or there is no such
        room. ``after_seq=-1`` asks for the whole history (from sequence number 0).
        """
        room_keys = keys.room_keys(room_id)
        _check_seq(after_seq, "after_seq", -1)
        if limit is not None:
            _check_seq(limit, "limit", 1)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(room_keys.version)
            pipe.xrange(room_keys.events, min=str(after_seq + 1), max="+", count=limit)
            version_reply, entries = await pipe.execute()
        if version_reply is None:
            return None
        version = int(version_reply)
        missing = version - after_seq
        if missing < 0 or (limit is not None and missing > limit):
            return None
        changes: list[tuple[int, bytes]] = []
        for expected_seq, (_entry_id, fields) in enumerate(entries, start=after_seq + 1):
            seq = int(fields[b"seq"])
            if seq != expected_seq:
                return None  # the stream was trimmed past after_seq + 1
            changes.append((seq, as_bytes(fields[b"change"])))
        if len(changes) != missing:
            return None
        return changes

    async def changes_before(
        self, room_id: str, before_seq: int | None, count: int
    ) -> list[tuple[int, bytes]]:
        """Up to ``count`` changes of the stream with a sequence number below ``before_seq``
        (None: from the newest), newest first, as (seq, change)."""
        room_keys = keys.room_keys(room_id)
        check_positive(count, "count")
        if before_seq is not None:
            _check_seq(before_seq, "before_seq", 0)
            if before_seq == 0:
                return []
        newest = "+" if before_seq is None else f"{before_seq - 1}-1"
        entries = await self._redis.xrevrange(room_keys.events, max=newest, min="-", count=count)
        changes: list[tuple[int, bytes]] = []
        for _entry_id, fields in entries or ():
            assert fields is not None
            changes.append((int(fields[b"seq"]), as_bytes(fields[b"change"])))
        return changes

    async def expire_room(self, room_id: str, ttl_seconds: int) -> bool:
        """The room is over: delete every key of the room after ``ttl_seconds`` (0: now) and
        take it out of ``rooms:active``. Its change stream and applied request keys go sooner
        when their own TTLs are shorter (``StoreConfig.finished_history_seconds``,
        ``request_ttl_seconds``). A commit made meanwhile sets the room's TTL again. Returns
        False if there is no such room."""
        room_keys = keys.room_keys(room_id)
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int) or ttl_seconds < 0:
            raise ValueError(f"ttl_seconds must be an int >= 0, got {ttl_seconds!r}")
        room_ms = ttl_seconds * 1000
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.pexpire(room_keys.room, room_ms)
            pipe.pexpire(room_keys.version, room_ms)
            pipe.pexpire(room_keys.events, min(room_ms, self._history_ttl_ms(room_ms)))
            pipe.pexpire(room_keys.requests, min(room_ms, self._request_ttl_ms()))
            replies = await pipe.execute()
        await self._redis.zrem(keys.rooms_active(), room_id)
        return bool(replies[0])

    async def active_room_count(self) -> int:
        """How many rooms are created and not finished (``rooms:active``), for metrics."""
        return int(await self._redis.zcard(keys.rooms_active()))

    async def active_rooms(self, limit: int = 100) -> list[str]:
        """Up to ``limit`` active room ids, the longest unchecked first."""
        check_positive(limit, "limit")
        ids = await self._redis.zrange(keys.rooms_active(), 0, limit - 1)
        return [as_text(room_id) for room_id in ids]

    async def sweep_active_rooms(self, older_than_ms: int, batch: int = 500) -> int:
        """Clean the ``rooms:active`` index: the rooms themselves expire by their TTL; here
        every entry scored before ``older_than_ms`` (unix ms) is looked at, in batches of
        ``batch``, until none is left. An entry whose room is gone is removed; one whose room
        lives is scored to come up again when its TTL would run out; a room without a TTL (made
        before rooms had one) gets ``StoreConfig.room_ttl_seconds``. Returns how many were
        removed."""
        check_positive(batch, "batch")
        index = keys.rooms_active()
        ttl_ms = self._room_ttl_ms(None)
        removed = 0
        while True:
            ids = await self._redis.zrangebyscore(index, "-inf", older_than_ms, 0, batch)
            if not ids:
                return removed
            room_ids = [as_text(room_id) for room_id in ids]
            # Each room is a slot group of its own, the index another: the rooms' TTLs are
            # read and mended first, the index after (each step idempotent; ``server.keys``).
            replies = await asyncio.gather(
                *(self._fast("PTTL", keys.room(room_id)) for room_id in room_ids)
            )
            left = [int(reply) for reply in replies]
            gone = [room_id for room_id, ms in zip(room_ids, left, strict=True) if ms == -2]
            await asyncio.gather(
                *(
                    self._together(
                        *(("PEXPIRE", key, ttl_ms) for key in keys.room_keys(room_id)[:3]),
                        ("PEXPIRE", keys.room_requests(room_id), self._request_ttl_ms()),
                    )
                    for room_id, ms in zip(room_ids, left, strict=True)
                    if ms == -1
                )
            )
            index_commands: list[Command] = [("ZREM", index, *gone)] if gone else []
            for room_id, ms in zip(room_ids, left, strict=True):
                if ms != -2:
                    due = older_than_ms + (ttl_ms if ms == -1 else max(1, ms))
                    # XX: a room finished meanwhile stays out of the index
                    index_commands.append(("ZADD", index, "XX", due, room_id))
            if index_commands:
                await self._together(*index_commands)
            removed += len(gone)

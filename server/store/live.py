"""The rooms one may watch now (``rooms:live``) and how many watch each room, counted by
every server process for its own spectators (``{room:ID}:watchers``).

A process writes its own count of a room as ``COUNT:UNTIL`` (unix ms) in the room's hash
and renews it while it has spectators there; a count past its ``UNTIL`` is not counted, so
the spectators of a process that died vanish from the total within one renewal period. The
same renewal scores the room in ``rooms:watched`` with that ``UNTIL``: a process reads the
hashes of only the rooms it follows that are scored there (one ``ZMSCORE`` for all of them),
not one hash per followed room. Each room's hash is in the room's slot group,
``rooms:live`` and ``rooms:watched`` in groups of their own: every command touches one key,
and no step spans groups.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping

from server import keys
from server.store._base import StoreBase, as_text, check_positive


class LiveOps(StoreBase):
    """``rooms:live`` and the rooms' watcher counts."""

    async def mark_live(self, room_ids: Iterable[str], seen_ms: int | None = None) -> None:
        """List public rooms in play as seen now (or at ``seen_ms``)."""
        ids = [keys.check_id(room_id, "room id") for room_id in room_ids]
        if not ids:
            return
        score = int(time.time() * 1000) if seen_ms is None else seen_ms
        members: list[str | int] = []
        for room_id in ids:
            members += (score, room_id)
        await self._fast("ZADD", keys.rooms_live(), *members)

    async def drop_live(self, room_ids: Iterable[str]) -> None:
        """Take rooms off the list (their match ended, or they are gone)."""
        ids = [keys.check_id(room_id, "room id") for room_id in room_ids]
        if ids:
            await self._fast("ZREM", keys.rooms_live(), *ids)

    async def live_rooms(self, limit: int, seen_since_ms: int) -> list[str]:
        """The ids of the rooms seen in play since ``seen_since_ms``, most recent first, at
        most ``limit``; older entries (their processes stopped seeing them) are dropped."""
        check_positive(limit, "limit")
        index = keys.rooms_live()
        await self._fast("ZREMRANGEBYSCORE", index, "-inf", f"({seen_since_ms}")
        ids = await self._fast("ZREVRANGE", index, 0, int(limit) - 1)
        return [as_text(room_id) for room_id in ids]

    async def set_watchers(self, process_id: str, counts: Mapping[str, int], ttl_ms: int) -> None:
        """This process's spectators of each room, valid for ``ttl_ms`` unless written again;
        a count of 0 takes the process's entry out."""
        keys.check_id(process_id, "process id")
        check_positive(ttl_ms, "ttl_ms")
        now = int(time.time() * 1000)
        until = now + ttl_ms
        await asyncio.gather(
            *(
                self._set_watchers(keys.room_watchers(room_id), process_id, count, until, ttl_ms)
                for room_id, count in counts.items()
            )
        )
        watched: list[str | int] = []
        for room_id, count in counts.items():
            if count > 0:
                watched += (until, room_id)
        index = keys.rooms_watched()
        if watched:
            await self._fast("ZADD", index, "GT", *watched)
        await self._fast("ZREMRANGEBYSCORE", index, "-inf", f"({now}")

    async def _set_watchers(
        self, key: str, process_id: str, count: int, until: int, ttl_ms: int
    ) -> None:
        if count <= 0:
            await self._fast("HDEL", key, process_id)
            return
        await self._together(
            ("HSET", key, process_id, f"{int(count)}:{until}"), ("PEXPIRE", key, ttl_ms)
        )

    async def watcher_counts(self, room_ids: Iterable[str]) -> dict[str, int]:
        """How many spectators follow each room, over every process whose count is current."""
        ids = list(dict.fromkeys(room_ids))
        if not ids:
            return {}
        now = int(time.time() * 1000)
        lapses = await self._fast("ZMSCORE", keys.rooms_watched(), *ids)
        watched = [
            room_id
            for room_id, lapse in zip(ids, lapses, strict=True)
            if lapse is not None and float(lapse) > now
        ]
        replies = await asyncio.gather(
            *(self._fast("HGETALL", keys.room_watchers(room_id)) for room_id in watched)
        )
        totals = dict.fromkeys(ids, 0)
        totals.update(
            (room_id, _total(reply, now)) for room_id, reply in zip(watched, replies, strict=True)
        )
        return totals


def _total(reply: object, now_ms: int) -> int:
    """The sum of the counts in an HGETALL reply (a flat list, or a map) still valid at
    ``now_ms``."""
    if isinstance(reply, dict):
        values: Iterable[object] = reply.values()
    elif isinstance(reply, list):
        values = reply[1::2]
    else:
        return 0
    total = 0
    for value in values:
        count, _, until = as_text(value).partition(":")
        if until.isdigit() and int(until) > now_ms and count.isdigit():
            total += int(count)
    return total

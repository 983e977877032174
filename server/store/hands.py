"""Finished hands: one record per hand, kept for replays, and an index of recent ones; and the
bookkeeping a change owes (``records:pending``).

The replay record and the statistics of a hand live outside the room's hash slot, so they
cannot be written by the room's atomic commit. Instead the server notes what a change will owe
*before* it commits the change (``owe_records``), and clears the note once the records are
written (``records_done``). A note that stays (the process was killed in between, Redis failed
the second write) is found by any server's sweep (``owed_records``), which writes what is
missing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass

from server import keys
from server.store._base import StoreBase, as_bytes, as_text, check_blob, check_positive, check_text
from server.store.slots import Command


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A finished hand: its room, when it finished (unix seconds), the caller's blob, and
    whether its room was public (a record written before privacy counts as not public)."""

    hand_id: str
    room_id: str
    finished_at: float
    blob: bytes
    public: bool = False


def _owed_member(room_id: str, what: str) -> str:
    keys.check_id(room_id, "room id")
    keys.check_id(what, "what")
    return f"{room_id}:{what}"


class HandOps(StoreBase):
    """``hand:ID`` hashes (with a retention TTL) and the ``hands:recent`` sorted set."""

    async def save_hand(
        self,
        hand_id: str,
        room_id: str,
        blob: bytes,
        finished_at: float,
        *,
        public: bool = False,
        players: Iterable[str] = (),
    ) -> None:
        """Keep a finished hand for ``StoreConfig.hand_ttl_seconds``; list it in
        ``hands:recent`` if its room is ``public``, and in each of ``players``' own list
        (``hands:player:ID``) whatever the room. Both lists are capped at
        ``StoreConfig.recent_hands_max`` and drop entries older than the retention. Saving the
        same hand id again replaces it."""
        key = keys.hand(hand_id)
        keys.check_id(room_id, "room id")
        check_blob(blob, "blob")
        check_positive(finished_at, "finished_at")
        ttl = self._config.hand_ttl_seconds
        lists = [keys.player_hands(player_id) for player_id in players]
        if public:
            lists.append(keys.hands_recent())
        flag = "1" if public else "0"
        record = ("HSET", key, "room", room_id, "finished", repr(finished_at), "blob", blob)
        # Slot groups of their own (hand:ID, each list): the record first, then the lists, so
        # a listed hand always exists (on a cluster they are on different nodes).
        await self._together((*record, "public", flag), ("EXPIRE", key, ttl))
        await asyncio.gather(*(self._list_hand(index, hand_id, finished_at) for index in lists))

    async def _list_hand(self, index: str, hand_id: str, finished_at: float) -> None:
        """Add a hand to one index of hands (``hands:recent``, ``hands:player:ID``), trimmed
        to the hands' retention and ``StoreConfig.recent_hands_max``."""
        ttl = self._config.hand_ttl_seconds
        commands: list[Command] = [
            ("ZADD", index, repr(finished_at), hand_id),
            ("ZREMRANGEBYSCORE", index, "-inf", f"({time.time() - ttl}"),
            ("ZREMRANGEBYRANK", index, 0, -self._config.recent_hands_max - 1),
        ]
        if index != keys.hands_recent():
            commands.append(("EXPIRE", index, ttl))
        await self._together(*commands)

    async def save_match(self, player_id: str, entry: str, finished_at: float) -> None:
        """List a finished match in the person's ``matches:player:ID`` (``entry``: its JSON,
        the same for the same match, so writing it again only moves its time), trimmed like
        their hands."""
        check_text(entry, "entry", 4096)
        check_positive(finished_at, "finished_at")
        await self._list_hand(keys.player_matches(player_id), entry, finished_at)

    async def player_matches(self, player_id: str, limit: int = 20) -> list[tuple[str, float]]:
        """One person's finished matches: (JSON entry, finish time), newest first."""
        check_positive(limit, "limit")
        entries = await self._redis.zrevrange(
            keys.player_matches(player_id), 0, int(limit) - 1, withscores=True
        )
        return [(as_text(pair[0]), float(pair[1])) for pair in entries]

    async def hand_exists(self, hand_id: str) -> bool:
        return bool(await self._fast("EXISTS", keys.hand(hand_id)))

    async def owe_records(self, room_id: str, what: str) -> None:
        """Note that a change about to be committed owes the records of ``what`` (a hand
        number, or ``match``) of ``room_id``."""
        member = _owed_member(room_id, what)
        await self._fast("ZADD", keys.records_pending(), int(time.time() * 1000), member)

    async def records_done(self, room_id: str, what: str) -> None:
        await self._fast("ZREM", keys.records_pending(), _owed_member(room_id, what))

    async def owed_records(self, older_than_ms: int, count: int = 100) -> list[tuple[str, str]]:
        """Notes older than ``older_than_ms`` (unix ms): (room id, what), oldest first."""
        check_positive(count, "count")
        members = await self._redis.zrangebyscore(
            keys.records_pending(), "-inf", older_than_ms, start=0, num=int(count)
        )
        owed: list[tuple[str, str]] = []
        for member in members:
            room_id, _, what = as_text(member).rpartition(":")
            owed.append((room_id, what))
        return owed

    async def get_hand(self, hand_id: str) -> HandRecord | None:
        """A finished hand, or None (unknown, or past its retention)."""
        raw = await self._redis.hgetall(keys.hand(hand_id))
        if not raw:
            return None
        return HandRecord(
            hand_id=hand_id,
            room_id=as_text(raw[b"room"]),
            finished_at=float(raw[b"finished"]),
            blob=as_bytes(raw[b"blob"]),
            public=raw.get(b"public") == b"1",
        )

    async def recent_hands(self, limit: int = 20) -> list[str]:
        """Ids of the most recently finished hands, newest first."""
        check_positive(limit, "limit")
        ids = await self._redis.zrevrange(keys.hands_recent(), 0, int(limit) - 1)
        return [as_text(hand_id) for hand_id in ids]

    async def player_hands(self, player_id: str, limit: int = 20) -> list[str]:
        """Ids of one person's most recently finished hands (any room), newest first."""
        check_positive(limit, "limit")
        ids = await self._redis.zrevrange(keys.player_hands(player_id), 0, int(limit) - 1)
        return [as_text(hand_id) for hand_id in ids]

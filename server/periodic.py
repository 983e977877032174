"""The periodic work of a process: turn clocks, stand-ins, AI seat leases, owed records and the
retention sweep (``Upkeep.run``, one task per process)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from server.ai_seats import AiSeatKeeper
from server.blobs import decode_room, encode_change
from server.commits import Commits
from server.due import DueRooms
from server.hub import Hub
from server.live import WATCHERS_EVERY, WATCHERS_TTL_MS
from server.matchmaking import RatedMatcher
from server.presence import PresenceKeeper
from server.requests import RequestFailed
from server.room import Room, expire_turn, open_away_choice, records_due, start_stand_in
from server.settings import Settings
from server.store import CommitStatus, Store

log = logging.getLogger(__name__)

#: Records still owed this long after their change was noted are written by the sweep.
OWED_GRACE_SECONDS = 5.0
#: Records owed by changes whose process died before writing them are looked for this often.
OWED_SWEEP_EVERY = 2.0
#: The retention sweep runs this often, or four times per ``GIN_ROOM_IDLE`` when shorter.
SWEEP_EVERY = 60.0
#: Where the rooms followed here stand in the AI seat queue is read this often.
AI_QUEUE_EVERY = 1.0


class Upkeep:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        commits: Commits,
        settings: Settings,
        ai_seats: AiSeatKeeper,
        matcher: RatedMatcher | None = None,
        presence: PresenceKeeper | None = None,
    ) -> None:
        self._matcher = matcher
        self._presence = presence
        self._store = store
        self._hub = hub
        self._commits = commits
        self._settings = settings
        self._ai_seats = ai_seats
        #: The followed rooms by their next due time, told of each change by the hub.
        self.due = DueRooms(settings.disconnect_grace_seconds)
        hub.room_changed = self.due.changed

    async def run(self, interval: float) -> None:
        """Every ``interval`` (or a third of an AI lease, when shorter): the rooms whose time
        has come (turn clocks, stand-ins, away choices); the other work at its own pace."""
        loop = asyncio.get_running_loop()
        next_sweep = loop.time()
        next_lease = loop.time()
        next_owed = loop.time()
        next_watchers = loop.time()
        next_ai_queue = loop.time()
        next_presence = loop.time()
        lease_every = self._ai_seats.lease_seconds / 3
        room_idle = self._settings.room_idle_seconds
        every = min(interval, lease_every)
        while True:
            await asyncio.sleep(every)
            try:
                await self.handle_due(retry_after=every)
                if self._matcher is not None:
                    await self._matcher.run_once()
                if loop.time() >= next_watchers:
                    next_watchers = loop.time() + WATCHERS_EVERY
                    await self.share_watchers()
                if self._presence is not None and loop.time() >= next_presence:
                    next_presence = loop.time() + self._presence.renew_every
                    await self._presence.renew()
                if loop.time() >= next_owed:
                    next_owed = loop.time() + OWED_SWEEP_EVERY
                    await self.write_owed_records()
                if loop.time() >= next_lease:
                    next_lease = loop.time() + lease_every
                    await self._ai_seats.renew()
                    await self._ai_seats.reclaim()
                    await self._ai_seats.share_in_use(ttl_seconds=3 * lease_every)
                if loop.time() >= next_ai_queue:
                    next_ai_queue = loop.time() + AI_QUEUE_EVERY
                    await self.share_ai_queue()
                if loop.time() >= next_sweep:
                    next_sweep = loop.time() + min(SWEEP_EVERY, room_idle / 4)
                    await self.sweep_idle_rooms()
            except Exception:
                log.exception("periodic work failed")

    async def handle_due(self, retry_after: float = 1.0) -> int:
        """Look at every followed room whose time has come (``server.due``): play the default
        move of a turn clock that ran out, start a stand-in, open the other person's choice.
        A room whose work failed is looked at again ``retry_after`` seconds later. Returns
        how many rooms were looked at."""
        now = time.time()
        due = self.due.pop_due(now)
        for room_id in due:
            held = self._hub.room(room_id)
            if held is None:
                continue
            try:
                await self._expire_turn(room_id, now)
                await self._start_stand_ins(room_id, now)
                await self._open_away_choices(room_id, now)
            except Exception:
                log.exception("periodic work on room %s failed", room_id)
                if self._hub.room(room_id) is held:
                    self.due.retry(room_id, now + retry_after)
                continue
            if self._hub.room(room_id) is held:  # else its change scheduled it already
                self.due.looked_at(room_id, held[1], now)
        return len(due)

    async def share_ai_queue(self) -> None:
        """Read where the rooms followed here that wait for an AI player stand in the queue,
        into the views (``Hub.set_ai_queue``): their people see their place move."""
        self._hub.set_ai_queue(await self._ai_seats.queue_places())

    async def share_watchers(self) -> None:
        """Renew this process's spectator counts and its public rooms in play in the live list
        (a finished room leaves it), then read every followed room's count over all processes
        into the views (``Hub.set_watchers``)."""
        hub, store = self._hub, self._store
        await store.set_watchers(hub.process_id, hub.spectators(), WATCHERS_TTL_MS)
        followed = hub.followed_rooms()
        await store.mark_live(
            room_id for room_id, room in followed if room.public and room.status == "playing"
        )
        await store.drop_live(room_id for room_id, room in followed if room.status == "finished")
        hub.set_watchers(await store.watcher_counts(hub.followed_room_ids()))

    async def _open_away_choices(self, room_id: str, now: float) -> None:
        """Tell the other person of a room between people whose player has been away past
        the grace that they may now claim the win or call a stand-in (an update, so a client
        needs no clock of its own to offer it)."""
        grace = self._settings.disconnect_grace_seconds
        held = self._hub.room(room_id)
        if held is None:
            return
        for index, seat in enumerate(held[1].seats):
            away = seat.away_since
            if seat.away_choice or away is None or now < away + grace:
                continue

            def choice(current: Room, at: float, index: int = index) -> tuple[Room, list[Any]]:
                return open_away_choice(current, index, at, grace)

            with contextlib.suppress(RequestFailed):
                await self._commits.change(room_id, choice, actor=None)

    async def _expire_turn(self, room_id: str, now: float) -> bool:
        """Play the default move of the room if its turn clock ran out."""
        held = self._hub.room(room_id)
        if held is None or held[1].turn_deadline is None or held[1].turn_deadline > now:
            return False
        loaded = await self._store.load_room(room_id)
        if loaded is None:
            return False
        version, blob = loaded
        current = decode_room(blob)
        expired = expire_turn(current, now)
        if expired is None:
            return False
        changed, events = expired
        seat = current.game.turn if current.game is not None else None
        change = encode_change(version + 1, [{"type": "timeout", "seat": seat}, *events], seat)
        result = await self._commits.commit(current, version, changed, change)
        return result.status is CommitStatus.OK

    async def _start_stand_ins(self, room_id: str, now: float) -> int:
        """Ask for an AI to stand in for every person of the room away longer than the grace."""
        started = 0
        grace = self._settings.disconnect_grace_seconds
        held = self._hub.room(room_id)
        if held is None:
            return 0
        room = held[1]
        if room.stand_in_level is None or room.status != "playing":
            return 0
        for index, seat in enumerate(room.seats):
            away = seat.away_since
            if seat.stand_in is not None or away is None or now < away + grace:
                continue

            def stand_in(current: Room, at: float, index: int = index) -> tuple[Room, list[Any]]:
                return start_stand_in(current, index, at, grace)

            try:
                await self._commits.change(room_id, stand_in, actor=None)
            except RequestFailed:
                continue
            loaded = await self._store.load_room(room_id)
            if loaded is not None and decode_room(loaded[1]).seats[index].stand_in:
                await self._ai_seats.request(room_id, index, room.stand_in_level)
                started += 1
        return started

    async def write_owed_records(self, batch: int = 100) -> int:
        """Write the records still owed ``OWED_GRACE_SECONDS`` after their change was noted
        (its process died in between, or Redis failed the write); returns how many."""
        older_than = int((time.time() - OWED_GRACE_SECONDS) * 1000)
        written = 0
        for room_id, what in await self._store.owed_records(older_than, batch):
            loaded = await self._store.load_room(room_id)
            room = decode_room(loaded[1]) if loaded is not None else None
            if room is not None and records_due(room, what):
                await self._commits.write_records(room, what)
                written += 1
            else:  # the change never happened, or the room is gone
                await self._store.records_done(room_id, what)
        return written

    async def sweep_idle_rooms(self, batch: int = 500) -> int:
        """Rooms expire by themselves after their last change (``Limits.room_ttl``): clean
        their ids out of ``rooms:active``; returns how many."""
        shortest = min(self._settings.room_idle_seconds, self._settings.unjoined_room_seconds)
        cutoff = int((time.time() - shortest) * 1000)
        return await self._store.sweep_active_rooms(cutoff, batch)

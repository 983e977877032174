"""Every change a process makes to a room goes through ``Commits``: created, committed with one
compare-and-set, and the records it owes (a hand's replay record, statistics, the match's end)
noted before the commit and written after it.

The change stands whatever happens after its commit: records that cannot be written then are
left in ``records:pending`` for the sweep (``Upkeep.write_owed_records``), which writes them
from the stored room and its change stream.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from protocol import codec
from protocol.messages import ErrorCode
from server.blobs import RoomBlobs, decode_change, decode_room, encode_change
from server.hub import Hub
from server.limits import Limits
from server.rated import with_rated, with_ratings
from server.ratings import Ratings
from server.requests import RequestFailed
from server.room import (
    MATCH_RECORDS,
    Room,
    RoomError,
    hand_id,
    hand_log_complete,
    hand_log_from_changes,
    hand_record,
    owed_records,
)
from server.settings import Settings
from server.store import CommitResult, CommitStatus, Store

log = logging.getLogger(__name__)

#: Retries of a server-initiated change (join, leave, rematch) that lost a compare-and-set race.
CHANGE_RETRIES = 20
#: Changes read at a time when a finished hand's log is read back from the change stream.
HAND_LOG_SCAN = 128

#: A change computed from the room as stored at a time: the new room and its events.
Change = Callable[[Room, float], tuple[Room, list[dict[str, Any]]]]


class Commits:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        blobs: RoomBlobs,
        settings: Settings,
        limits: Limits,
        ratings: Ratings | None = None,
    ) -> None:
        self._limits = limits
        self._ratings = ratings or Ratings(store)
        self._store = store
        self._hub = hub
        self._blobs = blobs
        self._settings = settings

    async def create(self, room: Room, events: list[dict[str, Any]]) -> None:
        """Store a new room, its creation as change 0."""
        created = await self._store.create_room(
            room.id,
            self._blobs.encode_room(room),
            encode_change(0, events, None),
            ttl_seconds=self._limits.room_ttl(room),
        )
        if not created:
            raise RequestFailed(ErrorCode.INTERNAL, "room id collision; try again")

    async def change(self, room_id: str, change: Change, actor: int | None) -> int:
        """Apply a server-side change to the room as stored, retrying when another change wins
        the race; returns the room's version after it."""
        for _ in range(CHANGE_RETRIES):
            loaded = await self._store.load_room(room_id)
            if loaded is None:
                raise RequestFailed(ErrorCode.NOT_FOUND, "no such room")
            version, blob = loaded
            room = decode_room(blob)
            try:
                changed, events = change(room, time.time())
            except RoomError as refusal:
                raise RequestFailed(ErrorCode(refusal.code), str(refusal)) from None
            if changed == room and not events:
                return version
            entry = encode_change(version + 1, events, actor)
            result = await self.commit(room, version, changed, entry)
            if result.status is CommitStatus.OK:
                return result.version
        raise RequestFailed(ErrorCode.INTERNAL, "the room is too busy; try again")

    async def commit(
        self,
        before: Room,
        version: int,
        after: Room,
        change: bytes,
        *,
        request_key: str | None = None,
        while_waiting: Callable[[], None] | None = None,
    ) -> CommitResult:
        """Store the change from ``before`` (at ``version``) to ``after`` with one
        compare-and-set. The records it will owe are noted first, and written once it stands.
        The feed's copy of it is held meanwhile and then delivered from ``after``, not decoded
        (``Hub.committing``). ``while_waiting`` runs while Redis runs the commit."""
        owed = owed_records(before, after)  # most moves owe nothing: no awaits then
        if owed:
            await self._owe(before, owed)
        seq = version + 1
        self._hub.committing(before.id, seq)
        result = None
        try:
            result = await self._store.commit(
                before.id,
                version,
                self._blobs.encode_room(after),
                change,
                request_key=request_key,
                finished=after.status == "finished",
                while_waiting=while_waiting,
                ttl_seconds=self._limits.room_ttl(after),
            )
        finally:
            ok = result is not None and result.status is CommitStatus.OK
            self._hub.committed(before.id, seq, after if ok else None)
        if ok and owed:
            await self._write_owed(before, after, owed)
        return result

    # --- the records a change owes ------------------------------------------------------------

    async def _owe(self, before: Room, owed: list[str]) -> None:
        """Note the records a change will owe (``owed_records``), before committing it
        (``records:pending``)."""
        for what in owed:
            await self._store.owe_records(before.id, what)

    async def _write_owed(self, before: Room, after: Room, owed: list[str]) -> None:
        """Records and statistics of what the committed change finished (``owed``: a hand, a
        match; a change that finishes the room owes ``MATCH_RECORDS``, so one that owes
        nothing has nothing for the limits either). The change stands whatever happens here:
        what fails is left to the sweep."""
        await self._limits.room_changed(before, after)
        for what in owed:
            try:
                await self.write_records(after, what)
            except Exception:
                log.exception("records left to the sweep", extra={"room": after.id})

    async def write_records(self, room: Room, what: str) -> None:
        """Write the records ``what`` (a hand's number, or ``MATCH_RECORDS``) of ``room`` and
        clear their note."""
        if what == MATCH_RECORDS:
            await self._store.expire_room(room.id, self._settings.room_idle_seconds)
            await self._record_match(room)
        else:
            await self._record_hand(room, int(what))
        await self._store.records_done(room.id, what)

    async def _record_hand(self, room: Room, number: int) -> None:
        """The replay record of hand ``number`` and the players' statistics of it. Written
        once: a record that exists already (a sweep after a partial write) is kept, and its
        statistics are not counted again."""
        store = self._store
        game = room.game
        record_id = hand_id(room.id, number)
        if game is None or len(game.results) < number or await store.hand_exists(record_id):
            return
        current = number == game.hand_number and hand_log_complete(room)
        hand_log = room.hand_log if current else await self._stored_hand_log(room.id, number)
        record = hand_record(room, number, hand_log) if hand_log else None
        if record is None:
            return
        people = [seat.player for seat in room.seats if seat.player and seat.ai is None]
        await store.save_hand(
            record_id, room.id, codec.pack(record), time.time(), public=room.public, players=people
        )
        result = game.results[number - 1]
        last = record["result"]
        knocker = last.get("knocker")
        for index, seat in enumerate(room.seats):
            if seat.player is None or seat.ai is not None:
                continue
            won = result.winner == index
            counts = {
                "hands": 1,
                "points": result.points if won else 0,
                "gins": 1 if result.kind == "gin" and won else 0,
                "undercuts": 1 if result.kind == "undercut" and won and knocker != index else 0,
                "knocks": 1 if knocker == index and result.kind != "gin" else 0,
            }
            await store.add_stats(seat.player, **with_rated(counts, room.rated))

    async def _stored_hand_log(self, room_id: str, hand_number: int) -> tuple[Any, ...] | None:
        """The log of hand ``hand_number`` from the room's change stream (newest first, until
        its deal): the stored room does not hold it."""
        changes: list[list[dict[str, Any]]] = []
        before: int | None = None
        while True:
            chunk = await self._store.changes_before(room_id, before, HAND_LOG_SCAN)
            for seq, change in chunk:
                events = decode_change(change)
                changes.append(events)
                if any(e.get("type") == "deal" and e.get("hand") == hand_number for e in events):
                    return hand_log_from_changes(reversed(changes), hand_number)
                before = seq
            if len(chunk) < HAND_LOG_SCAN:
                log.warning("hand %s of room %s is gone from its stream", hand_number, room_id)
                return None

    async def _record_match(self, room: Room) -> None:
        for index, seat in enumerate(room.seats):
            if seat.ai_level is not None:
                # The match is over: its AI seats leave the AI seat queue now (a seat still
                # waiting there would hold its place until its lease ran out).
                await self._store.drop_ai_lease(room.id, index)
        winner = room.winner
        for index, seat in enumerate(room.seats):
            if seat.player is None or seat.ai is not None:
                continue
            counts = {"matches": 1, "wins": 1 if winner == index else 0}
            await self._store.add_stats(seat.player, **with_rated(counts, room.rated))
        game = room.game
        hands = len(game.results) if game is not None else 0
        for index, seat in enumerate(room.seats):
            if seat.player is None or seat.ai is not None:
                continue
            other = room.seats[1 - index]
            # The same JSON for the same match (no clock in it): a sweep that writes it again
            # keeps one entry (``Store.save_match``).
            entry = {
                "room": room.id,
                "seat": index,
                "winner": winner,
                "forfeit": room.forfeit,
                "scores": list(game.scores) if game is not None else [0, 0],
                "hands": hands,
                "public": room.public,
                "opponent": other.player if other.ai is None else None,
                "opponent_ai": other.ai,
            }
            if room.rated:
                entry["rated"] = True
            await self._store.save_match(
                seat.player, json.dumps(entry, sort_keys=True, separators=(",", ":")), time.time()
            )
        await self._rate_match(room)

    async def _rate_match(self, room: Room) -> None:
        """A rated match's end: both ratings change once (``server.ratings``), the room keeps
        them before and after (its players see the change), and whoever walked out is noted."""
        if not room.rated:
            return
        await self._ratings.note_abandonment(room)
        changes = await self._ratings.rate(room)
        if changes is not None:
            try:
                await self.change(room.id, lambda stored, now: with_ratings(stored, changes), None)
            except RequestFailed as gone:  # the room expired before its sweep: ratings stand
                if gone.code is not ErrorCode.NOT_FOUND:
                    raise

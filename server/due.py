"""When the periodic work next has something to do in each followed room: a turn clock running
out, or an away player's grace ending (a stand-in, the other person's choice). ``Upkeep``
looks only at the rooms whose time has come, so its cost grows with what is due, not with the
rooms a process follows.

Every time is written in the room itself (``turn_deadline``, each seat's ``away_since`` plus
the grace), so a room is scheduled again whenever the process's copy of it changes
(``changed``), and after the periodic work looked at it, at its first time still to come
(``looked_at``).
"""

from __future__ import annotations

import heapq

from server.room import Room

__all__ = ["DueRooms", "due_times"]

#: The heap is rebuilt when it holds this many times more entries than rooms scheduled (a
#: room moved to a new time leaves its old entry behind until that time comes).
_COMPACT_RATIO = 4


def due_times(room: Room, grace: float) -> list[float]:
    """The times at which the periodic work may have something to do in ``room``."""
    times = [] if room.turn_deadline is None else [room.turn_deadline]
    times.extend(seat.away_since + grace for seat in room.seats if seat.away_since is not None)
    return times


class DueRooms:
    """The followed rooms by their next due time; ``grace``: the disconnect grace."""

    def __init__(self, grace: float) -> None:
        self._grace = grace
        self._heap: list[tuple[float, str]] = []
        self._at: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self._at)

    def changed(self, room_id: str, room: Room | None) -> None:
        """The process's copy of a followed room changed (None: it is no longer followed): it
        is due at its earliest time, a past one included."""
        times = due_times(room, self._grace) if room is not None else []
        self._schedule(room_id, min(times, default=None))

    def looked_at(self, room_id: str, room: Room, now: float) -> None:
        """The periodic work looked at ``room`` at ``now``: it is due next at its first time
        after ``now``, if any."""
        later = [at for at in due_times(room, self._grace) if at > now]
        self._schedule(room_id, min(later, default=None))

    def retry(self, room_id: str, at: float) -> None:
        """Look at the room again at ``at`` (the work on it failed)."""
        self._schedule(room_id, at)

    def pop_due(self, now: float) -> list[str]:
        """The rooms due at ``now``, earliest first; each is unscheduled until ``changed``,
        ``looked_at`` or ``retry`` schedules it again."""
        due: list[str] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            at, room_id = heapq.heappop(heap)
            if self._at.get(room_id) == at:
                del self._at[room_id]
                due.append(room_id)
        return due

    def _schedule(self, room_id: str, at: float | None) -> None:
        if at is None:
            self._at.pop(room_id, None)
            return
        if self._at.get(room_id) == at:
            return
        self._at[room_id] = at
        heapq.heappush(self._heap, (at, room_id))
        if len(self._heap) > _COMPACT_RATIO * len(self._at) + 64:
            self._heap = [(at, room_id) for room_id, at in self._at.items()]
            heapq.heapify(self._heap)

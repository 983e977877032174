"""Watcher counts: how many of this process's connections follow each room as spectators
(what it writes for every process to read, ``Upkeep.share_watchers``), and the totals of every
process as last read (what the views say, ``FrameParts.watchers``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from server.connection import Connection

__all__ = ["WatcherCounts", "spectators_of"]


def spectators_of(room_id: str, followers: Iterable[Connection]) -> int:
    """The local connections of people (not AI workers) that follow the room as spectators."""
    count = 0
    for conn in followers:
        subscription = conn.rooms.get(room_id)
        if subscription is not None and subscription.seat is None and not conn.is_worker:
            count += 1
    return count


class WatcherCounts:
    """``totals``: the rooms' counts on every process (shared with the ``FrameParts`` that
    writes them into the views); the rooms this process counted spectators of last time."""

    __slots__ = ("_watched", "totals")

    def __init__(self, totals: dict[str, int]) -> None:
        self.totals = totals
        #: Rooms whose spectator count this process wrote last time, non-zero.
        self._watched: set[str] = set()

    def local(
        self, followers: Mapping[str, Iterable[Connection]], room_ids: list[str] | None
    ) -> dict[str, int]:
        """How many local spectators follow each room, for the rooms that have some, and 0
        for those that had some when last asked and have none now (``room_ids``: of those
        rooms only; else of every room in ``followers``)."""
        wanted = list(followers) if room_ids is None else room_ids
        counts: dict[str, int] = {}
        for room_id in wanted:
            count = spectators_of(room_id, followers.get(room_id, ()))
            if count or room_id in self._watched:
                counts[room_id] = count
        if room_ids is None:
            for room_id in self._watched.difference(wanted):
                counts[room_id] = 0
        for room_id, count in counts.items():
            if count:
                self._watched.add(room_id)
            else:
                self._watched.discard(room_id)
        return counts

    def read(self, totals: Mapping[str, int], followed: Iterable[str]) -> list[str]:
        """Take the totals read from every process, for the rooms followed here: the rooms
        whose total changed."""
        known = self.totals
        followed = set(followed)
        changed = []
        for room_id, count in totals.items():
            if room_id not in followed or known.get(room_id, 0) == count:
                continue
            if count:
                known[room_id] = count
            else:
                known.pop(room_id, None)
            changed.append(room_id)
        return changed

    def forget(self, room_id: str) -> None:
        self.totals.pop(room_id, None)

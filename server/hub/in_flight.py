"""The commits of one process in flight, and the feed's copies of the versions they would
make, held until each commit's outcome is known.

The published copy of a commit often reaches this process before the commit's own reply:
it is held rather than decoded and delivered, and once the outcome is known it goes, from the
committed room, to whoever the process's own delivery did not serve (``Hub.committed``)."""

from __future__ import annotations

from server.store import RoomUpdate

__all__ = ["CommitsInFlight"]


class CommitsInFlight:
    """By (room, the version a commit would make): how many commits of this process are in
    flight, and the feed's copy of that version if it came meanwhile."""

    __slots__ = ("_counts", "_held")

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}
        self._held: dict[tuple[str, int], RoomUpdate] = {}

    def start(self, room_id: str, seq: int) -> None:
        key = (room_id, seq)
        self._counts[key] = self._counts.get(key, 0) + 1

    def finish(self, room_id: str, seq: int) -> RoomUpdate | None:
        """One commit of that version is over: the copy held for it once the last one is."""
        key = (room_id, seq)
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
            return None
        self._counts.pop(key, None)
        return self._held.pop(key, None)

    def hold(self, update: RoomUpdate) -> bool:
        """Keep the feed's copy if a commit of its version is in flight (True), else False."""
        key = (update.room_id, update.seq)
        if key not in self._counts:
            return False
        self._held[key] = update
        return True

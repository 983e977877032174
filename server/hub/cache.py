"""The decoded-room cache of one process: the latest copy of each followed room it holds,
with its version, so that a move on a room this process committed or delivered needs no
load from Redis and no decoding."""

from __future__ import annotations

from collections.abc import Callable

from server.room import Room

__all__ = ["RoomCache"]


def _nobody(room_id: str, room: Room | None) -> None:
    """No one listens to the room changes yet."""


class RoomCache:
    """Per followed room: the last version this process holds decoded. ``changed`` is told
    of every change of a room's copy (None: no longer followed); the periodic work schedules
    itself by it (``server.due``)."""

    __slots__ = ("_rooms", "changed")

    def __init__(self) -> None:
        self._rooms: dict[str, tuple[int, Room]] = {}
        self.changed: Callable[[str, Room | None], None] = _nobody

    def at(self, room_id: str, version: int) -> Room | None:
        """The room at ``version`` if it is the copy held."""
        held = self._rooms.get(room_id)
        return held[1] if held is not None and held[0] == version else None

    def latest(self, room_id: str) -> tuple[int, Room] | None:
        """The copy held, with its version."""
        return self._rooms.get(room_id)

    def keep(self, room_id: str, version: int, room: Room) -> None:
        """Hold ``room`` as the room's copy at ``version``."""
        previous = self._rooms.get(room_id)
        self._rooms[room_id] = (version, room)
        if previous is None or previous[1] is not room:
            self.changed(room_id, room)

    def keep_newer(self, room_id: str, version: int, room: Room) -> None:
        """Hold ``room`` unless a later version is held (the same version is replaced)."""
        held = self._rooms.get(room_id)
        if held is None or held[0] <= version:
            self.keep(room_id, version, room)

    def forget(self, room_id: str) -> None:
        if self._rooms.pop(room_id, None) is not None:
            self.changed(room_id, None)

    def rooms(self) -> list[tuple[str, Room]]:
        return [(room_id, room) for room_id, (_, room) in self._rooms.items()]

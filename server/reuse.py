"""Parts of a room's encoded state reused from one change to the next.

A move makes a new room and game, but most of their fields are the very objects of the state
before (the seats, the rules, a hand's record...): the encoded parts made of them can be
reused. ``PartCache`` keeps, per room, the last part and what it was made of, and compares
by identity, never equality: a hit is exact (the objects are immutable) and costs no hashing.
``Histories`` keeps, per room, the encoded history of its hand, extended move by move.

Each cache belongs to the object that encodes with it (``RoomBlobs``, ``FrameParts``), created
once per process, and holds a bounded number of rooms.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Generic, TypeVar

from server.engine.state import Move
from server.packed import array_header, pack

T = TypeVar("T")

Sources = tuple[object, ...]


class PartCache(Generic[T]):
    """The last part made per room, with its sources; at most ``limit`` rooms (then it starts
    over: rooms come and go)."""

    __slots__ = ("_limit", "_parts")

    def __init__(self, limit: int = 20_000) -> None:
        self._limit = limit
        self._parts: dict[str, tuple[Sources, T]] = {}

    def get(self, room_id: str, sources: Sources, make: Callable[[], T]) -> T:
        """The room's part if it was made of the same objects as ``sources``, else ``make()``
        (kept for next time)."""
        known = self._parts.get(room_id)
        if (
            known is not None
            and len(known[0]) == len(sources)
            and all(map(operator.is_, known[0], sources))
        ):
            return known[1]
        part = make()
        if known is None and len(self._parts) >= self._limit:
            self._parts.clear()
        self._parts[room_id] = (sources, part)
        return part

    def __len__(self) -> int:
        return len(self._parts)

    def __contains__(self, room_id: object) -> bool:
        return room_id in self._parts

    def forget(self, room_id: str) -> None:
        """Drop the room's part and its sources (the process no longer follows the room: they
        would keep its last state alive until the cache starts over)."""
        self._parts.pop(room_id, None)


class Histories:
    """The history of each room's hand, encoded, as its last call left it: a move adds one
    entry to the history, so only the moves added since are encoded. The stored room and the
    views of a move need the same history: one ``Histories`` serves both (``RoomBlobs``,
    ``FrameParts``). At most ``limit`` rooms (then it starts over)."""

    __slots__ = ("_known", "_limit")

    def __init__(self, limit: int = 20_000) -> None:
        self._limit = limit
        #: Per room: the last history encoded, its encoded entries, and the whole array.
        self._known: dict[str, tuple[tuple[Move, ...], bytes, bytes]] = {}

    def pack(self, room_id: str, history: tuple[Move, ...]) -> bytes:
        """``codec.pack([move.to_dict() for move in history])``, encoding only the moves added
        since the room's last call."""
        known = self._known.get(room_id)
        if known is not None and known[0] is history:
            return known[2]
        if known is not None and len(known[0]) <= len(history):
            old, body, _ = known
            if old != history[: len(old)]:  # a new hand, or another room's state
                body = b"".join(pack(move.to_dict()) for move in history)
            elif len(old) < len(history):
                body += b"".join(pack(move.to_dict()) for move in history[len(old) :])
        else:
            body = b"".join(pack(move.to_dict()) for move in history)
        if known is None and len(self._known) >= self._limit:
            self._known.clear()
        packed = array_header(len(history)) + body
        self._known[room_id] = (history, body, packed)
        return packed

    def __len__(self) -> int:
        return len(self._known)

    def __contains__(self, room_id: object) -> bool:
        return room_id in self._known

    def forget(self, room_id: str) -> None:
        """Drop the room's history (the process no longer follows the room)."""
        self._known.pop(room_id, None)

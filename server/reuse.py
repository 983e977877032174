"""Parts of a room's encoded state reused from one change to the next.

A move makes a new room and game, but most of their fields are the very objects of the state
before (the seats, the rules, a hand's record...): the encoded parts made of them can be
reused. ``PartCache`` keeps, per room, the last part and what it was made of, and compares
by identity, never equality: a hit is exact (the objects are immutable) and costs no hashing.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Generic, TypeVar

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

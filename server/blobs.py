"""The stored forms of a room and of a change: the blobs the store keeps and publishes.

``RoomBlobs.encode_room`` writes ``room.to_dict(hand_log=False)`` (the change stream holds the
hand log), keys in another order. A move changes the game's cards and little else: the parts of
the room's last blob made of the same objects are reused (``PartCache``), and the history is
encoded once per move (``Histories``, shared with the views). Decoding needs no state:
``decode_room``, ``encode_change`` and ``decode_change`` are plain functions.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from protocol import codec
from server.engine.plain import names, plain_writer
from server.engine.state import STATE_FORMAT, GameState
from server.engine.views import record_part
from server.packed import map_body, map_header, pack
from server.reuse import Histories, PartCache
from server.room import STORED_FIELDS, Room

__all__ = ["RoomBlobs", "decode_change", "decode_room", "encode_change"]

#: The stored room (``Room.to_dict(hand_log=False)``, every field of ``STORED_FIELDS`` and its
#: format) as its head (every entry but the two below, reused while made of the same objects),
#: the turn's deadline (which a turn clock moves at every move) and the game.
_ROOM_MAP = map_header(1 + len(STORED_FIELDS))
_MOVED = ("turn_deadline", "game")
_HEAD_FIELDS = tuple(name for name in STORED_FIELDS if name not in _MOVED)
_head_sources = attrgetter(*_HEAD_FIELDS)
_TURN_DEADLINE = pack("turn_deadline")
#: The stored game (``GameState.to_dict()``): its format and every field. The hand's record
#: (``record_part``: rules, scores, results) is reused while made of the same objects, the
#: history is extended move by move (``Histories``), the rest is written at every move.
_GAME_MAP = map_header(1 + len(names(GameState)))
_RECORD_FIRST = ("rules",)
_RECORD_LAST = ("scores", "results")
_MOVING = names(GameState, without=(*_RECORD_FIRST, *_RECORD_LAST, "history"))
if names(GameState) != (*_RECORD_FIRST, *_MOVING, *_RECORD_LAST, "history"):
    raise AssertionError("the stored game's entries are in the order of its fields")
#: The packer writes the tuples and the phase as their plain forms: no copies (a test holds the
#: blob equal to ``Room.to_dict(hand_log=False)``).
_write_moving = plain_writer(GameState, only=_MOVING, as_is=True)
_record_sources = attrgetter(*_RECORD_FIRST, *_RECORD_LAST)
_GAME = pack("game")
_HISTORY = pack("history")
_NIL = pack(None)


class RoomBlobs:
    """Encodes stored rooms, reusing per room the parts of its last blob."""

    __slots__ = ("_hand_constants", "_heads", "histories")

    def __init__(self, histories: Histories | None = None, limit: int = 20_000) -> None:
        self.histories = histories if histories is not None else Histories(limit)
        self._heads: PartCache[bytes] = PartCache(limit)
        self._hand_constants: PartCache[tuple[bytes, bytes]] = PartCache(limit)

    def encode_room(self, room: Room) -> bytes:
        """The stored blob of ``room`` (see the module doc)."""
        blob = self._encode_room(room)
        if room.status == "finished":
            self.forget(room.id)
        return blob

    def _encode_room(self, room: Room) -> bytes:
        head = self._heads.get(room.id, _head_sources(room), lambda: _head(room))
        head += _TURN_DEADLINE + pack(room.turn_deadline)
        game = room.game
        if game is None:
            return _ROOM_MAP + head + _GAME + _NIL
        first, last = self._hand_constants.get(
            room.id,
            _record_sources(game),
            lambda: _hand_constants(record_part(game)),
        )
        moving = pack(_write_moving(game))
        history = self.histories.pack(room.id, game.history)
        return b"".join(
            (_ROOM_MAP, head, _GAME, _GAME_MAP, first, map_body(moving), last, _HISTORY, history)
        )

    def forget(self, room_id: str) -> None:
        """Drop the parts kept of ``room_id``: a finished room changes seldom (a leave, a
        rematch), and its parts would keep its last state alive until 20,000 other rooms
        have passed (issue 27's soak: the servers' RSS crept up with every match)."""
        for cache in (self._heads, self._hand_constants, self.histories):
            cache.forget(room_id)

    def holds(self, room_id: str) -> bool:
        """Whether any part of ``room_id`` is kept."""
        return any(
            room_id in cache for cache in (self._heads, self._hand_constants, self.histories)
        )


def _head(room: Room) -> bytes:
    """The stored room's entries but ``_MOVED``, encoded without the map's header."""
    data = room.to_dict(hand_log=False, game=False)
    for name in _MOVED:
        data.pop(name, None)
    return map_body(pack(data))


def _hand_constants(record: dict[str, Any]) -> tuple[bytes, bytes]:
    """The game's entries a hand does not change, as they surround the others: ``format``,
    and ``rules`` first; ``scores`` and ``results`` last."""
    first = {"format": STATE_FORMAT, **{name: record[name] for name in _RECORD_FIRST}}
    last = {name: record[name] for name in _RECORD_LAST}
    return map_body(pack(first)), map_body(pack(last))


def decode_room(blob: bytes) -> Room:
    data = codec.unpack(blob, validate=False)
    if not isinstance(data, dict):
        raise ValueError("a room blob is a map")
    return Room.from_dict(data)


def encode_change(seq: int, events: list[dict[str, Any]], actor: int | None) -> bytes:
    return pack({"seq": seq, "actor": actor, "events": events})


def decode_change(blob: bytes) -> list[dict[str, Any]]:
    if not blob:
        return []
    data = codec.unpack(blob, validate=False)
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise ValueError("a change blob is a map with a list of events")
    events: list[dict[str, Any]] = data["events"]
    return events

"""The stored forms of a room and of a change: the blobs the store keeps and publishes.

``RoomBlobs.encode_room`` writes ``room.to_dict(hand_log=False)`` (the change stream holds the
hand log), keys in another order. A move changes the game's cards and little else: the parts of
the room's last blob made of the same objects are reused (``PartCache``), and the history is
encoded once per move (``Histories``, shared with the views). Decoding needs no state:
``decode_room``, ``encode_change`` and ``decode_change`` are plain functions.
"""

from __future__ import annotations

from typing import Any

from protocol import codec
from server.engine.state import STATE_FORMAT
from server.engine.views import record_part
from server.packed import map_body, map_header, pack
from server.reuse import Histories, PartCache, Sources
from server.room import Room

__all__ = ["RoomBlobs", "decode_change", "decode_room", "encode_change"]

#: 19 + 1 entries and the game; the game: 2 + 9 + 2 entries and the history.
_ROOM_MAP = map_header(21)
_TURN_DEADLINE = pack("turn_deadline")
_GAME_MAP = map_header(14)
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
        head = self._heads.get(room.id, _head_sources(room), lambda: _head(room))
        head += _TURN_DEADLINE + pack(room.turn_deadline)
        game = room.game
        if game is None:
            return _ROOM_MAP + head + _GAME + _NIL
        first, last = self._hand_constants.get(
            room.id,
            (game.results, game.scores, game.rules),
            lambda: _hand_constants(record_part(game)),
        )
        moving = pack(
            {
                "hand_number": game.hand_number,
                "dealer": game.dealer,
                "phase": game.phase.value,
                "turn": game.turn,
                "hands": game.hands,
                "stock": game.stock,
                "discard_pile": game.discard_pile,
                "taken_card": game.taken_card,
                "discard_draws": game.discard_draws,
            }
        )
        history = self.histories.pack(room.id, game.history)
        return b"".join(
            (_ROOM_MAP, head, _GAME, _GAME_MAP, first, map_body(moving), last, _HISTORY, history)
        )


def _head_sources(room: Room) -> Sources:
    return (
        room.mode,
        room.seats,
        room.status,
        room.rules,
        room.turn_seconds,
        room.seed,
        room.created_at,
        room.invite,
        room.hand_ids,
        room.forfeit,
        room.rematch,
        room.next_room,
        room.stand_in_level,
        room.public,
        room.watch_token,
        room.turn_bank,
        room.banks,
    )


def _head(room: Room) -> bytes:
    """The stored room's entries but its game and its turn's deadline (which a turn clock
    moves at every move): 19, encoded without the map's header."""
    data = room.to_dict(hand_log=False, game=False)
    del data["turn_deadline"]
    return map_body(pack(data))


def _hand_constants(record: dict[str, Any]) -> tuple[bytes, bytes]:
    """The game's entries a hand does not change, as they surround the others: ``format``,
    and ``rules`` first; ``scores`` and ``results`` last."""
    first = {"format": STATE_FORMAT, "rules": record["rules"]}
    last = {"scores": record["scores"], "results": record["results"]}
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

"""The frames of the hot path, encoded from parts that every recipient of a change shares.

An ``update`` carries its recipient's whole view of the room, and the views of the two seats
and of the spectators differ only in a few keys (``seat``, the seat's own cards, its legal
actions, the invite code). ``RoomFrames`` builds the shared keys of one room at one sequence
number once, MessagePack-encoded, and splices each recipient's own keys in: the bytes are
exactly those of ``codec.encode(Update(...))`` with ``room_view`` (a test holds them equal), at
a fraction of the cost, and every connection of the same recipient (each spectator, a player's
second tab) gets the same bytes object.

A MessagePack map is its header (the number of entries) followed by its keys and values, one
after the other, so a map can be written as a header and the concatenated bodies of smaller
maps, in the order its keys must appear.
"""

from __future__ import annotations

from typing import Any

from protocol import codec
from protocol.messages import ErrorCode, ProtocolError
from server.engine.events import Event
from server.engine.state import GameState, Move
from server.engine.views import event_for, hand_parts, legal_action_dicts, public_game_parts
from server.reuse import PartCache
from server.room import Room, public_seats

__all__ = ["RoomFrames", "map_body", "map_header", "pack_history", "update_frame"]


def _pack(value: object) -> bytes:
    return codec.pack(value, validate=False)


def _body(mapping: dict[str, Any]) -> bytes:
    """The entries of a packed map, without its header."""
    return map_body(_pack(mapping))


def map_body(packed: bytes) -> bytes:
    """The entries of an encoded map, without its header."""
    first = packed[0]
    if 0x80 <= first <= 0x8F:
        return packed[1:]
    if first == 0xDE:
        return packed[3:]
    return packed[5:]  # 0xdf


def map_header(count: int) -> bytes:
    """The header of an encoded map of ``count`` entries."""
    if count < 16:
        return bytes((0x80 | count,))
    if count < 1 << 16:
        return b"\xde" + count.to_bytes(2, "big")
    return b"\xdf" + count.to_bytes(4, "big")


def _array_header(count: int) -> bytes:
    if count < 16:
        return bytes((0x90 | count,))
    if count < 1 << 16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


#: Per room: the last history encoded, its encoded entries, and the whole array.
_HISTORIES: dict[str, tuple[tuple[Move, ...], bytes, bytes]] = {}
_HISTORIES_MAX = 20_000


def pack_history(room_id: str, history: tuple[Move, ...]) -> bytes:
    """``codec.pack([move.to_dict() for move in history])``, encoding only the moves added since
    the room's last call (the views and the stored room of every move need it)."""
    known = _HISTORIES.get(room_id)
    if known is not None and known[0] is history:
        return known[2]
    if known is not None and len(known[0]) <= len(history):
        old, body, _ = known
        if old != history[: len(old)]:  # a new hand, or another room's state
            body = b"".join(_pack(move.to_dict()) for move in history)
        elif len(old) < len(history):
            body += b"".join(_pack(move.to_dict()) for move in history[len(old) :])
    else:
        body = b"".join(_pack(move.to_dict()) for move in history)
    if known is None and len(_HISTORIES) >= _HISTORIES_MAX:
        _HISTORIES.clear()
    packed = _array_header(len(history)) + body
    _HISTORIES[room_id] = (history, body, packed)
    return packed


_NIL = _pack(None)
_EMPTY_LIST = _pack([])
_SEAT = {seat: _pack("seat") + _pack(seat) for seat in (0, 1, None)}
_GAME = _pack("game")
_INVITE = _pack("invite")
_LEGAL = _pack("legal_actions")
_EVENTS = _pack("events")
_VIEW = _pack("view")
_UPDATE = _pack("t") + _pack("update") + _pack("room")
_SNAPSHOT = _pack("t") + _pack("snapshot") + _pack("room")
_SEQ = _pack("seq")
_ACK = map_header(3) + _pack("t") + _pack("ack") + _pack("id")
_RESULT = _pack("result")
_HISTORY = _pack("history")

#: Entries of ``room_view`` (without ``invite`` and ``connected``) and of ``game_view`` (without
#: the seat's own cards, ``last_hand`` and ``match``).
_ROOM_KEYS = 14
_GAME_KEYS = 15
_HAND_KEYS = 4


def _checked(frame: bytes) -> bytes:
    if len(frame) > codec.MAX_SERVER_FRAME:
        raise ProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"{len(frame)} bytes, the limit is {codec.MAX_SERVER_FRAME}",
            detail={"max_size": codec.MAX_SERVER_FRAME},
        )
    return frame


def update_frame(
    room_id: str, seq: int, events: list[Event], seat: int | None, view: bytes | None
) -> bytes:
    """``codec.encode(Update(room_id, seq, events filtered for the seat, view))``, with the
    view already encoded (``RoomFrames.view``) or None."""
    parts = [
        map_header(5 if view is not None else 4),
        _UPDATE,
        _pack(room_id),
        _SEQ,
        _pack(seq),
        _EVENTS,
        _pack([event_for(event, seat) for event in events]),
    ]
    if view is not None:
        parts += (_VIEW, view)
    return _checked(b"".join(parts))


def ack_frame(request_id: int | str, result: dict[str, Any]) -> bytes:
    """``codec.encode(Ack(id=request_id, result=result))``: the id as the decoder accepted it,
    the result the server's own plain data (the request's answer, every request has one)."""
    return _checked(b"".join((_ACK, _pack(request_id), _RESULT, _pack(result))))


class RoomFrames:
    """The frames of one room as it is at ``seq`` (after the change whose events are given),
    per recipient: seat 0, seat 1, or a spectator (``None``). Built lazily, each at most once."""

    __slots__ = ("_events", "_game", "_public", "_room", "_updates", "_views", "seq")

    def __init__(self, room: Room, seq: int, events: list[Event] | None = None) -> None:
        self._room = room
        self.seq = seq
        self._events = events or []
        self._public: tuple[bytes, bytes, bytes, bytes, bytes, int] | None = None
        self._game: GameState | None = room.game
        self._views: dict[int | None, bytes] = {}
        self._updates: dict[int | None, bytes] = {}

    def update(self, seat: int | None) -> bytes:
        """The ``update`` frame of this change for the seat (``None``: a spectator)."""
        frame = self._updates.get(seat)
        if frame is None:
            frame = update_frame(self._room.id, self.seq, self._events, seat, self.view(seat))
            self._updates[seat] = frame
        return frame

    def snapshot(self, seat: int | None) -> bytes:
        """``codec.encode(Snapshot(room, seq, room_view(room, seat)))``."""
        parts = (map_header(4), _SNAPSHOT, _pack(self._room.id), _SEQ, _pack(self.seq))
        return _checked(b"".join((*parts, _VIEW, self.view(seat))))

    def view(self, seat: int | None) -> bytes:
        """``room_view(room, seat)``, encoded."""
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self._encode_view(seat)
        return view

    def _shared(self) -> tuple[bytes, bytes, bytes, bytes, bytes, int]:
        if self._public is None:
            room = self._room
            room_head = _ROOM_HEADS.get(
                room.id, (room.mode, room.status, room.seats), lambda: _room_head(room)
            )
            winner = room.winner
            room_tail = _ROOM_TAILS.get(
                room.id,
                (
                    room.turn_seconds,
                    room.turn_deadline,
                    room.turn_bank,
                    room.banks,
                    room.forfeit,
                    winner,
                    room.rematch,
                    room.next_room,
                ),
                lambda: _room_tail(room, winner),
            )
            game_head = game_middle = game_tail = b""
            tail_keys = 0
            if self._game is not None:
                head, table, record, tail = public_game_parts(self._game)
                game_head = _body(head)
                history = pack_history(room.id, self._game.history)
                record_body = _RECORDS.get(room.id, (record,), lambda: _body(record))
                game_middle = b"".join((_body(table), _HISTORY, history, record_body))
                game_tail, tail_keys = (_body(tail), len(tail)) if tail else (b"", 0)
            self._public = (room_head, room_tail, game_head, game_middle, game_tail, tail_keys)
        return self._public

    def _encode_view(self, seat: int | None) -> bytes:
        room_head, room_tail, game_head, game_middle, game_tail, tail_keys = self._shared()
        invite = self._room.invite if seat is not None else None
        parts = [map_header(_ROOM_KEYS + (invite is not None)), room_head, _SEAT[seat], room_tail]
        parts.append(_GAME)
        game = self._game
        if game is None:
            parts.append(_NIL)
        else:
            keys = _GAME_KEYS + tail_keys + (_HAND_KEYS if seat is not None else 0)
            parts += (map_header(keys), game_head, _SEAT[seat], game_middle, _LEGAL)
            if seat is None:
                parts.append(_EMPTY_LIST)
            else:
                parts += (_pack(legal_action_dicts(game, seat)), _hand_body(game.hands[seat]))
            parts.append(game_tail)
        if invite is not None:
            parts += (_INVITE, _pack(invite))
        return b"".join(parts)


#: Per room: the parts of its last view that a move seldom changes, encoded.
_ROOM_HEADS: PartCache[bytes] = PartCache()
_ROOM_TAILS: PartCache[bytes] = PartCache()
_RECORDS: PartCache[bytes] = PartCache()


def _room_head(room: Room) -> bytes:
    return _body(
        {"room": room.id, "mode": room.mode, "status": room.status, "seats": public_seats(room)}
    )


def _room_tail(room: Room, winner: int | None) -> bytes:
    return _body(
        {
            "turn_seconds": room.turn_seconds,
            "turn_deadline": room.turn_deadline,
            "turn_bank": room.turn_bank,
            "banks": list(room.banks),
            "forfeit": room.forfeit,
            "winner": winner,
            "rematch": list(room.rematch),
            "next_room": room.next_room,
        }
    )


_HAND_BODIES: dict[tuple[str, ...], bytes] = {}
_HAND_BODIES_MAX = 4096


def _hand_body(hand: tuple[str, ...]) -> bytes:
    """The seat's own ``cards``, ``melds``, ``deadwood``, ``deadwood_points``, encoded (a hand
    does not change during the opponent's turn, so most views find it here)."""
    body = _HAND_BODIES.get(hand)
    if body is None:
        cards, melds, deadwood, points = hand_parts(hand)
        body = _body(
            {"cards": cards, "melds": melds, "deadwood": deadwood, "deadwood_points": points}
        )
        if len(_HAND_BODIES) >= _HAND_BODIES_MAX:
            _HAND_BODIES.clear()
        _HAND_BODIES[hand] = body
    return body

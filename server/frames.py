"""The frames of the hot path, encoded from parts that every recipient of a change shares.

An ``update`` carries its recipient's whole view of the room, and the views of the two seats
and of the spectators differ only in a few keys (``seat``, the seat's own cards, its legal
actions, the invite code). ``RoomFrames`` builds the shared keys of one room at one sequence
number once, MessagePack-encoded, and splices each recipient's own keys in: the bytes are
exactly those of ``codec.encode(Update(...))`` with ``room_view`` (a test holds them equal), at
a fraction of the cost, and every connection of the same recipient (each spectator, a player's
second tab) gets the same bytes object.

The parts a move seldom changes (the room around the game, a hand's record, a seat's hand)
are reused from the room's last ones (``FrameParts``, one per process, owned by the hub).
"""

from __future__ import annotations

from typing import Any

from protocol import codec
from protocol.messages import ErrorCode, ProtocolError
from server.engine.events import Event
from server.engine.state import GameState, Phase
from server.engine.views import (
    event_for,
    hand_parts,
    legal_action_dicts,
    public_game_parts,
    record_part,
    seen_by_all,
)
from server.packed import array_header, map_header
from server.packed import body as _body
from server.packed import pack as _pack
from server.reuse import Histories, PartCache
from server.room import Room, view_head, view_tail, view_tail_sources

__all__ = ["FrameParts", "RoomFrames", "ack_frame", "update_frame"]


_NIL = _pack(None)
_EMPTY_LIST = _pack([])
_SEAT = {seat: _pack("seat") + _pack(seat) for seat in (0, 1, None)}
_GAME = _pack("game")
_INVITE = _pack("invite")
_WATCH_TOKEN = _pack("watch_token")
_LEGAL = _pack("legal_actions")
_EVENTS = _pack("events")
_VIEW = _pack("view")
_UPDATE = _pack("t") + _pack("update") + _pack("room")
_UPDATE_MAP = map_header(5)
_SNAPSHOT = _pack("t") + _pack("snapshot") + _pack("room")
_SEQ = _pack("seq")
_ACK = map_header(3) + _pack("t") + _pack("ack") + _pack("id")
_RESULT = _pack("result")
_HISTORY = _pack("history")


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


#: A view's shared parts: the room's head and tail, the game's head, middle and tail, the
#: number of the room's entries (but the recipient's own: its seat, the invite, the watch
#: token) and of the game's (but the seat's: its seat, legal actions and cards).
SharedParts = tuple[bytes, bytes, bytes, bytes, bytes, int, int]
#: An encoded map's entries and their number.
Entries = tuple[bytes, int]
_NO_ENTRIES: Entries = (b"", 0)


class FrameParts:
    """The parts of the views that a room's next change will likely share with its last: per
    room, its last view's head, tail and hand record (``PartCache``) and its hand's history
    (``Histories``, shared with ``RoomBlobs``); per hand of cards, its own keys. Each holds
    at most ``limit`` rooms or hands."""

    __slots__ = (
        "_hand_bodies",
        "_hand_limit",
        "_legal",
        "_records",
        "_room_heads",
        "_room_tails",
        "ai_queue",
        "histories",
        "watchers",
    )

    def __init__(
        self, histories: Histories | None = None, limit: int = 20_000, hand_limit: int = 4096
    ) -> None:
        self.histories = histories if histories is not None else Histories(limit)
        self._room_heads: PartCache[Entries] = PartCache(limit)
        self._room_tails: PartCache[Entries] = PartCache(limit)
        self._records: PartCache[Entries] = PartCache(limit)
        self._hand_bodies: dict[tuple[str, ...], Entries] = {}
        self._legal: dict[tuple[Phase, bool], bytes] = {}
        self._hand_limit = hand_limit
        #: How many spectators follow each room, on every process, as this process last read
        #: it (``Hub.set_watchers``): what the views say, with no Redis round trip per move.
        self.watchers: dict[str, int] = {}
        #: Where each room that waits for an AI player stands in the AI seat queue, as this
        #: process last read it (``Hub.set_ai_queue``).
        self.ai_queue: dict[str, int] = {}

    def forget(self, room_id: str) -> None:
        """Drop every part kept of ``room_id`` (and its history, shared with the stored
        rooms'): the process no longer follows it, or it is finished. Else its last state
        stays until 20,000 other rooms have passed (about 12 KB a room)."""
        for cache in (self._room_heads, self._room_tails, self._records, self.histories):
            cache.forget(room_id)

    def holds(self, room_id: str) -> bool:
        """Whether any part of ``room_id`` is kept."""
        caches = (self._room_heads, self._room_tails, self._records, self.histories)
        return any(room_id in cache for cache in caches)

    def frames(self, room: Room, seq: int, events: list[Event] | None = None) -> RoomFrames:
        """The frames of ``room`` at ``seq``, made from these parts."""
        return RoomFrames(room, seq, events, parts=self)

    def shared(self, room: Room, game: GameState | None) -> SharedParts:
        """The encoded parts of the room's view that every recipient shares (``SharedParts``)."""
        room_head, head_keys = self._room_heads.get(
            room.id, (room.mode, room.status, room.seats), lambda: _entries(view_head(room))
        )
        watchers = self.watchers.get(room.id, 0)
        ai_queue = self.ai_queue.get(room.id)
        room_tail, tail_keys = self._room_tails.get(
            room.id,
            (watchers, ai_queue, *view_tail_sources(room)),
            lambda: _entries(view_tail(room, watchers, ai_queue)),
        )
        room_keys = head_keys + tail_keys + 1  # and the game
        game_head = game_middle = game_tail = b""
        game_keys = 0
        if game is not None:
            head, table, tail = public_game_parts(game)
            game_head = _body(head)
            history = self.histories.pack(room.id, game.history)
            record_body, record_keys = self._records.get(
                room.id,
                (game.results, game.scores, game.rules),
                lambda: _entries(record_part(game)),
            )
            game_middle = b"".join((_body(table), _HISTORY, history, record_body))
            game_tail = _body(tail) if tail else b""
            # and ``history`` and ``legal_actions``
            game_keys = len(head) + len(table) + record_keys + len(tail) + 2
        if room.status == "finished":
            self.forget(room.id)  # it changes seldom now: keep nothing alive for it
        return room_head, room_tail, game_head, game_middle, game_tail, room_keys, game_keys

    def legal_actions(self, game: GameState, seat: int) -> bytes:
        """The seat's ``legal_actions``, encoded: the same for every state of a phase but the
        discard of the seat to play (whose cards they name), so made once per phase."""
        if game.phase is Phase.DISCARD and game.turn == seat:
            return _pack(legal_action_dicts(game, seat))
        key = (game.phase, game.turn == seat)
        packed = self._legal.get(key)
        if packed is None:
            packed = self._legal[key] = _pack(legal_action_dicts(game, seat))
        return packed

    def hand_body(self, hand: tuple[str, ...]) -> Entries:
        """The seat's own ``cards``, ``melds``, ``deadwood``, ``deadwood_points``, encoded, and
        their number (a hand does not change during the opponent's turn, so most views find it
        here)."""
        bodies = self._hand_bodies
        entries = bodies.get(hand)
        if entries is None:
            cards, melds, deadwood, points = hand_parts(hand)
            entries = _entries(
                {"cards": cards, "melds": melds, "deadwood": deadwood, "deadwood_points": points}
            )
            if len(bodies) >= self._hand_limit:
                bodies.clear()
            bodies[hand] = entries
        return entries


class RoomFrames:
    """The frames of one room as it is at ``seq`` (after the change whose events are given),
    per recipient: seat 0, seat 1, or a spectator (``None``). Built lazily, each at most once."""

    __slots__ = (
        "_events",
        "_game",
        "_parts",
        "_public",
        "_room",
        "_seen",
        "_update_head",
        "_updates",
        "_views",
        "seq",
    )

    def __init__(
        self, room: Room, seq: int, events: list[Event] | None = None, *, parts: FrameParts
    ) -> None:
        self._parts = parts
        self._room = room
        self.seq = seq
        self._events = events or []
        self._public: SharedParts | None = None
        self._game: GameState | None = room.game
        self._views: dict[int | None, bytes] = {}
        self._updates: dict[int | None, bytes] = {}
        self._update_head = b""
        #: Each event encoded once when every recipient sees it as it is, else None.
        self._seen: list[bytes | None] | None = None

    def update(self, seat: int | None) -> bytes:
        """The ``update`` frame of this change for the seat (``None``: a spectator):
        ``update_frame(room.id, seq, events, seat, view(seat))``, with what every recipient's
        update shares encoded once."""
        frame = self._updates.get(seat)
        if frame is None:
            if not self._update_head:
                head = (_UPDATE_MAP, _UPDATE, _pack(self._room.id), _SEQ, _pack(self.seq))
                self._update_head = b"".join((*head, _EVENTS))
            frame = b"".join((self._update_head, self._events_for(seat), _VIEW, self.view(seat)))
            self._updates[seat] = _checked(frame)
        return frame

    def _events_for(self, seat: int | None) -> bytes:
        events = self._events
        seen = self._seen
        if seen is None:
            seen = self._seen = [_pack(event) if seen_by_all(event) else None for event in events]
        parts = [array_header(len(events))]
        for event, packed in zip(events, seen, strict=True):
            parts.append(packed if packed is not None else _pack(event_for(event, seat)))
        return b"".join(parts)

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

    def _shared(self) -> SharedParts:
        if self._public is None:
            self._public = self._parts.shared(self._room, self._game)
        return self._public

    def _encode_view(self, seat: int | None) -> bytes:
        room_head, room_tail, game_head, game_middle, game_tail, room_keys, game_keys = (
            self._shared()
        )
        invite = self._room.invite if seat is not None else None
        watch_token = self._room.watch_token if seat is not None else None
        own_keys = 1 + (invite is not None) + (watch_token is not None)  # and the seat
        parts = [map_header(room_keys + own_keys), room_head, _SEAT[seat], room_tail]
        parts.append(_GAME)
        game = self._game
        if game is None:
            parts.append(_NIL)
        else:
            hand, hand_keys = (
                self._parts.hand_body(game.hands[seat]) if seat is not None else _NO_ENTRIES
            )
            header = map_header(game_keys + 1 + hand_keys)  # and the seat
            parts += (header, game_head, _SEAT[seat], game_middle, _LEGAL)
            if seat is None:
                parts.append(_EMPTY_LIST)
            else:
                parts += (self._parts.legal_actions(game, seat), hand)
            parts.append(game_tail)
        if invite is not None:
            parts += (_INVITE, _pack(invite))
        if watch_token is not None:
            parts += (_WATCH_TOKEN, _pack(watch_token))
        return b"".join(parts)


def _entries(mapping: dict[str, Any]) -> Entries:
    return _body(mapping), len(mapping)

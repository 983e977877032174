"""Naming another player in a request: by handle (an account holder), or from the table (the
other seat of a room the asker sits in). Used by blocking and reports; each refusal has its
own code (``AccountError``)."""

from __future__ import annotations

from typing import Any

from protocol.messages import ErrorCode
from server import handles, keys
from server.accounts import AccountError
from server.blobs import decode_room
from server.room import Room
from server.store import Store


async def player_by_handle(store: Store, raw: object) -> str:
    """The player id of the account holding the handle ``raw`` (or a look-alike)."""
    try:
        handle = handles.clean_handle(raw)
    except handles.BadHandle as refusal:
        raise AccountError(ErrorCode.BAD_HANDLE, str(refusal)) from None
    for digest in handles.handle_digests(handle):
        held = await store.handle_holder(digest)
        if held is None:
            continue
        player = await store.get_player(held[0])
        if player is not None and player.handle is not None:
            return player.player_id
    raise AccountError(ErrorCode.UNKNOWN_HANDLE, "no account has this handle", 404)


async def room_of(store: Store, raw: object) -> Room:
    """The stored room ``raw`` names (``invalid_argument``, ``not_found``)."""
    try:
        room_id = keys.check_id(raw, "room id")
    except keys.InvalidId as refusal:
        raise AccountError(ErrorCode.INVALID_ARGUMENT, str(refusal)) from None
    loaded = await store.load_room(room_id)
    if loaded is None:
        raise AccountError(ErrorCode.NOT_FOUND, f"no room {room_id}", 404)
    return decode_room(loaded[1])


async def opponent_at(store: Store, me: str, room_id: object, seat: object) -> str:
    """The person in ``seat`` of ``room_id``, the asker sitting in the other seat."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise AccountError(
            ErrorCode.INVALID_ARGUMENT, "send a handle, or a room and a seat (0 or 1)"
        )
    assert isinstance(seat, int)
    room = await room_of(store, room_id)
    mine = room.seat_of(me)
    if mine is None or mine == seat:
        raise AccountError(
            ErrorCode.NOT_A_PLAYER, "from the table: the other seat of a room you sit in", 403
        )
    other = room.seats[seat]
    if other.player is None or other.ai is not None:
        raise AccountError(ErrorCode.INVALID_ARGUMENT, "no person in this seat")
    return other.player


async def named_player(store: Store, me: str, data: dict[str, Any]) -> str:
    """The player a request body names: ``handle``, or ``room`` and ``seat``."""
    if "handle" in data:
        return await player_by_handle(store, data["handle"])
    return await opponent_at(store, me, data.get("room"), data.get("seat"))

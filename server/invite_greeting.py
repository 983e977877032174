"""The greeting of an invite link: who invites, and to what, read before the seat is taken
(``invite_info``, docs/protocol.md).

It tells no more than the code grants already (whoever holds it may take the seat and see all
this at the table): the inviter's shown name, rated or casual, the match target and the turn
clock. It names no room to a stranger, and a code whose seat is taken, or whose match is over,
is ``invite_used`` (a wrong or expired code is ``not_found``, as for ``join_room``)."""

from __future__ import annotations

from typing import Any

from protocol.messages import ErrorCode
from server.requests import RequestFailed
from server.room import Room, seat_names


def greeting(room: Room, player_id: str) -> dict[str, Any]:
    """What the room of an invite offers ``player_id``; to the player who sits in it already,
    also its ``room`` and their ``seat`` (they go back to their table)."""
    seat = room.seat_of(player_id)
    if seat is None and (room.status != "waiting" or not room.seats[1].open):
        raise RequestFailed(
            ErrorCode.INVITE_USED, "this invite's seat is taken, or its match is over"
        )
    host = seat_names(room)[0]
    result: dict[str, Any] = {
        "inviter": {"name": host["name"], "name_id": host["name_id"]},
        "rated": room.rated,
        "target": room.rules.target,
        "turn_seconds": room.turn_seconds,
        "turn_bank": room.turn_bank,
    }
    if seat is not None:
        result["room"] = room.id
        result["seat"] = seat
    return result

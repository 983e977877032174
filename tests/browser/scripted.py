"""A scripted first deal for the browser tests: a room a scripted host opened is dealt from a
seed the test chose (``tests.support.seeds.seed_of``) when the page takes its free seat.

The room waits for its second player with the seed of its first deal stored in it (made by
the server from fresh entropy); the test replaces that seed in Redis before the page joins.
The page joins through a second server process, which has never held the room and so reads it
from Redis (the first process, the host's, holds a copy of its own).
"""

from __future__ import annotations

import dataclasses

import redis

from server import keys
from server.blobs import RoomBlobs, decode_room
from tests.support.seeds import seed_of

#: A deal where the joining player (seat 1, the non-dealer: AC 5C KC 2D 5D KD 5H KH AS 6S)
#: takes the upcard 2H and knocks with 2D at once (5C 5D 5H, KC KD KH; AC AS 2H 6S: 10); the
#: host (seat 0: 3C 6D 9D TD AH TH 4S 5S 9S KS) lays 5S and KS off onto those sets. Found with
#: the engine (``new_match``, ``apply``) over ``seed_of(n)``.
LAYOFF_DEAL = 902
LAYOFF_KNOCK = "2D"
LAYOFF_CARDS = ("5S", "KS")


def script_first_deal(redis_url: str, room_id: str, number: int) -> None:
    """The waiting room ``room_id`` will deal its first hand from ``seed_of(number)``."""
    client = redis.Redis.from_url(redis_url)
    try:
        key = keys.room(room_id)
        blob = client.get(key)
        assert isinstance(blob, bytes), f"room {room_id} is not stored"
        room = decode_room(blob)
        assert room.status == "waiting", room.status
        client.set(key, RoomBlobs().encode_room(dataclasses.replace(room, seed=seed_of(number))))
    finally:
        client.close()

"""Who may watch a room and take its seat by room id: the pure rules (``server.room``)."""

from __future__ import annotations

import random

from server.blobs import RoomBlobs, decode_room
from server.engine import legal_actions
from server.room import (
    Room,
    RoomFull,
    act,
    join,
    may_take_seat_by_id,
    may_watch,
    rematch_room,
    room_view,
)
from tests.server.test_room import ALICE, BOB, CAROL, T0, ai_room, private_room, quick_room
from tests.support.seeds import seed_of

TOKEN = "wAtCh-Token_0123456789"


def test_a_quick_match_room_is_public_and_others_are_not_unless_asked() -> None:
    assert quick_room().public
    assert not private_room().public and not ai_room().public
    assert private_room(public=True).public and ai_room(public=True).public


def test_a_room_that_is_not_public_is_watched_by_its_players_and_with_its_token() -> None:
    room, _, _ = join(private_room(watch_token=TOKEN), BOB, T0)
    assert may_watch(room, ALICE.player, None) and may_watch(room, BOB.player, None)
    assert may_watch(room, CAROL.player, TOKEN)
    assert not may_watch(room, CAROL.player, None)
    assert not may_watch(room, CAROL.player, TOKEN[:-1] + "X")
    assert not may_watch(room, None, None)


def test_a_room_without_a_token_is_watched_by_its_players_only() -> None:
    room = ai_room()  # a room stored before privacy: no token
    assert may_watch(room, ALICE.player, None)
    assert not may_watch(room, CAROL.player, None) and not may_watch(room, CAROL.player, TOKEN)


def test_a_public_room_is_watched_by_anyone() -> None:
    assert may_watch(quick_room(), CAROL.player, None)
    assert may_watch(private_room(public=True), None, None)


def test_the_free_seat_of_a_private_room_is_not_taken_by_room_id() -> None:
    room = private_room(watch_token=TOKEN)
    assert not may_take_seat_by_id(room, BOB.player or "")
    assert may_take_seat_by_id(room, ALICE.player or "")  # taking back one's own seat
    assert may_take_seat_by_id(private_room(public=True), BOB.player or "")


def test_only_the_seats_see_the_watch_token() -> None:
    room, _, _ = join(private_room(watch_token=TOKEN), BOB, T0)
    assert room_view(room, 0)["watch_token"] == TOKEN
    assert room_view(room, 1)["watch_token"] == TOKEN
    assert "watch_token" not in room_view(room, None)
    assert "watch_token" not in room_view(quick_room(), 0)


def test_a_full_room_is_refused_without_naming_it() -> None:
    room, _, _ = join(private_room(), BOB, T0)
    try:
        join(room, CAROL, T0)
    except RoomFull as refusal:
        assert room.id not in str(refusal)
    else:
        raise AssertionError("a third player was seated")


def test_privacy_survives_the_stored_blob_moves_and_a_rematch() -> None:
    room, _, _ = join(private_room(watch_token=TOKEN), BOB, T0)
    stored = decode_room(RoomBlobs().encode_room(room))
    assert (stored.public, stored.watch_token) == (False, TOKEN)
    game = room.game
    assert game is not None
    seat = 0 if legal_actions(game, 0) else 1
    moved, _ = act(room, seat, random.Random(1).choice(legal_actions(game, seat)), T0 + 1)
    assert (moved.public, moved.watch_token) == (False, TOKEN)
    again, _ = rematch_room(moved, "RP2", seed_of(5), T0 + 2)
    assert (again.public, again.watch_token) == (False, TOKEN)
    public_again, _ = rematch_room(quick_room(), "RQ2", seed_of(5), T0 + 2)
    assert public_again.public and public_again.watch_token is None


def test_a_room_stored_before_privacy_is_public_only_if_it_is_a_quick_match() -> None:
    for room, public in ((quick_room(), True), (private_room(), False), (ai_room(), False)):
        data = room.to_dict()
        del data["public"], data["watch_token"]
        old = Room.from_dict(data)
        assert (old.public, old.watch_token) == (public, None)

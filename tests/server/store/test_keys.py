"""Key names: one hash tag per room, and ids that cannot inject anything into a key."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio import Redis
from redis.crc import key_slot

from server import keys
from server.store import Store

VALID = set(string.ascii_letters + string.digits + "_-")

BAD_IDS: list[object] = [
    "",
    "a" * 65,
    "a b",
    "a:b",
    "{x}",
    "x}:y{",
    "a*",
    "a?",
    "a[b]",
    "é",
    "a\n",
    "a\r\nFLUSHALL",
    "../x",
    None,
    5,
    b"abc",
]


def test_room_keys_are_named_as_documented() -> None:
    k = keys.room_keys("r1")
    assert k.room == "{room:r1}:room" == keys.room("r1")
    assert k.version == "{room:r1}:version" == keys.room_version("r1")
    assert k.events == "{room:r1}:events" == keys.room_events("r1")
    assert k.requests == "{room:r1}:requests" == keys.room_requests("r1")
    assert k.channel == "{room:r1}:channel" == keys.room_channel("r1")


def test_global_keys_are_named_as_documented() -> None:
    assert keys.player("p1") == "player:p1"
    assert keys.invite("AB12") == "invite:AB12"
    assert keys.hand("h1") == "hand:h1"
    assert keys.hands_recent() == "hands:recent"
    assert keys.rooms_active() == "rooms:active"
    assert keys.ai_requests() == "ai:requests"
    assert keys.AI_WORKERS_GROUP == "ai-workers"
    assert keys.quickmatch_queue() == "{quickmatch}:queue"


def test_keys_of_one_room_share_one_cluster_slot() -> None:
    for room_id in ("r1", "another-room", "X_9"):
        slots = {key_slot(key.encode()) for key in keys.room_keys(room_id)}
        assert len(slots) == 1
    assert key_slot(keys.room("r1").encode()) == key_slot(b"room:r1")
    qm = {key_slot(k.encode()) for k in (keys.quickmatch_queue(), keys.quickmatch_rooms())}
    assert len(qm) == 1


@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
def test_bad_ids_are_refused_everywhere(bad: object) -> None:
    for make in (keys.room, keys.room_keys, keys.player, keys.invite, keys.hand):
        with pytest.raises(keys.InvalidId):
            make(bad)  # type: ignore[arg-type]
    with pytest.raises(keys.InvalidId):
        keys.check_id(bad)


@given(st.text(max_size=80))
def test_an_id_is_accepted_exactly_when_it_is_safe(text: str) -> None:
    safe = 1 <= len(text) <= 64 and set(text) <= VALID
    if safe:
        assert keys.check_id(text) == text
        assert keys.room_id_from_channel(keys.room_channel(text)) == text
        assert keys.room_id_from_channel(keys.room_channel(text).encode()) == text
    else:
        with pytest.raises(keys.InvalidId):
            keys.check_id(text)


def test_only_room_channels_name_a_room() -> None:
    for channel in ("{room:r1}:room", "room:r1:channel", "{room:}:channel", "feed:abc", b"\xff"):
        assert keys.room_id_from_channel(channel) is None


def test_stat_fields() -> None:
    assert keys.stat_field("wins") == "stat:wins"
    assert keys.stat_name("stat:wins") == "wins"
    assert keys.stat_name("name") is None
    for bad in ("", "Wins", "9lives", "a-b", "a:b", "x" * 33):
        with pytest.raises(keys.InvalidId):
            keys.stat_field(bad)


async def test_store_refuses_bad_ids_before_writing(store: Store, raw: Redis) -> None:
    before = sorted(await raw.keys("*"))
    with pytest.raises(keys.InvalidId):
        await store.create_room("a}:x{b", b"state")
    with pytest.raises(keys.InvalidId):
        await store.commit("r 1", 0, b"s", b"c")
    with pytest.raises(keys.InvalidId):
        await store.create_player("p*", "hash", "Ann")
    with pytest.raises(keys.InvalidId):
        await store.put_invite("code", "room:1", 60)
    with pytest.raises(keys.InvalidId):
        await store.quick_match("p1", "")
    with pytest.raises(keys.InvalidId):
        await store.save_hand("h\n1", "r1", b"x", 1.0)
    with pytest.raises(keys.InvalidId):
        await store.request_ai_seat("r1", 1, "very hard")
    assert sorted(await raw.keys("*")) == before

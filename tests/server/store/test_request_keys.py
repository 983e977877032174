"""Applied request keys: remembered as long as a resend needs them, and no longer.

A room remembers the keys of its applied requests (``{room:ID}:requests``) so that a request
sent again is answered ``duplicate`` and never applied twice. A resend comes seconds to a
minute or two after the first try, so the room keeps its newest ``request_keys_max`` keys
for ``request_ttl_seconds``, whatever happens to the room after (``docs/scaling.md``).
"""

from __future__ import annotations

from redis.asyncio import Redis

from server import keys
from server.store import CommitStatus, Store, StoreConfig
from tests.support.fixtures import StoreFactory


async def _act(store: Store, room: str, version: int, key: str) -> CommitStatus:
    result = await store.commit(room, version, b"s%d" % (version + 1), b"c", key)
    return result.status


async def test_a_room_remembers_its_newest_request_keys(store: Store, raw: Redis) -> None:
    most = 128  # StoreConfig.request_keys_max
    await store.create_room("r1", b"s0")
    acts = 3 * most
    for version in range(acts):
        assert await _act(store, "r1", version, f"p{version % 2}:{version}") is CommitStatus.OK
    requests = keys.room_requests("r1")
    assert await raw.zcard(requests) == most
    # Each of the newest is refused when sent again, at its own number or at the room's.
    for version in range(acts - most, acts):
        assert await _act(store, "r1", version, f"p{version % 2}:{version}") is (
            CommitStatus.DUPLICATE
        )
        assert await _act(store, "r1", acts, f"p{version % 2}:{version}") is (
            CommitStatus.DUPLICATE
        )
    # An older one is forgotten, and still not applied twice: its number is long past.
    assert await _act(store, "r1", 0, "p0:0") is CommitStatus.STALE
    assert await store.load_room("r1") == (acts, b"s%d" % acts)
    # A small set: Redis keeps it in its compact encoding.
    assert await raw.object("ENCODING", requests) == b"listpack"
    assert 0 < await raw.pttl(requests) <= 600_000


async def test_a_finished_room_forgets_its_request_keys_before_the_room(
    store: Store, raw: Redis
) -> None:
    await store.create_room("r1", b"s0")
    assert await _act(store, "r1", 0, "p0:1") is CommitStatus.OK
    assert await store.expire_room("r1", 24 * 3600)  # the match is over: kept a day
    assert await raw.ttl(keys.room("r1")) > 23 * 3600
    assert 0 < await raw.pttl(keys.room_requests("r1")) <= 600_000
    assert await _act(store, "r1", 1, "p0:1") is CommitStatus.DUPLICATE
    assert await store.expire_room("r1", 0)
    assert await raw.exists(keys.room_requests("r1"), keys.room("r1")) == 0


async def test_a_room_stored_by_the_code_before_works_after_the_upgrade(
    store_factory: StoreFactory, raw: Redis
) -> None:
    # What the code before 2026-12 did: keys kept an hour, as many as came.
    old = await store_factory(
        config=StoreConfig(request_ttl_seconds=3600.0, request_keys_max=1_000_000)
    )
    await old.create_room("r1", b"s0")
    played = 200
    for version in range(played):
        assert await _act(old, "r1", version, f"p{version % 2}:{version}") is CommitStatus.OK
    requests = keys.room_requests("r1")
    assert await raw.zcard(requests) == played  # an hour of them, as many as came
    assert await raw.pttl(requests) > 3_500_000

    new = await store_factory()
    most = new._config.request_keys_max
    assert await new.load_room("r1") == (played, b"s%d" % played)
    # What the old code remembered is still refused...
    assert await _act(new, "r1", played, f"p1:{played - 1}") is CommitStatus.DUPLICATE
    assert await new.request_applied("r1", f"p1:{played - 1}")
    # ... and what comes now is remembered before it, the oldest dropped first.
    for version in range(played, played + 10):
        assert await _act(new, "r1", version, f"p{version % 2}:{version}") is CommitStatus.OK
    last = played + 10
    assert await raw.zcard(requests) == most
    for version in range(last - most, last):
        assert await _act(new, "r1", last, f"p{version % 2}:{version}") is (
            CommitStatus.DUPLICATE
        ), version
    assert not await new.request_applied("r1", f"p0:{last - most - 1}")
    # The set lives 10 minutes past the room's last action, not an hour.
    assert 0 < await raw.pttl(requests) <= 600_000
    assert await new.load_room("r1") == (last, b"s%d" % last)

"""Abandonment cooldowns in the store (``lua/abandon.lua`` with ``server.playban``'s numbers),
on a real Redis and on a cluster (``tests/cluster/test_store_suite``), each at explicit times:
from the second abandonment within a day a cooldown of 10 minutes, each next one 3 times
longer, at most 48 hours; a week without an abandonment forgives them all."""

from __future__ import annotations

from redis.asyncio import Redis

from server import keys, playban
from server.store import Store
from server.store.ratings import Cooldown

T0 = 1_800_000_000_000  # the first abandonment (ms)
MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = playban.DAY_SECONDS * 1000
WEEK = playban.WEEK_SECONDS * 1000


async def walk_out(store: Store, room: str, at_ms: int, player: str = "ada") -> Cooldown:
    return await store.abandon(
        player,
        room,
        at_ms,
        day_ms=DAY,
        week_ms=WEEK,
        first_ms=playban.FIRST_SECONDS * 1000,
        factor=playban.FACTOR,
        longest_ms=playban.LONGEST_SECONDS * 1000,
    )


def test_the_policy_numbers() -> None:
    lengths = [playban.cooldown_seconds(bans) for bans in range(0, 10)]
    assert lengths == [0, 600, 1800, 5400, 16200, 48600, 145800, 172800, 172800, 172800]


async def test_each_next_cooldown_is_three_times_longer_up_to_48_hours(store: Store) -> None:
    # One abandonment every 23 hours: each is the second within a day of the one before.
    assert await walk_out(store, "r0", T0) == Cooldown(0, 0)
    expected_minutes = [10, 30, 90, 270, 810, 2430, 2880, 2880]
    for index, minutes in enumerate(expected_minutes, start=1):
        at = T0 + index * 23 * HOUR
        cooldown = await walk_out(store, f"r{index}", at)
        assert cooldown == Cooldown(at + minutes * MINUTE, index), (index, cooldown)
        assert await store.cooldown("ada") == cooldown
    assert await store.cooldown("bob") == Cooldown(0, 0)  # one player's, nobody else's


async def test_a_room_is_one_abandonment_however_often_it_is_noted(store: Store) -> None:
    await walk_out(store, "r1", T0)
    first = await walk_out(store, "r2", T0 + HOUR)
    assert first == Cooldown(T0 + HOUR + 10 * MINUTE, 1)
    assert await walk_out(store, "r2", T0 + 2 * HOUR) == first  # noted again (a sweep)
    assert await walk_out(store, "r1", T0 + 2 * HOUR) == first


async def test_only_a_second_within_a_day_earns_a_cooldown(store: Store) -> None:
    await walk_out(store, "r1", T0)
    assert await walk_out(store, "r2", T0 + DAY + 1) == Cooldown(0, 0)  # a day and 1 ms later
    third = T0 + 2 * DAY  # within a day of the second
    assert await walk_out(store, "r3", third) == Cooldown(third + 10 * MINUTE, 1)


async def test_a_week_without_an_abandonment_forgives_them_all(store: Store) -> None:
    await walk_out(store, "r1", T0)
    await walk_out(store, "r2", T0 + HOUR)
    assert await walk_out(store, "r3", T0 + 2 * HOUR) == Cooldown(T0 + 2 * HOUR + 30 * MINUTE, 2)
    back = T0 + 2 * HOUR + WEEK  # exactly a week after the last one
    assert await walk_out(store, "r4", back) == Cooldown(0, 0)
    assert await store.cooldown("ada") == Cooldown(0, 0)
    # Starting again: the second within a day earns the first cooldown, 10 minutes.
    assert await walk_out(store, "r5", back + HOUR) == Cooldown(back + HOUR + 10 * MINUTE, 1)


async def test_a_week_less_a_millisecond_forgives_nothing(store: Store) -> None:
    await walk_out(store, "r1", T0)
    await walk_out(store, "r2", T0 + HOUR)  # the first cooldown
    back = T0 + HOUR + WEEK - 1
    assert (await walk_out(store, "r3", back)).bans == 1  # no second within a day: none new
    assert await walk_out(store, "r4", back + HOUR) == Cooldown(back + HOUR + 30 * MINUTE, 2)


async def test_the_keys_go_a_week_after_the_last_abandonment(store: Store, raw: Redis) -> None:
    await walk_out(store, "r1", T0)
    await walk_out(store, "r2", T0 + HOUR)
    for key in (keys.abandons("ada"), keys.ban("ada")):
        left = await raw.pttl(key)
        assert WEEK - 60_000 < left <= WEEK, (key, left)

"""Rated quick match's pairing rules (``lua/rated_pair.lua``, the window of
``server.matchmaking``), on a real Redis and on a cluster (``tests/cluster/test_store_suite``):
the closest ratings first; a window that widens with the longer waiting one's wait, until
anyone is accepted; not the same two twice in a row while anyone else waits. Each test
passes its own times (``now_ms``), so a rule is checked to the millisecond."""

from __future__ import annotations

from typing import Any

from server.matchmaking import ANYONE_AFTER_SECONDS, BASE_GAP, GAP_PER_SECOND, LOOKED_AT
from server.store import Store

T0 = 1_800_000_000_000  # the first arrival (ms)
ANYONE_AFTER_MS = int(ANYONE_AFTER_SECONDS * 1000)


async def wait(store: Store, player: str, rating: float, at_ms: int) -> None:
    entry = {"room": f"room-{player}", "rating": rating, "rd": 80.0, "name": player}
    entry["shown"] = str(round(rating))
    queued, _ = await store.rated_join(player, entry, now_ms=at_ms)
    assert queued


async def pair(store: Store, now_ms: int) -> list[dict[str, Any]]:
    """The matcher's pass at ``now_ms`` with the server's own window."""
    return await store.rated_pair(BASE_GAP, GAP_PER_SECOND, ANYONE_AFTER_MS, LOOKED_AT, now_ms)


def pairs(notes: list[dict[str, Any]]) -> set[frozenset[str]]:
    return {frozenset((note["host"], note["guest"])) for note in notes}


async def test_the_closest_ratings_are_paired_first(store: Store) -> None:
    # Ada waited longest, but her closest (Cy, 20) is further than Bob's closest (Dee, 15):
    # Bob and Dee first, then Ada and Cy. Pairing in waiting order would give Ada and Bob.
    for index, (player, rating) in enumerate(
        (("ada", 1500.0), ("bob", 1545.0), ("cy", 1520.0), ("dee", 1560.0))
    ):
        await wait(store, player, rating, T0 + index)
    notes = await pair(store, T0 + 10)
    assert pairs(notes) == {frozenset(("bob", "dee")), frozenset(("ada", "cy"))}
    assert [note["gap"] for note in notes] == [15.0, 20.0]
    by_guest = {note["guest"]: note for note in notes}
    assert by_guest["dee"]["host"] == "bob" and by_guest["cy"]["host"] == "ada"  # the earlier hosts
    assert await store.rated_waiting_count() == 0


async def test_a_closer_later_arrival_wins_over_an_earlier_one(store: Store) -> None:
    # Three in the window of Ada: Cy (gap 10) arrived last, yet is the one she meets.
    for index, (player, rating) in enumerate((("ada", 1500.0), ("bob", 1540.0), ("cy", 1510.0))):
        await wait(store, player, rating, T0 + index)
    assert pairs(await pair(store, T0 + 10)) == {frozenset(("ada", "cy"))}
    assert await store.rated_waiting_count() == 1  # Bob waits on


async def test_the_window_widens_with_waiting(store: Store) -> None:
    # A gap of 200 is inside the window once BASE_GAP + GAP_PER_SECOND * waited reaches it.
    gap = 200.0
    due_ms = int((gap - BASE_GAP) / GAP_PER_SECOND * 1000)  # 6 s with the server's window
    await wait(store, "ada", 1500.0, T0)
    await wait(store, "bob", 1500.0 + gap, T0)
    assert await pair(store, T0) == []
    assert await pair(store, T0 + due_ms - 1) == []
    assert pairs(await pair(store, T0 + due_ms)) == {frozenset(("ada", "bob"))}


async def test_the_window_is_the_longer_waiting_ones(store: Store) -> None:
    # Ada has waited 6 s (window 200); Bob, 200 above her, just came: they pair at once.
    await wait(store, "ada", 1500.0, T0)
    await wait(store, "bob", 1700.0, T0 + 6000)
    assert pairs(await pair(store, T0 + 6000)) == {frozenset(("ada", "bob"))}


async def test_a_gap_inside_nobodys_window_waits(store: Store) -> None:
    # Both came now: a gap of BASE_GAP pairs at once, one point more does not.
    await wait(store, "ada", 1500.0, T0)
    await wait(store, "bob", 1500.0 + BASE_GAP + 1, T0)
    await wait(store, "cy", 2500.0, T0)
    await wait(store, "dee", 2500.0 + BASE_GAP, T0)
    assert pairs(await pair(store, T0)) == {frozenset(("cy", "dee"))}
    assert await store.rated_waiting_count() == 2


async def test_after_the_longest_wait_anyone_is_accepted(store: Store) -> None:
    # A gap no window reaches in time (1000 points: 38 s of widening) is accepted once the
    # longer waiting one has waited ANYONE_AFTER_SECONDS, so nobody waits much longer.
    await wait(store, "ada", 1000.0, T0)
    await wait(store, "bob", 2000.0, T0 + 1000)
    assert BASE_GAP + GAP_PER_SECOND * ANYONE_AFTER_SECONDS < 1000
    assert await pair(store, T0 + ANYONE_AFTER_MS - 1) == []
    [note] = await pair(store, T0 + ANYONE_AFTER_MS)
    assert (note["host"], note["guest"], note["host_waited"]) == ("ada", "bob", ANYONE_AFTER_MS)


async def test_not_the_same_two_twice_in_a_row_while_others_wait(store: Store) -> None:
    await wait(store, "ada", 1500.0, T0)
    await wait(store, "bob", 1500.0, T0)
    assert pairs(await pair(store, T0 + 10)) == {frozenset(("ada", "bob"))}
    # They come back at once, and Cy (30 points off, inside the window) waits too: Ada and Bob
    # (gap 0) are not paired again; one of them meets Cy, the other waits.
    later = T0 + 60_000
    await wait(store, "ada", 1500.0, later)
    await wait(store, "bob", 1500.0, later + 1)
    await wait(store, "cy", 1530.0, later + 2)
    assert pairs(await pair(store, later + 10)) == {frozenset(("ada", "cy"))}
    assert await store.rated_waiting_count() == 1
    # Bob met Ada last, Ada met Cy last: Bob and Ada may meet again when no one else waits.
    assert pairs(await pair(store, later + 20)) == set()  # Bob alone
    await wait(store, "ada", 1500.0, later + 30_000)
    assert pairs(await pair(store, later + 30_010)) == {frozenset(("ada", "bob"))}


async def test_the_same_two_pair_again_when_nobody_else_waits(store: Store) -> None:
    await wait(store, "ada", 1500.0, T0)
    await wait(store, "bob", 1510.0, T0)
    assert pairs(await pair(store, T0 + 10)) == {frozenset(("ada", "bob"))}
    await wait(store, "ada", 1500.0, T0 + 60_000)
    await wait(store, "bob", 1510.0, T0 + 60_000)
    assert pairs(await pair(store, T0 + 60_010)) == {frozenset(("ada", "bob"))}

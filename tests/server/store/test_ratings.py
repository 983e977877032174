"""Ratings in the store: a room changes a player's rating once (compare-and-set on ``n``), the
history newest first, each listed room's change read back for a profile, the leaderboard's
top and the viewer's rank. One key group per player (``{rating:ID}``) and one for the board:
the same on a cluster (``tests/cluster/test_store_suite.py``)."""

from __future__ import annotations

from server.store import Store
from server.store.ratings import RateStatus


def entry(before: float, after: float, at: float) -> dict[str, object]:
    return {"before": before, "after": after, "delta": round(after) - round(before), "at": at}


async def test_a_room_changes_a_rating_once_and_is_read_back(store: Store) -> None:
    first = await store.rate_player(
        "p1", "r1", 0, (1600.0, 300.0, 0.09), 100.0, entry(1500, 1600, 100)
    )
    assert first.status is RateStatus.APPLIED
    again = await store.rate_player(
        "p1", "r1", 1, (1700.0, 200.0, 0.09), 101.0, entry(1600, 1700, 101)
    )
    assert again.status is RateStatus.DONE and again.entry == entry(1500, 1600, 100)
    stale = await store.rate_player(
        "p1", "r2", 0, (1650.0, 250.0, 0.09), 102.0, entry(1500, 1650, 102)
    )
    assert stale.status is RateStatus.STALE
    second = await store.rate_player(
        "p1", "r2", 1, (1580.0, 250.0, 0.09), 103.0, entry(1600, 1580, 103)
    )
    assert second.status is RateStatus.APPLIED
    rating = await store.get_rating("p1")
    assert rating is not None and (rating.rating, rating.n, rating.at) == (1580.0, 2, 103.0)
    history = await store.rating_history("p1")
    assert [change["room"] for change in history] == ["r2", "r1"]
    assert [change["after"] for change in history] == [1580, 1600]
    changes = await store.rating_changes("p1", ["r1", "casual", "r2"])
    assert changes == {"r1": entry(1500, 1600, 100), "r2": entry(1600, 1580, 103)}
    assert await store.rating_changes("p1", []) == {}
    assert await store.rating_changes("nobody", ["r1"]) == {}


async def test_the_leaderboard_top_and_the_viewers_rank(store: Store) -> None:
    now = 1_000_000
    for player, rating in (("a", 1700.0), ("b", 1800.0), ("c", 1600.0)):
        assert await store.put_on_leaderboard(player, 3, rating, now + 60_000)
    await store.put_on_leaderboard("gone", 3, 1900.0, now - 1)  # its time is over
    assert not await store.put_on_leaderboard("a", 2, 2000.0, now + 60_000)  # an older n
    board = await store.leaderboard(now, 2, "c")
    assert board.top == [("b", 1800.0), ("a", 1700.0)]
    assert (board.rank, board.total) == (2, 3)
    assert (await store.leaderboard(now, 100, "stranger")).rank is None

"""AI seat requests: one worker per request, a dead worker's request taken over."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as redis

from server import keys
from server.store import AiSeatRequest, Store, StoreConfig
from server.store._base import as_text
from tests.support.fixtures import StoreFactory
from tests.support.redis_server import RedisServer


async def test_claim_reclaim_ack(store: Store) -> None:
    entry_id = await store.request_ai_seat("r1", 1, "hard")
    request = AiSeatRequest(entry_id, "r1", 1, "hard")
    assert await store.claim_ai_requests("w1") == [request]
    assert await store.claim_ai_requests("w2") == []  # delivered to one worker only
    assert await store.pending_ai_requests() == 1
    # w1 dies without acknowledging: not idle long enough yet for a takeover...
    assert await store.reclaim_stale_ai_requests("w2", min_idle_ms=60_000) == []
    # ...and taken over once it is
    assert await store.reclaim_stale_ai_requests("w2", min_idle_ms=0) == [request]
    assert await store.ack_ai_request(entry_id)
    assert not await store.ack_ai_request(entry_id)
    assert await store.pending_ai_requests() == 0
    assert await store.reclaim_stale_ai_requests("w3", min_idle_ms=0) == []


async def test_a_blocked_worker_wakes_up_for_a_request(
    store: Store, store_factory: StoreFactory
) -> None:
    worker = await store_factory()
    claim = asyncio.create_task(worker.claim_ai_requests("w1", block_ms=10_000))
    await asyncio.sleep(0.05)
    entry_id = await store.request_ai_seat("r9", 0, "easy")
    assert await asyncio.wait_for(claim, 15) == [AiSeatRequest(entry_id, "r9", 0, "easy")]


async def test_each_request_goes_to_exactly_one_worker(
    store: Store, store_factory: StoreFactory
) -> None:
    ids = [await store.request_ai_seat(f"r{i}", i % 2, "normal") for i in range(30)]
    workers = [await store_factory() for _ in range(3)]

    async def work(n: int) -> list[str]:
        got: list[str] = []
        while batch := await workers[n].claim_ai_requests(f"w{n}", count=4):
            got += [r.entry_id for r in batch]
            for r in batch:
                assert await workers[n].ack_ai_request(r.entry_id)
        return got

    claimed = await asyncio.gather(*(work(n) for n in range(3)))
    flat = [entry_id for got in claimed for entry_id in got]
    assert sorted(flat) == sorted(ids) and len(set(flat)) == len(ids)
    assert await store.pending_ai_requests() == 0


async def test_the_group_comes_back_after_a_flush(store: Store, redis_server: RedisServer) -> None:
    redis_server.flushall()  # the consumer group is gone
    entry_id = await store.request_ai_seat("r1", 0, "easy")
    assert await store.claim_ai_requests("w1") == [AiSeatRequest(entry_id, "r1", 0, "easy")]


async def test_bad_requests_are_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.request_ai_seat("r1", -1, "easy")
    with pytest.raises(keys.InvalidId):
        await store.request_ai_seat("r1", 0, "very hard")
    with pytest.raises(ValueError):
        await store.ack_ai_request("1-2-3")
    with pytest.raises(keys.InvalidId):
        await store.claim_ai_requests("w 1")
    assert await store.claim_ai_requests("w1") == []


async def test_a_long_wait_outlasts_the_socket_timeout(store_factory: StoreFactory) -> None:
    # A single BLOCK longer than the socket timeout would end in a TimeoutError.
    config = StoreConfig(socket_timeout=0.3, block_chunk_ms=100, retries=0)
    worker = await store_factory(config=config)
    assert await worker.claim_ai_requests("w1", block_ms=700) == []
    entry_id = await worker.request_ai_seat("r1", 0, "easy")
    assert await worker.claim_ai_requests("w1", block_ms=700) == [
        AiSeatRequest(entry_id, "r1", 0, "easy")
    ]


async def test_a_request_holds_the_seat_lease_until_it_runs_out(store: Store) -> None:
    await store.request_ai_seat("lease1", 1, "hard", hold_until_ms=5_000)
    assert await store.ai_lease_end("lease1", 1) == 5_000
    assert await store.claim_expired_ai_leases(now_ms=4_999, hold_until_ms=9_000) == []
    assert await store.claim_expired_ai_leases(now_ms=5_000, hold_until_ms=9_000) == [("lease1", 1)]
    # claimed: held again, so a second server's claim at the same moment gets nothing
    assert await store.ai_lease_end("lease1", 1) == 9_000
    assert await store.claim_expired_ai_leases(now_ms=5_000, hold_until_ms=9_000) == []


async def test_renewed_leases_are_not_claimed_and_dropped_ones_are_gone(store: Store) -> None:
    await store.renew_ai_leases([("lease2", 0), ("lease3", 1)], until_ms=1_000)
    assert await store.renew_ai_leases([("lease2", 0)], until_ms=3_000) == 1
    claimed = await store.claim_expired_ai_leases(now_ms=2_000, hold_until_ms=4_000)
    assert ("lease3", 1) in claimed and ("lease2", 0) not in claimed
    await store.drop_ai_lease("lease2", 0)
    assert await store.ai_lease_end("lease2", 0) is None
    assert await store.renew_ai_leases([], until_ms=1) == 0


async def test_concurrent_claims_take_each_expired_lease_once(
    store: Store, store_factory: StoreFactory
) -> None:
    seats = [(f"lease-c{i}", i % 2) for i in range(40)]
    await store.renew_ai_leases(seats, until_ms=10)
    servers = [await store_factory() for _ in range(4)]
    claims = await asyncio.gather(
        *(
            server.claim_expired_ai_leases(now_ms=100, hold_until_ms=10**12, count=7)
            for server in servers * 3
        )
    )
    taken = [seat for claim in claims for seat in claim if seat[0].startswith("lease-c")]
    assert len(taken) == len(set(taken)) == len(seats)


@pytest.mark.parametrize(
    ("room", "seat", "until"), [("bad:id", 0, 1), ("r1", 16, 1), ("r1", True, 1), ("r1", 0, -1)]
)
async def test_lease_arguments_are_checked(store: Store, room: str, seat: int, until: int) -> None:
    with pytest.raises(ValueError):
        await store.renew_ai_leases([(room, seat)], until_ms=until)


async def test_only_the_newest_request_for_a_seat_is_wanted(store: Store) -> None:
    first = await store.request_ai_seat("dup1", 1, "hard")
    second = await store.request_ai_seat("dup1", 1, "hard")
    other = await store.request_ai_seat("dup2", 0, "easy")
    requests = await store.claim_ai_requests("w1", count=10)
    assert [r.entry_id for r in requests] == [first, second, other]
    assert all(r.ask for r in requests) and len({r.ask for r in requests}) == 3
    superseded = await store.superseded_ai_requests(requests)
    assert [r.entry_id for r in superseded] == [first]


async def test_a_settled_seat_supersedes_all_its_requests(store: Store) -> None:
    offered = await store.request_ai_seat("dup3", 1, "normal")
    later = await store.request_ai_seat("dup3", 1, "normal")
    requests = await store.claim_ai_requests("w1", count=10)
    await store.settle_ai_seat("dup3", 1, offered)
    assert await store.pending_ai_requests() == 1  # ``later``: acknowledged when claimed
    assert [r.entry_id for r in await store.superseded_ai_requests(requests)] == [offered, later]
    # A request made after the seat was settled is wanted again.
    again = await store.request_ai_seat("dup3", 1, "normal")
    fresh = await store.claim_ai_requests("w1", count=10)
    assert [r.entry_id for r in fresh] == [again]
    assert await store.superseded_ai_requests(fresh) == []


async def test_a_dropped_lease_supersedes_the_seats_requests(store: Store) -> None:
    await store.request_ai_seat("dup4", 0, "easy", hold_until_ms=5_000)
    requests = await store.claim_ai_requests("w1", count=10)
    await store.drop_ai_lease("dup4", 0)
    assert await store.superseded_ai_requests(requests) == requests


async def test_a_request_without_a_token_is_wanted(store: Store, redis_url: str) -> None:
    """Requests written before tokens existed (an older server in a rolling deploy)."""
    client = redis.Redis.from_url(redis_url)
    try:
        entry_id = await client.xadd(
            keys.ai_requests(), {"room": "old1", "seat": 1, "level": "easy"}
        )
    finally:
        await client.aclose()
    requests = await store.claim_ai_requests("w1", count=10)
    assert [(r.entry_id, r.ask) for r in requests] == [(as_text(entry_id), None)]
    assert await store.superseded_ai_requests(requests) == []


async def test_a_request_carries_the_rank_of_its_asker(store: Store) -> None:
    await store.request_ai_seat("r1", 1, "easy", rank=2)
    await store.request_ai_seat("r2", 1, "easy")
    claimed = await store.claim_ai_requests("w1", count=2)
    assert [(request.room_id, request.rank) for request in claimed] == [("r1", 2), ("r2", 0)]
    with pytest.raises(ValueError):
        await store.request_ai_seat("r3", 1, "easy", rank=-1)


# -- the queue of waiting seats (issue 27 item 2) ------------------------------------------


async def _ask(store: Store, *seats: tuple[str, int], rank: int = 0) -> None:
    """Ask for each seat in turn, a few ms apart (their ages differ)."""
    for room_id, seat in seats:
        await store.request_ai_seat(room_id, seat, "easy", rank=rank)
        await asyncio.sleep(0.005)


async def test_waiting_seats_are_taken_oldest_first_each_by_one_server(store: Store) -> None:
    await _ask(store, ("q1", 1), ("q2", 1), ("q3", 0))
    assert await store.take_ai_seats(2, 10_000) == [("q1", 1), ("q2", 1)]
    assert await store.take_ai_seats(5, 10_000) == [("q3", 0)]  # q1, q2 are offered
    assert await store.take_ai_seats(5, 10_000) == []
    places = await store.ai_queue_places([("q1", 1), ("q2", 1), ("q3", 0), ("q9", 1)])
    assert {seat: place.position for seat, place in places.items()} == {
        ("q1", 1): 1,
        ("q2", 1): 2,
        ("q3", 0): 3,
    }
    await store.settle_ai_seat("q1", 1)  # a worker took q1
    places = await store.ai_queue_places([("q1", 1), ("q2", 1), ("q3", 0)])
    assert {seat: place.position for seat, place in places.items()} == {("q2", 1): 1, ("q3", 0): 2}
    await store.release_ai_offer("q2", 1)  # q2's worker handed it back
    assert await store.take_ai_seats(5, 10_000) == [("q2", 1)]
    await store.drop_ai_lease("q3", 0)  # q3 needs no AI any more
    summary = await store.ai_queue_summary()
    assert summary.waiting == 1
    assert summary.oldest_ms == places[("q2", 1)].asked_ms


async def test_an_offer_that_lapsed_is_taken_again(store: Store) -> None:
    await _ask(store, ("lapse1", 1))
    assert await store.take_ai_seats(1, 1) == [("lapse1", 1)]
    await asyncio.sleep(0.01)
    assert await store.take_ai_seats(1, 10_000) == [("lapse1", 1)]


async def test_a_seat_asked_for_again_keeps_its_place(store: Store) -> None:
    """Its lease ran out while it waited (or its worker left): it is asked for again. Before
    the queue, the new request went behind every request made meanwhile."""
    await _ask(store, ("keep1", 1), ("keep2", 1), ("keep1", 1))
    places = await store.ai_queue_places([("keep1", 1), ("keep2", 1)])
    assert places[("keep1", 1)].position == 1
    assert places[("keep1", 1)].asked_ms < places[("keep2", 1)].asked_ms
    assert await store.take_ai_seats(1, 10_000) == [("keep1", 1)]


async def test_a_players_further_seats_wait_behind_other_players_first(store: Store) -> None:
    await _ask(store, ("second1", 1), rank=1)
    await _ask(store, ("first1", 1), ("first2", 1))
    assert await store.take_ai_seats(3, 10_000) == [("first1", 1), ("first2", 1), ("second1", 1)]
    summary = await store.ai_queue_summary()
    places = await store.ai_queue_places([("second1", 1)])
    assert summary.waiting == 3
    assert summary.oldest_ms == places[("second1", 1)].asked_ms  # the oldest, served last


async def test_seats_handed_back_are_passed_over(store: Store) -> None:
    await _ask(store, ("skip1", 1), ("skip2", 1))
    assert await store.take_ai_seats(1, 10_000, skip=[("skip1", 1)]) == [("skip2", 1)]


async def test_servers_taking_at_once_take_each_seat_once(
    store: Store, store_factory: StoreFactory
) -> None:
    seats = [(f"race{i}", 1) for i in range(30)]
    for room_id, seat in seats:
        await store.request_ai_seat(room_id, seat, "easy")
    servers = [await store_factory() for _ in range(4)]
    takes = await asyncio.gather(*(server.take_ai_seats(4, 10_000) for server in servers * 3))
    taken = [seat for take in takes for seat in take]
    assert len(taken) == len(set(taken)) == len(seats)


async def test_an_empty_queue(store: Store) -> None:
    summary = await store.ai_queue_summary()
    assert (summary.waiting, summary.oldest_ms) == (0, None)
    assert await store.ai_queue_places([("none1", 1)]) == {}
    assert await store.ai_queue_places([]) == {}
    with pytest.raises(ValueError):
        await store.take_ai_seats(0, 10_000)


async def test_request_written_before_the_queue_is_queued_at_its_age(store: Store) -> None:
    """A request read from the stream whose seat is not in the queue (written by an older
    server in a rolling deploy) is put there, at its entry's time."""
    entry_id = await store.request_ai_seat("old2", 1, "easy")
    await asyncio.sleep(0.005)
    await store.request_ai_seat("new2", 1, "easy")
    await store.take_ai_seats(5, 10_000)
    await store.settle_ai_seat("old2", 1)
    (request,) = [r for r in await store.claim_ai_requests("w1", count=5) if r.room_id == "old2"]
    await store.queue_ai_requests([request])
    places = await store.ai_queue_places([("old2", 1), ("new2", 1)])
    assert places[("old2", 1)].position == 1
    assert places[("old2", 1)].asked_ms == int(entry_id.partition("-")[0])


async def test_seats_in_use_are_summed_over_processes_until_they_lapse(store: Store) -> None:
    await store.set_ai_in_use("p1", {"easy": 2, "hard": 1}, ttl_ms=10_000)
    await store.set_ai_in_use("p2", {"easy": 1}, ttl_ms=10_000)
    assert await store.ai_in_use() == {"easy": 3, "hard": 1}
    await store.set_ai_in_use("p1", {"easy": 0, "hard": 1}, ttl_ms=10_000)
    assert await store.ai_in_use() == {"easy": 1, "hard": 1}
    await store.set_ai_in_use("p2", {"easy": 1}, ttl_ms=1)  # p2 stops renewing: it lapses
    await asyncio.sleep(0.01)
    assert await store.ai_in_use() == {"hard": 1}
    with pytest.raises(ValueError):
        await store.set_ai_in_use("bad:id", {"easy": 1}, ttl_ms=10)


async def test_a_seat_asked_for_again_at_an_age_of_its_own_goes_by_it(store: Store) -> None:
    """A person back in a paused AI room: its seat is asked for at the room's age, before
    the seats asked for since."""
    await _ask(store, ("since1", 1))
    await store.request_ai_seat("paused1", 1, "easy", asked_ms=1_000)
    assert await store.take_ai_seats(2, 10_000) == [("paused1", 1), ("since1", 1)]
    with pytest.raises(ValueError):
        await store.request_ai_seat("paused2", 1, "easy", asked_ms=-1)

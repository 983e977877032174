"""AI seat leases: a seat whose worker vanished without a word (its server was killed with the
worker's connection, and the worker never came back or died while it re-attached) is asked for
again; a seat whose worker re-attached in time stays with it."""

from __future__ import annotations

import asyncio

from client.session import Session
from protocol import messages as m
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import WORKER_KEY

LEASE_ENV = {**FAST_CLIENT_ENV, "GIN_AI_LEASE_SECONDS": "1"}


async def _ai_room(person: Session) -> str:
    created = await person.request(
        "create_room", mode="ai", level="easy", rules={"target": 30}, stand_in=False
    )
    room: str = created.result["room"]
    return room


async def _offers(worker: Session, rooms: set[str], timeout: float) -> set[str]:
    """The rooms of ``rooms`` whose AI seat is offered to ``worker`` within ``timeout``."""
    offered: set[str] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while offered != rooms and loop.time() < deadline:
        try:
            message = await worker.next_message(
                lambda msg: isinstance(msg, m.AiSeat), timeout=deadline - loop.time()
            )
        except TimeoutError:
            break
        assert isinstance(message, m.AiSeat)
        if message.room in rooms:
            offered.add(message.room)
    return offered


async def _worker(url: str, token: str | None = None) -> Session:
    return await Session.connect(
        url, token=token, worker_key=WORKER_KEY, client="ai-worker/test", reconnect=False
    )


async def test_the_seats_of_a_worker_that_dies_while_reattaching_are_asked_for_again(
    server_factory: ServerFactory,
) -> None:
    """A worker plays two AI seats on server 1; server 1 is killed; the worker reconnects to
    server 2, resumes one room and dies before it subscribes again. Both seats must be
    offered to the worker that is left."""
    first = server_factory(env=LEASE_ENV)
    second = server_factory(env=LEASE_ENV)
    person = await Session.connect(second.ws_url, name="Ada")
    dying = await _worker(first.ws_url)
    heir = await _worker(second.ws_url)
    again: Session | None = None
    try:
        await dying.request("ai_subscribe", capacity=5)
        rooms = {await _ai_room(person), await _ai_room(person)}
        assert await _offers(dying, rooms, 15) == rooms
        for room in rooms:
            await dying.request("join_room", room=room)
        await first.akill()
        again = await _worker(second.ws_url, token=dying.token)
        await again.request("resume", room=sorted(rooms)[0], last_seq=-1)
        await heir.request("ai_subscribe", capacity=5)
        await again.close()
        offered = await _offers(heir, rooms, 20)
        print(f"\nseats offered again to the remaining worker: {len(offered)} of {len(rooms)}")
        assert offered == rooms, f"AI seats left to nobody: {sorted(rooms - offered)}"
        for room in rooms:
            assert (await heir.request("join_room", room=room)).result["seat"] == 1
    finally:
        for session in (person, dying, heir, again):
            if session is not None:
                await session.close()


async def test_a_worker_that_reattaches_in_time_keeps_its_seats(
    server_factory: ServerFactory,
) -> None:
    """Server 1 is killed; its worker resumes its room on server 2 before the lease runs
    out: the seat is not handed to another worker, and the worker still moves in it."""
    first = server_factory(env=LEASE_ENV)
    second = server_factory(env=LEASE_ENV)
    person = await Session.connect(second.ws_url, name="Ada")
    worker = await _worker(first.ws_url)
    rival = await _worker(second.ws_url)
    again: Session | None = None
    try:
        await worker.request("ai_subscribe", capacity=5)
        room = await _ai_room(person)
        assert await _offers(worker, {room}, 15) == {room}
        await worker.request("join_room", room=room)
        await first.akill()
        again = await _worker(second.ws_url, token=worker.token)
        resumed = await again.request("resume", room=room, last_seq=-1)
        assert resumed.result["seat"] == 1
        await again.request("ai_subscribe", capacity=5)
        await rival.request("ai_subscribe", capacity=5)
        # Several lease periods: the lease is renewed by server 2, nobody is offered the seat.
        assert await _offers(rival, {room}, 5) == set()
        assert await _offers(again, {room}, 0.5) == set()
        print("\nthe re-attached worker kept its seat through 5 lease periods")
    finally:
        for session in (person, worker, rival, again):
            if session is not None:
                await session.close()

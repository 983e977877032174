"""An act on a sequence number that only unseen changes followed (an AI worker taking its seat)
is applied as if made on the current one; after any change somebody saw, it is refused."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

from client.session import RequestError, Session
from protocol import messages as m
from server.store import Store
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import ai_room_with_worker
from tests.support.server_process import WORKER_KEY, ServerProcess

RACES = 100


async def test_an_act_across_the_worker_binding_is_applied(
    gin_server: ServerProcess, redis_url: str
) -> None:
    person, worker, room, seen = await ai_room_with_worker(gin_server.ws_url)
    store = await Store.connect(redis_url)
    try:
        assert await store.room_version(room) == seen + 1
        view = person.view(room)
        assert view is not None
        turn = view["game"]["turn"]
        mover = person if turn == 0 else worker
        ack = await mover.act(room, "pass", seq=seen)
        assert ack.result["seq"] == seen + 2
        assert await store.room_version(room) == seen + 2
        after = await person.wait_for(room, lambda v: len(v["game"]["history"]) == 1, timeout=10)
        assert after["game"]["history"] == [{"seat": turn, "kind": "pass"}]
        assert after["game"]["phase"] == "second_offer"

        # the pass is a change everybody saw: an act on a number before it is stale
        other = worker if mover is person else person
        try:
            await other.act(room, "pass", seq=seen + 1)
        except RequestError as error:
            assert error.code == "stale_sequence"
            assert error.detail == {"seq": seen + 2}
        else:
            raise AssertionError("an act across a seen change was applied")
        assert await store.room_version(room) == seen + 2
    finally:
        await store.close()
        await person.close()
        await worker.close()


async def test_a_replayed_act_across_the_binding_is_still_a_duplicate(
    gin_server: ServerProcess,
) -> None:
    person, worker, room, seen = await ai_room_with_worker(gin_server.ws_url)
    try:
        view = person.view(room)
        assert view is not None
        mover = person if view["game"]["turn"] == 0 else worker
        first = m.Act(id="once", room=room, seq=seen, action=m.Action(kind="pass"))
        await mover.request(first)
        try:
            await mover.request(first)
        except RequestError as error:
            assert error.code == "duplicate_request"
        else:
            raise AssertionError("a replayed act was acknowledged twice")
        final = await person.wait_for(room, lambda v: len(v["game"]["history"]) == 1)
        assert final["game"]["phase"] == "second_offer"
    finally:
        await person.close()
        await worker.close()


async def test_an_act_racing_the_worker_binding_is_applied(server_factory: ServerFactory) -> None:
    """The person acts on the deal while the worker takes its seat through another server:
    whichever commit comes first, the act is applied (if the binding wins, the person's
    server, which has not heard of it yet, acts again after it)."""
    person = await Session.connect(server_factory(env=FAST_CLIENT_ENV).ws_url, name="Ada")
    worker = await Session.connect(
        server_factory(env=FAST_CLIENT_ENV).ws_url,
        worker_key=WORKER_KEY,
        client="ai-worker/test",
        reconnect=False,
    )
    refused: list[str] = []
    rng = random.Random(7)
    try:
        await worker.request("ai_subscribe", capacity=100)
        for _ in range(RACES):
            created = await person.request(
                "create_room", mode="ai", level="easy", rules={"target": 30}, stand_in=False
            )
            room: str = created.result["room"]
            view = await person.wait_for(room, lambda v: v["status"] == "playing", timeout=10)
            seen = person.room(room).seq
            await worker.next_message(_offer_of(room), timeout=10)
            mover = person if view["game"]["turn"] == 0 else worker
            binding = asyncio.create_task(worker.request("join_room", room=room))
            await asyncio.sleep(0)  # the join goes out
            _spin(rng.random() * 0.0008)  # then the act, at some point of the binding
            try:
                await mover.act(room, "pass", seq=seen)
            except RequestError as error:
                refused.append(error.code)
            else:
                final = await person.wait_for(room, lambda v: len(v["game"]["history"]) >= 1)
                assert final["game"]["history"][0]["kind"] == "pass"
            assert (await binding).result["seat"] == 1
            await person.request("leave", room=room)
    finally:
        await person.close()
        await worker.close()
    assert refused == [], f"{len(refused)} of {RACES} acts refused"


def _offer_of(room: str) -> Callable[[m.ServerMessage], bool]:
    return lambda message: isinstance(message, m.AiSeat) and message.room == room


def _spin(seconds: float) -> None:
    """Wait without yielding to the event loop (finer than a sleep)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

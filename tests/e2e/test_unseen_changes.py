"""An act on a sequence number that only unseen changes followed (an AI worker taking its seat)
is applied as if made on the current one; after any change somebody saw, it is refused."""

from __future__ import annotations

from client.session import RequestError
from protocol import messages as m
from server.store import Store
from tests.e2e.helpers import ai_room_with_worker
from tests.support.server_process import ServerProcess


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

"""A room against the AI waits for a person who goes away (issue 27): no AI plays for nobody.

Real Redis, a real server process and a real AI worker process (``python -m client.ai``). The
person leaves at their own turn; after the disconnect grace the room stays as it was (no
stand-in, no move, no seat asked for), the worker keeps one connection however many seats it
holds, new AI rooms are served while the abandoned ones wait, and a person who comes back
plays on from exactly where they were."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from client.session import Session, View
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import (
    ai_rooms_at_the_persons_turn,
    first_ai_move,
    pending_ai_requests,
    play,
)
from tests.support.server_process import ServerProcess

GRACE_SECONDS = 1.0
#: Past the grace, long enough for the periodic work (every second) to have started any
#: stand-in several times over.
WAIT_PAST_GRACE = GRACE_SECONDS + 4.0
PAUSE_ENV = {**FAST_CLIENT_ENV, "GIN_DISCONNECT_GRACE": str(GRACE_SECONDS)}

Spawn = Callable[..., WorkerProcess]


@pytest.fixture
async def spawn_worker(tmp_path: Path) -> AsyncIterator[Spawn]:
    started: list[WorkerProcess] = []

    def spawn(server: ServerProcess, **env: str) -> WorkerProcess:
        worker = WorkerProcess(server.ws_url, tmp_path, str(len(started)), env=env).start()
        started.append(worker)
        return worker

    yield spawn
    for worker in started:
        worker.kill()


def game_state(view: View) -> dict[str, Any]:
    """What the person's seat sees of the game (not the presence of the seats)."""
    game = view["game"]
    fields = ("cards", "history", "legal_actions", "scores", "discard_pile", "stock_size")
    return {name: game.get(name) for name in fields}


async def watch_all(url: str, rooms: list[str]) -> Session:
    """A watcher of ``rooms`` (public rooms: watched by id)."""
    watcher = await Session.connect(url, name="Watcher")
    for room in rooms:
        await watcher.request("watch", room=room)
    return watcher


async def ai_moves_soon(person: Session, room: str, seconds: float, after: int = 0) -> bool:
    """The person plays ``room`` until the AI (seat 1) has made a move (past the first
    ``after`` moves of the hand's history); False if it has not within ``seconds``."""
    return await first_ai_move(person, room, seconds, after) is not None


def view_of(session: Session, room: str) -> View:
    view = session.room(room).view
    assert view is not None
    return view


def log_lines(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


def ai_seats_in_use(server: ServerProcess) -> float:
    """The AI seats in play, all levels, as the server's ``/metrics`` tells."""
    status, body = server.get("/metrics")
    assert status == 200
    return sum(
        sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
        if sample.name == "gin_ai_seats_in_use"
    )


async def ai_seats_become(server: ServerProcess, count: float, timeout: float) -> float:
    """The AI seats in use once they are ``count``, or as they are after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (in_use := ai_seats_in_use(server)) != count and loop.time() < deadline:
        await asyncio.sleep(0.2)
    return in_use


async def test_forty_ai_rooms_whose_person_leaves_take_no_worker_seat(
    server_factory: ServerFactory, spawn_worker: Spawn, redis_url: str
) -> None:
    """Before: after the grace the worker took each person's seat too (a stand-in) and played
    both sides, on a connection of its own per room."""
    server = server_factory(env={**PAUSE_ENV, "GIN_MAX_CONNECTIONS_PER_ADDRESS": "32"})
    # the worker gives a paused room's seat up after the servers' grace (its default)
    worker = spawn_worker(server, GIN_DISCONNECT_GRACE=str(GRACE_SECONDS))
    person = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    rooms = await ai_rooms_at_the_persons_turn(person, 40)
    before = {room: game_state(view_of(person, room)) for room in rooms}
    await person.close()
    await asyncio.sleep(WAIT_PAST_GRACE)
    watcher = await watch_all(server.ws_url, rooms)  # the rooms as they are now
    try:
        for index, room in enumerate(rooms):
            # the server marks the person's 40 seats away one after the other: on a loaded
            # machine that may take a while
            try:
                view = await watcher.wait_for(room, lambda v: v["seats"][0]["away"], timeout=30)
            except TimeoutError:
                seen = watcher.room(room)
                raise AssertionError(
                    f"room {index} of 40 ({room}) never marked away: the watcher has seq "
                    f"{seen.seq} with seats {seen.view and seen.view['seats']}; the person "
                    f"left it at seq {person.room(room).seq}"
                ) from None
            assert view["seats"][0]["stand_in"] is None, f"an AI plays for nobody in {room}"
            assert view["status"] == "playing"
            assert view["game"]["history"] == before[room]["history"], "a move was made"
        assert await pending_ai_requests(redis_url) == 0
        in_use = await ai_seats_become(server, 0, timeout=20)
        assert in_use == 0, f"{in_use} worker seats still held by rooms whose person is gone"
        assert not log_lines(worker.log_text(), "seat not taken"), "a seat 0 was offered"
        assert not log_lines(server.log_text(), "too many connections")
    finally:
        await watcher.close()


async def test_a_worker_with_more_seats_than_the_per_address_limit_plays_them_all(
    server_factory: ServerFactory, spawn_worker: Spawn
) -> None:
    """Eight AI rooms on a server that lets an address hold 4 connections (the person, the
    worker: all on 127.0.0.1). The person goes away past the grace in every room, comes back
    and plays every match to its end. Before: the worker opened a connection per stand-in;
    those past the limit were refused (close 1013) with a task exception nobody retrieved."""
    server = server_factory(env={**PAUSE_ENV, "GIN_MAX_CONNECTIONS_PER_ADDRESS": "4"})
    worker = spawn_worker(server)
    person = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    rooms = await ai_rooms_at_the_persons_turn(person, 8)
    token = person.token
    await person.close()
    await asyncio.sleep(WAIT_PAST_GRACE)

    back = await Session.connect(server.ws_url, token=token)
    try:
        for room in rooms:
            await back.resume(room, -1)
        await asyncio.gather(
            *(play(back, room, random.Random(room), timeout=240) for room in rooms)
        )
        for room in rooms:
            final = view_of(back, room)
            assert final["status"] == "finished", room
            assert any(move["seat"] == 1 for move in final["game"]["history"]), room
    finally:
        await back.close()
    assert not log_lines(server.log_text(), "too many connections")
    assert not log_lines(worker.log_text(), "never retrieved")
    assert worker.running


async def test_new_ai_rooms_are_served_while_abandoned_ones_wait(
    server_factory: ServerFactory, spawn_worker: Spawn
) -> None:
    """A worker of 40 seats on a server that lets an address hold 6 connections: 20 AI rooms
    abandoned (long matches), then 20 new ones, each of whose AI moves within 10 s. Before:
    the worker's connections for the 20 stand-ins were refused past the limit, and the seat
    offers handed out again and again held its capacity: the new rooms got no AI."""
    server = server_factory(env={**PAUSE_ENV, "GIN_MAX_CONNECTIONS_PER_ADDRESS": "6"})
    spawn_worker(server, GIN_AI_CAPACITY="40")
    newcomer = await Session.connect(server.ws_url, name="Bea")
    leaver = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    try:
        await ai_rooms_at_the_persons_turn(leaver, 20, target=500)
        await leaver.close()
        await asyncio.sleep(WAIT_PAST_GRACE)
        fresh = []
        for _ in range(20):
            ack = await newcomer.request("create_room", mode="ai", level="easy")
            fresh.append(ack.result["room"])
        served = await asyncio.gather(*(ai_moves_soon(newcomer, room, 10) for room in fresh))
        assert all(served), f"{served.count(False)} of 20 new AI rooms got no AI move in 10 s"
    finally:
        await newcomer.close()
        await leaver.close()


async def test_a_person_back_in_a_paused_ai_room_plays_on_from_where_they_were(
    server_factory: ServerFactory, spawn_worker: Spawn
) -> None:
    """Before: an AI stood in for the person after the grace and played their seat."""
    server = server_factory(env=PAUSE_ENV)
    spawn_worker(server)
    person = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    (room,) = await ai_rooms_at_the_persons_turn(person, 1)
    left = view_of(person, room)
    token = person.token
    await person.close()
    await asyncio.sleep(WAIT_PAST_GRACE)

    back = await Session.connect(server.ws_url, token=token)
    try:
        await back.resume(room, -1)
        view = await back.wait_for(room, lambda v: not v["seats"][0]["away"], timeout=10)
        assert view["seat"] == 0 and view["seats"][0]["stand_in"] is None
        assert game_state(view) == game_state(left), "the room did not wait for its person"
        assert await ai_moves_soon_after(back, room, view)
    finally:
        await back.close()


async def ai_moves_soon_after(person: Session, room: str, view: View) -> bool:
    """The person plays on (their move, and a discard after a draw); the AI answers with a
    move of its own within 20 s."""
    return await ai_moves_soon(person, room, 20, after=len(view["game"]["history"]))


async def test_a_waiting_ai_room_that_expires_frees_its_workers_seat(
    server_factory: ServerFactory, spawn_worker: Spawn
) -> None:
    """A worker of one seat plays an AI room whose person went away; the room expires
    (``GIN_ROOM_IDLE``) while it waits. The worker finds the room gone and gives the seat up,
    so a new AI room gets its AI. Before: the expired room held the worker's seat for good."""
    server = server_factory(env={**PAUSE_ENV, "GIN_ROOM_IDLE": "5"})
    worker = spawn_worker(server, GIN_AI_CAPACITY="1")
    leaver = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    (gone,) = await ai_rooms_at_the_persons_turn(leaver, 1)
    # the worker holds the seat: it has played (a seat not yet taken when its person leaves is
    # not asked for while they are away, and no worker would look at the room)
    assert await ai_moves_soon(leaver, gone, 30), "the worker never played the room"
    await leaver.close()
    for _ in range(600):  # the worker looks at a room whose turn does not come every 15 s
        if log_lines(worker.log_text(), f"seat lost: room {gone}: not_found"):
            break
        await asyncio.sleep(0.1)
    else:
        tail = "\n".join(worker.log_text().splitlines()[-40:])
        raise AssertionError(f"the worker never found the expired room gone; its log:\n{tail}")

    newcomer = await Session.connect(server.ws_url, name="Bea")
    try:
        ack = await newcomer.request("create_room", mode="ai", level="easy")
        assert await ai_moves_soon(newcomer, ack.result["room"], 15), "the seat stayed taken"
    finally:
        await newcomer.close()


async def test_a_paused_ai_rooms_seat_goes_to_a_waiting_room_and_comes_back_with_its_person(
    server_factory: ServerFactory, spawn_worker: Spawn
) -> None:
    """A worker of one seat plays Ada's AI room; Ada goes away. Once she has been away a
    while (``GIN_AI_RELEASE_AWAY_SECONDS``), the worker gives her seat up, and Bea's new AI
    room gets its AI. Ada comes back: her seat is asked for again and waits 1st in the queue
    while Bea plays; Bea leaves, and the AI plays on in Ada's room from where it was. Before:
    the paused room held the worker's only seat for as long as it lived (a day), and Bea's
    room got no AI."""
    server = server_factory(env=PAUSE_ENV)
    spawn_worker(server, GIN_AI_CAPACITY="1", GIN_AI_RELEASE_AWAY_SECONDS="1")
    ada = await Session.connect(server.ws_url, name="Ada", reconnect=False)
    (paused,) = await ai_rooms_at_the_persons_turn(ada, 1, target=500)
    left = view_of(ada, paused)
    token = ada.token
    await ada.close()

    bea = await Session.connect(server.ws_url, name="Bea")
    back = await Session.connect(server.ws_url, token=token)
    try:
        ack = await bea.request("create_room", mode="ai", level="easy", rules={"target": 500})
        fresh = ack.result["room"]
        assert await ai_moves_soon(bea, fresh, 15), "the paused room kept the worker's seat"

        await back.resume(paused, -1)
        view = await back.wait_for(paused, lambda v: v.get("ai_queue") == 1, timeout=10)
        assert game_state(view) == game_state(left), "the room did not wait for its person"
        await bea.request("leave", room=fresh)
        await back.wait_for(paused, lambda v: v["ai_queue"] is None, timeout=10)
        assert await ai_moves_soon_after(back, paused, view)
    finally:
        await bea.close()
        await back.close()

"""AI seats through faults: a real AI worker (``python -m client.ai``) whose connection drops
at the worst moments, and an AI worker that dies with its server. Every match against an AI
must still be played to its end (docs/protocol.md, ``ai_subscribe``: "A worker whose
connection drops loses its seats: the server asks for them again and another worker takes
over"; a seat whose worker vanished with its server is asked for again when its lease runs
out, ``GIN_AI_LEASE_SECONDS``).

(A worker that dies while it re-attaches to another server, with sessions of the protocol
instead of a worker process, is ``tests/e2e/test_ai_leases.py``.)"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from collections import Counter

from client.session import Session
from protocol import codec
from server.blobs import decode_room
from server.store import Store
from tests.chaos.conftest import ProxyFactory, WorkerFactory
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.chaos.proxy import CUT_AFTER, CUT_BEFORE, FORWARD
from tests.support.fixtures import ServerFactory

TARGET = 30
#: A match long enough for the worker's 6th act: one to 30 points can end within its first few.
LONG_TARGET = 100


async def test_a_worker_whose_answers_are_lost_keeps_playing_its_seat(
    redis_url: str,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
    proxy_factory: ProxyFactory,
) -> None:
    """The worker's connection is cut right after it sends ``join_room`` (joined, answer
    lost), after its 3rd ``act`` (played, answer lost) and before its 6th (never arrived):
    it reconnects, resumes and plays the seat to the end of the match."""
    server = server_factory()
    sent: Counter[str] = Counter()
    plan = {("join_room", 1): CUT_AFTER, ("act", 3): CUT_AFTER, ("act", 6): CUT_BEFORE}

    def inspect(payload: bytes) -> str:
        message = codec.decode(payload, direction="client")
        sent[message.t] += 1
        return plan.get((message.t, sent[message.t]), FORWARD)

    proxy = proxy_factory(lambda: [server.port])
    proxy.inspect = inspect
    await proxy.start()
    worker = worker_factory(proxy.url)
    store = await Store.connect(redis_url)
    person = await Session.connect(server.ws_url, name="Ada", record=True)
    try:
        created = await person.request(
            "create_room", mode="ai", level="normal", rules={"target": LONG_TARGET}, stand_in=False
        )
        room = created.result["room"]
        play = SeatPlay(person, room, 0)
        try:
            final = await play_seat(play, random.Random(3), timeout=30)
        except TimeoutError:
            loaded = await store.load_room(room)
            assert loaded is not None
            raise AssertionError(
                f"the AI stopped playing after {proxy.cuts} cuts (worker sent {dict(sent)}); "
                f"room at seq {loaded[0]}, AI seat {decode_room(loaded[1]).seats[1]}"
            ) from None
        counts = await check_room(store, room, [play], [final], LONG_TARGET)
        print(
            f"\ncuts {proxy.cuts}, worker requests {dict(sent)}, worker connections "
            f"{sum(proxy.accepted.values())}; match {counts}"
        )
        assert proxy.cuts == 3, "every planned cut happened"
        assert worker.running
    finally:
        await person.close()
        await store.close()


async def _ai_room(person: Session, level: str = "easy") -> str:
    created = await person.request(
        "create_room", mode="ai", level=level, rules={"target": TARGET}, stand_in=False
    )
    room: str = created.result["room"]
    return room


async def test_ai_matches_resume_after_the_server_and_the_worker_crash_together(
    redis_url: str,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
) -> None:
    """The machine running a server and an AI worker goes down in the middle of a match (the
    worker frozen, the server killed, then the worker: neither says goodbye); they come back
    (a new worker process: a new player). The person resumes; once the seat's lease runs
    out, the new worker must take the AI seat and the match must end."""
    server = server_factory()
    worker = worker_factory(server.ws_url)
    store = await Store.connect(redis_url)
    person = await Session.connect(server.ws_url, name="Ada", record=True)
    gate = asyncio.Event()
    gate.set()
    try:
        room = await _ai_room(person, "normal")
        play = SeatPlay(person, room, 0)
        playing = asyncio.create_task(play_seat(play, random.Random(5), timeout=60, gate=gate))
        state = person.room(room)
        await person.wait_for(room, lambda view: state.seq >= 8, timeout=20)
        gate.clear()  # the person decides no new move while the machine is down
        loaded = await store.load_room(room)
        assert loaded is not None
        first_worker = decode_room(loaded[1]).seats[1].player
        assert worker.pid is not None
        os.killpg(worker.pid, signal.SIGSTOP)
        await server.akill()
        await asyncio.to_thread(worker.kill)
        await server.astart()
        successor = worker_factory(server.ws_url)
        gate.set()
        try:
            final = await asyncio.wait_for(playing, 45)
        except TimeoutError:
            loaded = await store.load_room(room)
            assert loaded is not None
            raise AssertionError(
                f"the AI seat was never played again: room at seq {loaded[0]}, "
                f"AI seat {decode_room(loaded[1]).seats[1]}, new worker running "
                f"{successor.running}"
            ) from None
        loaded = await store.load_room(room)
        assert loaded is not None
        assert decode_room(loaded[1]).seats[1].player != first_worker, "the seat never moved"
        lost = server.log_text().count("AI seat lost its player")
        counts = await check_room(store, room, [play], [final], TARGET)
        print(f"\nseat asked for again after its lease ran out x{lost}; match {counts}")
        assert lost >= 1, "the seat was not asked for again by its lease"
    finally:
        await person.close()
        await store.close()

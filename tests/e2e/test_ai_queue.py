"""AI capacity told and shared (issue 27 item 2), with real Redis, two server processes on it,
and real workers (a worker process, and workers scripted over the websocket with the worker
key, whose seats the test takes and frees at will).

- A person whose AI room waits because every worker is full sees their place in the queue in
  the room's view (``ai_queue``), and it moves as the queue moves.
- Capacity freed on either process goes to the oldest waiting seat, wherever it was asked for.
- ``/metrics`` on every process tells the AI seats played by level, the seats waiting and how
  long the oldest has waited, as they are."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from client.session import Session, View
from protocol import messages as m
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import WORKER_KEY, ServerProcess

#: Leases of 1 s: each process shares its seats in use every third of a second.
QUEUE_ENV = {**FAST_CLIENT_ENV, "GIN_AI_LEASE_SECONDS": "1"}


async def _worker(url: str) -> Session:
    """A worker scripted by the test: it takes the seats it is offered when the test says."""
    return await Session.connect(
        url, worker_key=WORKER_KEY, client="ai-worker/test", reconnect=False
    )


async def _first_offer(worker: Session, timeout: float) -> m.AiSeat:
    offer = await worker.next_message(lambda msg: isinstance(msg, m.AiSeat), timeout=timeout)
    assert isinstance(offer, m.AiSeat)
    return offer


def _place(place: int | None) -> Callable[[View], bool]:
    return lambda view: view.get("ai_queue", "absent") == place


async def _ai_room(person: Session, level: str = "easy") -> str:
    ack = await person.request("create_room", mode="ai", level=level, rules={"target": 500})
    room: str = ack.result["room"]
    return room


async def _two_waiting(
    sessions: list[Session], bea_url: str, cy_url: str
) -> tuple[Session, str, Session, str]:
    """Every worker is full: Bea (on ``bea_url``) then Cy open AI rooms, and are told they
    are 1st and 2nd in the queue. Returns Bea, her room, Cy, his room."""
    bea = await Session.connect(bea_url, name="Bea")
    cy = await Session.connect(cy_url, name="Cy")
    sessions += (bea, cy)
    first = await _ai_room(bea)
    await bea.wait_for(first, _place(1), timeout=10)
    second = await _ai_room(cy)
    await cy.wait_for(second, _place(2), timeout=10)
    return bea, first, cy, second


async def _full_worker(
    sessions: list[Session], worker_url: str, ada_url: str
) -> tuple[Session, Session, str]:
    """A scripted worker of one seat (on ``worker_url``) plays Ada's AI room: every worker is
    full. Returns the worker, Ada and her room."""
    busy = await _worker(worker_url)
    ada = await Session.connect(ada_url, name="Ada")
    sessions += (busy, ada)
    await busy.request("ai_subscribe", capacity=1)
    played = await _ai_room(ada)
    offer = await _first_offer(busy, 15)
    assert (offer.room, offer.seat) == (played, 1)
    await busy.request("join_room", room=played, seat=1)
    return busy, ada, played


async def test_waiting_players_are_told_their_place_and_the_oldest_is_served_first(
    server_factory: ServerFactory, sessions: list[Session]
) -> None:
    await places_and_the_oldest_first(server_factory, sessions, QUEUE_ENV)


async def places_and_the_oldest_first(
    server_factory: ServerFactory, sessions: list[Session], env: dict[str, str]
) -> None:
    """A worker of one seat on server two plays Ada's room. Bea (on server one) then Cy (on
    server two) open AI rooms: they are told they are 1st and 2nd in the queue. A new worker
    of one seat on server one is offered Bea's seat (the oldest), and Cy becomes 1st. Ada's
    match ends: the first worker, on server two, is offered Cy's seat at once. Before: no
    place was told, and Cy's seat, read by server one's dispatcher along with Bea's, stayed
    there while server two's worker sat free (until the request went stale, 10 s and more)."""
    one, two = server_factory(env=env), server_factory(env=env)
    busy, ada, played = await _full_worker(sessions, two.ws_url, two.ws_url)
    bea, first, cy, second = await _two_waiting(sessions, one.ws_url, two.ws_url)
    await asyncio.sleep(1.5)  # a few rounds of reading the queue: nothing moved
    assert bea.room(first).ai_queue == 1
    assert cy.room(second).ai_queue == 2
    assert ada.room(played).ai_queue is None

    late = await _worker(one.ws_url)
    sessions.append(late)
    await late.request("ai_subscribe", capacity=1)
    offer = await _first_offer(late, 10)
    assert (offer.room, offer.seat) == (first, 1), "the oldest waiting seat was not served first"
    await late.request("join_room", room=first, seat=1)
    await bea.wait_for(first, _place(None), timeout=10)
    await cy.wait_for(second, _place(1), timeout=10)

    await ada.request("leave", room=played)  # Ada forfeits: the match is over
    await busy.request("leave", room=played)  # as a worker does once its match is over
    offer = await _first_offer(busy, 3)
    assert (offer.room, offer.seat) == (second, 1), "the freed seat did not go to Cy"
    await busy.request("join_room", room=second, seat=1)
    await cy.wait_for(second, _place(None), timeout=10)


def _figures(server: ServerProcess) -> tuple[dict[str, float], float, float]:
    """``/metrics``: the AI seats in use by level, the seats waiting, the oldest wait (s)."""
    status, body = server.get("/metrics")
    assert status == 200
    in_use: dict[str, float] = {}
    waiting = oldest = -1.0
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name == "gin_ai_seats_in_use":
                in_use[sample.labels["level"]] = sample.value
            elif sample.name == "gin_ai_seats_waiting":
                waiting = sample.value
            elif sample.name == "gin_ai_oldest_wait_seconds":
                oldest = sample.value
    return {level: n for level, n in in_use.items() if n}, waiting, oldest


async def _figures_become(
    servers: list[ServerProcess], in_use: dict[str, float], waiting: float, timeout: float = 15
) -> list[float]:
    """Wait until every server's ``/metrics`` tells ``in_use`` and ``waiting``; returns each
    server's oldest wait."""
    deadline = time.monotonic() + timeout
    while True:
        seen = [_figures(server) for server in servers]
        if all(figures[:2] == (in_use, waiting) for figures in seen):
            return [figures[2] for figures in seen]
        if time.monotonic() > deadline:
            raise AssertionError(f"/metrics told {seen}, not {in_use}, {waiting} waiting")
        await asyncio.sleep(0.2)


async def test_metrics_tell_the_ai_seats_of_every_process(
    server_factory: ServerFactory, sessions: list[Session], tmp_path: Path
) -> None:
    await metrics_of_every_process(server_factory, sessions, tmp_path, QUEUE_ENV)


async def metrics_of_every_process(
    server_factory: ServerFactory, sessions: list[Session], tmp_path: Path, env: dict[str, str]
) -> None:
    """A worker process of two seats on server one plays an easy and a hard room (one asked
    for on each server); a normal room waits. Both servers' ``/metrics`` say so, with the
    wait of the waiting room; once the easy match is over, its seat plays the normal room.
    Before: no such figures."""
    one, two = server_factory(env=env), server_factory(env=env)
    worker = WorkerProcess(one.ws_url, tmp_path, "w", env={"GIN_AI_CAPACITY": "2"}).start()
    try:
        ada = await Session.connect(two.ws_url, name="Ada")
        bea = await Session.connect(one.ws_url, name="Bea")
        cy = await Session.connect(two.ws_url, name="Cy")
        sessions += (ada, bea, cy)
        easy = await _ai_room(ada, "easy")
        await _ai_room(bea, "hard")
        await _figures_become([one, two], {"easy": 1, "hard": 1}, 0)
        asked = time.time()
        waiting = await _ai_room(cy, "normal")
        await cy.wait_for(waiting, _place(1), timeout=10)
        await asyncio.sleep(2)
        oldest = await _figures_become([one, two], {"easy": 1, "hard": 1}, 1)
        for wait in oldest:
            assert 2 <= wait <= time.time() - asked + 0.5, oldest

        await ada.request("leave", room=easy)
        oldest = await _figures_become([one, two], {"hard": 1, "normal": 1}, 0)
        assert oldest == [0, 0]
        await cy.wait_for(waiting, _place(None), timeout=10)
    finally:
        worker.kill()


async def test_a_room_left_while_it_waits_leaves_the_queue_at_once(
    server_factory: ServerFactory, sessions: list[Session]
) -> None:
    """Every worker is full; Bea waits 1st, Cy 2nd. Bea leaves her room (she forfeits): Cy is
    1st within 3 s, and ``/metrics`` counts one waiting seat. Before: Bea's seat held its
    place until its lease ran out (three lease periods, 30 s by default)."""
    server = server_factory(env=FAST_CLIENT_ENV)
    await _full_worker(sessions, server.ws_url, server.ws_url)
    bea, left, cy, waiting = await _two_waiting(sessions, server.ws_url, server.ws_url)
    await bea.request("leave", room=left)
    await cy.wait_for(waiting, _place(1), timeout=3)
    assert _figures(server)[1] == 1

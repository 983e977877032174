"""Graceful shutdowns (a deploy, ``docker compose stop``): SIGTERM a server process in the middle
of matches, and SIGTERM an AI worker.

- The server tells each of its clients ``reconnect`` and closes; behind the load balancer they
  come back on the other process, resume, and nothing is lost or applied twice.
- The worker stops taking seats and either finishes the matches it plays and exits by itself,
  or, after ``GIN_AI_DRAIN_SECONDS``, hands them back: another worker takes them over.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from typing import Any

from client.ai.worker import DRAINING
from client.session import Session, View
from protocol import messages as m
from server.blobs import decode_room
from server.store import Store
from tests.chaos.conftest import CHAOS_ENV, ProxyFactory, WorkerFactory
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.server_process import ServerProcess

TARGET = 30
#: Events that name a seat without being its move.
NOT_MOVES = frozenset({"presence", "stand_in", "forfeit", "rematch"})


async def _matches(
    url: str, people: int, ai: int, target: int = TARGET
) -> list[tuple[str, list[SeatPlay]]]:
    rooms = []
    for index in range(people):
        a = await Session.connect(url, name=f"G{index}a", record=True)
        b = await Session.connect(url, name=f"G{index}b", record=True)
        created = await a.request("create_room", mode="private", rules={"target": target})
        room = created.result["room"]
        await b.request("join_room", invite=created.result["invite"])
        rooms.append((room, [SeatPlay(a, room, 0), SeatPlay(b, room, 1)]))
    for index in range(ai):
        a = await Session.connect(url, name=f"H{index}", record=True)
        created = await a.request(
            "create_room",
            mode="ai",
            level=("easy", "normal", "hard")[index % 3],
            rules={"target": target},
            stand_in=False,
        )
        room = created.result["room"]
        rooms.append((room, [SeatPlay(a, room, 0)]))
    return rooms


async def _play_all(
    rooms: list[tuple[str, list[SeatPlay]]],
    progress: Counter[str],
    gate: asyncio.Event | None = None,
) -> list[list[View]]:
    async def one(index: int, plays: list[SeatPlay]) -> list[View]:
        return list(
            await asyncio.gather(
                *(
                    play_seat(
                        play,
                        random.Random(f"g/{index}/{play.seat}"),
                        timeout=90,
                        progress=progress,
                        gate=gate,
                    )
                    for play in plays
                )
            )
        )

    return list(await asyncio.gather(*(one(i, plays) for i, (_, plays) in enumerate(rooms))))


async def _close(rooms: list[tuple[str, list[SeatPlay]]]) -> None:
    await asyncio.gather(*(play.session.close() for _, plays in rooms for play in plays))


def _stopped_cleanly(server: ServerProcess) -> bool:
    """The last run of the process ended on SIGTERM after its shutdown had completed (the
    ``server stopped`` log line), with exit status 0 or "terminated by SIGTERM" (uvicorn
    raises the signal again once it is done, as the parent expects)."""
    last_run = server.log_text().rsplit("--- start #", 1)[-1]
    found = re.findall(r"--- exited with (-?\d+) \(SIGTERM\)", last_run)
    return bool(found) and int(found[-1]) in (0, -15) and "server stopped" in last_run


async def _wait(predicate: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def test_sigterm_of_a_server_moves_its_clients_to_the_other_one(
    redis_url: str,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
    proxy_factory: ProxyFactory,
) -> None:
    servers = [server_factory(env=CHAOS_ENV) for _ in range(2)]
    proxy = await proxy_factory(lambda: [server.port for server in servers]).start()
    for _ in range(2):
        worker_factory(proxy.url)
    store = await Store.connect(redis_url)
    rooms = await _matches(proxy.url, people=6, ai=6)
    try:
        progress: Counter[str] = Counter()
        playing = asyncio.create_task(_play_all(rooms, progress))
        await _wait(lambda: progress["intents"] >= 150 or playing.done(), 60, "150 moves")
        assert not playing.done(), "the matches ended before the shutdown"
        going, staying = servers
        plays = [play for _, room_plays in rooms for play in room_plays]
        on_going = [
            play
            for play in plays
            if play.session._ws is not None
            and proxy.routes.get(play.session._ws.local_address) == going.port
        ]
        assert on_going, "no person was on the server that goes away"
        running = sum(1 for _, room_plays in rooms if not _finished(room_plays))
        await going.astop()  # SIGTERM, and wait for the process to exit
        finals = await asyncio.wait_for(playing, 90)

        totals: Counter[str] = Counter()
        for (room, room_plays), room_finals in zip(rooms, finals, strict=True):
            totals.update(await check_room(store, room, room_plays, room_finals, TARGET))
        for play in on_going:
            frames = play.session.frames or []
            told = [frame for frame in frames if isinstance(frame, m.Reconnect)]
            byes = [frame.code for frame in frames if isinstance(frame, m.Bye)]
            assert told, f"{play.session.name}: no reconnect from the server going away"
            assert byes == ["going_away"], byes
            assert play.session.connections >= 2
            now = proxy.routes.get(play.session._ws.local_address)  # type: ignore[union-attr]
            assert now == staying.port, f"{play.session.name} came back on {now}"
        assert _stopped_cleanly(going), going.log_tail()
        assert staying.running
        print(
            f"\nSIGTERM with {running} of {len(rooms)} matches running: {len(on_going)} people "
            f"were on the server that stopped, each told to reconnect, each back on the other; "
            f"{totals['intents']} actions, {totals['acked']} acked, "
            f"{totals['applied_after_lost_answer']} applied with the answer lost, "
            f"{totals['reconnects']} reconnects; the process stopped cleanly"
        )
    finally:
        await _close(rooms)
        await store.close()


def _finished(plays: list[SeatPlay]) -> bool:
    view = plays[0].session.room(plays[0].room).view
    return view is not None and view["status"] == "finished"


def _ai_moved(plays: list[SeatPlay], after_seq: int) -> bool:
    """The AI (seat 1) made a move after ``after_seq``, as the person's updates tell."""
    log = plays[0].session.room(plays[0].room).log
    return any(
        event.get("seat") == 1 and event.get("type") not in NOT_MOVES
        for applied in log
        if applied.seq > after_seq
        for event in applied.events
    )


async def _ai_player(store: Store, room: str) -> str | None:
    loaded = await store.load_room(room)
    assert loaded is not None
    return decode_room(loaded[1]).seats[1].player


async def _logged(worker: WorkerProcess, text: str, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while text not in worker.log_text():
        assert loop.time() < deadline, f"{worker.name} never logged {text!r}: {worker.log_tail()}"
        await asyncio.sleep(0.05)


async def test_sigterm_of_a_worker_lets_it_finish_its_matches(
    redis_url: str, server_factory: ServerFactory, worker_factory: WorkerFactory
) -> None:
    server = server_factory(env=CHAOS_ENV)
    leaving = worker_factory(server.ws_url)  # drains for up to GIN_AI_DRAIN_SECONDS (600)
    store = await Store.connect(redis_url)
    rooms = await _matches(server.ws_url, people=0, ai=3)
    late: list[tuple[str, list[SeatPlay]]] = []
    try:
        progress: Counter[str] = Counter()
        playing = asyncio.create_task(_play_all(rooms, progress))
        for room, plays in rooms:
            state = plays[0].session.room(room)
            await plays[0].session.wait_seq(room, max(state.seq, 5), timeout=30)
        holders = {await _ai_player(store, room) for room, _ in rooms}
        assert len(holders) == 1 and None not in holders
        leaving.terminate()
        successor = worker_factory(server.ws_url)
        await _logged(leaving, DRAINING)  # the server knows before the next room is opened
        late = await _matches(server.ws_url, people=0, ai=1)
        late_playing = asyncio.create_task(_play_all(late, progress))
        finals = await asyncio.wait_for(playing, 90)
        late_finals = await asyncio.wait_for(late_playing, 90)
        for (room, plays), room_finals in zip(rooms + late, finals + late_finals, strict=True):
            await check_room(store, room, plays, room_finals, TARGET)
        finished_by = {await _ai_player(store, room) for room, _ in rooms}
        assert finished_by == holders, "the matches changed hands instead of being finished"
        assert await _ai_player(store, late[0][0]) not in holders, "a draining worker took a seat"
        code = await leaving.wait(30)
        assert code == 0, leaving.log_tail()
        assert successor.running
        print(
            f"\nthe worker got SIGTERM with {len(rooms)} matches in play: it finished them, "
            f"took no new seat, and exited with {code}"
        )
    finally:
        await _close(rooms + late)
        await store.close()


async def test_sigterm_of_a_worker_hands_its_seats_back_after_the_drain_time(
    redis_url: str, server_factory: ServerFactory, worker_factory: WorkerFactory
) -> None:
    server = server_factory(env=CHAOS_ENV)
    leaving: WorkerProcess = worker_factory(server.ws_url, {"GIN_AI_DRAIN_SECONDS": "0.5"})
    store = await Store.connect(redis_url)
    rooms = await _matches(server.ws_url, people=0, ai=3)
    try:
        progress: Counter[str] = Counter()
        gate = asyncio.Event()
        gate.set()
        playing = asyncio.create_task(_play_all(rooms, progress, gate))
        for room, plays in rooms:
            state = plays[0].session.room(room)
            await plays[0].session.wait_seq(room, max(state.seq, 5), timeout=30)
        # the people hold their next moves while the worker leaves: the matches stay open
        gate.clear()
        holders = {await _ai_player(store, room) for room, _ in rooms}
        assert len(holders) == 1 and None not in holders
        successor = worker_factory(server.ws_url)
        leaving.terminate()
        code = await leaving.wait(30)
        unfinished = [room for room, plays in rooms if not _finished(plays)]
        assert unfinished, "every match ended before the worker left"
        left_at = {room: plays[0].session.room(room).seq for room, plays in rooms}
        gate.set()
        finals = await asyncio.wait_for(playing, 120)
        for (room, plays), room_finals in zip(rooms, finals, strict=True):
            await check_room(store, room, plays, room_finals, TARGET)
        # a match the person's own next moves ended (a gin to the target) needed no AI
        played_on = [
            room for room, plays in rooms if room in unfinished and _ai_moved(plays, left_at[room])
        ]
        assert played_on, "no AI seat was played after the worker left"
        taken_over = [room for room in played_on if await _ai_player(store, room) not in holders]
        assert taken_over == played_on, "seats not handed over to the other worker"
        assert code == 0, leaving.log_tail()
        assert successor.running
        print(
            f"\nthe worker got SIGTERM and left after its drain time (exit {code}); "
            f"{len(taken_over)} matches it was playing were finished by the other worker"
        )
    finally:
        await _close(rooms)
        await store.close()

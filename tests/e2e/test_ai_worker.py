"""The AI worker end to end: a real server, real worker processes and a scripted person."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.ai import worker as worker_module
from client.session import RequestError, Session, View
from protocol import codec
from protocol import messages as m
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV
from tests.support.players import ai_room_with_worker, choose
from tests.support.server_process import ServerProcess

Spawn = Any
#: As the compose file runs it: the heavy levels' decisions in a process pool of one.
PROCESS_POOL = {"GIN_AI_PROCESSES": "1"}


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[WorkerProcess] = []

    def spawn(server: ServerProcess) -> WorkerProcess:
        worker = WorkerProcess(server.ws_url, tmp_path, str(len(started)), PROCESS_POOL).start()
        started.append(worker)
        return worker

    yield spawn
    for worker in started:
        worker.kill()


def settled(view: View) -> bool:
    game = view.get("game")
    return view["status"] == "finished" or bool(game and game["legal_actions"])


async def play_person(
    session: Session, room: str, rng: random.Random, until_moves: int | None = None
) -> tuple[View, int]:
    """Play the person's seat until the match ends (or ``until_moves`` moves were made)."""
    moves = 0
    while True:
        view = await session.wait_for(room, settled, timeout=60)
        if view["status"] == "finished" or (until_moves is not None and moves >= until_moves):
            return view, moves
        action = choose(view, rng)
        seq = session.room(room).seq
        try:
            ack = await session.act(room, action["kind"], action.get("card"), seq=seq)
        except RequestError as error:
            assert error.code == "stale_sequence", error
            await session.wait_seq(room, seq + 1, timeout=60)
            continue
        moves += 1
        await session.wait_seq(room, ack.result["seq"], timeout=60)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
async def test_a_whole_match_against_each_level(
    gin_server: ServerProcess, workers: Spawn, level: str
) -> None:
    workers(gin_server)
    session = await Session.connect(gin_server.ws_url, name="Person")
    try:
        ack = await session.request("create_room", mode="ai", level=level)
        room = ack.result["room"]
        final, moves = await play_person(session, room, random.Random(level))
    finally:
        await session.close()
    game = final["game"]
    assert final["status"] == "finished"
    assert final["seats"][1]["ai"] == level
    assert max(game["scores"]) >= 100
    assert final["winner"] == game["match"]["winner"]
    ai_moves = [
        move for move in game["history"] if move["seat"] == 1 and move["kind"] != "next_hand"
    ]
    assert game["results"], "no hand was played"
    assert ai_moves or game["phase"] == "match_over"
    print(f"{level}: {len(game['results'])} hands, person moves {moves}, scores {game['scores']}")


async def test_a_worker_started_before_its_server_waits_for_it(
    server_factory: Any, workers: Spawn
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV, start=False)
    worker = workers(server)
    while "server not reachable yet" not in worker.log_text():
        assert worker.running, worker.log_text()
        await asyncio.sleep(0.05)
    await server.astart()
    session = await Session.connect(server.ws_url, name="Person")
    try:
        ack = await session.request("create_room", mode="ai", level="easy", rules={"target": 30})
        final, _ = await play_person(session, ack.result["room"], random.Random(3))
    finally:
        await session.close()
    assert final["status"] == "finished"
    assert worker.running


async def test_a_second_worker_finishes_the_match_when_the_first_dies(
    gin_server: ServerProcess, workers: Spawn
) -> None:
    first = workers(gin_server)
    session = await Session.connect(gin_server.ws_url, name="Person")
    try:
        ack = await session.request("create_room", mode="ai", level="normal", rules={"target": 40})
        room = ack.result["room"]
        rng = random.Random(7)
        view, _ = await play_person(session, room, rng, until_moves=3)
        assert view["status"] == "playing"
        seq_at_kill = session.room(room).seq
        first.kill()
        workers(gin_server)
        final, _ = await play_person(session, room, rng)
        state = session.room(room)
        ai_moves_after_kill = [
            applied
            for applied in state.log
            if applied.seq > seq_at_kill and any(event.get("seat") == 1 for event in applied.events)
        ]
    finally:
        await session.close()
    assert final["status"] == "finished"
    assert max(final["game"]["scores"]) >= 40
    assert ai_moves_after_kill, "nobody played the AI seat after the first worker died"
    seqs = [applied.seq for applied in state.log]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "sequence numbers have gaps"


async def people_room_with_stand_ins(url: str) -> tuple[Session, Session, str]:
    """Ada's private room with the stand-in option, joined by Bob, dealt."""
    ada = await Session.connect(url, name="Ada")
    bob = await Session.connect(url, name="Bob", reconnect=False)
    created = await ada.request("create_room", mode="private", rules={"target": 500}, stand_in=True)
    room = created.result["room"]
    await bob.request("join_room", invite=created.result["invite"])
    await ada.wait_for(room, lambda view: view["game"] is not None, timeout=10)
    return ada, bob, room


async def ada_plays_until_the_stand_in_moved(ada: Session, room: str, since_seq: int) -> None:
    """Ada plays her turns until the AI standing in for Bob (seat 1) has made a move."""
    rng = random.Random(11)

    def stand_in_moved() -> bool:
        return any(
            applied.seq > since_seq and any(e.get("seat") == 1 for e in applied.events)
            for applied in ada.room(room).log
        )

    while not stand_in_moved():
        view, _ = await play_person(ada, room, rng, until_moves=1)
        assert view["status"] == "playing"


async def test_an_ai_stands_in_for_a_person_who_stays_away_from_a_room_between_people(
    server_factory: Any, workers: Spawn
) -> None:
    """A room between people with the stand-in option: Bob stays away past the grace while
    Ada is here, an AI plays his seat, and he gets it back on his return. (Before issue 27
    this was a room against the AI, which now waits for its person instead: test_ai_pause.)"""
    server = server_factory(env={"GIN_DISCONNECT_GRACE": "1", "GIN_RATE_BURST": "1000"})
    workers(server)
    ada, bob, room = await people_room_with_stand_ins(server.ws_url)
    token = bob.token
    try:
        await bob.close()
        standing = await ada.wait_for(
            room, lambda v: v["seats"][1]["stand_in"] is not None, timeout=30
        )
        assert standing["seats"][1]["away"] is True
        await ada_plays_until_the_stand_in_moved(ada, room, ada.room(room).seq)

        back = await Session.connect(server.ws_url, token=token)
        try:
            await back.resume(room, -1)
            returned = await back.wait_for(
                room, lambda v: v["seats"][1]["stand_in"] is None and not v["seats"][1]["away"]
            )
            assert returned["seat"] == 1
            assert returned["game"]["cards"], "the person sees their own hand again"
        finally:
            await back.close()
    finally:
        await ada.close()


async def test_a_new_worker_takes_over_a_stand_in_whose_worker_died(
    server_factory: Any, workers: Spawn
) -> None:
    """A stand-in whose worker died (as after a restart) is offered to the next worker, which
    plays the seat on. (Before issue 27 this room was against the AI, its AI seat and the
    stand-in both played by the dead worker; a worker now never plays both seats of a room.)"""
    server = server_factory(
        env={"GIN_DISCONNECT_GRACE": "1", "GIN_RATE_BURST": "1000", "GIN_AI_LEASE_SECONDS": "1"}
    )
    first = workers(server)
    ada, bob, room = await people_room_with_stand_ins(server.ws_url)
    try:
        await bob.close()
        await ada.wait_for(room, lambda v: v["seats"][1]["stand_in"] is not None, timeout=30)
        await ada_plays_until_the_stand_in_moved(ada, room, ada.room(room).seq)
        first.kill()
        killed = ada.room(room).seq
        workers(server)
        await ada_plays_until_the_stand_in_moved(ada, room, killed)
        view = ada.room(room).view
        assert view is not None and view["seats"][1]["stand_in"] is not None
    finally:
        await ada.close()


class DeafSession(Session):
    """A session that loses the room updates it is told to lose (a frame lost on the way:
    the socket and the server are real)."""

    deaf = False

    def _dispatch(self, frame: bytes | str) -> None:
        if self.deaf and isinstance(codec.decode(frame, direction="server"), m.Update):  # type: ignore[arg-type]
            self.deaf = False
            return
        super()._dispatch(frame)


async def test_a_seat_that_missed_the_update_making_it_its_turn_asks_for_it(
    gin_server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_module, "TURN_WAIT_SECONDS", 0.5)
    person, worker, room, _ = await ai_room_with_worker(gin_server.ws_url, DeafSession)
    assert isinstance(worker, DeafSession)
    try:
        view = await worker.wait_for(room, lambda v: v["status"] == "playing")
        if view["game"]["turn"] == 1:
            await worker.act(room, "pass")
        await person.wait_for(room, lambda v: bool(v["game"]["legal_actions"]))
        worker.deaf = True
        ack = await person.act(room, "pass")
        turn = await asyncio.wait_for(worker_module._await_turn(worker, room, 1), 10)
        assert turn is not None and turn["game"]["legal_actions"], turn
        assert worker.room(room).seq == ack.result["seq"]
    finally:
        await person.close()
        await worker.close()

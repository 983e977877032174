"""The same action sent many times at once: exactly one is applied, every copy is answered."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from client.session import RequestError, Session
from protocol import messages as m
from server.store import Store
from tests.support.players import close_all, private_match
from tests.support.server_process import ServerProcess

COPIES = 1000
CONNECTIONS = 10


async def _copies(
    sessions: list[Session], room: str, seq: int, action: dict[str, Any], ids: list[str]
) -> Counter[str]:
    async def one(index: int, request_id: str) -> str:
        session = sessions[index % len(sessions)]
        message = m.Act(id=request_id, room=room, seq=seq, action=m.Action(**action))
        try:
            await session.request(message, timeout=60)
        except RequestError as error:
            return error.code
        return "ack"

    answers = await asyncio.gather(*(one(i, request_id) for i, request_id in enumerate(ids)))
    return Counter(answers)


async def test_a_thousand_copies_of_one_act_apply_once(
    gin_server: ServerProcess, redis_url: str
) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=100)
    # more connections of each player (same token): the copies race from all of them
    conns: dict[int, list[Session]] = {0: [a], 1: [b]}
    for seat, session in ((0, a), (1, b)):
        for _ in range(CONNECTIONS - 1):
            conns[seat].append(await Session.connect(gin_server.ws_url, token=session.token))
    store = await Store.connect(redis_url)
    try:
        view = await a.wait_for(room, lambda v: v["game"]["phase"] == "first_offer")
        seq = a.room(room).seq
        assert await store.room_version(room) == seq

        # 1. distinct request ids, same seq: one ack, every other copy refused
        ids = [f"race-{i}" for i in range(COPIES)]
        answers = await _copies(conns[view["game"]["turn"]], room, seq, {"kind": "pass"}, ids)
        assert answers["ack"] == 1, answers
        assert answers["ack"] + answers["stale_sequence"] + answers["duplicate_request"] == COPIES
        assert await store.room_version(room) == seq + 1
        seq += 1

        # 2. the SAME request id, many times, from every connection of the player
        view = await a.wait_for(room, lambda v: v["game"]["phase"] == "second_offer")
        same = ["same-id"] * COPIES
        answers = await _copies(conns[view["game"]["turn"]], room, seq, {"kind": "pass"}, same)
        assert answers["ack"] == 1, answers
        assert answers["ack"] + answers["stale_sequence"] + answers["duplicate_request"] == COPIES
        assert await store.room_version(room) == seq + 1
        seq += 1

        for session in (a, b):
            view = await session.wait_seq(room, seq)
            assert session.room(room).seq == seq
            assert view["game"]["phase"] == "first_draw"
            assert [entry["kind"] for entry in view["game"]["history"]] == ["pass", "pass"]
        changes = await store.changes_since(room, -1)
        assert changes is not None and [number for number, _ in changes] == list(range(seq + 1))
    finally:
        await store.close()
        await close_all(*conns[0], *conns[1])

"""Whole matches on a Redis Cluster: two server processes in cluster mode (commits wait for a
replica), one AI worker. At once: a person against each AI level, two people on the two
processes, and a quick match across them, every match to its end. Then: the scores against
the truth in Redis, the replays served by ``/api/hands``, the statistics, the list of recent
hands, and no frame showing a card its recipient may not see."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from client.session import Session
from protocol.scoring import MATCH_TARGET
from server.store import Store
from tests.cluster.conftest import CLUSTER_CONFIG, CLUSTER_ENV
from tests.deploy.matches import Played, check_match, play_to_end, stats_agree
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.players import leaks, truth, visible_cards
from tests.support.server_process import http_get

TARGET = 100
LEVELS = ("easy", "normal", "hard")


async def test_matches_against_every_ai_level_and_between_people_on_two_processes(
    server_factory: ServerFactory,
    worker_factory: type[WorkerProcess],
    redis_url: str,
    tmp_path: Path,
) -> None:
    first, second = server_factory(env=CLUSTER_ENV), server_factory(env=CLUSTER_ENV)
    worker_factory(first.ws_url, tmp_path, "w1", env={"GIN_AI_THINK_SECONDS": "0"}).start()
    people = {
        name: await Session.connect(server.ws_url, name=name, record=True)
        for name, server in (
            ("easy", second), ("normal", first), ("hard", second),
            ("bob", first), ("cy", second), ("dee", first), ("eve", second),
        )
    }  # fmt: skip
    store = await Store.connect(redis_url, CLUSTER_CONFIG)
    try:
        rooms: dict[str, str] = {}
        for level in LEVELS:
            created = await people[level].request(
                "create_room", mode="ai", level=level, rules={"target": TARGET}, public=True
            )
            rooms[level] = created.result["room"]
        invite = await people["bob"].request(
            "create_room", mode="private", rules={"target": TARGET}, public=True
        )
        rooms["people"] = invite.result["room"]
        await people["cy"].request("join_room", invite=invite.result["invite"])
        assert (await people["dee"].request("quick_match")).result["queued"] is True
        paired = await people["eve"].request("quick_match")
        rooms["quick"] = paired.result["room"]

        seats = [(level, rooms[level], 0) for level in LEVELS]
        seats += [("bob", rooms["people"], 0), ("cy", rooms["people"], 1)]
        seats += [("dee", rooms["quick"], 0), ("eve", rooms["quick"], 1)]
        played: list[Played] = await asyncio.gather(
            *(
                play_to_end(people[name], room, random.Random(name), timeout=240)
                for name, room, _ in seats
            )
        )
        by_name = {name: play for (name, _, _), play in zip(seats, played, strict=True)}
        api = first.http_url
        for level in LEVELS:
            assert by_name[level].final["seats"][1]["ai"] == level
            checked = await check_match(store, rooms[level], [by_name[level]], TARGET, api)
            await stats_agree(people[level], [checked], 0)
        people_match = await check_match(
            store, rooms["people"], [by_name["bob"], by_name["cy"]], TARGET, second.http_url
        )
        await stats_agree(people["bob"], [people_match], 0)
        await stats_agree(people["cy"], [people_match], 1)
        quick = await check_match(
            store, rooms["quick"], [by_name["dee"], by_name["eve"]], MATCH_TARGET, api
        )
        await stats_agree(people["dee"], [quick], 0)
        await stats_agree(people["eve"], [quick], 1)

        # every room is public (since privacy, only public rooms' hands are listed)
        status, body = await asyncio.to_thread(http_get, f"{second.http_url}/api/hands?limit=100")
        assert status == 200, body[:200]
        listed = {hand["room"] for hand in json.loads(body)["hands"]}
        assert set(rooms.values()) <= listed, (listed, rooms)

        for name, room, seat in seats:  # the leak check, frame by frame
            session = people[name]
            assert session.frames is not None and not session.bad_frames
            allowed: dict[str, Any] = {room: visible_cards(await truth(store, room), seat)}
            found = leaks([f for f in session.frames if getattr(f, "room", room) == room], allowed)
            assert not found, f"{name} saw: {found[:5]}"
    finally:
        await asyncio.gather(*(session.close() for session in people.values()))
        await store.close()

"""Finished hands are recorded whole although the stored room holds no hand log: a process
that did not see the whole hand (its cached room came from the other process's commits, without
a log) reads it back from the room's change stream."""

from __future__ import annotations

from typing import Any

from server.store import Store
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, play_match, private_match, replay_hands, truth

ROOM_EVENTS = {"room", "forfeit", "rematch", "timeout", "presence", "stand_in"}


def hand_logs(changes: list[tuple[int, int | None, list[dict[str, Any]]]]) -> list[list[Any]]:
    """Each hand's game events, from its deal up to the next deal, from the change stream."""
    hands: list[list[Any]] = []
    for _seq, _actor, events in changes:
        for event in events:
            if event["type"] in ROOM_EVENTS:
                continue
            if event["type"] == "deal":
                hands.append([])
            hands[-1].append(event)
    return hands


async def test_hand_records_of_a_match_played_on_two_processes(
    server_factory: ServerFactory, redis_url: str
) -> None:
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(first.ws_url, second.ws_url, target=60)
    store = await Store.connect(redis_url)
    try:
        await play_match([a, b], room, seed=5, greedy=0.9)
        final = await a.wait_for(room, lambda v: v["status"] == "finished")
        expected = hand_logs(await truth(store, room))
        assert len(expected) == len(final["game"]["results"]) >= 1
        for number, events in enumerate(expected, start=1):
            status, record = await first.aget_json(f"/api/hands/{room}-{number}")
            assert status == 200, record
            assert record["events"] == events, number
            assert record["hand"] == number
            replay_hands(record["events"])
    finally:
        await store.close()
        await close_all(a, b)

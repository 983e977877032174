"""The reads of a friends list against a real Redis (``server.store.presence``,
``server.store.friends``, ``server.store.blocks``): presence over several processes, an
entry past its time not counted; and many players' cards, blocks and presence asked at once
on the pipelined connection, each caller with its own answer."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server import keys
from server.store import Store


async def test_presence_counts_each_process_until_its_time_and_lists_the_rooms_once(
    store: Store,
) -> None:
    assert not (await store.presence_of("pNobody")).online
    await store.put_presence("proc-a", {"pAda": "rOne", "pBob": None}, 60_000)
    await store.put_presence("proc-b", {"pAda": "rTwo"}, 60_000)
    await store.put_presence("proc-c", {"pAda": "rOne"}, 60_000)
    seen = await store.presence_of("pAda")
    assert (seen.online, seen.rooms) == (True, ("rOne", "rTwo"))
    assert (await store.presence_of("pBob")).rooms == ()

    await store.put_presence("proc-a", {"pCy": "rOld"}, 1)  # its process stops renewing it
    await asyncio.sleep(0.01)
    assert not (await store.presence_of("pCy")).online

    await store.drop_presence("proc-b", "pAda")
    await store.drop_presence("proc-c", "pAda")
    assert (await store.presence_of("pAda")).rooms == ("rOne",)
    await store.drop_presence("proc-a", "pAda")
    assert not (await store.presence_of("pAda")).online
    card = await store.friend_card("pAda")
    assert card is None  # seen, but no handle: nobody a friends list shows


async def test_a_hundred_players_read_at_once_each_get_their_own_answer(
    store: Store, raw: Redis
) -> None:
    players = [f"pMany{index}" for index in range(100)]
    for index, player in enumerate(players):
        if index % 5 != 0:  # every fifth has no handle: a guest, or an account deleted
            await raw.hset(keys.player(player), mapping={"handle": f"H{index}", "name": "N"})
        if index % 3 == 0:
            await store.add_block(player, "pMe", 0)
        if index % 2 == 0:
            await store.put_presence("proc-a", {player: None}, 60_000)
    blocked, presences, cards = await asyncio.gather(
        asyncio.gather(*(store.blocks(player, "pMe") for player in players)),
        asyncio.gather(*(store.presence_of(player) for player in players)),
        asyncio.gather(*(store.friend_card(player) for player in players)),
    )
    assert blocked == [index % 3 == 0 for index in range(100)]
    assert [seen.online for seen in presences] == [index % 2 == 0 for index in range(100)]
    assert [card.handle if card else None for card in cards] == [
        None if index % 5 == 0 else f"H{index}" for index in range(100)
    ]
    assert not await store.blocks("pMe", players[0])  # one direction only

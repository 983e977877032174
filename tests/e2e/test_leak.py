"""No frame ever shows a card its recipient may not see (RULES.md, "What each party may see").

Many short matches (target 10) in several rooms at once; every frame that reached each seat
and a spectator is checked against the room's full-information stream in Redis: a recipient
may see its own hand (and cards it held earlier in the hand), every card that was face up
(upcard, discards, cards taken from the pile), and everything once the hand is over.
"""

from __future__ import annotations

import asyncio

from client.session import Session
from protocol import messages as m
from server.store import Store
from tests.support.players import (
    cards_in,
    close_all,
    leaks,
    play_match,
    redacted,
    truth,
    visible_cards,
)
from tests.support.server_process import ServerProcess

MATCHES = 200
ROOMS_AT_ONCE = 10
GREEDY = (0.8, 0.95, 1.0)


async def _series(url: str, worker: int, matches: int) -> tuple[list[Session], list[str]]:
    a = await Session.connect(url, name=f"Ada{worker}", record=True)
    b = await Session.connect(url, name=f"Bob{worker}", record=True)
    spectator = await Session.connect(url, name=f"Sam{worker}", record=True)
    rooms = []
    for index in range(matches):
        created = await a.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        rooms.append(room)
        await spectator.request("watch", room=room, watch_token=created.result["watch_token"])
        await b.request("join_room", invite=created.result["invite"])
        greedy = GREEDY[index % len(GREEDY)]
        await play_match([a, b], room, seed=worker * 1000 + index, greedy=greedy)
        await spectator.wait_for(room, lambda view: view["status"] == "finished")
    return [a, b, spectator], rooms


async def test_no_frame_shows_a_card_its_recipient_may_not_see(
    gin_server: ServerProcess, redis_url: str
) -> None:
    per_worker = MATCHES // ROOMS_AT_ONCE
    results = await asyncio.gather(
        *(_series(gin_server.ws_url, worker, per_worker) for worker in range(ROOMS_AT_ONCE))
    )
    store = await Store.connect(redis_url)
    frames_checked = 0
    cards_checked = 0
    hands = 0
    try:
        for sessions, rooms in results:
            streams = {room: await truth(store, room) for room in rooms}
            hands += sum(
                1
                for changes in streams.values()
                for _, _, events in changes
                for event in events
                if event["type"] == "hand_over"
            )
            for session, seat in zip(sessions, (0, 1, None), strict=True):
                assert session.frames is not None and not session.bad_frames
                allowed = {room: visible_cards(streams[room], seat) for room in rooms}
                found = leaks(session.frames, allowed)
                assert not found, f"seat {seat} saw: {found[:5]}"
                frames_checked += len(session.frames)
                cards_checked += sum(len(cards_in(m.to_wire(f))) for f in session.frames)
                # every update is exactly the server's redaction of that change, in order
                for room in rooms:
                    state = session.room(room)
                    full = {seq: events for seq, _, events in streams[room]}
                    first = 0 if seat is not None else state.log[0].seq
                    if seat is None:
                        assert state.log[0].snapshot
                    numbers = [applied.seq for applied in state.log]
                    assert numbers == list(range(first, first + len(numbers)))
                    assert numbers[-1] == max(full)
                    for applied in state.log:
                        if applied.snapshot:
                            continue
                        expected = [redacted(event, seat) for event in full[applied.seq]]
                        assert list(applied.events) == expected, (room, applied.seq)
    finally:
        await store.close()
        await close_all(*(session for sessions, _ in results for session in sessions))
    assert hands >= MATCHES
    print(
        f"leak check: {MATCHES} matches, {hands} hands, {frames_checked} frames, "
        f"{cards_checked} card mentions checked"
    )

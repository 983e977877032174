"""A server process dies (kill -9) or restarts (SIGTERM) in the middle of a hand: the clients
reconnect to the new process on the same port, resume, and finish the match with every action
applied exactly once."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from typing import Any

import pytest

from protocol import messages as m
from server.store import Store
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import (
    PLAYING,
    PlayerLog,
    action_matches,
    assert_gap_free,
    check_view,
    close_all,
    play,
    private_match,
    redacted,
    truth,
    unless_failed,
)

#: Long enough that the match is never over before the restart (seq 25, a few hands at most).
TARGET = 100


def _check_applied_once(
    seat: int, log: PlayerLog, changes: list[tuple[int, int | None, list[dict[str, Any]]]]
) -> int:
    """Every acked action is the change its ack named; every action whose answer was lost
    is there at most once; nothing else of this seat's is. Returns the lost ones applied."""
    by_seq = {seq: (actor, events) for seq, actor, events in changes}
    mine = {seq for seq, actor, events in changes if actor == seat and seq > 0}
    accounted = set()
    for seq, action in log.acked:
        actor, events = by_seq[seq]
        assert actor == seat and action_matches(action, events), (seq, action, events)
        accounted.add(seq)
    applied_lost = 0
    for seq_on, action in log.lost:
        actor, events = by_seq.get(seq_on + 1, (None, []))
        if actor == seat and seq_on + 1 not in accounted and action_matches(action, events):
            accounted.add(seq_on + 1)
            applied_lost += 1
    assert mine == accounted, sorted(mine ^ accounted)
    return applied_lost


@pytest.mark.parametrize("crash", [True, False], ids=["kill-9", "sigterm"])
async def test_server_restart_mid_hand_resume_and_finish(
    server_factory: ServerFactory, redis_url: str, crash: bool
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=TARGET, record=True)
    store = await Store.connect(redis_url)
    try:
        players = [
            asyncio.create_task(play(session, room, random.Random(f"restart/{seat}")))
            for seat, session in enumerate((a, b))
        ]
        state = a.room(room)
        await unless_failed(
            a.wait_for(
                room, lambda view: state.seq >= 25 and view["game"]["phase"] in PLAYING, timeout=30
            ),
            players,
        )
        if crash:
            # SIGKILL in the same loop step as the check: the hand is in play
            assert server.pid is not None
            os.kill(server.pid, signal.SIGKILL)
            await server.akill()
        else:
            await server.astop()  # one SIGTERM: a second one would force an exit
        killed_at = await store.room_version(room)
        assert killed_at is not None
        await server.astart()
        logs = await asyncio.wait_for(asyncio.gather(*players), 90)
        changes = await truth(store, room)

        final = [await s.wait_for(room, lambda v: v["status"] == "finished") for s in (a, b)]
        assert final[0]["game"]["scores"] == final[1]["game"]["scores"]
        assert max(final[0]["game"]["scores"]) >= TARGET
        assert final[0]["winner"] == final[1]["winner"] is not None
        check_view(final[0])
        check_view(final[1])
        # play went on after the restart
        assert changes[-1][0] > killed_at

        for seat, (session, log) in enumerate(zip((a, b), logs, strict=True)):
            assert session.connections >= 2, "the client never reconnected"
            assert not session.bad_frames
            assert_gap_free(session, room)
            assert session.room(room).seq == changes[-1][0]
            for applied in session.room(room).log:
                expected = [redacted(event, seat) for event in changes[applied.seq][2]]
                assert list(applied.events) == expected, applied.seq
            _check_applied_once(seat, log, changes)
            assert log.acked
            if not crash:
                assert session.frames is not None
                told = [f for f in session.frames if isinstance(f, m.Reconnect)]
                assert told, "a graceful shutdown must say reconnect"
    finally:
        await store.close()
        await close_all(a, b)


async def test_reconnect_after_the_server_is_gone_for_a_while(
    server_factory: ServerFactory,
) -> None:
    """Exponential backoff: the client keeps trying while nothing listens, then resumes."""
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=10)
    try:
        before = a.room(room).seq
        await server.akill()
        await asyncio.sleep(1.5)  # several failed attempts
        assert not a.connected
        await server.astart()
        await a.ping(timeout=15)
        await b.ping(timeout=15)
        assert a.connected and b.connected
        assert a.room(room).seq >= before
        await asyncio.gather(
            play(a, room, random.Random(1)),
            play(b, room, random.Random(2)),
        )
        assert_gap_free(a, room)
        assert_gap_free(b, room)
    finally:
        await close_all(a, b)


async def test_idle_timeout_bye_and_the_client_comes_back(server_factory: ServerFactory) -> None:
    """The server says ``bye idle_timeout`` to a silent connection: the client reconnects by
    itself, resumes its room and plays on."""
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_IDLE_TIMEOUT": "1"})
    a, b, room = await private_match(server.ws_url, server.ws_url, target=10, record=True)
    try:
        await asyncio.sleep(2.5)  # silent for longer than the idle timeout
        assert a.last_bye is not None and a.last_bye.code == "idle_timeout"
        await a.wait_connected(timeout=10)
        await b.wait_connected(timeout=10)
        assert a.connections >= 2 and b.connections >= 2
        await asyncio.gather(play(a, room, random.Random(7)), play(b, room, random.Random(8)))
        assert_gap_free(a, room)
        assert_gap_free(b, room)
        final = await a.wait_for(room, lambda v: v["status"] == "finished")
        assert max(final["game"]["scores"]) >= 10
    finally:
        await close_all(a, b)

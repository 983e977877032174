"""Quick messages (``say`` / ``said``) between the two players of a room, on two server
processes: delivered to the other seat only, never to a watcher, refused with their own codes,
rate limited per seat across processes, and never stored (``docs/protocol.md``, ``say``)."""

from __future__ import annotations

import pytest

from client.session import Session
from protocol import codec
from protocol import messages as m
from server.store import Store
from tests.e2e.talk import barrier, said_to, saids, table
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error, play_match, private_match, truth
from tests.support.server_process import WORKER_KEY, ServerProcess


@pytest.mark.shared_server
async def test_a_phrase_reaches_the_other_seat_on_another_process_and_no_watcher(
    server_factory: ServerFactory,
) -> None:
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    players = await table(first.ws_url, second.ws_url)
    room = players.room
    try:
        ack = await players.ada.request("say", room=room, phrase="good_luck")
        heard = await said_to(players.bob, room)
        assert (heard.seat, heard.phrase, heard.at) == (0, "good_luck", ack.result["at"])
        ack = await players.bob.request("say", room=room, phrase="heart")
        heard = await said_to(players.ada, room)
        assert (heard.seat, heard.phrase, heard.at) == (1, "heart", ack.result["at"])
        await barrier(players, players.ada, players.bob, *players.watchers)
        for watcher in players.watchers:
            assert saids(watcher) == [], watcher.name
        assert [said.phrase for said in saids(players.bob)] == ["good_luck"]
        assert [said.phrase for said in saids(players.ada)] == ["heart"]
    finally:
        await players.close()


@pytest.mark.shared_server
async def test_every_connection_of_the_other_seat_hears_it_but_a_1_0_client(
    server_factory: ServerFactory,
) -> None:
    """Bob in two tabs (one on each process) hears Ada in both; a client that said hello
    with protocol 1.0 never gets a message type it does not know."""
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    players = await table(first.ws_url, second.ws_url)
    room = players.room
    tab = await Session.connect(first.ws_url, token=players.bob.token, record=True)
    old = await Session.connect(second.ws_url, token=players.bob.token, version="1.0", record=True)
    try:
        for session in (tab, old):
            await session.request("resume", room=room, last_seq=-1)
            await session.wait_for(room, lambda view: view["game"] is not None)
        await players.ada.request("say", room=room, phrase="well_played")
        for session in (players.bob, tab):
            assert (await said_to(session, room)).phrase == "well_played"
        await barrier(players, old, *players.watchers)
        assert saids(old) == []
        assert all(saids(watcher) == [] for watcher in players.watchers)
        assert saids(players.ada) == []  # not echoed to the speaker
    finally:
        await close_all(tab, old)
        await players.close()


async def test_bad_phrases_and_strangers_are_refused_and_the_connection_survives(
    gin_server: ServerProcess,
) -> None:
    ada, bob, room = await private_match(gin_server.ws_url, gin_server.ws_url, record=True)
    token = (await ada.wait_for(room))["watch_token"]
    watcher = await Session.connect(gin_server.ws_url, name="Sam")
    worker = await Session.connect(gin_server.ws_url, name="Bot", worker_key=WORKER_KEY)
    try:
        cases: list[tuple[dict[str, object], str, str]] = [
            (
                {"t": "say", "id": "s1", "room": room, "phrase": "you cheat"},
                "invalid_argument",
                "phrase",
            ),
            ({"t": "say", "id": "s2", "room": room, "phrase": ""}, "invalid_argument", "phrase"),
            ({"t": "say", "id": "s3", "room": room, "phrase": 7}, "bad_message", "phrase"),
            ({"t": "say", "id": "s4", "room": room}, "bad_message", "phrase"),
        ]
        for frame, code, field in cases:
            answer = await ada.raw_request(codec.pack(frame), str(frame["id"]))
            assert isinstance(answer, m.Error), answer
            assert (answer.code, (answer.detail or {}).get("field")) == (code, field)
        await watcher.request("watch", room=room, watch_token=token)
        await expect_error("not_a_player", watcher.request("say", room=room, phrase="hello"))
        await expect_error("not_a_player", worker.request("say", room=room, phrase="hello"))
        await expect_error("not_found", ada.request("say", room="r-nowhere", phrase="hello"))
        # the connections are still there and still work
        await ada.request("say", room=room, phrase="oops")
        assert (await said_to(bob, room)).phrase == "oops"
        await watcher.request("stats")
        assert not ada.bad_frames and ada.connected and watcher.connected
        status, metrics = await gin_server.aget("/metrics")
        assert status == 200
        assert "gin_quick_messages_total 1.0" in metrics.decode()
        assert 'gin_errors_total{code="not_a_player"} 2.0' in metrics.decode()
    finally:
        await close_all(ada, bob, watcher, worker)


async def test_the_rate_limit_counts_per_seat_across_processes(
    server_factory: ServerFactory,
) -> None:
    env = {**FAST_CLIENT_ENV, "GIN_TALK_BURST": "2", "GIN_TALK_SECONDS": "600"}
    first, second = server_factory(env=env), server_factory(env=env)
    players = await table(first.ws_url, second.ws_url)
    room = players.room
    other_tab = await Session.connect(second.ws_url, token=players.ada.token)
    try:
        await players.ada.request("say", room=room, phrase="hello")
        await other_tab.request("say", room=room, phrase="good_luck")
        for session in (players.ada, other_tab):
            error = await expect_error(
                "too_many_phrases", session.request("say", room=room, phrase="oops")
            )
            assert error.detail["limit"] == 2
            assert 0 < error.detail["retry_ms"] <= 600_000
        # Bob's allowance is his own, and every connection is still up
        await players.bob.request("say", room=room, phrase="thanks")
        assert (await said_to(players.ada, room)).phrase == "thanks"
        await barrier(players, players.bob)
        assert [said.phrase for said in saids(players.bob)] == ["hello", "good_luck"]
        await other_tab.request("stats")
    finally:
        await other_tab.close()
        await players.close()


@pytest.mark.shared_server
async def test_quick_messages_are_not_stored_in_the_room_history_or_replays(
    server_factory: ServerFactory, redis_url: str
) -> None:
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    players = await table(first.ws_url, second.ws_url)
    room = players.room
    store = await Store.connect(redis_url)
    try:
        before = await truth(store, room)
        version = await store.room_version(room)
        await players.ada.request("say", room=room, phrase="thinking")
        await players.bob.request("say", room=room, phrase="nice_move")
        await said_to(players.ada, room)
        assert await store.room_version(room) == version
        assert await truth(store, room) == before
        # the whole match later, each hand's replay record holds its moves and nothing said
        await players.ada.request("say", room=room, phrase="good_game")
        await said_to(players.bob, room)
        await play_match([players.ada, players.bob], room, seed=17, greedy=0.95)
        final = await players.ada.wait_for(room, lambda view: view["status"] == "finished")
        for number in range(1, len(final["game"]["results"]) + 1):
            status, record = await first.aget_json(f"/api/hands/{room}-{number}")
            assert status == 200, record
            assert all(event["type"] != "said" for event in record["events"])
            for phrase in ("thinking", "nice_move", "good_game"):
                assert phrase not in repr(record)
        changes = await truth(store, room)
        assert all(event["type"] != "said" for _, _, events in changes for event in events)
    finally:
        await store.close()
        await players.close()

"""Rooms and the lobby through real processes: invites, quick match, leaving (forfeit),
rematch, stats, recent hands and their replays, and the HTTP endpoints."""

from __future__ import annotations

import asyncio
import json
import random
import re

import msgpack
import pytest

from client.session import Session
from protocol import messages as m
from protocol.ai_ratings import LEVEL_RATINGS
from tests.support.players import (
    check_view,
    close_all,
    expect_error,
    play,
    play_match,
    private_match,
    replay_hands,
)
from tests.support.server_process import ServerProcess


@pytest.mark.shared_server
async def test_invite_flow(gin_server: ServerProcess) -> None:
    a = await Session.connect(gin_server.ws_url, name="Host")
    b = await Session.connect(gin_server.ws_url, name="Guest")
    c = await Session.connect(gin_server.ws_url, name="Third")
    try:
        created = await a.request("create_room", mode="private", rules={"target": 50})
        room, invite = created.result["room"], created.result["invite"]
        assert created.result["seat"] == 0 and invite
        waiting = await a.wait_for(room)
        assert waiting["status"] == "waiting" and waiting["game"] is None
        await expect_error("not_found", c.request("join_room", invite="NOSUCHCODE"))
        await expect_error("not_found", c.request("join_room", room="r-no-such-room"))
        joined = await b.request("join_room", invite=invite.lower())  # codes are case-blind
        assert joined.result == {"room": room, "seat": 1}
        for session in (a, b):
            view = await session.wait_for(room, lambda v: v["status"] == "playing")
            assert [seat["name"] for seat in view["seats"]] == ["Host", "Guest"]
            assert view["game"]["rules"]["target"] == 50
            check_view(view)
        await expect_error("room_full", c.request("join_room", invite=invite))
        # by its id alone a private room is not there for a stranger (docs/protocol.md, Privacy)
        await expect_error("not_found", c.request("join_room", room=room))
        # joining again is harmless: the same seat
        again = await b.request("join_room", room=room)
        assert again.result["seat"] == 1
        # the codec refuses what the typed client cannot even build
        for bad in ({"mode": "private", "level": "easy"}, {"mode": "ai"}, {"mode": "solo"}):
            frame = msgpack.packb({"t": "create_room", "id": "bad", **bad})
            answer = await a.raw_request(frame, "bad")
            assert isinstance(answer, m.Error) and answer.code == "invalid_argument", answer
    finally:
        await close_all(a, b, c)


async def test_quick_match_pairs_two_players(gin_server: ServerProcess) -> None:
    first = await Session.connect(gin_server.ws_url, name="Early")
    second = await Session.connect(gin_server.ws_url, name="Late")
    third = await Session.connect(gin_server.ws_url, name="Alone")
    try:
        queued = await first.request("quick_match")
        assert queued.result["queued"] is True
        paired = await second.request("quick_match")
        assert paired.result["queued"] is False
        room = paired.result["room"]
        # The waiting player is answered with the room at once; the pairing is that room's
        # update (docs/protocol.md, quick_match): no room_assigned is sent.
        assert (queued.result["room"], queued.result["seat"]) == (room, 0)
        assert paired.result["seat"] == 1
        views = [
            await session.wait_for(room, lambda v: v["status"] == "playing", timeout=10)
            for session in (first, second)
        ]
        assert [view["seat"] for view in views] == [0, 1]
        unasked = [first.inbox.get_nowait() for _ in range(first.inbox.qsize())]
        assert not [frame for frame in unasked if isinstance(frame, m.RoomAssigned)]
        assert views[0]["seats"][1]["name"] == "Late"
        await asyncio.gather(
            play(first, room, random.Random(1), until_seq=12),
            play(second, room, random.Random(2), until_seq=12),
        )
        # waiting alone, then giving up
        assert (await third.request("quick_match")).result["queued"] is True
        await expect_error("already_in_queue", third.request("quick_match"))
        assert (await third.request("cancel_quick_match")).result["cancelled"] is True
        assert (await third.request("cancel_quick_match")).result["cancelled"] is False
    finally:
        await close_all(first, second, third)


@pytest.mark.shared_server
async def test_leaving_forfeits_and_rematch_starts_a_new_room(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=100)
    try:
        await asyncio.gather(
            play(a, room, random.Random(1), until_seq=10),
            play(b, room, random.Random(2), until_seq=10),
        )
        assert (await a.wait_for(room))["status"] == "playing"
        await a.request("leave", room=room)
        view = await b.wait_for(room, lambda v: v["status"] == "finished")
        assert view["forfeit"] == 0 and view["winner"] == 1
        assert (await a.request("stats")).result["matches"] == 1
        assert (await a.request("stats")).result["wins"] == 0
        stats_b = (await b.request("stats")).result
        assert stats_b["matches"] == 1 and stats_b["wins"] == 1
        await expect_error("illegal_action", b.act(room, "draw_stock"))

        asked = await a.request("rematch", room=room)
        assert asked.result.get("room") is None
        agreed = await b.request("rematch", room=room)
        new_room = agreed.result["room"]
        assert new_room and new_room != room
        seen = await b.wait_for(room, lambda v: v["next_room"] is not None)
        assert seen["next_room"] == new_room
        for session, seat in ((a, 0), (b, 1)):
            joined = await session.request("join_room", room=new_room)
            assert joined.result["seat"] == seat
            fresh = await session.wait_for(new_room, lambda v: v["status"] == "playing")
            assert fresh["game"]["scores"] == [0, 0] and fresh["game"]["hand"] == 1
            assert fresh["game"]["rules"]["target"] == 100
            check_view(fresh)
        await asyncio.gather(
            play(a, new_room, random.Random(3), until_seq=8),
            play(b, new_room, random.Random(4), until_seq=8),
        )
    finally:
        await close_all(a, b)


async def test_stats_lobby_and_replays_of_finished_hands(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=60, public=True)
    try:
        await play_match([a, b], room, seed=11, greedy=0.9)
        final = await a.wait_for(room, lambda v: v["status"] == "finished")
        game = final["game"]
        results = game["results"]
        winner = final["winner"]
        assert winner == game["match"]["winner"]

        for session, seat in ((a, 0), (b, 1)):
            stats = (await session.request("stats")).result
            mine = [r for r in results if r["winner"] == seat]
            assert stats["matches"] == 1 and stats["wins"] == (1 if winner == seat else 0)
            assert stats["hands"] == len(results)
            assert stats["points"] == sum(r["points"] for r in mine) == game["scores"][seat]
            assert stats["gins"] == sum(1 for r in mine if r["kind"] == "gin")
            assert stats["undercuts"] == sum(1 for r in mine if r["kind"] == "undercut")

        hand_ids = [f"{room}-{number}" for number in range(1, len(results) + 1)]
        lobby = (await a.request("lobby")).result
        listed = [entry["id"] for entry in lobby["recent_hands"]]
        assert listed == hand_ids[::-1][:20]  # newest first, 20 at most
        assert all(entry["room"] == room for entry in lobby["recent_hands"])
        assert [entry["id"] for entry in lobby["my_hands"]] == hand_ids[::-1][:20]

        # every hand, every card: the events replay it to the hands shown at its end
        hands_over = [
            event
            for applied in a.room(room).log
            for event in applied.events
            if event["type"] == "hand_over"
        ]
        assert len(hands_over) == len(results)
        for hand_id, shown in zip(hand_ids, hands_over, strict=True):
            status, record = await gin_server.aget_json(f"/api/hands/{hand_id}")
            assert status == 200, record
            events = record["events"]
            assert events[0]["type"] == "deal" and len(events[0]["stock"]) == 31
            dealt = [*events[0]["hands"][0], *events[0]["hands"][1]]
            assert len(set(dealt + events[0]["stock"] + [events[0]["upcard"]])) == 52
            rebuilt = replay_hands(events)
            end = next(e for e in events if e["type"] == "hand_over")
            assert rebuilt == [sorted(h, key=_order) for h in end["hands"]]
            assert [sorted(h, key=_order) for h in shown["hands"]] == rebuilt
            assert record["result"]["kind"] == shown["kind"]
        status, _ = await gin_server.aget(f"/api/hands/{room}-99")
        assert status == 404
        status, _ = await gin_server.aget("/api/hands/bad%20id")
        assert status == 404
        status, body = await gin_server.aget_json("/api/hands?limit=5")
        assert status == 200 and len(body["hands"]) == min(5, len(hand_ids))
    finally:
        await close_all(a, b)


def _order(card: str) -> int:
    from protocol.cards import card_index  # noqa: PLC0415

    return card_index(card)


async def test_http_endpoints_and_metrics(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=10)
    try:
        await play_match([a, b], room, seed=3, greedy=1.0)
        await expect_error("not_found", a.act("r-no-such-room", "pass", seq=0))
        status, body = await gin_server.aget("/readyz")
        assert status == 200 and json.loads(body)["status"] == "ready"
        status, _ = await gin_server.aget("/healthz")
        assert status == 200
        status, raw = await gin_server.aget("/metrics")
        assert status == 200
        text = raw.decode()
        for name in (
            "gin_connections",
            "gin_actions_total",
            "gin_errors_total",
            "gin_action_latency_seconds_bucket",
            "gin_action_latency_seconds_count",
        ):
            assert re.search(rf"^{name}[{{ ]", text, re.M), name
        connections = _metric(text, "gin_connections")
        assert connections >= 2
        # Each turn ends in a discard, a knock or gin; a match to 10 may end in one hand
        # without a plain discard (the upcard taken and a knock at once): CI, once.
        actions = _by_label(text, "gin_actions_total")
        assert sum(actions.get(f'kind="{kind}"', 0) for kind in ("discard", "knock", "gin")) > 0
        moves = sum(actions.values())
        assert _metric(text, 'gin_errors_total{code="not_found"}') >= 1
        assert _metric(text, "gin_frames_in_total") >= moves
        assert _metric(text, "gin_frames_out_total") > _metric(text, "gin_frames_in_total")
        assert _metric(text, "gin_action_latency_seconds_count") >= moves
        status, page = await gin_server.aget("/")
        assert status == 200 and page
    finally:
        await close_all(a, b)


def _by_label(text: str, name: str) -> dict[str, float]:
    """The values of a labelled metric by their labels (``kind="discard"``: 12.0, ...)."""
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) + 1 :].rsplit("} ", 1)
            found[labels] = float(value)
    return found


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no metric {name}")


@pytest.mark.shared_server
async def test_the_hello_ack_gives_each_ai_level_its_rating_from_the_league_table(
    gin_server: ServerProcess,
) -> None:
    session = await Session.connect(gin_server.ws_url, name="Ada")
    try:
        assert session.server_info["ai_ratings"] == dict(LEVEL_RATINGS)
        assert set(session.server_info["ai_ratings"]) == {"easy", "normal", "hard"}
    finally:
        await session.close()

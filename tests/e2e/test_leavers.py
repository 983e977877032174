"""Leavers in rooms between people, end to end (real server, real Redis, real AI worker): the
turn clock with its bank by default, and the choice a person gets when the opponent stays
away past the grace: claim the win, or let an AI stand in until the opponent is back."""

from __future__ import annotations

import random
from typing import Any

from client.session import Session, View
from tests.e2e.test_ai_worker import Spawn, play_person, workers  # noqa: F401
from tests.support.players import choose, close_all, expect_error, private_match

#: A grace so long that no test outlives it: a claim is always too early.
LONG_GRACE = {"GIN_DISCONNECT_GRACE": "3600"}
SHORT_GRACE = {"GIN_DISCONNECT_GRACE": "1", "GIN_RATE_BURST": "1000"}


def choice_open(seat: int) -> Any:
    return lambda view: bool(view["seats"][seat]["away_choice"])


def events_of(session: Session, room: str, kind: str) -> list[dict[str, Any]]:
    return [
        dict(event)
        for applied in session.room(room).log
        for event in applied.events
        if event.get("type") == kind
    ]


async def test_a_private_room_has_a_turn_clock_and_a_bank_by_default(gin_server: Any) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    try:
        view = a.view(room)
        assert view is not None
        assert view["turn_seconds"] == 30 and view["turn_bank"] == 120
        assert view["banks"] == [120.0, 120.0]
        assert view["turn_deadline"] is not None
        off = await a.request("create_room", mode="private", turn_seconds=0)
        unclocked = await a.wait_for(off.result["room"], lambda v: v["status"] == "waiting")
        assert unclocked["turn_seconds"] == 0 and unclocked["turn_bank"] == 0
        ai = await a.request("create_room", mode="ai", level="easy")
        against_ai = await a.wait_for(ai.result["room"], lambda v: v["status"] == "playing")
        assert against_ai["turn_seconds"] == 0 and against_ai["turn_deadline"] is None
    finally:
        await close_all(a, b)


async def test_the_clock_plays_for_a_silent_seat_once_its_bank_is_spent(
    server_factory: Any,
) -> None:
    server = server_factory(env={"GIN_TURN_SECONDS": "1", "GIN_TURN_BANK_SECONDS": "2"})
    a, b, room = await private_match(server.ws_url, server.ws_url)
    try:
        first = a.view(room)
        assert first is not None and first["banks"] == [2.0, 2.0]
        silent = first["game"]["turn"]
        timed_out = await a.wait_for(room, lambda v: bool(events_of(a, room, "timeout")), 30)
        assert timed_out["banks"][silent] == 0.0  # spent before the server played for it
        assert timed_out["banks"][1 - silent] == 2.0
    finally:
        await close_all(a, b)


async def test_no_choice_while_the_opponent_is_here_or_before_the_grace(
    server_factory: Any,
) -> None:
    server = server_factory(env=LONG_GRACE)
    a, b, room = await private_match(server.ws_url, server.ws_url)
    try:
        await expect_error("opponent_present", a.request("claim_win", room=room))
        await expect_error("opponent_present", a.request("stand_in", room=room))
        await b.close()
        away = await a.wait_for(room, lambda v: v["seats"][1]["away"])
        assert away["seats"][1]["away_choice"] is False
        await expect_error("not_away_long_enough", a.request("claim_win", room=room))
        await expect_error("not_away_long_enough", a.request("stand_in", room=room))
        still = await a.request("watch", room=room)
        assert still.result["seq"] == a.room(room).seq  # nothing was changed
        assert (a.view(room) or {})["status"] == "playing"
    finally:
        await close_all(a, b)


async def test_the_present_person_claims_the_win_of_an_opponent_who_stays_away(
    server_factory: Any,
) -> None:
    server = server_factory(env=SHORT_GRACE)
    a, b, room = await private_match(server.ws_url, server.ws_url)
    token_b = b.token
    try:
        await b.close()
        # Ada does nothing but wait: the server tells her when the choice opens.
        opened = await a.wait_for(room, choice_open(1), timeout=30)
        assert opened["seats"][1]["away"] is True and opened["status"] == "playing"
        await a.request("claim_win", room=room)
        over = await a.wait_for(room, lambda v: v["status"] == "finished")
        assert over["forfeit"] == 1 and over["winner"] == 0
        assert events_of(a, room, "forfeit") == [{"type": "forfeit", "seat": 1, "winner": 0}]
        assert (await a.request("stats")).result["wins"] == 1
        await expect_error("illegal_action", a.request("claim_win", room=room))
    finally:
        await a.close()
    back = await Session.connect(server.ws_url, token=token_b)
    try:
        stats = (await back.request("stats")).result
        assert stats["matches"] == 1 and stats["wins"] == 0
    finally:
        await back.close()


async def test_an_ai_stands_in_when_asked_and_hands_the_seat_back(
    server_factory: Any,
    workers: Spawn,  # noqa: F811
) -> None:
    server = server_factory(env=SHORT_GRACE)
    workers(server)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=500)
    token_b = b.token
    try:
        await b.close()
        await a.wait_for(room, choice_open(1), timeout=30)
        called = await a.request("stand_in", room=room)
        assert called.result["ai_seat"] == 1
        standing = await a.wait_for(room, lambda v: v["seats"][1]["stand_in"] == "normal")
        asked_at = a.room(room).seq
        await expect_error("illegal_action", a.request("stand_in", room=room))
        rng = random.Random(5)

        def ai_moved() -> bool:
            return any(
                applied.seq > asked_at and any(e.get("seat") == 1 for e in applied.events)
                for applied in a.room(room).log
            )

        while not ai_moved():
            view, _ = await play_person(a, room, rng, until_moves=1)
            assert view["status"] == "playing"
        assert standing["seats"][1]["away"] is True

        back = await Session.connect(server.ws_url, token=token_b)
        try:
            await back.resume(room, -1)
            returned: View = await back.wait_for(
                room, lambda v: v["seats"][1]["stand_in"] is None and not v["seats"][1]["away"]
            )
            assert returned["seat"] == 1 and returned["seats"][1]["away_choice"] is False
            assert returned["game"]["cards"], "Bob sees his own hand again"
            await bob_plays_his_seat_again(a, back, room, rng)
        finally:
            await back.close()
    finally:
        await a.close()


async def bob_plays_his_seat_again(
    a: Session, back: Session, room: str, rng: random.Random
) -> None:
    """Ada plays her turns until it is Bob's: his own move is accepted (his seat is his)."""
    for _ in range(10):
        seen = await back.wait_seq(room, a.room(room).seq, timeout=30)
        if seen["game"]["legal_actions"]:
            action = choose(seen, rng)
            await back.act(room, action["kind"], action.get("card"))  # an error would raise
            return
        view = await a.wait_seq(room, back.room(room).seq, timeout=30)
        assert view["game"]["legal_actions"], "nobody may act"
        action = choose(view, rng)
        await a.act(room, action["kind"], action.get("card"))
    raise AssertionError("Bob never got a turn")

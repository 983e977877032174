"""Rated matches end to end (real server, real Redis): who may play them, both ratings moved
once at the match's end, forfeits, the cooldown after abandonments, the leaderboard API."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any

import redis.asyncio as redis

from client.session import Session
from protocol import codec
from protocol import messages as m
from server import keys
from server.store import Store, StoreConfig
from tests.support.accounts import acall, make_account_holder, pid, token_of
from tests.support.fixtures import FAST_CLIENT_ENV
from tests.support.players import close_all, expect_error, play_match
from tests.support.rated import rated_quick_match_across


async def holder(url: str, redis_url: str, name: str) -> Session:
    session = await Session.connect(url, name=name)
    await make_account_holder(session, name.lower())
    return session


async def rating_of(redis_url: str, player_id: str) -> dict[str, str]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return {str(k): str(v) for k, v in (await client.hgetall(keys.rating(player_id))).items()}
    finally:
        await client.aclose()


async def rated_private_match(
    server: Any, redis_url: str, target: int = 10
) -> tuple[Session, Session, str]:
    a = await holder(server.ws_url, redis_url, "Ada")
    b = await holder(server.ws_url, redis_url, "Bob")
    created = await a.request("create_room", mode="private", rated=True, rules={"target": target})
    room = created.result["room"]
    await b.request("join_room", invite=created.result["invite"], rated=True)
    await a.wait_for(room, lambda view: view["game"] is not None)
    return a, b, room


def rated(view: Any) -> bool:
    return view["ratings"] is not None and all("after" in seat for seat in view["ratings"])


async def test_guests_keep_casual_play_and_may_not_rate(gin_server: Any, redis_url: str) -> None:
    guest = await Session.connect(gin_server.ws_url, name="Gus")
    member = await holder(gin_server.ws_url, redis_url, "Mia")
    try:
        await expect_error("account_required", guest.request("quick_match", rated=True))
        await expect_error(
            "account_required", guest.request("create_room", mode="private", rated=True)
        )
        frame = codec.pack(
            {"t": "create_room", "id": "r1", "mode": "ai", "level": "easy", "rated": True}
        )
        answer = await member.raw_request(frame, "r1")
        assert isinstance(answer, m.Error) and answer.code == "invalid_argument", answer
        assert answer.detail == {"field": "rated"}
        created = await member.request("create_room", mode="private", rated=True)
        await expect_error(
            "account_required", guest.request("join_room", invite=created.result["invite"])
        )
        view = await member.wait_for(created.result["room"], lambda v: v["status"] == "waiting")
        assert view["rated"] is True
        assert view["ratings"][0] == {"rating": 1500.0, "rd": 500.0, "shown": "1500?"}
        casual = await guest.request("quick_match")
        assert casual.result["queued"] is True
    finally:
        await close_all(guest, member)


async def test_the_joiner_of_a_rated_room_agrees_before_sitting(
    gin_server: Any, redis_url: str
) -> None:
    a = await holder(gin_server.ws_url, redis_url, "Ada")
    b = await holder(gin_server.ws_url, redis_url, "Bob")
    try:
        created = await a.request("create_room", mode="private", rated=True, rules={"target": 50})
        room, invite = created.result["room"], created.result["invite"]
        refused = await expect_error("rated_not_agreed", b.request("join_room", invite=invite))
        assert refused.detail == {"target": 50}
        await expect_error("rated_not_agreed", b.request("join_room", invite=invite, rated=False))
        view = await a.wait_for(room, lambda v: v["status"] == "waiting")
        assert view["seats"][1]["name"] is None and view["game"] is None  # nobody sat
        joined = await b.request("join_room", invite=invite, rated=True)  # the same connection
        assert joined.result["seat"] == 1
        view = await a.wait_for(room, lambda v: v["game"] is not None)
        assert view["rated"] is True and view["seats"][1]["name"] == "Bob"
        again = await b.request("join_room", invite=invite)  # their own seat: no question
        assert again.result["seat"] == 1
        casual = await a.request("create_room", mode="private")
        agreed = await b.request("join_room", invite=casual.result["invite"], rated=True)
        assert agreed.result["seat"] == 1  # a casual room ignores the agreement
        view = await a.wait_for(casual.result["room"], lambda v: v["game"] is not None)
        assert view["rated"] is False
    finally:
        await close_all(a, b)


async def test_a_rated_match_moves_both_ratings_once(gin_server: Any, redis_url: str) -> None:
    a, b, room = await rated_private_match(gin_server, redis_url)
    try:
        await play_match([a, b], room, seed=22)
        view = await a.wait_for(room, rated, timeout=20)
        winner = view["winner"]
        changes = view["ratings"]
        assert changes[winner]["after"] > changes[winner]["before"] == 1500.0
        assert changes[1 - winner]["after"] < changes[1 - winner]["before"] == 1500.0
        assert changes[winner]["delta"] == round(changes[winner]["after"]) - 1500 > 0
        ids = [pid(a), pid(b)]
        first = [await rating_of(redis_url, player) for player in ids]
        assert [entry["n"] for entry in first] == ["1", "1"]
        # The match's records owed again (a request sent again, a sweep after a crash):
        # the sweep writes them, and no rating moves a second time.
        client = redis.Redis.from_url(redis_url)
        try:
            await client.zadd(keys.records_pending(), {f"{room}:match": 1})
            for _ in range(200):
                if await client.zscore(keys.records_pending(), f"{room}:match") is None:
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the sweep never wrote the owed records")
        finally:
            await client.aclose()
        assert [await rating_of(redis_url, player) for player in ids] == first
        again = await b.request("watch", room=room)
        assert again.result["seq"] == b.room(room).seq  # the room's ratings unchanged
    finally:
        await close_all(a, b)


async def test_a_forfeit_is_a_loss_for_the_leaver_after_the_first_hand(
    gin_server: Any, redis_url: str
) -> None:
    a, b, room = await rated_private_match(gin_server, redis_url, target=500)
    try:
        players = asyncio.ensure_future(play_match([a, b], room, seed=5))
        await a.wait_for(room, lambda v: bool(v["game"]["results"]), timeout=60)
        players.cancel()
        await asyncio.gather(players, return_exceptions=True)
        await b.request("leave", room=room)
        view = await a.wait_for(room, rated, timeout=20)
        assert view["forfeit"] == 1
        assert view["ratings"][1]["after"] < 1500 < view["ratings"][0]["after"]
    finally:
        await close_all(a, b)


async def test_a_match_left_before_its_first_hand_ends_is_not_rated(
    gin_server: Any, redis_url: str
) -> None:
    a, b, room = await rated_private_match(gin_server, redis_url)
    try:
        await b.request("leave", room=room)
        view = await a.wait_for(room, lambda v: v["status"] == "finished")
        await asyncio.sleep(0.5)
        assert view["forfeit"] == 1
        assert await rating_of(redis_url, pid(a)) == {}
        assert await rating_of(redis_url, pid(b)) == {}
        final = a.view(room)
        assert final is not None and final["ratings"][1].get("after") is None
    finally:
        await close_all(a, b)


async def test_the_second_abandonment_in_a_day_closes_the_rated_queue(
    gin_server: Any, redis_url: str
) -> None:
    a = await holder(gin_server.ws_url, redis_url, "Ada")
    b = await holder(gin_server.ws_url, redis_url, "Bob")
    try:
        for _ in range(2):
            created = await a.request("create_room", mode="private", rated=True)
            room = created.result["room"]
            await b.request("join_room", invite=created.result["invite"], rated=True)
            await b.wait_for(room, lambda v: v["game"] is not None)
            await b.request("leave", room=room)
            await a.wait_for(room, lambda v: v["status"] == "finished")
        error = None
        for _ in range(100):  # the abandonment is noted with the match's records
            try:
                await b.request("quick_match", rated=True)
            except Exception as refused:
                error = refused
                break
            await b.request("cancel_quick_match")
            await asyncio.sleep(0.1)
        assert error is not None and getattr(error, "code", None) == "rated_cooldown"
        seconds = error.detail["seconds"]  # type: ignore[attr-defined]
        assert 590 <= seconds <= 600
        await a.request("quick_match", rated=True)  # the one who stayed is not held back
        casual = await b.request("quick_match")  # nor is casual play
        assert casual.result["queued"] in (True, False)
    finally:
        await close_all(a, b)


async def test_rated_quick_match_pairs_two_account_holders(gin_server: Any, redis_url: str) -> None:
    a = await holder(gin_server.ws_url, redis_url, "Ada")
    b = await holder(gin_server.ws_url, redis_url, "Bob")
    try:
        first = await a.request("quick_match", rated=True)
        second = await b.request("quick_match", rated=True)
        assert first.result["queued"] and second.result["queued"]
        rooms = {first.result["room"]: a, second.result["room"]: b}
        # One of them hosts; the other's room points at it (next_room) once they are seated.
        host_room = None
        for _ in range(100):
            for room, session in rooms.items():
                view = session.view(room)
                if view is not None and view["next_room"] is not None:
                    host_room = view["next_room"]
            if host_room is not None:
                break
            await asyncio.sleep(0.1)
        assert host_room is not None and host_room in rooms
        guest = next(s for r, s in rooms.items() if r != host_room)
        await guest.resume(host_room, -1)
        view = await guest.wait_for(host_room, lambda v: v["game"] is not None)
        assert view["rated"] is True and view["mode"] == "quick"
        assert {seat["name"] for seat in view["seats"]} == {"Ada", "Bob"}
        assert [r["shown"] for r in view["ratings"]] == ["1500?", "1500?"]
    finally:
        await close_all(a, b)


async def test_the_leaderboard_api(gin_server: Any, redis_url: str) -> None:
    a = await holder(gin_server.ws_url, redis_url, "Ada")
    b = await holder(gin_server.ws_url, redis_url, "Bob")
    client = redis.Redis.from_url(redis_url)
    try:
        now_ms = int(time.time() * 1000)
        for player, rating in ((pid(a), 1720.0), (pid(b), 1610.0)):
            await client.hset(
                keys.rating(player),
                mapping={
                    "rating": rating,
                    "rd": 80,
                    "volatility": 0.06,
                    "at": time.time(),
                    "n": 30,
                },
            )
            await client.zadd(keys.leaderboard_ratings(), {player: rating})
            await client.zadd(keys.leaderboard_until(), {player: now_ms + 86_400_000})
            await client.hset(keys.leaderboard_n(), player, 30)
        base = gin_server.ws_url.replace("ws://", "http://").removesuffix("/ws")

        def get(token: str | None) -> tuple[int, Any]:
            request = urllib.request.Request(base + "/api/leaderboard")
            if token is not None:
                request.add_header("Authorization", f"Bearer {token}")
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        status, board = await asyncio.to_thread(get, None)
        assert status == 200 and board["you"] is None
        mine = [row for row in board["top"] if row["handle"] in ("ada", "bob")]
        assert [row["handle"] for row in mine] == ["ada", "bob"]
        status, board = await asyncio.to_thread(get, token_of(b))
        assert status == 200
        assert board["you"]["rating"] == 1610 and board["you"]["shown"] == "1610"
        assert board["top"][board["you"]["rank"] - 1]["handle"] == "bob"
        status, refused = await asyncio.to_thread(get, "not-a-token")
        assert status == 401 and refused["error"] == "bad_token"
    finally:
        await client.aclose()
        await close_all(a, b)


async def test_a_profile_has_the_rating_its_history_and_rated_and_casual_apart(
    gin_server: Any, redis_url: str
) -> None:
    a, b, rated_room = await rated_private_match(gin_server, redis_url)
    base = gin_server.http_url
    try:
        await play_match([a, b], rated_room, seed=22)
        view = await a.wait_for(rated_room, rated, timeout=20)
        casual = await a.request("create_room", mode="private", rules={"target": 10})
        casual_room = casual.result["room"]
        await b.request("join_room", invite=casual.result["invite"])
        await a.wait_for(casual_room, lambda v: v["game"] is not None)
        await play_match([a, b], casual_room, seed=3)

        async def profile() -> dict[str, Any]:
            for _ in range(200):
                status, reply = await acall(base, "/api/players/@ada", token=token_of(b))
                assert status == 200, reply
                if reply["record"]["matches"] == 2:
                    return reply
                await asyncio.sleep(0.1)
            raise AssertionError("the second match is not on the profile")

        seen = await profile()
        change = view["ratings"][0]  # Ada created the room: seat 0
        assert seen["rating"] == {
            "rating": round(change["after"]),
            "rd": round(change["rd"]),
            "shown": f"{round(change['after'])}?",  # one match: RD still above 110
            "provisional": True,
            "matches": 1,
        }
        [point] = seen["rating_history"]
        assert point["rating"] == round(change["after"]) and point["delta"] == change["delta"]
        assert abs(point["at"] - time.time()) < 600 and "room" not in point
        record = seen["record"]
        assert record["rated"]["matches"] == 1 and record["casual"]["matches"] == 1
        assert record["rated"]["hands"] + record["casual"]["hands"] == record["hands"]
        assert record["rated"]["wins"] == (1 if view["winner"] == 0 else 0)
        by_room = {match["room"]: match for match in seen["matches"]}
        assert by_room[rated_room]["rated"] is True
        assert by_room[rated_room]["rating_change"] == {
            "before": 1500.0,
            "after": change["after"],
            "delta": change["delta"],
            "shown": change["shown"],
        }
        assert by_room[casual_room]["rated"] is False
        assert by_room[casual_room]["rating_change"] is None
    finally:
        await close_all(a, b)


async def test_rated_quick_match_and_the_leaderboard_across_two_server_processes(
    server_factory: Any, redis_url: str
) -> None:
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    store = await Store.connect(redis_url, StoreConfig())
    client = redis.Redis.from_url(redis_url)
    try:
        await rated_quick_match_across(first, second, store, client)
    finally:
        await client.aclose()
        await store.close()

"""Reports and the moderator's tool, attacked and used as a self-hoster would, on two server
processes (``docs/moderation.md``): the tool refuses to run without the server's Redis
settings; a ban closes the player's open websockets on every process at once, ends their rated
match in play as a forfeit, takes them off the leaderboard and out of the queue, refuses their
sign-in, and is logged with who and why; reports are kept with the room and listed by the tool,
which shows a player's names (now, in their rooms and in their last matches);
report floods and malformed reports get their own codes."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import redis.asyncio as aioredis

from client.session import Session
from server import keys
from server.moderation import REPORTS
from tests.support.accounts import acall, claim, sign_in
from tests.support.backups import admin
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, play_match
from tests.support.polling import eventually
from tests.support.server_process import ServerProcess

PASSWORD = "correct horse battery"


async def account(server: ServerProcess, handle: str) -> str:
    guest = await Session.connect(server.ws_url, name=handle.split("_", maxsplit=1)[0])
    await guest.close()
    return str((await claim(server.http_url, guest.token or "", handle, PASSWORD))["token"])


async def tool(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(admin, *args, env={"REDIS_URL": redis_url})


async def test_the_admin_tool_refuses_to_run_without_the_servers_redis_settings(
    redis_url: str,
) -> None:
    for command in (
        ["reports"],
        ["player", "x"],
        ["ban", "x", "--by", "m", "--reason", "r"],
        ["unban", "x", "--by", "m", "--reason", "r"],
    ):
        refused = await asyncio.to_thread(admin, *command, env={})
        assert refused.returncode == 2, refused
        assert "REDIS_URL" in refused.stderr and "Traceback" not in refused.stderr
    listed = await tool(redis_url, "reports")
    assert (listed.returncode, listed.stdout.strip()) == (0, "no reports"), listed
    missing = await tool(redis_url, "ban", "nobody_here", "--by", "mia", "--reason", "x")
    assert missing.returncode == 2 and "no player" in missing.stderr, missing
    blank = await tool(redis_url, "ban", "nobody_here", "--by", " ", "--reason", "x")
    assert blank.returncode == 2 and "Traceback" not in blank.stderr, blank


async def test_a_ban_closes_every_websocket_at_once_ends_the_rated_match_and_refuses_sign_in(
    server_factory: ServerFactory, redis_url: str
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada_token, bob_token = await account(one, "Ada_Banned"), await account(one, "Bob_Stays")
    _, second = await sign_in(two.http_url, "Ada_Banned", PASSWORD)
    ada = await Session.connect(one.ws_url, token=ada_token)
    there = await Session.connect(two.ws_url, token=second["token"])
    rated_there = await Session.connect(two.ws_url, token=second["token"])
    bob = await Session.connect(two.ws_url, token=bob_token)
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        created = await ada.request("create_room", mode="private", rated=True)
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"], rated=True)
        await bob.wait_for(room, lambda view: view["game"] is not None)
        waiting = await there.request("quick_match")
        assert waiting.result["queued"] is True
        rated_waiting = await rated_there.request("quick_match", rated=True)
        assert rated_waiting.result["queued"] is True
        ada_id = str(ada.player_id)
        assert await client.hexists(keys.rated_waiting(), ada_id)
        await client.zadd(keys.leaderboard_ratings(), {ada_id: 1700})
        await client.zadd(keys.leaderboard_until(), {ada_id: 2**50})

        banned = await tool(redis_url, "ban", "ada_banned", "--reason", "abuse", "--by", "mia")
        assert banned.returncode == 0, banned.stderr
        assert room in banned.stdout

        async def cut() -> bool:
            return ada.closed and there.closed and rated_there.closed

        assert await eventually(cut, bool, timeout=10), "both of Ada's websockets closed"
        assert not bob.closed
        view = await bob.wait_for(room, lambda v: v["status"] == "finished")
        assert view["forfeit"] == 0, view  # Ada's seat forfeits
        assert await client.zscore(keys.leaderboard_ratings(), ada_id) is None
        assert await client.zscore(keys.quickmatch_queue(), ada_id) is None
        assert not await client.hexists(keys.rated_waiting(), ada_id)  # both queues
        status, reply = await sign_in(one.http_url, "Ada_Banned", PASSWORD)
        assert (status, reply["error"]) == (403, "banned"), reply
        status, reply = await acall(one.http_url, "/api/account", token=ada_token)
        assert (status, reply["error"]) == (401, "bad_token"), reply
        log: Any = await client.xrange(keys.moderation_log())
        assert [(e["action"], e["by"], e["reason"]) for _, e in log] == [("ban", "mia", "abuse")]
        shown = await tool(redis_url, "player", "Ada_Banned")
        assert "banned: since" in shown.stdout and "by mia: abuse" in shown.stdout, shown

        lifted = await tool(redis_url, "unban", "ada_banned", "--by", "mia", "--reason", "appeal")
        assert lifted.returncode == 0, lifted.stderr
        status, reply = await sign_in(one.http_url, "Ada_Banned", PASSWORD)
        assert status == 200, reply
        log = await client.xrange(keys.moderation_log())
        assert [e["action"] for _, e in log] == ["ban", "unban"]
    finally:
        await client.aclose()
        await close_all(ada, there, rated_there, bob)


async def test_reports_are_kept_with_the_room_listed_by_the_tool_and_limited(
    gin_server: ServerProcess, redis_url: str
) -> None:
    base = gin_server.http_url
    ada_token, bob_token = (
        await account(gin_server, "Ada_Rude"),
        await account(gin_server, "Bob_Reports"),
    )
    ada = await Session.connect(gin_server.ws_url, token=ada_token)
    bob = await Session.connect(gin_server.ws_url, token=bob_token)
    try:
        # a match played to its end as "Ada", a room in play as "Mid"; her name is "Rudy" now
        early = await ada.request("create_room", mode="private", rules={"target": 1})
        await bob.request("join_room", invite=early.result["invite"])
        await play_match([ada, bob], early.result["room"], seed=26)

        async def recorded() -> int:  # written just after the match's last commit
            return (await gin_server.aget(f"/api/hands/{early.result['room']}-1"))[0]

        assert await eventually(recorded, lambda status: status == 200, timeout=10)
        await ada.request("set_name", name="Mid")
        created = await ada.request("create_room", mode="private")
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        await ada.request("set_name", name="Rudy")
        cases: list[tuple[dict[str, Any], int, str]] = [
            ({"room": room, "seat": 0}, 400, "invalid_argument"),  # no reason
            ({"room": room, "seat": 0, "reason": "ugly"}, 400, "invalid_argument"),
            ({"room": room, "seat": 1, "reason": "abuse"}, 403, "not_a_player"),  # oneself
            ({"handle": "Ada_Rude", "reason": "abuse", "room": "nosuch"}, 404, "not_found"),
            ({"handle": 5, "reason": "abuse"}, 400, "bad_handle"),
        ]
        for body, status, code in cases:
            got, reply = await acall(base, "/api/reports", body, token=bob_token)
            assert (got, reply.get("error")) == (status, code), (body, reply)
        got, reply = await acall(
            base, "/api/reports", {"room": room, "seat": 0, "reason": "abuse"}, token=bob_token
        )
        assert got == 200 and reply["reported"] is True, reply
        got, reply = await acall(
            base,
            "/api/reports",
            {"handle": "ada_rude", "reason": "name", "room": room},
            token=bob_token,
        )
        assert got == 200, reply
        client = aioredis.Redis.from_url(redis_url, decode_responses=True)
        try:
            raw: Any = await client.zrange(keys.reports_room(room), 0, -1)
            kept = [json.loads(entry) for entry in raw]
        finally:
            await client.aclose()
        assert sorted(r["reason"] for r in kept) == ["abuse", "name"]
        assert {r["reported"] for r in kept} == {str(ada.player_id)}
        listed = await tool(redis_url, "reports")
        assert listed.stdout.count(room) == 2 and "@Bob_Reports" in listed.stdout, listed
        shown = await tool(redis_url, "player", "ada_rude")
        assert "reports about them: 2" in shown.stdout and room in shown.stdout, shown
        assert "names seen in their rooms and last matches: Rudy, Mid, Ada\n" in shown.stdout
        # a flood: counted, then refused with its own code
        codes = []
        for _ in range(REPORTS + 2):
            got, reply = await acall(
                base, "/api/reports", {"room": room, "seat": 0, "reason": "other"}, token=bob_token
            )
            codes.append(reply.get("error", "ok"))
        assert "internal" not in codes and codes[-1] == "too_many_reports", codes
    finally:
        await close_all(ada, bob)

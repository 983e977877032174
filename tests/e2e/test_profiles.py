"""Profiles on a real server process: the record and last matches of a claimed account after a
played match, found by its handle or a look-alike; a private room's match shown to its two
players only; a guest's own page; unknown and malformed handles refused with their codes."""

from __future__ import annotations

import asyncio
import urllib.parse
import urllib.request
from typing import Any

import pytest

from client.session import Session
from tests.support.accounts import acall, claim
from tests.support.players import close_all, play_match, private_match
from tests.support.polling import eventually
from tests.support.server_process import ServerProcess

#: Every test here only talks to its servers: they are shared (tests/support/fixtures.py).
pytestmark = pytest.mark.shared_server

PASSWORD = "correct horse battery"


def profile_path(handle: str) -> str:
    return "/api/players/@" + urllib.parse.quote(handle)


async def page_status(base: str, path: str) -> int:
    """The status of a page of the web client (its index.html, or the placeholder)."""

    def get() -> int:
        with urllib.request.urlopen(base + path, timeout=30) as response:
            assert response.headers["content-type"].startswith("text/html")
            return int(response.status)

    return await asyncio.to_thread(get)


async def finished_profile(base: str, path: str, token: str | None = None) -> dict[str, Any]:
    """The profile once the match's records are written (they follow its last commit)."""

    async def probe() -> tuple[int, dict[str, Any]]:
        return await acall(base, path, token=token)

    _, reply = await eventually(
        probe, lambda got: got[0] == 200 and got[1]["record"]["matches"] >= 1, timeout=30
    )
    return reply


async def test_a_private_match_is_on_its_players_profiles_only(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=10)
    stranger = await Session.connect(gin_server.ws_url, name="Eve")
    try:
        await play_match([a, b], room, seed=22)
        claimed = await claim(base, a.token or "", "Ada_Lovelace", PASSWORD)
        mine = await finished_profile(base, profile_path("Ada_Lovelace"), claimed["token"])
        assert mine["handle"] == "Ada_Lovelace" and mine["me"] is True and not mine["guest"]
        assert mine["rating"] is None and mine["rating_history"] == []
        record = mine["record"]
        assert record["matches"] == 1 and record["hands"] >= 1
        assert record["wins"] in (0, 1)
        assert record["points_per_hand"] == round(record["points"] / record["hands"], 1)
        knocked = 0  # Ada holds seat 0 (she created the room)
        for number in range(1, record["hands"] + 1):
            result = (await acall(base, f"/api/hands/{room}-{number}"))[1]["result"]
            knocked += result.get("knocker") == 0 and result["kind"] != "gin"
        assert record["knocks"] == knocked
        [match] = mine["matches"]
        assert match["room"] == room and not match["public"]
        assert match["result"] == ("won" if record["wins"] == 1 else "lost")
        assert match["opponent"]["name"] == "Bob" and match["opponent"]["handle"] is None
        assert match["replay"] == f"/replay/{room}-1?match=1"
        # the replay link works: the page, and the hand it starts from
        assert await page_status(base, match["replay"]) == 200
        assert await page_status(base, "/@/" + urllib.parse.quote("Ada_Lovelace")) == 200
        status, first = await acall(base, f"/api/hands/{room}-1")
        assert status == 200 and first["room"] == room and first["events"]

        # the other player of the room sees it on Ada's profile; a stranger and nobody do not
        theirs = await finished_profile(base, profile_path("Ada_Lovelace"), b.token)
        assert [m["room"] for m in theirs["matches"]] == [room] and theirs["me"] is False
        for token in (stranger.token, None):
            public = await finished_profile(base, profile_path("Ada_Lovelace"), token)
            assert public["matches"] == [] and public["record"] == record

        # a look-alike spelling (Cyrillic а, other case) is the same profile
        alike = await finished_profile(base, profile_path("аda_lovelace"), None)
        assert alike["handle"] == "Ada_Lovelace"

        # a guest has no handle to be found by, but sees their own page with the match
        status, own = await acall(base, "/api/players/me", token=b.token)
        assert status == 200 and own["guest"] and own["handle"] is None and own["me"]
        [seen] = own["matches"]
        assert seen["room"] == room and seen["opponent"]["handle"] == "Ada_Lovelace"
        assert seen["result"] != match["result"]
        assert seen["scores"] == list(reversed(match["scores"]))
    finally:
        await close_all(a, b, stranger)


async def test_a_public_match_is_on_the_profile_for_anyone(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, public=True)
    try:
        await play_match([a, b], room, seed=7)
        await claim(base, b.token or "", "Bob_Marley", PASSWORD)
        seen = await finished_profile(base, profile_path("bob_marley"))
        assert [m["room"] for m in seen["matches"]] == [room] and seen["me"] is False
        assert seen["matches"][0]["public"] is True
    finally:
        await close_all(a, b)


async def test_unknown_and_malformed_handles(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    status, reply = await acall(base, profile_path("Nobody_here"))
    assert (status, reply["error"]) == (404, "unknown_handle")
    status, reply = await acall(base, profile_path("no spaces"))
    assert (status, reply["error"]) == (400, "bad_handle")
    status, reply = await acall(base, "/api/players/me")
    assert (status, reply["error"]) == (401, "not_authenticated")
    status, reply = await acall(base, "/api/players/me", token="nope.nope")
    assert (status, reply["error"]) == (401, "bad_token")

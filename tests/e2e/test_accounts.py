"""Accounts on real server processes: a guest claims a handle and keeps their player; another
device signs in as the same player and resumes the room in play; sign out; sign out
everywhere refused at once on two processes; delete."""

from __future__ import annotations

import asyncio

import pytest

from client.session import RequestError, Session
from tests.support.accounts import acall, claim, sign_in
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, play_match, private_match
from tests.support.polling import eventually
from tests.support.server_process import ServerProcess

#: Every test here only talks to its servers: they are shared (tests/support/fixtures.py).
pytestmark = pytest.mark.shared_server

PASSWORD = "correct horse battery"


async def test_a_guest_claims_and_signs_in_elsewhere_as_the_same_player(
    gin_server: ServerProcess,
) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=10_000)
    base = gin_server.http_url
    try:
        stats = (await a.request("stats")).result
        claimed = await claim(base, a.token or "", "Ада_Lovelace", PASSWORD)
        assert claimed["player_id"] == a.player_id and claimed["handle"] == "Ада_Lovelace"
        assert claimed["token"] != a.token  # rotated at the claim
        # the guest token is revoked: a new hello with it is refused
        try:
            await Session.connect(gin_server.ws_url, token=a.token)
            raise AssertionError("the rotated guest token was accepted")
        except RequestError as error:
            assert error.code == "bad_token"
        # another device: the handle (any case) and the password give the same player
        status, signed = await sign_in(base, "ада_lovelace", PASSWORD)
        assert status == 200, signed
        assert signed["player_id"] == a.player_id and signed["token"] != claimed["token"]
        other = await Session.connect(gin_server.ws_url, token=signed["token"])
        try:
            assert other.player_id == a.player_id
            assert other.server_info["handle"] == "Ада_Lovelace"
            lobby = (await other.request("lobby")).result
            assert {"room": room, "kind": "people"} in lobby["my_rooms"]
            assert (await other.request("stats")).result == stats
            await other.request("resume", room=room, last_seq=-1)
            view = await other.wait_for(room, lambda v: v["game"] is not None)
            assert view["seat"] == 0
        finally:
            await other.close()
        # both tokens of the account work at once (two devices)
        first = await Session.connect(gin_server.ws_url, token=claimed["token"])
        await first.close()
    finally:
        await close_all(a, b)


async def test_a_wrong_password_or_unknown_handle_is_one_answer(gin_server: ServerProcess) -> None:
    guest = await Session.connect(gin_server.ws_url)
    try:
        await claim(gin_server.http_url, guest.token or "", "Grace", PASSWORD)
    finally:
        await guest.close()
    wrong = await sign_in(gin_server.http_url, "Grace", "not the password")
    unknown = await sign_in(gin_server.http_url, "Nobody_here", PASSWORD)
    assert wrong[0] == unknown[0] == 401
    assert wrong[1]["error"] == unknown[1]["error"] == "bad_credentials"
    assert wrong[1]["message"] == unknown[1]["message"]


async def test_sign_out_revokes_only_that_token(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    guest = await Session.connect(gin_server.ws_url)
    await guest.close()
    claimed = await claim(base, guest.token or "", "Hopper", PASSWORD)
    _, second = await sign_in(base, "Hopper", PASSWORD)
    status, reply = await acall(base, "/api/account/signout", {}, token=claimed["token"])
    assert status == 200, reply
    assert (await acall(base, "/api/account", token=claimed["token"]))[1]["error"] == "bad_token"
    status, me = await acall(base, "/api/account", token=second["token"])
    assert status == 200 and me["handle"] == "Hopper"


async def test_sign_out_everywhere_is_refused_at_once_on_every_process(
    server_factory: ServerFactory,
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    two = server_factory(env=FAST_CLIENT_ENV)
    guest = await Session.connect(one.ws_url)
    await guest.close()
    claimed = await claim(one.http_url, guest.token or "", "Lamarr", PASSWORD)
    _, other = await sign_in(two.http_url, "Lamarr", PASSWORD)
    here = await Session.connect(one.ws_url, token=claimed["token"])
    there = await Session.connect(two.ws_url, token=other["token"])
    try:
        status, reply = await acall(
            one.http_url, "/api/account/signout-everywhere", {}, token=claimed["token"]
        )
        assert status == 200 and reply["signed_out"] == 2, reply

        # the open connections on both processes are cut off, told why
        async def cut() -> bool:
            return here.closed and there.closed

        assert await eventually(cut, bool, timeout=10), "both connections cut off"
        assert here.last_bye is not None and here.last_bye.code == "signed_out"
        assert there.last_bye is not None and there.last_bye.code == "signed_out"
        # and every token is refused by every process
        for server in (one, two):
            for token in (claimed["token"], other["token"]):
                try:
                    await Session.connect(server.ws_url, token=token)
                    raise AssertionError("a revoked token was accepted")
                except RequestError as error:
                    assert error.code == "bad_token"
                status, reply = await acall(server.http_url, "/api/account", token=token)
                assert (status, reply["error"]) == (401, "bad_token")
        # the password still signs in (a new token)
        status, again = await sign_in(two.http_url, "Lamarr", PASSWORD)
        assert status == 200 and again["player_id"] == guest.player_id
    finally:
        await close_all(here, there)


async def test_delete_frees_the_handle_and_keeps_hands_under_a_neutral_name(
    gin_server: ServerProcess,
) -> None:
    base = gin_server.http_url
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url, target=1)
    try:
        await play_match([a, b], room, 7)  # a whole match: its hand is recorded
        claimed = await claim(base, a.token or "", "Ada_Byron", PASSWORD)
        status, reply = await acall(base, "/api/account/delete", {}, token=claimed["token"])
        assert status == 200 and reply == {"deleted": True}
        assert (await sign_in(base, "Ada_Byron", PASSWORD))[1]["error"] == "bad_credentials"
        assert (await acall(base, "/api/account", token=claimed["token"]))[1][
            "error"
        ] == "bad_token"
        hand_id = f"{room}-1"
        status, hand = await acall(base, f"/api/hands/{hand_id}")
        assert status == 200
        assert "Ada" not in hand["players"] and hand["players"][1] == "Bob"
        assert hand["seats"][0]["name_id"] == (a.player_id or "")[1:6]
        # the handle is free again for someone else
        newcomer = await Session.connect(gin_server.ws_url)
        await newcomer.close()
        again = await claim(base, newcomer.token or "", "ada_byron", PASSWORD)
        assert again["player_id"] == newcomer.player_id
    finally:
        await close_all(a, b)


async def test_two_claims_of_one_handle_at_once_exactly_one_wins(
    gin_server: ServerProcess,
) -> None:
    guests = [await Session.connect(gin_server.ws_url) for _ in range(8)]
    await close_all(*guests)
    # look-alikes too: Latin, Cyrillic А, upper case
    spellings = ["Turing", "Тuring", "TURING", "turing"] * 2
    replies = await asyncio.gather(
        *(
            acall(
                gin_server.http_url,
                "/api/account/claim",
                {"handle": handle, "password": PASSWORD},
                token=guest.token,
            )
            for guest, handle in zip(guests, spellings, strict=True)
        )
    )
    won = [reply for status, reply in replies if status == 200]
    assert len(won) == 1, replies
    assert all(reply["error"] == "handle_taken" for status, reply in replies if status != 200)

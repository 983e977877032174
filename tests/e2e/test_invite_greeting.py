"""An invite's greeting through a real server and Redis (``invite_info``, docs/protocol.md):
who invites and to what, read before the seat is taken; a wrong code is ``not_found``, a used
one ``invite_used``; the greeting names no room to a stranger, and guessing codes with it is
cut short like ``join_room``'s guesses."""

from __future__ import annotations

import secrets

import pytest

from client.session import Session
from server.handlers.rooms import INVITE_ALPHABET, INVITE_LENGTH
from tests.support.accounts import PASSWORD, claim
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error
from tests.support.server_process import ServerProcess


@pytest.mark.shared_server
async def test_an_invite_greets_before_the_seat_is_taken(gin_server: ServerProcess) -> None:
    host = await Session.connect(gin_server.ws_url, name="Host Ada")
    guest = await Session.connect(gin_server.ws_url, name="Guest")
    late = await Session.connect(gin_server.ws_url, name="Late")
    try:
        created = await host.request(
            "create_room", mode="private", rules={"target": 50}, turn_seconds=20, turn_bank=40
        )
        room, invite = created.result["room"], created.result["invite"]
        greeted = await guest.request("invite_info", invite=invite.lower())  # case-blind
        assert greeted.result == {
            "inviter": {"name": "Host Ada", "name_id": None},
            "rated": False,
            "target": 50,
            "turn_seconds": 20,
            "turn_bank": 40,
        }, greeted.result
        # reading the greeting took nothing: the seat is still free, the host still waits
        waiting = await host.wait_for(room)
        assert waiting["status"] == "waiting" and waiting["seats"][1]["open"] is True
        # the host's own link: the greeting says where they sit
        own = await host.request("invite_info", invite=invite)
        assert own.result["room"] == room and own.result["seat"] == 0
        await expect_error("not_found", late.request("invite_info", invite="NOSUCHCODE"))
        joined = await guest.request("join_room", invite=invite)
        assert joined.result == {"room": room, "seat": 1}
        # a used invite has its own error, and names no room
        used = await expect_error("invite_used", late.request("invite_info", invite=invite))
        assert room not in used.message
        # the guest who sits there already is sent back to their seat
        back = await guest.request("invite_info", invite=invite)
        assert back.result["room"] == room and back.result["seat"] == 1
        assert (await late.request("lobby")).result is not None  # the connection lives
    finally:
        await close_all(host, guest, late)


@pytest.mark.shared_server
async def test_a_rated_invite_says_it_is_rated(gin_server: ServerProcess) -> None:
    host = await Session.connect(gin_server.ws_url, name="Rated Host")
    await host.close()
    claimed = await claim(gin_server.http_url, host.token or "", "Rated_Host", PASSWORD)
    host = await Session.connect(gin_server.ws_url, token=str(claimed["token"]))
    guest = await Session.connect(gin_server.ws_url, name="Guest")
    try:
        created = await host.request("create_room", mode="private", rated=True)
        greeted = await guest.request("invite_info", invite=created.result["invite"])
        assert greeted.result["rated"] is True
        assert greeted.result["inviter"]["name"] == "Rated Host"
        assert "room" not in greeted.result and "seat" not in greeted.result
    finally:
        await close_all(host, guest)


async def test_guessing_codes_with_the_greeting_is_cut_short(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_LOOKUP_FAILURES_PER_MINUTE": "5"})
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        real = await ada.request("create_room", mode="private")
        answers = []
        for _ in range(7):
            code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))
            answers.append(
                (
                    await expect_error(
                        ("not_found", "too_many_lookups"),
                        mallory.request("invite_info", invite=code),
                    )
                ).code
            )
        assert answers == ["not_found"] * 5 + ["too_many_lookups"] * 2, answers
        # a right code is refused too while the allowance is spent, and so is join_room
        await expect_error(
            "too_many_lookups", mallory.request("invite_info", invite=real.result["invite"])
        )
        await expect_error(
            "too_many_lookups", mallory.request("join_room", invite=real.result["invite"])
        )
    finally:
        await close_all(ada, mallory)

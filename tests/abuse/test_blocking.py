"""Blocking, attacked from the blocked side (``docs/security.md``, "Blocking"), on two server
processes: the blocked player's quick messages never arrive and their replies are those of a
message delivered; quick match, casual and rated, never pairs the two in either direction; the
block list names no player id; floods and malformed requests get their own codes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.session import RequestError, Session
from server.blocking import BLOCK_REQUESTS, REF_CHARS
from tests.e2e.talk import barrier, said_to, saids, table
from tests.support.accounts import acall, claim, pid
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all
from tests.support.server_process import ServerProcess

PASSWORD = "correct horse battery"
TALK_ENV = {**FAST_CLIENT_ENV, "GIN_TALK_SECONDS": "0.2"}


async def member(server: ServerProcess, handle: str) -> tuple[Session, str]:
    """A new account holder with ``handle``, connected with its account's token."""
    guest = await Session.connect(server.ws_url, name=handle.title())
    await guest.close()
    token = str((await claim(server.http_url, guest.token or "", handle, PASSWORD))["token"])
    return await Session.connect(server.ws_url, token=token), token


async def block(server: ServerProcess, token: str, **body: Any) -> dict[str, Any]:
    status, reply = await acall(server.http_url, "/api/blocks", body, token=token)
    assert status == 200, reply
    return reply


async def listed(server: ServerProcess, token: str) -> list[dict[str, Any]]:
    status, reply = await acall(server.http_url, "/api/blocks", token=token)
    assert status == 200, reply
    return list(reply["blocked"])


async def test_a_blocked_players_quick_messages_never_arrive_and_reveal_nothing(
    server_factory: ServerFactory,
) -> None:
    first, second = server_factory(env=TALK_ENV), server_factory(env=TALK_ENV)
    players = await table(first.ws_url, second.ws_url)
    room, ada, bob = players.room, players.ada, players.bob
    try:
        # a guest blocks from the table: the room and the other seat
        reply = await block(first, ada.token or "", room=room, seat=1)
        assert reply["blocked"]["name"] == "Bob" and len(reply["blocked"]["ref"]) == REF_CHARS
        assert pid(bob) not in str(reply)
        said = await bob.request("say", room=room, phrase="good_luck")
        assert set(said.result) == {"at"}  # the reply of a delivered message
        await ada.request("say", room=room, phrase="heart")  # nor the other way
        await barrier(players, ada, bob, *players.watchers)
        assert saids(ada) == [] and saids(bob) == []
        # the allowance is spent alike: the same refusal as for messages delivered
        with pytest.raises(RequestError) as refused:
            for _ in range(20):
                await bob.request("say", room=room, phrase="hello")
        assert refused.value.code == "too_many_phrases"
        # Bob's side shows nothing: his own list is empty, no frame told him
        assert await listed(second, bob.token or "") == []
        assert bob.frames is not None
        assert not any("block" in type(frame).__name__.lower() for frame in bob.frames)
        # undone from the list: Ada hears Bob again (so the silence above was the block's)
        ref = (await listed(first, ada.token or ""))[0]["ref"]
        status, undone = await acall(
            first.http_url, "/api/blocks/undo", {"ref": ref}, token=ada.token
        )
        assert (status, undone) == (200, {"unblocked": True})
        assert await listed(first, ada.token or "") == []
        while True:  # the allowance comes back
            try:
                await bob.request("say", room=room, phrase="well_played")
                break
            except RequestError as error:
                assert error.code == "too_many_phrases"
                await asyncio.sleep(0.1)
        assert (await said_to(ada, room)).phrase == "well_played"
    finally:
        await players.close()


async def _waits(session: Session, rated: bool) -> str:
    answer = await session.request("quick_match", rated=rated)
    assert answer.result["queued"] is True, answer.result
    return str(answer.result["room"])


def _has_opponent(session: Session, room: str) -> bool:
    """The player waiting in ``room`` got an opponent: their room fills, or points to the
    rated host's room."""
    view = session.view(room)
    return view is not None and (
        view["next_room"] is not None or all(seat["name"] for seat in view["seats"])
    )


async def _paired_in(session: Session, room: str, timeout: float = 6.0) -> bool:
    """Whether the player waiting in ``room`` got an opponent within ``timeout`` seconds."""
    for _ in range(int(timeout * 10)):
        if _has_opponent(session, room):
            return True
        await asyncio.sleep(0.1)
    return False


async def _which_paired(waiting: list[tuple[Session, str]], timeout: float = 6.0) -> list[bool]:
    """Which of the ``waiting`` players got an opponent, read once one of them has (within
    ``timeout`` seconds) and again half a second later."""
    for _ in range(int(timeout * 10)):
        if any(_has_opponent(session, room) for session, room in waiting):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    return [_has_opponent(session, room) for session, room in waiting]


@pytest.mark.parametrize("rated", [False, True], ids=["casual", "rated"])
@pytest.mark.parametrize("blocker_waits_first", [True, False], ids=["blocker", "blocked"])
async def test_quick_match_never_pairs_a_blocked_pair(
    server_factory: ServerFactory, rated: bool, blocker_waits_first: bool
) -> None:
    first, second = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(first, "ada_blocks")
    bob, _ = await member(second, "bob_blocked")
    cy, _ = await member(second, "cy_third")
    try:
        await block(first, ada_token, handle="bob_blocked")
        early, late = (ada, bob) if blocker_waits_first else (bob, ada)
        early_room = await _waits(early, rated)
        late_room = await _waits(late, rated)
        assert not await _paired_in(early, early_room, timeout=3)
        assert not await _paired_in(late, late_room, timeout=0.5)
        # a third player is paired with one of them: the queue still works
        cy_answer = await cy.request("quick_match", rated=rated)
        cy_room = str(cy_answer.result["room"])
        paired = await _which_paired([(early, early_room), (late, late_room)])
        assert paired.count(True) == 1, paired
        if not rated:
            assert cy_answer.result["queued"] is False and cy_room == early_room
    finally:
        await close_all(ada, bob, cy)


async def test_blocking_refuses_bad_input_with_its_own_codes_and_floods_are_limited(
    gin_server: ServerProcess,
) -> None:
    ada, token = await member(gin_server, "ada_floods")
    base = gin_server.http_url
    try:
        cases: list[tuple[Any, int, str]] = [
            ({}, 400, "invalid_argument"),
            ({"handle": 7}, 400, "bad_handle"),
            ({"handle": "no_such_person"}, 404, "unknown_handle"),
            ({"handle": "ada_floods"}, 400, "invalid_argument"),  # oneself
            ({"room": "../x", "seat": 1}, 400, "invalid_argument"),
            ({"room": "r1", "seat": True}, 400, "invalid_argument"),
            ({"room": "nosuchroom", "seat": 1}, 404, "not_found"),
        ]
        for body, status, code in cases:
            got, reply = await acall(base, "/api/blocks", body, token=token)
            assert (got, reply.get("error")) == (status, code), (body, reply)
        got, reply = await acall(base, "/api/blocks/undo", {"ref": ["x"]}, token=token)
        assert (got, reply["error"]) == (400, "invalid_argument")
        got, reply = await acall(base, "/api/blocks", {"handle": "x"})
        assert (got, reply["error"]) == (401, "not_authenticated")
        got, reply = await acall(base, "/api/blocks", raw=b"[1]", token=token)
        assert (got, reply["error"]) == (400, "bad_message")
        # a flood: every request is counted, then refused with its own code
        codes = []
        for _ in range(BLOCK_REQUESTS + 5):
            undo = {"handle": "ada_floods"}
            got, reply = await acall(base, "/api/blocks/undo", undo, token=token)
            codes.append(reply.get("error", "ok"))
        assert "internal" not in codes
        assert codes[-1] == "too_many_block_requests", codes
    finally:
        await ada.close()

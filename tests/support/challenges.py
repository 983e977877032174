"""Challenges from a test: ``/api/challenges`` over real HTTP (``tests.support.accounts``),
with account holders made by ``tests.support.friends.member``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from client.session import Session
from protocol import messages as m
from tests.support.accounts import acall
from tests.support.server_process import ServerProcess


async def challenges_post(
    server: ServerProcess, token: str, path: str, **body: Any
) -> tuple[int, dict[str, Any]]:
    """POST ``/api/challenges`` + ``path`` (``""``: a challenge): (status, reply)."""
    return await acall(server.http_url, "/api/challenges" + path, body, token=token)


async def challenge(server: ServerProcess, token: str, handle: str, **terms: Any) -> dict[str, Any]:
    """Challenge ``handle``; the challenge as the sender's list shows it."""
    status, reply = await challenges_post(server, token, "", handle=handle, **terms)
    assert status == 200, reply
    return dict(reply["challenge"])


async def inbox(server: ServerProcess, token: str) -> dict[str, Any]:
    status, reply = await acall(server.http_url, "/api/challenges", token=token)
    assert status == 200, reply
    return reply


async def set_who(server: ServerProcess, token: str, who: str) -> None:
    status, reply = await challenges_post(server, token, "/setting", who=who)
    assert (status, reply) == (200, {"who": who}), reply


async def until_sent(
    server: ServerProcess,
    token: str,
    challenge_id: str,
    wanted: Callable[[dict[str, Any]], bool],
    timeout: float = 10.0,
) -> dict[str, Any]:
    """Read the sender's list until their challenge ``challenge_id`` is ``wanted``."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while True:
        entry = next(
            (e for e in (await inbox(server, token))["sent"] if e["id"] == challenge_id), None
        )
        if entry is not None and wanted(entry):
            return dict(entry)
        assert loop.time() - start < timeout, entry
        await asyncio.sleep(0.05)


async def befriend(
    one: ServerProcess,
    one_token: str,
    two: ServerProcess,
    two_token: str,
    two_handle: str,
    one_handle: str,
) -> None:
    """Make the two friends (a request on ``one``, accepted on ``two``)."""
    status, reply = await acall(
        one.http_url, "/api/friends", {"handle": two_handle}, token=one_token
    )
    assert status == 200, reply
    status, reply = await acall(
        two.http_url, "/api/friends/accept", {"handle": one_handle}, token=two_token
    )
    assert (status, reply) == (200, {"status": "friends"}), reply


async def next_nudge(session: Session, timeout: float = 10.0) -> m.Nudge:
    """The next ``nudge`` the session gets (other frames it gets meanwhile are passed over)."""
    while True:
        message = await asyncio.wait_for(session.inbox.get(), timeout)
        if isinstance(message, m.Nudge):
            return message


def nudges_in(session: Session) -> list[m.Nudge]:
    """The nudges waiting in the session's inbox, taken out."""
    found = []
    while not session.inbox.empty():
        message = session.inbox.get_nowait()
        if isinstance(message, m.Nudge):
            found.append(message)
    return found

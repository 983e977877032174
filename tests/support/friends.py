"""Friends from a test: account holders connected by websocket, and ``/api/friends`` over real
HTTP (``tests.support.accounts``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from client.session import Session
from tests.support.accounts import PASSWORD, acall, claim
from tests.support.server_process import ServerProcess


async def member(server: ServerProcess, handle: str) -> tuple[Session, str]:
    """A new account holder with ``handle``, connected to ``server`` with its account's token."""
    guest = await Session.connect(server.ws_url, name=handle.split("_", maxsplit=1)[0])
    await guest.close()
    token = str((await claim(server.http_url, guest.token or "", handle, PASSWORD))["token"])
    return await Session.connect(server.ws_url, token=token), token


async def friends_post(
    server: ServerProcess, token: str, path: str, **body: Any
) -> tuple[int, dict[str, Any]]:
    """POST ``/api/friends`` + ``path`` (``""``: a request): (status, reply)."""
    return await acall(server.http_url, "/api/friends" + path, body, token=token)


async def ask(server: ServerProcess, token: str, handle: str) -> str:
    status, reply = await friends_post(server, token, "", handle=handle)
    assert status == 200, reply
    return str(reply["status"])


async def friends_list(server: ServerProcess, token: str) -> dict[str, Any]:
    status, reply = await acall(server.http_url, "/api/friends", token=token)
    assert status == 200, reply
    return reply


def handles(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["handle"] for entry in entries]


async def presence_of(server: ServerProcess, token: str, handle: str) -> dict[str, Any] | None:
    """``handle``'s presence in the friends list of ``token`` (None: not listed)."""
    for entry in (await friends_list(server, token))["friends"]:
        if entry["handle"] == handle:
            return dict(entry["presence"])
    return None


async def until_presence(
    server: ServerProcess,
    token: str,
    handle: str,
    wanted: Callable[[dict[str, Any] | None], bool],
    timeout: float = 5.0,
) -> tuple[dict[str, Any] | None, float]:
    """Read the friends list until ``handle``'s presence is ``wanted``: it, and how long it
    took (s); AssertionError after ``timeout``."""
    start = time.monotonic()
    while True:
        found = await presence_of(server, token, handle)
        if wanted(found):
            return found, time.monotonic() - start
        assert time.monotonic() - start < timeout, f"{handle}: {found}"
        await asyncio.sleep(0.02)

"""The account endpoints from a test: JSON over real HTTP (urllib, off the event loop)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from client.session import Session

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(
    base: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
    method: str | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST (or GET without a body) ``base + path``: (status, JSON reply)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json", **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    verb = method or ("POST" if data is not None else "GET")
    request = urllib.request.Request(base + path, data=data, headers=sent, method=verb)
    try:
        with _OPENER.open(request, timeout=30) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), json.loads(error.read())


async def acall(
    base: str, path: str, body: Any = None, **options: Any
) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(call, base, path, body, **options)


async def claim(base: str, token: str, handle: str, password: str) -> dict[str, Any]:
    status, reply = await acall(
        base, "/api/account/claim", {"handle": handle, "password": password}, token=token
    )
    assert status == 200, reply
    return reply


async def sign_in(
    base: str, handle: str, password: str, *, device: str | None = None, **options: Any
) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {"handle": handle, "password": password}
    if device is not None:
        body["device"] = device
    return await acall(base, "/api/account/signin", body, **options)


# -- account holders for the rating tests ---------------------------------------------------

#: The password of the accounts the tests claim.
PASSWORD = "correct horse battery"


def pid(session: Session) -> str:
    """The player id of a session that said hello."""
    assert session.player_id is not None
    return str(session.player_id)


def token_of(session: Session) -> str:
    assert session.token is not None
    return session.token


def http_base(session: Session) -> str:
    """The HTTP address of the server the session speaks to (``ws://HOST/ws`` -> ``http://HOST``)."""
    return http_base_of(session.url)


def http_base_of(ws_url: str) -> str:
    """``ws://HOST/ws`` -> ``http://HOST`` (``wss`` -> ``https``)."""
    scheme, _, rest = ws_url.partition("://")
    return ("https" if scheme == "wss" else "http") + "://" + rest.removesuffix("/ws")


async def make_account_holder(session: Session, handle: str, password: str = PASSWORD) -> str:
    """Claim the session's player as the account ``handle`` through the HTTP API, as the web
    client does (``POST /api/account/claim`` with a password), and keep the rotated token in
    the session (its reconnects and bearer requests use it). A player who holds an account
    already keeps it. Returns the token."""
    base = http_base(session)
    status, me = await acall(base, "/api/account", token=token_of(session))
    assert status == 200, me
    if me.get("handle") is None:
        session.token = (await claim(base, token_of(session), handle, password))["token"]
    return token_of(session)

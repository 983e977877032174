"""The account endpoints: HTTP JSON under ``/api/account/`` (docs/protocol.md, "Accounts"),
and the profiles under ``/api/players/`` ("Profiles").

HTTP and not websocket messages: a passkey ceremony is two requests around a browser prompt
that may take a minute, a sign-in happens before there is a player to say ``hello`` as, and
the answers carry secrets (tokens) that a browser keeps out of the room's frames. Each request
names its player by ``Authorization: Bearer <token>`` (the token of ``hello``); a bad body gets
``400`` with its own code, never ``internal``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.messages import ErrorCode
from server.accounts import AccountError, Accounts
from server.addresses import TrustedProxies
from server.blocking import Blocking
from server.challenges import Challenges
from server.friends import Friends
from server.moderation import Reports
from server.profiles import Profiles

log = logging.getLogger(__name__)

#: The largest request body read (a passkey's attestation is a few kilobytes).
MAX_BODY_BYTES = 32 * 1024

Handler = Callable[[Accounts, Request, dict[str, Any]], Awaitable[dict[str, Any]]]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def _origin(request: Request) -> str:
    """The request's own origin (the passkeys' when no ``GIN_PUBLIC_ORIGIN`` is set)."""
    return f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"


def _address(request: Request) -> str:
    peer = request.client.host if request.client else "?"
    proxies: TrustedProxies = request.app.state.trusted_proxies
    return proxies.client_address(peer, request.headers.get("x-forwarded-for"))


def _error(code: ErrorCode, message: str, status: int, detail: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"error": code.value, "message": message}
    if detail:
        body["detail"] = detail
    return JSONResponse(body, status_code=status, headers={"cache-control": "no-store"})


def endpoint(handler: Handler, *, body: bool = True) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        accounts: Accounts = request.app.state.parts.accounts
        data: dict[str, Any] = {}
        if body:
            raw = await request.body()
            if len(raw) > MAX_BODY_BYTES:
                return _error(
                    ErrorCode.FRAME_TOO_LARGE, f"a body is at most {MAX_BODY_BYTES} bytes", 413
                )
            if raw:
                try:
                    parsed = json.loads(raw)
                except (ValueError, UnicodeDecodeError):
                    return _error(ErrorCode.BAD_MESSAGE, "the body is not JSON", 400)
                if not isinstance(parsed, dict):
                    return _error(ErrorCode.BAD_MESSAGE, "the body must be a JSON object", 400)
                data = parsed
        try:
            result = await handler(accounts, request, data)
        except AccountError as refusal:
            return _error(refusal.code, refusal.message, refusal.status, refusal.detail)
        return JSONResponse(result, headers={"cache-control": "no-store"})

    return serve


async def _me(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.me(_bearer(request))


async def _claim(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.claim(_bearer(request), data.get("handle"), data.get("password"))


async def _password(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.set_password(_bearer(request), data.get("password"))


async def _signin(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.signin_password(
        data.get("handle"), data.get("password"), data.get("device"), _address(request)
    )


async def _register_options(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await accounts.passkey_register_options(
        _bearer(request), data.get("handle"), _origin(request)
    )


async def _register(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.passkey_register(
        _bearer(request), data.get("credential"), _origin(request)
    )


async def _signin_options(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await accounts.passkey_signin_options(_origin(request), _address(request))


async def _passkey_signin(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await accounts.passkey_signin(
        data.get("credential"), data.get("device"), _origin(request)
    )


async def _signout(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.signout(_bearer(request))


async def _signout_all(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await accounts.signout_everywhere(_bearer(request))


async def _delete(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await accounts.delete(_bearer(request))


async def _profile(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    profiles = Profiles(request.app.state.parts.store, accounts)
    return await profiles.by_handle(request.path_params["handle"], _bearer(request))


async def _my_profile(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await Profiles(request.app.state.parts.store, accounts).me(_bearer(request))


def _blocking(accounts: Accounts, request: Request) -> Blocking:
    return Blocking(request.app.state.parts.store, accounts)


async def _blocks(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await _blocking(accounts, request).listed(_bearer(request))


async def _block(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await _blocking(accounts, request).block(_bearer(request), data)


async def _unblock(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await _blocking(accounts, request).unblock(_bearer(request), data)


def _friends(accounts: Accounts, request: Request) -> Friends:
    return Friends(request.app.state.parts.store, accounts)


async def _friends_list(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _friends(accounts, request).listed(_bearer(request))


async def _friend_ask(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await _friends(accounts, request).ask(_bearer(request), data)


async def _friend_accept(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _friends(accounts, request).accept(_bearer(request), data)


async def _friend_decline(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _friends(accounts, request).decline(_bearer(request), data)


async def _friend_remove(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _friends(accounts, request).remove(_bearer(request), data)


def _challenges(request: Request) -> Challenges:
    challenges: Challenges = request.app.state.parts.challenges
    return challenges


async def _challenge_list(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).listed(_bearer(request))


async def _challenge_send(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).send(_bearer(request), data)


async def _challenge_accept(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).accept(_bearer(request), data)


async def _challenge_decline(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).decline(_bearer(request), data)


async def _challenge_cancel(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).cancel(_bearer(request), data)


async def _challenge_setting(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).setting(_bearer(request))


async def _challenge_set_setting(
    accounts: Accounts, request: Request, data: dict[str, Any]
) -> dict[str, Any]:
    return await _challenges(request).set_setting(_bearer(request), data)


async def _report(accounts: Accounts, request: Request, data: dict[str, Any]) -> dict[str, Any]:
    return await Reports(request.app.state.parts.store, accounts).report(_bearer(request), data)


ROUTES = [
    Route("/api/account", endpoint(_me, body=False), methods=["GET"]),
    Route("/api/account/claim", endpoint(_claim), methods=["POST"]),
    Route("/api/account/password", endpoint(_password), methods=["POST"]),
    Route("/api/account/signin", endpoint(_signin), methods=["POST"]),
    Route("/api/account/passkey/register-options", endpoint(_register_options), methods=["POST"]),
    Route("/api/account/passkey/register", endpoint(_register), methods=["POST"]),
    Route("/api/account/passkey/signin-options", endpoint(_signin_options), methods=["POST"]),
    Route("/api/account/passkey/signin", endpoint(_passkey_signin), methods=["POST"]),
    Route("/api/account/signout", endpoint(_signout), methods=["POST"]),
    Route("/api/account/signout-everywhere", endpoint(_signout_all), methods=["POST"]),
    Route("/api/account/delete", endpoint(_delete), methods=["POST"]),
    # Profiles (server.profiles): a handle's public page, and the asker's own.
    Route("/api/players/me", endpoint(_my_profile, body=False), methods=["GET"]),
    Route("/api/players/@{handle}", endpoint(_profile, body=False), methods=["GET"]),
    # Blocking (server.blocking): the asker's block list, a block, an unblock.
    Route("/api/blocks", endpoint(_blocks, body=False), methods=["GET"]),
    Route("/api/blocks", endpoint(_block), methods=["POST"]),
    Route("/api/blocks/undo", endpoint(_unblock), methods=["POST"]),
    # Friends (server.friends): the list with presence, a request, its answer, a removal.
    Route("/api/friends", endpoint(_friends_list, body=False), methods=["GET"]),
    Route("/api/friends", endpoint(_friend_ask), methods=["POST"]),
    Route("/api/friends/accept", endpoint(_friend_accept), methods=["POST"]),
    Route("/api/friends/decline", endpoint(_friend_decline), methods=["POST"]),
    Route("/api/friends/remove", endpoint(_friend_remove), methods=["POST"]),
    # Challenges (server.challenges): the inbox and outcomes, a challenge, its answers, and
    # who may challenge the asker.
    Route("/api/challenges", endpoint(_challenge_list, body=False), methods=["GET"]),
    Route("/api/challenges", endpoint(_challenge_send), methods=["POST"]),
    Route("/api/challenges/accept", endpoint(_challenge_accept), methods=["POST"]),
    Route("/api/challenges/decline", endpoint(_challenge_decline), methods=["POST"]),
    Route("/api/challenges/cancel", endpoint(_challenge_cancel), methods=["POST"]),
    Route("/api/challenges/setting", endpoint(_challenge_setting, body=False), methods=["GET"]),
    Route("/api/challenges/setting", endpoint(_challenge_set_setting), methods=["POST"]),
    # Reports (server.moderation): a player reported, with a reason and the room.
    Route("/api/reports", endpoint(_report), methods=["POST"]),
]

"""Attacks on accounts, on a real server: malformed handles, passwords and WebAuthn answers
get their own codes (never ``internal``); a thousand password guesses are limited while the
owner still signs in; no secret reaches a log line or a Redis key name."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from client.session import Session
from server.store import Store
from tests.support.accounts import acall, call, claim, sign_in
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

PASSWORD = "correct horse battery"
LIMITS = {
    **FAST_CLIENT_ENV,
    "GIN_TRUSTED_PROXIES": "127.0.0.1",
    "GIN_SIGNIN_ACCOUNT_FAILURES": "10",
    "GIN_SIGNIN_ADDRESS_ATTEMPTS": "50",
}


async def _account(server: ServerProcess, handle: str) -> dict[str, object]:
    guest = await Session.connect(server.ws_url)
    await guest.close()
    return await claim(server.http_url, guest.token or "", handle, PASSWORD)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


async def test_a_thousand_guesses_are_limited_and_the_owner_still_signs_in(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=LIMITS)
    owner = await _account(server, "Owner")

    def guess(number: int) -> tuple[int, dict[str, object]]:
        # a botnet: every guess from another address (the per-address limit does not help)
        address = f"10.{number // 65536}.{number // 256 % 256}.{number % 256}"
        return call(
            server.http_url,
            "/api/account/signin",
            {"handle": "owner", "password": f"guess {number:04d}"},
            headers={"X-Forwarded-For": address},
        )

    replies: list[tuple[int, dict[str, object]]] = []
    for start in range(0, 1000, 25):
        batch = await asyncio.gather(
            *(asyncio.to_thread(guess, n) for n in range(start, start + 25))
        )
        replies.extend(batch)
    codes = [reply["error"] for _, reply in replies]
    assert set(codes) == {"bad_credentials", "signin_limited_account"}, set(codes)
    assert codes.count("bad_credentials") <= 10
    assert codes.count("signin_limited_account") >= 990
    assert all(status == 429 for status, reply in replies if reply["error"] != "bad_credentials")
    # a new device of the owner waits out the window (it decays), it is not locked for good
    status, refused = await sign_in(
        server.http_url, "Owner", PASSWORD, headers={"X-Forwarded-For": "192.0.2.8"}
    )
    assert (status, refused["error"]) == (429, "signin_limited_account")
    assert refused["detail"]["retry_after"] == 900
    # the owner, on a device that signed in before, is not locked out
    status, back = await sign_in(
        server.http_url,
        "Owner",
        PASSWORD,
        device=str(owner["device"]),
        headers={"X-Forwarded-For": "192.0.2.7"},
    )
    assert status == 200 and back["player_id"] == owner["player_id"], back


async def test_guesses_from_one_address_are_limited_by_address(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=LIMITS)
    for n in range(3):
        await _account(server, f"victim{n}")
    codes = []
    for n in range(60):  # a spray over accounts from one address
        status, reply = await sign_in(
            server.http_url,
            f"victim{n % 3}",
            f"spray {n}",
            headers={"X-Forwarded-For": "203.0.113.9"},
        )
        codes.append(reply["error"])
    assert "signin_limited_address" in codes
    assert codes.index("signin_limited_address") == 50
    # another address is not limited by that one's attempts (the sprayed account is)
    status, other = await sign_in(
        server.http_url,
        "victim1",
        PASSWORD,
        device=None,
        headers={"X-Forwarded-For": "198.51.100.1"},
    )
    assert (status, other["error"]) == (429, "signin_limited_account")


MALFORMED_CLAIMS = [
    ({"handle": "ab", "password": PASSWORD}, "bad_handle"),
    ({"handle": "a" * 5000, "password": PASSWORD}, "bad_handle"),
    ({"handle": ["Ada"], "password": PASSWORD}, "bad_handle"),
    ({"handle": None, "password": PASSWORD}, "bad_handle"),
    ({"handle": "Ada\u200b", "password": PASSWORD}, "bad_handle"),
    ({"handle": "Admin", "password": PASSWORD}, "bad_handle"),
    ({"handle": "Valid_One", "password": "short"}, "bad_password"),
    ({"handle": "Valid_One", "password": "aaaaaaaaaaaa"}, "bad_password"),
    ({"handle": "Valid_One", "password": 12345678}, "bad_password"),
    ({"handle": "Valid_One", "password": "x" * 100_000}, "frame_too_large"),
    ({"handle": "Valid_One"}, "bad_password"),
]


@pytest.mark.parametrize(("body", "code"), MALFORMED_CLAIMS)
async def test_malformed_claims_get_their_own_codes(
    gin_server: ServerProcess, body: dict[str, object], code: str
) -> None:
    guest = await Session.connect(gin_server.ws_url)
    await guest.close()
    status, reply = await acall(gin_server.http_url, "/api/account/claim", body, token=guest.token)
    assert reply["error"] == code, reply
    assert 400 <= status < 500


def _client_data(challenge: str, kind: str = "webauthn.get") -> str:
    data = {"type": kind, "challenge": challenge, "origin": "http://evil.example"}
    return _b64(json.dumps(data).encode())


MALFORMED_PASSKEYS = [
    ("not an object", "bad_passkey"),
    ({}, "bad_passkey"),
    ({"response": "x"}, "bad_passkey"),
    ({"response": {"clientDataJSON": 5}}, "bad_passkey"),
    ({"response": {"clientDataJSON": "!!!not base64!!!"}}, "bad_passkey"),
    ({"response": {"clientDataJSON": _b64(b"[1, 2]")}}, "bad_passkey"),
    ({"response": {"clientDataJSON": _b64(b"{}")}}, "bad_passkey"),
    ({"response": {"clientDataJSON": _client_data(_b64(b"never issued"))}}, "challenge_expired"),
]


@pytest.mark.parametrize(("credential", "code"), MALFORMED_PASSKEYS)
async def test_malformed_webauthn_answers_get_their_own_codes(
    gin_server: ServerProcess, credential: object, code: str
) -> None:
    status, reply = await acall(
        gin_server.http_url, "/api/account/passkey/signin", {"credential": credential}
    )
    assert (status, reply["error"]) == (400, code), reply


async def test_a_challenge_is_used_once_and_bound_to_the_origin(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    status, issued = await acall(base, "/api/account/passkey/signin-options", {})
    assert status == 200 and issued["options"]["rpId"] == "127.0.0.1"
    challenge = issued["options"]["challenge"]
    forged = {
        "id": _b64(b"cred"),
        "rawId": _b64(b"cred"),
        "type": "public-key",
        "response": {
            "clientDataJSON": _client_data(challenge),
            "authenticatorData": _b64(b"\0" * 37),
            "signature": _b64(b"sig"),
            "userHandle": _b64(b"pNoSuchPlayer1"),
        },
    }
    first = await acall(base, "/api/account/passkey/signin", {"credential": forged})
    assert first[1]["error"] == "bad_credentials", first
    again = await acall(base, "/api/account/passkey/signin", {"credential": forged})
    assert again[1]["error"] == "challenge_expired", again


async def test_bodies_and_tokens_that_are_not_right(gin_server: ServerProcess) -> None:
    base = gin_server.http_url
    assert (await acall(base, "/api/account/claim", raw=b"{not json"))[1]["error"] == "bad_message"
    assert (await acall(base, "/api/account/claim", raw=b"[1]"))[1]["error"] == "bad_message"
    assert (await acall(base, "/api/account"))[1]["error"] == "not_authenticated"
    assert (await acall(base, "/api/account", token="p" * 13 + "." + "x" * 43))[1]["error"] == (
        "bad_token"
    )
    guest = await Session.connect(gin_server.ws_url)
    await guest.close()
    reply = await acall(base, "/api/account/signout-everywhere", {}, token=guest.token)
    assert reply == (403, {"error": "not_an_account", "message": "this player has no account yet"})


async def test_no_secret_in_a_log_line_or_a_key_name(
    gin_server: ServerProcess, store: Store
) -> None:
    guest = await Session.connect(gin_server.ws_url)
    await guest.close()
    claimed = await claim(gin_server.http_url, guest.token or "", "Secretive", PASSWORD)
    await sign_in(gin_server.http_url, "Secretive", "wrong password here")
    await acall(gin_server.http_url, "/api/account/passkey/signin-options", {})
    secrets = [PASSWORD, "wrong password here", str(claimed["token"]), str(guest.token)]
    secrets += [str(claimed["device"]), str(claimed["token"]).split(".")[1]]
    log = gin_server.log_text()
    redis: Any = store._redis
    names = [key.decode() async for key in redis.scan_iter(count=1000)]
    values = json.dumps(
        {
            key: {
                k.decode(): v.decode(errors="replace")
                for k, v in (await redis.hgetall(key)).items()
            }
            for key in names
            if key.startswith("player:")
        }
    )
    for secret in secrets:
        assert secret not in log
        assert not any(secret in name for name in names)
        assert secret not in values
    assert not any("Secretive" in name or "secretive" in name for name in names)

"""Accounts, guest first: a guest keeps their player (same id: stats, hands and rooms in play
follow) by claiming a handle with a password and/or a passkey; signing in on another device
gives the same player a new token. Sign out, sign out everywhere, delete the account.

The HTTP routes (``server.account_routes``) call this; it raises ``AccountError`` with an
error code of its own for every refusal. Secrets never leave this module but as hashes: tokens
and device secrets as SHA-256, passwords as argon2id (hashed off the event loop).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol import codec
from protocol.messages import ErrorCode
from server import handles, identity, keys, names, passkeys, passwords
from server.limits import address_digest
from server.settings import Settings
from server.store import Store
from server.store.accounts import DEVICE, PASSKEY, SESSION, Account

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Tokens one player keeps at once (devices signed in): the oldest is revoked past it.
MAX_SESSIONS = 20
#: A handle key whose player never wrote the handle (a claim cut short) is taken over after.
STALE_CLAIM_MS = 60_000
DEVICE_BYTES = 24


@dataclass
class AccountError(Exception):
    """A refused account request: its code, a message for people, an HTTP status."""

    code: ErrorCode
    message: str
    status: int = 400
    detail: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"


class Accounts:
    """The account requests; ``origin`` of each is the public origin (``GIN_PUBLIC_ORIGIN``)
    or, without one, the request's own."""

    def __init__(self, store: Store, settings: Settings, cut_off: Callable[[str], None]) -> None:
        self._store = store
        self._settings = settings
        self._cut_off = cut_off
        self._signouts = store.signouts(cut_off)

    async def start(self) -> None:
        await self._signouts.start()

    async def stop(self) -> None:
        await self._signouts.stop()

    # -- who is asking --------------------------------------------------------------------

    async def authenticate(self, token: str | None) -> Account:
        """The account (or guest) a bearer token belongs to; ``bad_token`` if none."""
        if not token:
            raise AccountError(
                ErrorCode.NOT_AUTHENTICATED, "send the player's token (Authorization: Bearer)", 401
            )
        player_id = identity.token_player_id(token)
        account = await self._store.get_account(player_id) if player_id else None
        if account is None or not identity.token_known(
            token, account.token_hash or "", account.sessions
        ):
            raise AccountError(ErrorCode.BAD_TOKEN, "unknown or revoked token", 401)
        return account

    async def holder(self, token: str | None, what: str) -> str:
        """The player id of the account holder a bearer token belongs to; a guest is refused
        ``account_required`` ("``what`` are for account holders")."""
        account = await self.authenticate(token)
        if account.handle is None:
            raise AccountError(
                ErrorCode.ACCOUNT_REQUIRED, f"{what} are for account holders: claim a handle", 403
            )
        return account.player_id

    async def me(self, token: str | None) -> dict[str, Any]:
        account = await self.authenticate(token)
        rooms = await self._store.player_rooms(account.player_id)
        return {
            "player_id": account.player_id,
            "handle": account.handle,
            "password": account.password_hash is not None,
            "passkeys": len(account.passkeys),
            "sessions": len(account.sessions) + (1 if account.token_hash else 0),
            "rooms": sorted(rooms),
        }

    # -- claiming -------------------------------------------------------------------------

    async def claim(
        self, token: str | None, raw_handle: object, raw_password: object
    ) -> dict[str, Any]:
        """A guest keeps their player as an account with a handle and a password."""
        account = await self.authenticate(token)
        assert token is not None
        if account.handle is not None:
            raise AccountError(ErrorCode.ALREADY_CLAIMED, "this player is an account already", 409)
        handle = _clean_handle(raw_handle)
        password = _check_password(raw_password)
        digest = await asyncio.to_thread(passwords.hash_password, password)
        await self._take_handle(account.player_id, handle)
        await self._store.set_account_fields(
            account.player_id, handle=handle, handle_at=str(_now_ms()), password=digest
        )
        log.info("account claimed", extra={"player": account.player_id, "with": "password"})
        return await self._signed_in(account.player_id, handle, replaces=token)

    async def passkey_register_options(
        self, token: str | None, raw_handle: object, origin: str
    ) -> dict[str, Any]:
        """The options of a new passkey: for a guest, with the handle to claim; for an
        account, another passkey of it."""
        account = await self.authenticate(token)
        if account.handle is None:
            if raw_handle is None:
                raise AccountError(ErrorCode.BAD_HANDLE, "a guest claims a handle with a passkey")
            handle = _clean_handle(raw_handle)
            await self._check_free(account.player_id, handle)
        else:
            handle = account.handle
        party = self._party(origin)
        options, challenge = passkeys.registration_options(
            party, account.player_id, handle, list(account.passkeys)
        )
        record = {"purpose": "register", "player": account.player_id, "handle": handle}
        await self._store.save_challenge(
            passkeys.challenge_digest(challenge), json.dumps(record), passkeys.CHALLENGE_TTL_SECONDS
        )
        return {"options": options}

    async def passkey_register(
        self, token: str | None, credential: object, origin: str
    ) -> dict[str, Any]:
        account = await self.authenticate(token)
        assert token is not None
        record = await self._challenge(credential, "register")
        if record.get("player") != account.player_id:
            raise AccountError(ErrorCode.CHALLENGE_EXPIRED, "this challenge is another player's")
        challenge = passkeys.answered_challenge(credential)
        new = _passkey(
            lambda: passkeys.verify_registration(self._party(origin), credential, challenge)
        )
        fields = {PASSKEY + new.credential_id: new.stored()}
        if account.handle is None:
            handle = _clean_handle(record.get("handle"))
            await self._take_handle(account.player_id, handle)
            await self._store.set_account_fields(
                account.player_id, handle=handle, handle_at=str(_now_ms()), **fields
            )
            log.info("account claimed", extra={"player": account.player_id, "with": "passkey"})
            return await self._signed_in(account.player_id, handle, replaces=token)
        await self._store.set_account_fields(account.player_id, **fields)
        return {"player_id": account.player_id, "handle": account.handle, "token": token}

    async def set_password(self, token: str | None, raw_password: object) -> dict[str, Any]:
        """An account adds or changes its password."""
        account = await self._account(token)
        digest = await asyncio.to_thread(passwords.hash_password, _check_password(raw_password))
        await self._store.set_account_fields(account.player_id, password=digest)
        return {"password": True}

    # -- signing in -----------------------------------------------------------------------

    async def signin_password(
        self, raw_handle: object, raw_password: object, device: object, address: str
    ) -> dict[str, Any]:
        handle = _clean_handle(raw_handle)
        if not isinstance(raw_password, str) or len(raw_password) > 4 * passwords.MAX_LENGTH:
            raise AccountError(
                ErrorCode.BAD_PASSWORD, "a password is a string of at most 128 characters"
            )
        await self._count_address(address)
        holder = await self._holder(handle)
        account = await self._store.get_account(holder) if holder else None
        if account is None or account.password_hash is None:
            await asyncio.to_thread(passwords.verify_none, raw_password)
            raise AccountError(ErrorCode.BAD_CREDENTIALS, "wrong handle or password", 401)
        counter = keys.signin_account(account.player_id)
        known_device = isinstance(device, str) and identity.hash_token(device) in account.devices
        if not known_device:
            settings = self._settings
            allowed = await self._store.count_signin(
                counter, settings.signin_account_failures, settings.signin_window_seconds
            )
            if not allowed:
                raise AccountError(
                    ErrorCode.SIGNIN_LIMITED_ACCOUNT,
                    "too many sign-in attempts for this account; try again later, or sign in "
                    "with a passkey or from a device that signed in before",
                    429,
                    {"retry_after": settings.signin_window_seconds},
                )
        password = _normalized(raw_password)
        if not await asyncio.to_thread(passwords.verify_password, account.password_hash, password):
            raise AccountError(ErrorCode.BAD_CREDENTIALS, "wrong handle or password", 401)
        await self._store.clear_signin(counter)
        assert account.handle is not None
        return await self._signed_in(account.player_id, account.handle, device=device)

    async def passkey_signin_options(self, origin: str, address: str) -> dict[str, Any]:
        await self._count_address(address)
        options, challenge = passkeys.authentication_options(self._party(origin))
        await self._store.save_challenge(
            passkeys.challenge_digest(challenge),
            json.dumps({"purpose": "signin"}),
            passkeys.CHALLENGE_TTL_SECONDS,
        )
        return {"options": options}

    async def passkey_signin(
        self, credential: object, device: object, origin: str
    ) -> dict[str, Any]:
        record = await self._challenge(credential, "signin")
        del record
        challenge = passkeys.answered_challenge(credential)
        player_id = _passkey(lambda: passkeys.user_handle(credential))
        cred_id = _passkey(lambda: passkeys.credential_id(credential))
        try:
            keys.check_id(player_id, "player id")
        except keys.InvalidId:
            raise AccountError(
                ErrorCode.BAD_CREDENTIALS, "no account has this passkey", 401
            ) from None
        account = await self._store.get_account(player_id)
        stored = account.passkeys.get(cred_id) if account is not None else None
        if account is None or stored is None or account.handle is None:
            raise AccountError(ErrorCode.BAD_CREDENTIALS, "no account has this passkey", 401)
        count = _passkey(
            lambda: passkeys.verify_authentication(
                self._party(origin), credential, challenge, stored
            )
        )
        await self._store.set_account_fields(
            player_id, **{PASSKEY + cred_id: passkeys.updated(stored, count)}
        )
        return await self._signed_in(player_id, account.handle, device=device)

    # -- signing out, deleting ------------------------------------------------------------

    async def signout(self, token: str | None) -> dict[str, Any]:
        """This token is revoked (the others of the player stay)."""
        account = await self._account(token)
        assert token is not None
        await self._store.revoke_session(
            account.player_id,
            identity.hash_token(token),
            guest=account.token_hash is not None
            and identity.token_matches(token, account.token_hash),
        )
        return {"signed_out": 1}

    async def signout_everywhere(self, token: str | None) -> dict[str, Any]:
        """Every token of the player is revoked, and every open connection of theirs, on
        every server process, is cut off."""
        account = await self._account(token)
        revoked = await self._store.revoke_sessions(account.player_id)
        self._cut_off(account.player_id)
        await self._signouts.publish(account.player_id)
        log.info("signed out everywhere", extra={"player": account.player_id, "tokens": revoked})
        return {"signed_out": revoked}

    async def delete(self, token: str | None) -> dict[str, Any]:
        """The account is gone: handle, credentials, sessions, stats, profile, friends and
        friend requests. Its finished hands stay for the other player, under a neutral name."""
        account = await self._account(token)
        player_id = account.player_id
        assert account.handle is not None
        await self._store.remove_account_fields(player_id, "handle")
        await self._store.release_handle(handles.handle_digests(account.handle), player_id)
        await self._store.revoke_sessions(player_id)
        await self._neutral_hands(player_id, {account.handle, account.name})
        await self._store.forget_friends(player_id)
        await self._store.delete_player(player_id)
        self._cut_off(player_id)
        await self._signouts.publish(player_id)
        log.info("account deleted", extra={"player": player_id})
        return {"deleted": True}

    # -- parts ----------------------------------------------------------------------------

    async def _account(self, token: str | None) -> Account:
        account = await self.authenticate(token)
        if account.handle is None:
            raise AccountError(ErrorCode.NOT_AN_ACCOUNT, "this player has no account yet", 403)
        return account

    def _party(self, origin: str) -> passkeys.RelyingParty:
        chosen = self._settings.public_origin or origin
        host = chosen.split("://", 1)[-1].split(":", 1)[0].strip("[]")
        return passkeys.RelyingParty(origin=chosen, rp_id=host)

    async def _count_address(self, address: str) -> None:
        settings = self._settings
        allowed = await self._store.count_signin(
            keys.signin_address(address_digest(address)),
            settings.signin_address_attempts,
            settings.signin_window_seconds,
        )
        if not allowed:
            raise AccountError(
                ErrorCode.SIGNIN_LIMITED_ADDRESS,
                "too many sign-in attempts from this address; try again later",
                429,
                {"retry_after": settings.signin_window_seconds},
            )

    async def _holder(self, handle: str) -> str | None:
        """The player holding ``handle`` (or a look-alike), if their claim is complete."""
        for digest in handles.handle_digests(handle):
            held = await self._store.handle_holder(digest)
            if held is not None:
                return held[0]
        return None

    async def _check_free(self, player_id: str, handle: str) -> None:
        for digest in handles.handle_digests(handle):
            held = await self._store.handle_holder(digest)
            if held is not None and held[0] != player_id and not await self._stale(*held):
                raise AccountError(
                    ErrorCode.HANDLE_TAKEN, "this handle (or a look-alike) is taken", 409
                )

    async def _take_handle(self, player_id: str, handle: str) -> None:
        """Claim every gist of the handle (one script: of two claims, one wins); a holder
        whose claim was cut short a minute ago or more is taken over."""
        digests = handles.handle_digests(handle)
        claim = await self._store.claim_handle(digests, player_id)
        if not claim.claimed and claim.holder is not None:
            held = None
            for digest in digests:
                found = await self._store.handle_holder(digest)
                if found is not None and found[0] == claim.holder:
                    held = found
            if held is not None and await self._stale(*held):
                claim = await self._store.claim_handle(
                    digests, player_id, stale_holder=claim.holder
                )
        if not claim.claimed:
            raise AccountError(
                ErrorCode.HANDLE_TAKEN, "this handle (or a look-alike) is taken", 409
            )

    async def _stale(self, holder: str, since_ms: int) -> bool:
        """A holder that is gone, or that never wrote its handle within a minute."""
        account = await self._store.get_account(holder)
        if account is not None and account.handle is not None:
            return False
        return account is None or _now_ms() - since_ms >= STALE_CLAIM_MS

    async def _challenge(self, credential: object, purpose: str) -> dict[str, Any]:
        challenge = _passkey(lambda: passkeys.answered_challenge(credential))
        raw = await self._store.take_challenge(passkeys.challenge_digest(challenge))
        if raw is None:
            raise AccountError(
                ErrorCode.CHALLENGE_EXPIRED,
                "this challenge is unknown, used or expired; start again",
            )
        record: dict[str, Any] = json.loads(raw)
        if record.get("purpose") != purpose:
            raise AccountError(
                ErrorCode.CHALLENGE_EXPIRED, "this challenge was for another ceremony"
            )
        return record

    async def _signed_in(
        self, player_id: str, handle: str, *, replaces: str | None = None, device: object = None
    ) -> dict[str, Any]:
        """A new token (rotated: the one it replaces is revoked with it) and a device proof;
        none for a banned player (``server.moderation``)."""
        if await self._store.ban_of(player_id) is not None:
            raise AccountError(ErrorCode.BANNED, "this account is banned", 403)
        token = identity.new_token(player_id)
        await self._store.add_session(
            player_id,
            identity.hash_token(token),
            max_sessions=MAX_SESSIONS,
            replaces=identity.hash_token(replaces) if replaces else None,
        )
        account = await self._store.get_account(player_id)
        if (
            isinstance(device, str)
            and account is not None
            and identity.hash_token(device) in account.devices
        ):
            proof = device
        else:
            proof = secrets.token_urlsafe(DEVICE_BYTES)
            await self._store.add_device(player_id, identity.hash_token(proof))
        await self._store.touch_player(player_id)
        name = account.name if account is not None else names.default_name(player_id)
        return {
            "player_id": player_id,
            "handle": handle,
            "name": name,
            "name_id": names.name_id(name, player_id),
            "token": token,
            "device": proof,
        }

    async def _neutral_hands(self, player_id: str, shown: set[str]) -> None:
        """The player's finished hands name them by a neutral name from now on."""
        neutral = names.default_name(player_id)
        for hand_id in await self._store.player_hands(player_id, 10_000):
            record = await self._store.get_hand(hand_id)
            if record is None:
                continue
            data = codec.unpack(record.blob)
            if not isinstance(data, dict):
                continue
            changed = False
            for index, name in enumerate(data.get("players") or []):
                if name in shown:
                    data["players"][index] = neutral
                    changed = True
            for seat in data.get("seats") or []:
                if isinstance(seat, dict) and seat.get("name") in shown:
                    seat["name"] = neutral
                    seat["name_id"] = names.name_id(neutral, player_id)
                    changed = True
            if changed:
                await self._store.rewrite_hand_blob(hand_id, codec.pack(data))


def _now_ms() -> int:
    return int(time.time() * 1000)


def _normalized(password: str) -> str:
    return unicodedata.normalize("NFKC", password)


def _clean_handle(raw: object) -> str:
    try:
        return handles.clean_handle(raw)
    except handles.BadHandle as refusal:
        raise AccountError(ErrorCode.BAD_HANDLE, str(refusal)) from None


def _check_password(raw: object) -> str:
    try:
        return passwords.check_password(raw)
    except passwords.BadPassword as refusal:
        raise AccountError(ErrorCode.BAD_PASSWORD, str(refusal)) from None


def _passkey(step: Callable[[], T]) -> T:
    try:
        return step()
    except passkeys.BadPasskey as refusal:
        raise AccountError(ErrorCode.BAD_PASSKEY, str(refusal)) from None


__all__ = ["DEVICE", "SESSION", "AccountError", "Accounts"]

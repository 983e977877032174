"""Accounts: handles (``{handles}:DIGEST``), the credentials and sessions kept in the player
hash (``player:ID``), sign-in attempt counters and WebAuthn challenges.

Nothing secret is ever part of a key name: tokens, device secrets and challenges are named by
their SHA-256 (the caller hashes them, ``server.identity.hash_token``), handles by the digest
of their gist (``server.handles``); passwords are kept as argon2id hashes only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from server import keys
from server.store._base import StoreBase, as_text, check_positive, check_text
from server.store.player_channel import PlayerChannel

#: Field prefixes of the player hash (``server.keys``: ``player:ID``).
SESSION = "session:"
DEVICE = "device:"
PASSKEY = "passkey:"
#: The fields that make a player an account holder, removed when the account is deleted.
ACCOUNT_FIELDS = ("handle", "handle_at", "password")


@dataclass(frozen=True, slots=True)
class Account:
    """What the player hash holds of an account (``handle`` None: a guest)."""

    player_id: str
    handle: str | None
    handle_at: int
    password_hash: str | None
    token_hash: str | None
    sessions: frozenset[str]
    devices: frozenset[str]
    passkeys: dict[str, str]
    name: str


@dataclass(frozen=True, slots=True)
class HandleClaim:
    """The result of ``claim_handle``: claimed, or the player who holds it."""

    claimed: bool
    holder: str | None


def _now_ms() -> int:
    return int(time.time() * 1000)


class AccountOps(StoreBase):
    """Handles, credentials, sessions, sign-in counters and WebAuthn challenges."""

    async def get_account(self, player_id: str) -> Account | None:
        """The account part of a player's hash; None if there is no such player."""
        raw = await self._redis.hgetall(keys.player(player_id))
        if not raw:
            return None
        fields = {as_text(k): as_text(v) for k, v in raw.items()}
        return Account(
            player_id=player_id,
            handle=fields.get("handle"),
            handle_at=int(fields.get("handle_at", "0")),
            password_hash=fields.get("password"),
            token_hash=fields.get("token_hash"),
            sessions=frozenset(f[len(SESSION) :] for f in fields if f.startswith(SESSION)),
            devices=frozenset(f[len(DEVICE) :] for f in fields if f.startswith(DEVICE)),
            passkeys={f[len(PASSKEY) :]: v for f, v in fields.items() if f.startswith(PASSKEY)},
            name=fields.get("name", ""),
        )

    # -- handles -----------------------------------------------------------------------------

    async def claim_handle(
        self, digests: list[str], player_id: str, *, stale_holder: str | None = None
    ) -> HandleClaim:
        """Take every gist of a handle for ``player_id`` at once (``lua/claim_handle.lua``):
        of two claims at the same moment exactly one wins. ``stale_holder``: a holder the
        caller found stale, whose claim is taken over."""
        if not 1 <= len(digests) <= 2:
            raise ValueError("a handle has one or two gists")
        reply = await self._run_script(
            self._scripts.claim_handle,
            [keys.handle(digest) for digest in digests],
            [keys.check_id(player_id, "player id"), _now_ms(), stale_holder or ""],
        )
        claimed, holder = int(reply[0]), as_text(reply[1])
        return HandleClaim(claimed == 1, holder or None)

    async def handle_holder(self, digest: str) -> tuple[str, int] | None:
        """The player holding a gist and since when (ms), or None."""
        raw = await self._redis.get(keys.handle(digest))
        if raw is None:
            return None
        holder, _, since = as_text(raw).partition(" ")
        return holder, int(since or "0")

    async def release_handle(self, digests: list[str], player_id: str) -> int:
        """Let a handle's gists go, each only while ``player_id`` holds it."""
        if not digests:
            return 0
        reply = await self._run_script(
            self._scripts.release_handle,
            [keys.handle(digest) for digest in digests],
            [keys.check_id(player_id, "player id")],
        )
        return int(reply)

    async def set_account_fields(self, player_id: str, **fields: str) -> bool:
        """Set account fields of the player hash (``handle``, ``password``...) if the player
        exists; False otherwise (nothing changed)."""
        args: list[str] = []
        for name, value in fields.items():
            args += [name, check_text(value, name, 1024)]
        reply = await self._run_script(self._scripts.hash_update, [keys.player(player_id)], args)
        return int(reply) == 1

    async def remove_account_fields(self, player_id: str, *fields: str) -> int:
        """Remove fields of the player hash (a password, a passkey, a device...)."""
        if not fields:
            return 0
        return int(await self._redis.hdel(keys.player(player_id), *fields))

    # -- sessions -----------------------------------------------------------------------------

    async def add_session(
        self, player_id: str, token_hash: str, *, max_sessions: int, replaces: str | None = None
    ) -> bool:
        """A new token of the player (``lua/add_session.lua``), the oldest past
        ``max_sessions`` revoked. ``replaces``: the hash of the token it rotates (gone with
        it). False if there is no such player."""
        check_text(token_hash, "token_hash")
        old = ""
        if replaces is not None:
            account = await self.get_account(player_id)
            if account is not None and account.token_hash == replaces:
                old = "token_hash"
            else:
                old = SESSION + replaces
        reply = await self._run_script(
            self._scripts.add_session,
            [keys.player(player_id)],
            [SESSION + token_hash, _now_ms(), int(check_positive(max_sessions, "max")), old],
        )
        return int(reply) == 1

    async def revoke_session(self, player_id: str, token_hash: str, *, guest: bool) -> int:
        """Revoke one token (sign out): a session, or a guest's own ``token_hash``."""
        key = keys.player(player_id)
        if guest:
            return int(await self._redis.hdel(key, "token_hash"))
        return int(await self._redis.hdel(key, SESSION + token_hash))

    async def revoke_sessions(self, player_id: str) -> int:
        """Revoke every token of the player at once (``lua/revoke_sessions.lua``)."""
        reply = await self._run_script(self._scripts.revoke_sessions, [keys.player(player_id)], [])
        return int(reply)

    async def add_device(self, player_id: str, device_hash: str) -> None:
        """Remember a device that signed in (the hash of its secret)."""
        await self._redis.hset(keys.player(player_id), DEVICE + device_hash, str(_now_ms()))

    # -- sign-in attempts ---------------------------------------------------------------------

    async def count_signin(self, key: str, limit: int, window_seconds: int) -> bool:
        """Count one attempt on a sign-in counter (``signin-account:ID``,
        ``signin-address:ADDR``) unless ``limit`` were counted in its window (then False,
        nothing counted). The counter expires ``window_seconds`` after its first count."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [key],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "w"))],
        )
        return int(reply) == 1

    async def signin_count(self, key: str) -> int:
        raw = await self._redis.get(key)
        return int(raw) if raw is not None else 0

    async def clear_signin(self, key: str) -> None:
        await self._redis.delete(key)

    # -- WebAuthn challenges -------------------------------------------------------------------

    async def save_challenge(self, digest: str, record: str, ttl_seconds: int) -> None:
        """Keep a challenge (by its digest) for ``ttl_seconds``."""
        await self._redis.set(
            keys.webauthn_challenge(digest), record, ex=int(check_positive(ttl_seconds, "ttl"))
        )

    async def take_challenge(self, digest: str) -> str | None:
        """The challenge's record, deleted as it is read (GETDEL: used once); None when it
        was never issued, has expired or was used."""
        raw = await self._redis.getdel(keys.webauthn_challenge(digest))
        return None if raw is None else as_text(raw)

    def signouts(self, on_sign_out: Callable[[str], None]) -> PlayerChannel:
        """The process's subscription to "sign out everywhere" (``server.store.player_channel``)."""
        return PlayerChannel(self._redis, keys.signouts_channel(), on_sign_out)

    # -- deletion -----------------------------------------------------------------------------

    async def delete_player(self, player_id: str) -> None:
        """The player hash and their own hand and match indexes are gone (their stats and
        credentials with them)."""
        await self._redis.delete(keys.player(player_id))
        await self._redis.delete(keys.player_hands(player_id))
        await self._redis.delete(keys.player_matches(player_id))

    async def rewrite_hand_blob(self, hand_id: str, blob: bytes) -> bool:
        """Replace a hand record's blob (keeping its TTL); False if the hand is gone."""
        key = keys.hand(hand_id)
        reply = await self._run_script(self._scripts.hash_update, [key], ["blob", blob])
        return int(reply) == 1

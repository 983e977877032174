"""Anonymous player identities: an id anyone may see and a secret token only its owner holds."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 32
PLAYER_ID_BYTES = 9


def new_player_id() -> str:
    return "p" + secrets.token_urlsafe(PLAYER_ID_BYTES)


def new_token(player_id: str) -> str:
    """A bearer token that names its player (``<player id>.<secret>``)."""
    return f"{player_id}.{secrets.token_urlsafe(TOKEN_BYTES)}"


def token_player_id(token: str) -> str | None:
    player_id, dot, secret = token.partition(".")
    if not dot or not player_id or not secret:
        return None
    return player_id


def hash_token(token: str) -> str:
    """What the store keeps: a token that leaks from Redis cannot be replayed from its hash."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)

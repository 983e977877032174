"""Anonymous player identities: an id anyone may see and a secret token only its owner holds."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

TOKEN_BYTES = 32
PLAYER_ID_BYTES = 9


def _urlsafe_length(size: int) -> int:
    """The length of ``secrets.token_urlsafe(size)``: base64 without its padding."""
    return (size * 4 + 2) // 3


#: A token as ``new_token`` makes them: ``p`` and the id's characters, a dot, the secret.
_TOKEN = re.compile(
    rf"(p[A-Za-z0-9_-]{{{_urlsafe_length(PLAYER_ID_BYTES)}}})"
    rf"\.[A-Za-z0-9_-]{{{_urlsafe_length(TOKEN_BYTES)}}}"
)


def new_player_id() -> str:
    return "p" + secrets.token_urlsafe(PLAYER_ID_BYTES)


def new_token(player_id: str) -> str:
    """A bearer token that names its player (``<player id>.<secret>``)."""
    return f"{player_id}.{secrets.token_urlsafe(TOKEN_BYTES)}"


def token_player_id(token: str) -> str | None:
    """The player id a token names; None for anything that ``new_token`` cannot have made."""
    match = _TOKEN.fullmatch(token)
    return match[1] if match else None


def hash_token(token: str) -> str:
    """What the store keeps: a token that leaks from Redis cannot be replayed from its hash."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)


def token_known(token: str, token_hash: str, sessions: frozenset[str]) -> bool:
    """Whether ``token`` is the player's guest token (``token_hash``) or one of their session
    tokens (hashes in ``sessions``): each comparison takes the same time whatever matches."""
    digest = hash_token(token)
    found = bool(token_hash) and hmac.compare_digest(digest, token_hash)
    return digest in sessions or found

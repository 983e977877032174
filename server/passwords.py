"""Passwords: the policy (8 to 128 characters, not all one character) and argon2id hashing
(``argon2-cffi``). Only the hash is kept; verifying an unknown account's password costs the
same as a known one's (``verify_none``), so a reply's timing tells no one which handles exist.
"""

from __future__ import annotations

import functools
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

MIN_LENGTH = 8
MAX_LENGTH = 128


class BadPassword(ValueError):
    """A password the policy refuses; the message says why (never the password)."""


def check_password(raw: object) -> str:
    """The password as hashed (NFKC: typed the same on any keyboard), or ``BadPassword``."""
    if not isinstance(raw, str):
        raise BadPassword("a password is a string")
    if len(raw) > 4 * MAX_LENGTH:
        raise BadPassword(f"a password is {MIN_LENGTH} to {MAX_LENGTH} characters")
    password = unicodedata.normalize("NFKC", raw)
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise BadPassword(f"a password is {MIN_LENGTH} to {MAX_LENGTH} characters")
    if len(set(password)) < 3:
        raise BadPassword("a password needs at least 3 different characters")
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in password):
        raise BadPassword("a password cannot hold control characters")
    return password


@functools.cache
def _hasher() -> PasswordHasher:
    # argon2-cffi's defaults are RFC 9106's second recommended set (argon2id, 64 MiB, t=3).
    return PasswordHasher()


def hash_password(password: str) -> str:
    """The argon2id hash of a password that passed ``check_password``."""
    return _hasher().hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored_hash`` was made of."""
    try:
        return _hasher().verify(stored_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@functools.cache
def _decoy() -> str:
    return _hasher().hash("decoy password, never anyone's")


def verify_none(password: str) -> bool:
    """As long as ``verify_password``, for a handle that has no password: always False."""
    verify_password(_decoy(), password)
    return False

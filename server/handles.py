"""The handle policy: the name an account is known by, unique among accounts.

A handle is 3 to 20 characters (after NFC): letters of any script, digits (``Nd``), ``_`` and
``-``, with the combining marks a script writes its letters with (Arabic vowel marks, Devanagari
signs) after a letter. It is kept as the player typed it (its display form) and unique
case-insensitively and by look-alike: two handles whose UTS #39 skeletons agree (the name
policy's ``names.gists``: case folded, before and after the skeleton) cannot both be taken, so
``Ada`` (Latin) and ``Аda`` (Cyrillic А) are one handle. The AI's names (every language of
the web client) and ``RESERVED`` words are refused, and so are their look-alikes.
"""

from __future__ import annotations

import hashlib
import unicodedata

from server import names

MIN_LENGTH = 3
MAX_LENGTH = 20
#: Words no account may be called (routes, roles, the server's own seats).
RESERVED = (
    "admin",
    "administrator",
    "moderator",
    "mod",
    "root",
    "system",
    "server",
    "support",
    "staff",
    "official",
    "guest",
    "anonymous",
    "deleted",
    "player",
    "null",
    "undefined",
    "api",
    "ws",
    "gin",
    "ginrummy",
    "bot",
    "easy",
    "normal",
    "hard",
    "simple",
)
_MARKS = frozenset({"Mn", "Mc"})
_PUNCTUATION = frozenset("_-")


class BadHandle(ValueError):
    """A handle the policy refuses; the message says why."""


def clean_handle(raw: object) -> str:
    """The handle as it is kept and shown (NFC of what was typed), or ``BadHandle``."""
    if not isinstance(raw, str):
        raise BadHandle("a handle is a string")
    if len(raw) > 4 * MAX_LENGTH:
        raise BadHandle(f"a handle is {MIN_LENGTH} to {MAX_LENGTH} characters")
    handle = unicodedata.normalize("NFC", raw.strip())
    if not MIN_LENGTH <= len(handle) <= MAX_LENGTH:
        raise BadHandle(f"a handle is {MIN_LENGTH} to {MAX_LENGTH} characters")
    previous = ""
    for char in handle:
        category = unicodedata.category(char)
        if category in _MARKS:
            if not previous or unicodedata.category(previous)[0] not in "LM":
                raise BadHandle("a combining mark must follow a letter")
        elif not (category[0] == "L" or category == "Nd" or char in _PUNCTUATION):
            raise BadHandle(f"a handle holds letters, digits, _ and - only, not U+{ord(char):04X}")
        previous = char
    if not any(unicodedata.category(char)[0] in "LN" for char in handle):
        raise BadHandle("a handle needs a letter or a digit")
    try:
        names.clean_name(handle)  # invisible letters, too many marks, the AI's names
    except names.BadName as refusal:
        raise BadHandle(str(refusal)) from None
    if handle_gists(handle) & _reserved():
        raise BadHandle(f"{handle!r} is a reserved word")
    return handle


def handle_gists(handle: str) -> frozenset[str]:
    """What the handle may be taken for: the uniqueness keys of ``server.keys.handle``."""
    return frozenset(gist for gist in names.gists(handle) if gist)


def gist_digest(gist: str) -> str:
    """A key-safe name of a gist (it is user text: any script)."""
    return hashlib.sha256(gist.encode("utf-8")).hexdigest()[:40]


def handle_digests(handle: str) -> list[str]:
    """The key-safe names of every gist of ``handle``, sorted."""
    return sorted(gist_digest(gist) for gist in handle_gists(handle))


def _reserved() -> frozenset[str]:
    return frozenset(gist for word in RESERVED for gist in names.gists(word))

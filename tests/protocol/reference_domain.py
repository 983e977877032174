"""The part of the protocol that the frozen reference (``tests/protocol/reference``) speaks.

The messages, the optional fields and the error codes added since it was frozen (``claim_win``,
``stand_in``, ``create_room.turn_bank``, ``opponent_present``, ``not_away_long_enough``; in 1.1
``say``, ``said``, ``too_many_phrases``) are outside its domain: the differential tests
(``test_codec_differential.py``, ``test_codec_pack.py``) compare the live codec with it on
everything else, and the additions have their own tests (``test_codec.py``,
``test_messages.py``, the golden fixtures). One check was added to a message it knows: since
issue 27 a ``create_room`` with ``mode: "ai"`` and ``stand_in: true`` is refused
(``invalid_argument``); ``test_codec_differential.refused_since_the_reference`` names it."""

from __future__ import annotations

import dataclasses
from typing import Any

from protocol import messages as m
from tests.protocol.reference import messages as ref_m

REFERENCE_TAGS = sorted(set(m.MESSAGES) & set(ref_m.MESSAGES))
REFERENCE_CLIENT_TAGS = sorted(set(m.CLIENT_MESSAGES) & set(ref_m.CLIENT_MESSAGES))
REFERENCE_CODES = frozenset(code.value for code in ref_m.ErrorCode)
#: Codes the live protocol knows and the reference never did: the live one gives them as
#: ``ErrorCode`` members, the reference as plain strings (a newer peer's code).
ADDED_CODES = frozenset(code.value for code in m.ErrorCode) - REFERENCE_CODES


def reference_fields(cls: type[Any]) -> set[str]:
    """The fields of the reference's class of the same name (all of them for a new class)."""
    twin = getattr(ref_m, cls.__name__, cls)
    return {field.name for field in dataclasses.fields(twin)}


def in_reference_domain(value: dict[Any, Any]) -> bool:
    """Not a message type, a field of one, nor an error code that the reference never knew."""
    tag = value.get("t")
    if not isinstance(tag, str) or tag not in m.MESSAGES:
        return True
    if tag not in ref_m.MESSAGES:
        return False
    cls = m.MESSAGES[tag]
    added = {field.name for field in dataclasses.fields(cls)} - reference_fields(cls)
    code = value.get("code")
    if isinstance(code, str) and code in ADDED_CODES:
        return False
    return not added & set(value)

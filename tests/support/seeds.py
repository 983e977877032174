"""Injected deal seeds, for tests that need a match to be the same every run."""

from __future__ import annotations

import hashlib

from server.engine import SEED_BYTES, GameState, to_text


def seed_of(number: int) -> bytes:
    """The deal seed numbered ``number`` (a fixed, distinct seed per number)."""
    return hashlib.blake2b(number.to_bytes(8, "big"), digest_size=SEED_BYTES).digest()


def next_hand_seed(state: GameState) -> bytes:
    """A seed for the hand that follows ``state``: a function of the state, so that the same
    moves always deal the same next hand in a test."""
    return hashlib.blake2b(to_text(state).encode(), digest_size=SEED_BYTES).digest()

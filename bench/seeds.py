"""Injected deal seeds for the benchmarks: the same matches every run."""

from __future__ import annotations

import hashlib

from server.engine import SEED_BYTES


def deal_seed(match: int, hand: int) -> bytes:
    """The seed of hand ``hand`` of match number ``match``."""
    return hashlib.blake2b(f"{match}:{hand}".encode(), digest_size=SEED_BYTES).digest()

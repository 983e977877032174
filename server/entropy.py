"""Fresh server entropy for the deals (``secrets``: the operating system's CSPRNG)."""

from __future__ import annotations

import secrets

from server.engine import SEED_BYTES, Action
from server.engine.actions import NEXT_HAND


def new_seed() -> bytes:
    """The seed of one deal: fresh entropy that nothing public reveals (kept, until the deal,
    in the stored room only)."""
    return secrets.token_bytes(SEED_BYTES)


def seed_for(action: Action) -> bytes | None:
    """The seed an action needs: a new one for the action that deals the next hand, none for
    the others (they deal nothing)."""
    return new_seed() if action.kind == NEXT_HAND else None

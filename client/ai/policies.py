"""The registry of AI policies: name -> ``choose(view, rng) -> action``."""

from __future__ import annotations

from client.ai import easy, hard, normal, simple
from client.ai.common import Policy

POLICIES: dict[str, Policy] = {
    "easy": easy.choose,
    "normal": normal.choose,
    "hard": hard.choose,
    "simple": simple.choose,
}

#: The levels offered to players (``simple`` is a benchmark baseline).
LEVELS = ("easy", "normal", "hard")


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        known = ", ".join(sorted(POLICIES))
        raise ValueError(f"unknown AI policy {name!r}: known are {known}") from None

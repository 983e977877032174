"""The pure parts of ``server.limits``: the failed-lookup budget (a token bucket), address
names, and the resource-limit settings."""

from __future__ import annotations

import pytest

from server.limits import address_digest
from server.ratelimit import TokenBucket
from server.settings import Settings


def test_a_failure_budget_empties_and_refills_at_its_rate() -> None:
    budget = TokenBucket(rate=1.0, burst=3, now=0.0)
    for _ in range(3):
        assert budget.left(0.0) >= 1.0
        budget.spend(0.0)
    assert budget.left(0.0) < 1.0
    assert budget.left(0.5) < 1.0
    assert budget.left(1.0) >= 1.0  # one failure back after a second
    assert budget.left(100.0) == 3.0  # never more than the burst


def test_address_digests_are_key_safe_and_distinct() -> None:
    names = {address_digest(address) for address in ("127.0.0.1", "::1", "2001:db8::1", "")}
    assert len(names) == 4
    assert all(len(name) == 32 and name.isalnum() for name in names)


def test_the_limits_are_settings_with_defaults() -> None:
    default = Settings.from_env({})
    assert (default.max_open_rooms, default.max_ai_rooms) == (5, 3)
    assert default.new_players_per_minute == 10
    assert default.lookup_failures_per_minute == 20
    assert default.new_player_retention_seconds == 24 * 3600
    assert default.unjoined_room_seconds == 3600
    env = {
        "GIN_MAX_OPEN_ROOMS": "7",
        "GIN_MAX_AI_ROOMS": "0",
        "GIN_NEW_PLAYERS_PER_MINUTE": "2",
        "GIN_NEW_PLAYER_RETENTION": "60",
        "GIN_UNJOINED_ROOM_SECONDS": "30",
        "GIN_LOOKUP_FAILURES_PER_MINUTE": "5",
    }
    chosen = Settings.from_env(env)
    assert (chosen.max_open_rooms, chosen.max_ai_rooms) == (7, 0)
    assert chosen.new_players_per_minute == 2
    assert chosen.new_player_retention_seconds == 60
    assert chosen.unjoined_room_seconds == 30
    assert chosen.lookup_failures_per_minute == 5
    with pytest.raises(ValueError, match="GIN_MAX_OPEN_ROOMS"):
        Settings.from_env({"GIN_MAX_OPEN_ROOMS": "0"})

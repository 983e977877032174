"""Issue 24, pacing: a room against the AI keeps the pace its person asked for (``ai_pace``),
shows it in every view, keeps it in a rematch, and no other room has one to set."""

from __future__ import annotations

import pytest

from server.room import RoomError, rematch_room, room_view
from tests.server.test_room import T0, ai_room, private_room
from tests.support.seeds import seed_of


def test_a_room_against_the_ai_keeps_and_shows_its_pace() -> None:
    fast = ai_room(ai_pace="fast")
    assert fast.ai_pace == "fast"
    assert ai_room().ai_pace == "normal"
    for seat in (0, None):
        assert room_view(fast, seat)["ai_pace"] == "fast"
    again, _ = rematch_room(fast, "R2", seed_of(3), T0)
    assert again.ai_pace == "fast"


@pytest.mark.parametrize("pace", ["fast", "slowest"])
def test_only_a_room_against_the_ai_is_paced(pace: str) -> None:
    with pytest.raises(RoomError, match="AI pace"):
        private_room(ai_pace=pace)
    if pace != "fast":
        with pytest.raises(RoomError, match="AI pace"):
            ai_room(ai_pace=pace)

"""What a name is made of, as the server says it (views, room events, hand records, lists):
the id of a default name and an AI seat's level, so that clients say them in their own
language."""

from __future__ import annotations

from typing import Any

from server.engine import legal_actions
from server.names import default_name, name_id
from server.room import (
    Room,
    Seat,
    act,
    create_room,
    hand_record,
    public_seats,
    room_view,
    seat_names,
)
from tests.support.seeds import seed_of

T0 = 1_700_000_000.0


def ai_room(creator: Seat, level: str) -> tuple[Room, list[dict[str, Any]]]:
    return create_room(
        room_id="r1", mode="ai", creator=creator, seed=seed_of(3), now=T0, level=level
    )


def test_a_default_name_is_made_of_its_players_id() -> None:
    assert name_id(default_name("p5d1e07aa"), "p5d1e07aa") == "5d1e0"
    # the same words chosen by someone else, or any other name, is a name as given
    assert name_id(default_name("p5d1e07aa"), "pzzzzz000") is None
    assert name_id("Ada", "p5d1e07aa") is None
    assert name_id(None, "p5d1e07aa") is None
    assert name_id("Player 5d1e0", None) is None


def test_seats_say_what_their_names_are_made_of() -> None:
    room, events = ai_room(Seat(player="pAbCdE123", name=default_name("pAbCdE123")), "hard")
    parts = [
        {"name": "Player AbCdE", "name_id": "AbCdE", "ai": None},
        {"name": "AI (hard)", "name_id": None, "ai": "hard"},
    ]
    assert seat_names(room) == parts
    for seat in (0, None):
        shown = room_view(room, seat)["seats"]
        assert [{key: s[key] for key in ("name", "name_id", "ai")} for s in shown] == parts
    assert events[0]["type"] == "room"  # the room events carry them too
    assert [seat["name_id"] for seat in events[0]["seats"]] == ["AbCdE", None]
    assert public_seats(room)[1]["ai"] == "hard"


def test_a_hand_record_says_what_its_players_names_are_made_of() -> None:
    room, _ = ai_room(Seat(player="pAbCdE123", name="Player zzzzz"), "easy")  # chosen
    while room.game is not None and room.game.phase.value not in ("hand_over", "match_over"):
        seat = room.game.turn
        assert seat is not None
        choices = legal_actions(room.game, seat)
        finishing = [action for action in choices if action.kind in ("gin", "knock")]
        room, _ = act(room, seat, (finishing or choices)[0], T0)
    record = hand_record(room)
    assert record is not None
    assert record["players"] == ["Player zzzzz", "AI (easy)"]
    assert record["seats"] == [
        {"name": "Player zzzzz", "name_id": None, "ai": None},
        {"name": "AI (easy)", "name_id": None, "ai": "easy"},
    ]

"""Issue 24, defect 8: a move made for a seat's player (by the turn clock, or by an AI standing
in while they are away) is marked as such in the history the views carry and in its events,
through every form a state takes (plain data, the notation, the stored blob, the views)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.blobs import RoomBlobs, decode_room
from server.engine import Action, GameState, Move, Phase, from_text, to_text
from server.engine.views import event_for, game_view
from server.room import act, expire_turn
from tests.server.test_room import T0, game_of, quick_room


def clock_played(seed: int = 26) -> tuple[GameState, list[dict[str, object]], int]:
    """A quick match whose first seat to act let its clock run out: the pass made for it."""
    room = quick_room(seed=seed, turn_seconds=30)
    seat = game_of(room).non_dealer
    result = expire_turn(room, T0 + 31)
    assert result is not None
    after, events = result
    return game_of(after), events, seat


def test_the_clock_s_move_is_marked_in_the_history_and_its_event() -> None:
    game, events, seat = clock_played()
    assert game.history == (Move(seat, "pass", None, by="clock"),)
    assert events == [{"type": "pass", "seat": seat, "by": "clock"}]
    # both players' views and a spectator's carry the mark
    for reader in (0, 1, None):
        assert game_view(game, reader)["history"] == [{"seat": seat, "kind": "pass", "by": "clock"}]
        assert event_for(events[0], reader)["by"] == "clock"


def test_a_stand_in_s_hidden_draw_keeps_its_mark_for_the_opponent() -> None:
    room = quick_room(seed=26, turn_seconds=0)
    game = game_of(room)
    seat = game.non_dealer
    room, _ = act(room, seat, Action("pass"), T0)
    room, _ = act(room, 1 - seat, Action("pass"), T0)
    room, events = act(room, seat, Action("draw_stock"), T0, by="stand_in")
    assert game_of(room).phase is Phase.DISCARD
    (draw,) = events
    assert draw["by"] == "stand_in" and "card" in draw
    hidden = event_for(draw, 1 - seat)
    assert hidden == {"type": "draw", "seat": seat, "source": "stock", "by": "stand_in"}
    assert game_of(room).history[-1] == Move(seat, "draw_stock", None, by="stand_in")
    # the seat's own moves stay unmarked
    assert all(move.by is None for move in game_of(room).history[:-1])


def test_the_mark_survives_plain_data_the_notation_and_the_stored_room() -> None:
    game, _, seat = clock_played()
    assert GameState.from_dict(game.to_dict()) == game
    text = to_text(game)
    assert f"history={seat}p~c" in text
    assert from_text(text) == game
    room = replace(quick_room(seed=26, turn_seconds=30), game=game)
    assert game_of(decode_room(RoomBlobs().encode_room(room))) == game


@pytest.mark.parametrize("by", ["robot", "", 3])
def test_an_unknown_maker_is_refused(by: object) -> None:
    with pytest.raises(ValueError, match="by"):
        Move.from_dict({"seat": 0, "kind": "pass", "by": by})
    room = quick_room(seed=26)
    seat = game_of(room).non_dealer
    with pytest.raises(ValueError, match="made by"):
        act(room, seat, Action("pass"), T0, by=str(by))


def test_a_bad_notation_mark_is_refused() -> None:
    game, _, _ = clock_played()
    with pytest.raises(ValueError, match="c or s"):
        from_text(to_text(game).replace("p~c", "p~z"))

"""Rooms stored by older code still load, and the shape declared once (``server.engine.plain``)
gives what the hand-written code it replaced gave.

``data/rooms-72d70d3.msgpack`` holds room blobs written by ``RoomBlobs.encode_room`` at main
72d70d3, the last commit before a room's and a game's fields were declared once (written by
``data/make_rooms.py`` run in a checkout of that commit): a waiting private room with an
invite, a watch token, a stand-in level, a turn clock, a time bank and rules of its own; a
match hand by hand to its end and a rematch asked for; an AI room; a quick-match room with a
seat away, its away choice and a stand-in bound to a worker, then forfeited.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields, replace
from pathlib import Path
from typing import Any

import pytest

from protocol import codec
from server.blobs import RoomBlobs, decode_room
from server.engine import rules as engine_rules
from server.engine.plain import names, plain_writer, read_plain, replacer, shown_fields, stored
from server.room import STORED_FIELDS, VIEW_TAIL, Room, Seat, _after_move, room_view

OLD_ROOMS = Path(__file__).parent / "data" / "rooms-72d70d3.msgpack"


def old_blobs() -> list[bytes]:
    data = codec.unpack(OLD_ROOMS.read_bytes(), validate=False)
    assert isinstance(data, dict) and data["written_by"] == "72d70d3"
    blobs: list[bytes] = data["blobs"]
    return blobs


def test_the_old_blobs_cover_what_a_room_holds() -> None:
    rooms = [decode_room(blob) for blob in old_blobs()]
    assert len(rooms) == 11
    assert {room.mode for room in rooms} == {"private", "ai", "quick"}
    assert {room.status for room in rooms} == {"waiting", "playing", "finished"}
    assert any(room.invite and room.watch_token and room.turn_bank for room in rooms)
    assert any(room.game is not None and len(room.game.results) >= 2 for room in rooms)
    assert any(room.rematch == (True, False) for room in rooms)
    assert any(seat.away_choice and seat.agent for room in rooms for seat in room.seats)
    assert any(room.forfeit is not None for room in rooms)


@pytest.mark.parametrize("index", range(11))
def test_a_room_stored_at_72d70d3_loads_with_every_entry_it_had(index: int) -> None:
    blob = old_blobs()[index]
    stored = codec.unpack(blob, validate=False)
    assert isinstance(stored, dict)
    room = decode_room(blob)
    again = room.to_dict(hand_log=False)
    assert {key: again[key] for key in stored} == stored
    for item in fields(Room):  # a field added since reads as its ``old`` value
        if item.name not in stored and item.name != "hand_log":
            assert getattr(room, item.name) == item.default
    if set(again) == set(stored):  # while the stored shape is 72d70d3's: the very same bytes
        assert RoomBlobs().encode_room(room) == blob
    for seat in (0, 1, None):
        room_view(room, seat)  # and its views can be made


def test_the_stored_fields_are_the_rooms_but_its_hand_log() -> None:
    assert tuple(f.name for f in fields(Room) if f.name != "hand_log") == STORED_FIELDS
    assert list(Room.from_dict(decode_room(old_blobs()[3]).to_dict()).to_dict()) == [
        "format",
        *(f.name for f in fields(Room)),
    ]


def test_the_view_shows_the_fields_declared_shown() -> None:
    room = decode_room(old_blobs()[0])
    view = room_view(room, 0)
    assert set(shown_fields(Room)) <= set(view)
    assert list(view)[5 : 5 + len(VIEW_TAIL)] == list(VIEW_TAIL)
    assert view["banks"] == list(room.banks)


# --- the machinery, on a dataclass of its own ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Thing:
    name: str = stored()
    size: int = stored(0, old=1)
    parts: tuple[str, ...] = stored((), out=list, into=tuple, old=(), shown=True)
    flag: bool = stored(False, into=bool, missing=lambda data: data["name"] == "flagged")


def test_plain_writer_writes_each_field_by_its_declaration() -> None:
    write = plain_writer(Thing, {"format": 3})
    data = write(Thing("a", 2, ("x", "y"), True))
    assert data == {"format": 3, "name": "a", "size": 2, "parts": ["x", "y"], "flag": True}
    assert list(data) == ["format", "name", "size", "parts", "flag"]
    assert plain_writer(Thing, only=("parts", "name"))(Thing("a")) == {"parts": [], "name": "a"}


def test_read_plain_reads_each_field_and_what_older_data_lacks() -> None:
    assert read_plain(Thing, {"name": "a", "size": 2, "parts": ["x"], "flag": 1}) == Thing(
        "a", 2, ("x",), True
    )
    assert read_plain(Thing, {"name": "a"}) == Thing("a", 1, (), False)
    assert read_plain(Thing, {"name": "flagged"}).flag is True
    with pytest.raises(KeyError, match="name"):
        read_plain(Thing, {"size": 2})


def test_names_and_shown_fields() -> None:
    assert names(Thing) == ("name", "size", "parts", "flag")
    assert names(Thing, without=("size",)) == ("name", "parts", "flag")
    assert shown_fields(Thing) == ("parts",)
    with pytest.raises(ValueError, match="no field colour"):
        names(Thing, without=("colour",))


def test_replacer_is_replace_for_its_fields() -> None:
    thing = Thing("a", 2, ("x",), True)
    resize = replacer(Thing, "size", "flag")
    built = resize(thing, size=5, flag=False)
    assert type(built) is Thing and built == replace(thing, size=5, flag=False)
    assert built.parts is thing.parts
    assert hash(built) == hash(replace(thing, size=5, flag=False))
    with pytest.raises(FrozenInstanceError):
        built.size = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        resize(thing, size=5)  # every field it replaces is given
    with pytest.raises(ValueError, match="no field colour"):
        replacer(Thing, "colour")
    assert replacer(Thing)(thing) == thing


def test_the_fast_copies_fill_in_every_field() -> None:
    """The copies the hot path makes (``room.act``, ``engine.rules._evolve``) are generated
    from the fields: one added to the class is copied too."""
    room = decode_room(old_blobs()[3])
    assert room.game is not None
    changes: dict[str, Any] = {
        "status": "finished",
        "game": None,
        "turn_deadline": None,
        "hand_log": (),
        "banks": (1.0, 2.0),
        "results_open": (True, False),
    }
    moved = _after_move(room, **changes)
    expected = replace(room, **changes)
    assert moved == expected
    for item in fields(Room):
        if item.name not in changes:
            assert getattr(moved, item.name) is getattr(room, item.name)
    state = room.game
    kept = engine_rules._evolve(
        state,
        **{
            name: getattr(state, name)
            for name in names(type(state), without=("rules", "hand_number", "dealer"))
        },
    )
    assert kept == state


def test_a_seat_is_read_back_from_what_older_code_wrote() -> None:
    assert Seat.from_dict({"player": "p", "name": "N", "ai": None}) == Seat("p", "N")
    with pytest.raises(KeyError):
        Seat.from_dict({"name": "N", "ai": None})

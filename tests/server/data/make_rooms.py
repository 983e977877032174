"""Writes ``rooms-72d70d3.msgpack``: stored room blobs made by the code of the checkout this
runs in. It was run once in a checkout of main 72d70d3 (``PYTHONPATH=. python
tests/server/data/make_rooms.py > rooms-72d70d3.msgpack``); ``test_stored_rooms.py`` reads them
with today's code. Not a test, and not run by the tests."""

from __future__ import annotations

import random
import sys
from dataclasses import replace

from protocol import codec
from protocol.scoring import MatchRules
from server.blobs import RoomBlobs
from server.engine import legal_actions
from server.room import (
    Room,
    Seat,
    act,
    create_room,
    join,
    leave,
    mark_away,
    open_away_choice,
    request_rematch,
    start_stand_in,
)


def seed(n: int) -> bytes:
    return bytes([n]) * 32


def main() -> None:
    blobs = RoomBlobs()
    out: list[bytes] = []

    def keep(room: Room) -> None:
        out.append(blobs.encode_room(room))

    room, _ = create_room(
        room_id="waiting",
        mode="private",
        creator=Seat(player="p1", name="Ann"),
        seed=seed(1),
        now=1000.0,
        invite="ABCDEF",
        watch_token="tok",
        stand_in_level="easy",
        turn_seconds=30,
        turn_bank=60,
        rules=MatchRules(target=100, box_bonus=True),
    )
    keep(room)
    room, _, _ = join(room, Seat(player="p2", name=None), 1001.0)
    keep(room)
    rnd = random.Random(5)
    now, ended = 1002.0, 0
    for number in range(3000):
        game = room.game
        assert game is not None
        seat = game.turn if game.turn is not None else 0
        actions = legal_actions(game, seat)
        ends = [action for action in actions if action.kind in ("knock", "gin")]
        action = ends[0] if ends else rnd.choice(actions)
        now += 7.5
        room, _ = act(room, seat, action, now, seed(100 + number % 100))
        if number in (3, 40) or (action.kind in ("knock", "gin") and ended < 3):
            ended += 1
            keep(room)
        if room.status != "playing":
            break
    assert room.status == "finished", room.status
    keep(room)
    room, _ = request_rematch(room, 0, "next")
    keep(room)
    ai, _ = create_room(
        room_id="ai",
        mode="ai",
        creator=Seat(player="p3", name="Bo"),
        level="hard",
        seed=seed(2),
        now=2000.0,
    )
    keep(ai)
    quick, _ = create_room(
        room_id="quick",
        mode="quick",
        creator=Seat(player="p4", name="Cy"),
        opponent=Seat(player="p5", name="Di"),
        seed=seed(3),
        now=3000.0,
        stand_in_level="normal",
    )
    quick, _ = mark_away(quick, 1, 3001.0)
    keep(quick)
    quick, _ = open_away_choice(quick, 1, 3100.0, 30.0)
    quick, _ = start_stand_in(quick, 1, 3100.0, 30.0)
    quick = replace(quick, seats=(quick.seats[0], replace(quick.seats[1], agent="worker-1")))
    keep(quick)
    quick, _ = leave(quick, 0, 3200.0)
    keep(quick)
    sys.stdout.buffer.write(codec.pack({"written_by": "72d70d3", "blobs": out}, validate=False))


if __name__ == "__main__":
    main()

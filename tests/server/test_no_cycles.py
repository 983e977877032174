"""A move leaves no reference cycle behind: everything it allocates is freed by reference
counting alone. The server collects rarely (``gc.set_threshold`` in ``server/app.py``), so a
cycle made per move or per knock lives on until a full collection, and the process's memory
creeps (docs/scaling.md, the soak)."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator

import pytest

from protocol.melds import all_best_arrangements, best_layoffs, knocker_arrangement
from protocol.scoring import score_hand
from server.blobs import RoomBlobs
from server.engine import SEED_BYTES, legal_actions
from server.frames import FrameParts
from server.reuse import Histories
from server.room import Seat, act, create_room
from tests.server.engine.playing import acting_seat, choose
from tests.support.seeds import next_hand_seed


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector stopped, and what was garbage before the test freed."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def unreachable() -> list[str]:
    """What the collector finds unreachable now, by type (nothing is kept)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = sorted({type(thing).__name__ for thing in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


@pytest.mark.usefixtures("collector_off")
def test_the_meld_searches_leave_no_cycle() -> None:
    knocker = ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "7D", "7H", "2C"]
    defender = ["4S", "8S", "9S", "TS", "8C", "9C", "KD", "KH", "QS", "JD"]
    all_best_arrangements(knocker)
    best_layoffs([["AS", "2S", "3S"], ["4H", "5H", "6H"]], defender)
    knocker_arrangement(knocker, defender)
    assert unreachable() == []


@pytest.mark.usefixtures("collector_off")
def test_scoring_knocks_leaves_no_cycle() -> None:
    rnd = random.Random(7)
    deck = [f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "CDHS"]
    scored = 0
    while scored < 40:
        cards = rnd.sample(deck, 20)
        try:
            score_hand(cards[:10], cards[10:])
        except ValueError:  # more than 10 points of deadwood: not a knock
            continue
        scored += 1
    assert unreachable() == []


@pytest.mark.usefixtures("collector_off")
def test_a_match_through_the_servers_move_path_leaves_no_cycle() -> None:
    histories = Histories()
    blobs, parts = RoomBlobs(histories), FrameParts(histories)
    rnd = random.Random(11)
    room, _ = create_room(
        room_id="cycles",
        mode="private",
        creator=Seat(player="a", name="A"),
        opponent=Seat(player="b", name="B"),
        seed=bytes(SEED_BYTES),
        now=1000.0,
        turn_seconds=30,
    )
    moves = 0
    while room.status == "playing" and room.game is not None:
        game = room.game
        seat = acting_seat(game, rnd)
        action = choose(game, legal_actions(game, seat), rnd)
        moves += 1
        room, events = act(room, seat, action, 1000.0 + moves, next_hand_seed(game))
        frames = parts.frames(room, moves, events)
        blobs.encode_room(room)
        frames.update(0)
        frames.update(1)
    assert room.status == "finished"
    assert unreachable() == []

"""``PartCache``: a room's last part, reused only when made of the very same objects;
``Histories``: a room's hand history, encoded move by move."""

import random

from protocol import codec
from server.engine import Phase, new_match
from server.reuse import Histories, PartCache
from tests.server.engine.playing import random_step
from tests.support.seeds import seed_of


def test_a_part_is_reused_only_for_the_same_objects() -> None:
    cache: PartCache[bytes] = PartCache()
    made: list[str] = []

    def make(label: str) -> bytes:
        made.append(label)
        return label.encode()

    seats = ("ann", "bob")
    assert cache.get("r1", (seats, 5), lambda: make("first")) == b"first"
    assert cache.get("r1", (seats, 5), lambda: make("again")) == b"first"
    equal = tuple(list(seats))  # equal, but another object
    assert equal == seats and equal is not seats
    assert cache.get("r1", (equal, 5), lambda: make("equal")) == b"equal"
    assert cache.get("r1", (equal, 5, None), lambda: make("longer")) == b"longer"
    assert cache.get("r2", (equal, 5, None), lambda: make("other room")) == b"other room"
    assert made == ["first", "equal", "longer", "other room"]


def test_it_starts_over_past_its_limit() -> None:
    cache: PartCache[int] = PartCache(limit=3)
    for number in range(3):
        cache.get(f"r{number}", (), lambda n=number: n)  # type: ignore[misc]
    assert len(cache) == 3
    assert cache.get("r0", (), lambda: 99) == 0  # a room it holds: nothing is added
    assert len(cache) == 3
    assert cache.get("r3", (), lambda: 3) == 3
    assert len(cache) == 1


def test_a_history_is_the_codec_encoding_of_its_moves_move_after_move() -> None:
    """``Histories`` extends a room's encoded history by the moves added since its last call,
    and starts again for a new hand or another state: always ``codec.pack`` of the moves."""
    rnd = random.Random(3)
    histories = Histories()
    states = [new_match(seed_of(number)) for number in (1, 2)]
    for _ in range(300):
        index = rnd.randrange(2)  # two matches under one room id: each call may switch
        state = states[index]
        if state.phase is Phase.MATCH_OVER:
            continue
        state = states[index] = random_step(state, rnd)[0]
        packed = histories.pack("r1", state.history)
        assert packed == codec.pack([move.to_dict() for move in state.history])
        assert histories.pack("r1", state.history) is packed  # the same history: reused


def test_histories_start_over_past_their_limit() -> None:
    histories = Histories(limit=2)
    history = new_match(seed_of(1)).history
    for room_id in ("r1", "r2", "r3"):
        histories.pack(room_id, history)
    assert len(histories) == 1

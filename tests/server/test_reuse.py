"""``PartCache``: a room's last part, reused only when made of the very same objects."""

from server.reuse import PartCache


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

"""Packing with reused packers (issue #3): the same bytes and the same errors as the codec before
(``tests/protocol/reference``), whatever failed before, whichever threads pack at once."""

from __future__ import annotations

import enum
import math
import threading
import time
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import codec
from protocol import messages as m
from tests.protocol.reference import codec as ref_codec
from tests.protocol.reference import messages as ref_m
from tests.protocol.reference_domain import in_reference_domain
from tests.protocol.test_codec import EXAMPLES

STATE = {
    "id": "r-8f3k2m9q1x",
    "seats": [{"player": "p-1", "name": "Ada", "ai": None}, {"player": "p-2", "ai": "hard"}],
    "hands": [["AS", "2S", "3S"], ["QS", "KS"]],
    "rng": [2**64 - 1, -(2**63)],
    "clock": 1715000030.5,
    "blob": b"\x00\xff",
}


class Slow(Mapping[str, Any]):
    """A mapping that is not a dict (packed through ``default``), slow to read: other threads
    run while it is read."""

    def __init__(self, data: dict[str, Any], pause: float = 0.0) -> None:
        self.data = data
        self.pause = pause

    def __getitem__(self, key: str) -> Any:
        time.sleep(self.pause)
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        time.sleep(self.pause)
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


class Packing(Mapping[str, Any]):
    """A mapping that packs something itself while it is being packed."""

    def __getitem__(self, key: str) -> Any:
        return codec.pack({"inner": [key, 1]}, validate=False)

    def __iter__(self) -> Iterator[str]:
        codec.pack(["nested", {"x": 1}], validate=False)
        return iter(["a", "b"])

    def __len__(self) -> int:
        return 2


class Colour(enum.StrEnum):
    RED = "red"


class Rank(enum.IntEnum):
    ACE = 1


def outcome(call: Any, error_type: type[Exception]) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except error_type as error:
        code = getattr(error, "code", None)
        return ("refused", str(code), str(error), getattr(error, "field", None))
    except Exception as error:
        return ("raised", type(error).__name__, str(error))


def test_a_reused_msgpack_packer_is_clean_after_an_error() -> None:
    """What reusing packers rests on: msgpack drops what a failed ``pack`` had written."""
    packer = msgpack.Packer(use_bin_type=True, autoreset=True)
    for bad in ([1, 2, object()], {"a": "x" * 1000, "b": {1, 2}}, ["x", 2**64]):
        with pytest.raises((TypeError, OverflowError)):
            packer.pack(bad)
        assert packer.bytes() == b""
        assert packer.pack(STATE) == msgpack.packb(STATE, use_bin_type=True)


@pytest.mark.parametrize(
    "bad",
    [
        [STATE, "x" * 5000, {1, 2}],
        {"state": STATE, "then": object()},
        [STATE, 2**64],
        {"n": -(2**63) - 1},
        [STATE, Slow({"k": {3.5j: 1}})],
        {"k": {1: "int key"}},
    ],
    ids=["set", "object", "uint65", "int65", "complex-key-in-default", "int-key"],
)
def test_the_codec_packs_right_after_a_pack_that_failed(bad: Any) -> None:
    for validate in (False, True):
        before = outcome(lambda v=validate: codec.pack(bad, validate=v), m.ProtocolError)
        reference = outcome(lambda v=validate: ref_codec.pack(bad, validate=v), ref_m.ProtocolError)
        assert before == reference
        assert codec.pack(STATE, validate=validate) == ref_codec.pack(STATE, validate=validate)
        assert codec.pack("game", validate=validate) == b"\xa4game"
    error = m.Ack(id=1, result={"x": {1, 2}})
    with pytest.raises(m.ProtocolError, match="not plain data"):
        codec.encode(error, validate=False)
    assert codec.encode(m.Ping(id=3), validate=False) == ref_codec.encode(
        ref_m.Ping(id=3), validate=False
    )


PYTHON_VALUES = [
    MappingProxyType({"type": "hidden"}),
    Slow({"a": 1, "b": [MappingProxyType({"c": None})]}),
    (1, (2, 3)),
    Colour.RED,
    Rank.ACE,
    {1, 2},
    frozenset(),
    object(),
    bytearray(b"x"),
    memoryview(b"y"),
    2**64,
    -(2**63) - 1,
    2**53,
    math.nan,
    math.inf,
    1.5,
    "\udcff",
    {1: 2},
    {(1, 2): 3},
    {b"k": 1},
    msgpack.ExtType(1, b"x"),
]
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=8)
    | st.sampled_from(PYTHON_VALUES),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3).map(MappingProxyType)
    ),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=values, validate=st.booleans())
def test_pack_gives_what_the_reference_gives(value: Any, validate: bool) -> None:
    new = outcome(lambda: codec.pack(value, validate=validate), m.ProtocolError)
    old = outcome(lambda: ref_codec.pack(value, validate=validate), ref_m.ProtocolError)
    assert new == old
    # and the next pack is right, whatever happened
    assert (
        codec.pack([value is None, "next"], validate=validate)
        == b"\x92" + (b"\xc3" if value is None else b"\xc2") + b"\xa4next"
    )


@pytest.mark.parametrize("validate", [False, True])
@pytest.mark.parametrize(
    "message",
    [example for example in EXAMPLES if in_reference_domain(m.to_wire(example))],
    ids=lambda message: type(message).t,
)
def test_encode_gives_what_the_reference_gives(message: m.Message, validate: bool) -> None:
    wire = m.to_wire(message)
    twin = ref_m.from_wire(ref_codec.unpack(ref_codec.encode(ref_m.from_wire(wire))))  # type: ignore[arg-type]
    assert codec.encode(message, validate=validate) == ref_codec.encode(twin, validate=validate)


def test_packs_in_several_threads_at_once_do_not_mix() -> None:
    """A ``default`` hook runs Python code in the middle of a pack (here: sleeps, letting the
    other threads run): a packer shared by two packs at once would mix their bytes."""
    expected = {
        index: msgpack.packb(
            {"n": index, "slow": {"k": [index] * 3, "s": "x" * index}, "tail": list(range(index))},
            use_bin_type=True,
        )
        for index in range(8)
    }
    problems: list[str] = []

    def work(index: int) -> None:
        value = {
            "n": index,
            "slow": Slow({"k": [index] * 3, "s": "x" * index}, pause=0.0005),
            "tail": list(range(index)),
        }
        for _ in range(40):
            packed = codec.pack(value, validate=False)
            if packed != expected[index]:
                problems.append(f"thread {index}: {packed!r}")
            if codec.pack(value) != expected[index]:
                problems.append(f"thread {index}, validated")

    threads = [threading.Thread(target=work, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not problems, problems[:3]


def test_a_pack_inside_a_pack_gets_a_packer_of_its_own() -> None:
    packed = codec.pack({"outer": Packing(), "after": [1, 2]}, validate=False)
    inner_a = msgpack.packb({"inner": ["a", 1]}, use_bin_type=True)
    inner_b = msgpack.packb({"inner": ["b", 1]}, use_bin_type=True)
    assert msgpack.unpackb(packed) == {"outer": {"a": inner_a, "b": inner_b}, "after": [1, 2]}

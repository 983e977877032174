"""The codec: canonical frames, every validation rule on raw bytes, and fuzzing.

Raw frames are built with ``mp`` below, a small independent MessagePack writer (the project
imports ``msgpack`` in ``protocol/codec.py`` only). It can write what the codec must refuse:
non-string keys, duplicate keys, ext types, arbitrary bytes.
"""

from __future__ import annotations

import contextlib
import math
import struct
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import codec
from protocol.cards import DECK
from protocol.codec import (
    MAX_CLIENT_FRAME,
    MAX_SERVER_FRAME,
    MAX_WORKER_FRAME,
    ProtocolError,
    decode,
    encode,
    pack,
    unpack,
)
from protocol.messages import (
    ACTION_KINDS,
    CARD_ACTION_KINDS,
    CLIENT_MESSAGES,
    HIDDEN_EVENT,
    MESSAGES,
    Ack,
    Act,
    Action,
    AiSeat,
    AiSubscribe,
    Bye,
    CallStandIn,
    CancelQuickMatch,
    ClaimWin,
    CloseResult,
    CreateRoom,
    Direction,
    Error,
    ErrorCode,
    Hello,
    InviteInfo,
    JoinRoom,
    Leave,
    Lobby,
    Message,
    Nudge,
    Ping,
    Pong,
    QuickMatch,
    Reconnect,
    Rematch,
    Resume,
    ReviewDone,
    ReviewHand,
    ReviewProgress,
    ReviewTake,
    RoomAssigned,
    Rules,
    Said,
    Say,
    SetName,
    Snapshot,
    Stats,
    Unfollow,
    Update,
    Watch,
    to_wire,
)

# -- an independent MessagePack writer (smallest encodings, like msgpack and @msgpack/msgpack) --


@dataclass(frozen=True)
class Ext:
    code: int
    data: bytes


@dataclass(frozen=True)
class Pairs:
    """A map written from explicit pairs: any keys, duplicates allowed."""

    items: tuple[tuple[Any, Any], ...]


def mp(obj: Any) -> bytes:
    if obj is None:
        return b"\xc0"
    if obj is True or obj is False:
        return b"\xc3" if obj else b"\xc2"
    if isinstance(obj, int):
        return _mp_int(obj)
    if isinstance(obj, float):
        return b"\xcb" + struct.pack(">d", obj)
    if isinstance(obj, str):
        return _mp_head(len(obj.encode()), 0xA0, 31, 0xD9, 0xDA, 0xDB) + obj.encode()
    if isinstance(obj, bytes):
        return _mp_head(len(obj), None, -1, 0xC4, 0xC5, 0xC6) + obj
    if isinstance(obj, Ext):
        fixed = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}
        code = struct.pack(">b", obj.code)
        if len(obj.data) in fixed:
            return bytes([fixed[len(obj.data)]]) + code + obj.data
        return b"\xc7" + bytes([len(obj.data)]) + code + obj.data
    if isinstance(obj, list | tuple):
        return _mp_head(len(obj), 0x90, 15, None, 0xDC, 0xDD) + b"".join(mp(x) for x in obj)
    if isinstance(obj, Mapping):
        obj = Pairs(tuple(obj.items()))
    if isinstance(obj, Pairs):
        body = b"".join(mp(k) + mp(v) for k, v in obj.items)
        return _mp_head(len(obj.items), 0x80, 15, None, 0xDE, 0xDF) + body
    raise TypeError(obj)


def _mp_int(n: int) -> bytes:
    if 0 <= n <= 0x7F or -32 <= n < 0:
        return struct.pack(">b", n) if n < 0 else bytes([n])
    if n > 0:
        for tag, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 2**32 - 1)):
            if n <= top:
                return bytes([tag]) + struct.pack(fmt, n)
        return b"\xcf" + struct.pack(">Q", n)
    for tag, fmt, low in ((0xD0, ">b", -(2**7)), (0xD1, ">h", -(2**15)), (0xD2, ">i", -(2**31))):
        if n >= low:
            return bytes([tag]) + struct.pack(fmt, n)
    return b"\xd3" + struct.pack(">q", n)


def _mp_head(n: int, fix: int | None, fix_max: int, t8: int | None, *wide: int) -> bytes:
    if fix is not None and n <= fix_max:
        return bytes([fix | n])
    if t8 is not None and n <= 0xFF:
        return bytes([t8, n])
    if n <= 0xFFFF:
        return bytes([wide[0]]) + struct.pack(">H", n)
    return bytes([wide[1]]) + struct.pack(">I", n)


def refused(data: Any, code: str, *, direction: Any = "client", **kw: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(data, direction=direction, **kw)
    assert caught.value.code == code, str(caught.value)
    return caught.value


VIEW = {"phase": "draw", "hand": ["AS", "2S"], "scores": [0, 12], "clock": None, "raw": b"\x00"}

EXAMPLES: list[Message] = [
    Hello(id=1, version="1.0"),
    Hello(id="h1", version="1.3", token="tk-abc", name="Ada", client="web/0.1"),
    Ping(id=2),
    SetName(id=3, name="Grace"),
    CreateRoom(id=4, mode="ai", level="easy"),
    CreateRoom(
        id=4,
        mode="private",
        rules=Rules(target=250, game_bonus=True, box_bonus=False, shutout_bonus=True),
        turn_seconds=0,
    ),
    CreateRoom(id=4, mode="private", turn_seconds=20, turn_bank=90),
    JoinRoom(id=5, room="r1"),
    JoinRoom(id=5, invite="K7Q2MX"),
    InviteInfo(id=5, invite="K7Q2MX"),
    QuickMatch(id=6),
    CancelQuickMatch(id=7),
    Watch(id=8, room="r1"),
    Resume(id=9, room="r1", last_seq=-1),
    Act(id=10, room="r1", seq=0, action=Action("knock", "9D")),
    Act(id=10, room="r1", seq=2**53 - 1, action=Action("next_hand")),
    Leave(id=11, room="r1"),
    Unfollow(id=11, room="r1"),
    Rematch(id=12, room="r1"),
    Lobby(id=13),
    Stats(id=14),
    AiSubscribe(id=15, capacity=8),
    ReviewHand(id=16, hand="r00m-1"),
    ReviewTake(id=17),
    ReviewProgress(id=18, hand="r00m-1", done=2, total=9),
    ReviewDone(id=19, hand="r00m-1", review={"decisions": [], "players": []}),
    ClaimWin(id=16, room="r1"),
    CloseResult(id=19, room="r1", hand=2),
    CallStandIn(id=17, room="r1"),
    Say(id=18, room="r1", phrase="good_luck"),
    Said(room="r1", seat=0, phrase="heart", at=1764412800123),
    Nudge(about="challenges"),
    AiSeat(room="r1", seat=1, level="normal"),
    Ack(id=1, result={}),
    Ack(id="x", result={"room": "r1", "seat": 0, "nested": {"list": [1, -2, 3.5, None, True]}}),
    Error(id=None, code=ErrorCode.BAD_MESSAGE, message="bad"),
    Error(id=3, code="a_future_code", message="new", detail={"retry_ms": 500}),
    Pong(id=2),
    Update(room="r1", seq=7, events=(HIDDEN_EVENT, {"type": "draw", "seat": 1}), view=VIEW),
    Update(room="r1", seq=8, events=(), view={}),
    Snapshot(room="r1", seq=8, view=VIEW),
    RoomAssigned(room="r1", seat=1),
    Reconnect(reason="deploy", retry_ms=0),
    Bye(code=ErrorCode.IDLE_TIMEOUT, message="idle"),
]


def test_examples_cover_every_message_type() -> None:
    assert {type(m) for m in EXAMPLES} == set(MESSAGES.values())


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).t)
def test_round_trip(message: Message) -> None:
    frame = encode(message)
    direction: Direction = "client" if type(message).t in CLIENT_MESSAGES else "server"
    assert decode(frame, direction=direction) == message
    assert decode(frame, direction="any") == message


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).t)
def test_encoding_is_canonical(message: Message) -> None:
    """``t`` first, fields in declaration order, smallest encodings (checked independently)."""
    assert encode(message) == mp(to_wire(message))
    assert next(iter(unpack(encode(message)))) == "t"  # type: ignore[call-overload]


def test_a_frame_is_one_map_with_a_type_tag() -> None:
    assert decode(mp({"t": "ping", "id": 5}), direction="client") == Ping(id=5)
    for top in ([1, 2], 7, None, "ping", b"ping", True, 1.5):
        assert "one MessagePack map" in str(refused(mp(top), ErrorCode.BAD_MESSAGE))
    error = refused(mp({"id": 5}), ErrorCode.BAD_MESSAGE)
    assert (error.field, error.request_id) == ("t", 5)


def test_wrong_field_type_is_bad_message_with_the_request_id() -> None:
    error = refused(mp({"t": "resume", "id": 9, "room": "r1", "last_seq": "3"}), "bad_message")
    assert (error.field, error.request_id) == ("last_seq", 9)
    refused(mp({"t": "ping", "id": True}), ErrorCode.BAD_MESSAGE)
    refused(mp({"t": "ping", "id": 1.0}), ErrorCode.BAD_MESSAGE)
    refused(mp({"t": 3, "id": 1}), ErrorCode.BAD_MESSAGE)


def test_bin_is_refused_where_a_string_is_expected() -> None:
    refused(mp({"t": b"ping", "id": 1}), ErrorCode.BAD_MESSAGE)
    error = refused(mp({"t": "set_name", "id": 1, "name": b"Ada"}), ErrorCode.BAD_MESSAGE)
    assert error.field == "name"


def test_missing_and_unknown_fields() -> None:
    error = refused(mp({"t": "watch", "id": 4}), ErrorCode.BAD_MESSAGE)
    assert (error.field, error.request_id) == ("room", 4)
    error = refused(mp({"t": "watch", "id": 4, "room": "r1", "spy": True}), "bad_message")
    assert "'spy'" in str(error) and error.request_id == 4
    nested = {"kind": "discard", "card": "QS", "why": 1}
    error = refused(
        mp({"t": "act", "id": 4, "room": "r", "seq": 1, "action": nested}), "bad_message"
    )
    assert error.field == "action" and "'why'" in str(error)


def test_nil_optional_field_counts_as_absent_and_nil_required_field_is_refused() -> None:
    frame = mp({"t": "hello", "id": 1, "version": "1.0", "token": None, "name": None})
    assert decode(frame, direction="client") == Hello(id=1, version="1.0")
    assert refused(mp({"t": "watch", "id": 1, "room": None}), ErrorCode.BAD_MESSAGE).field == "room"


def test_oversized_frame_is_frame_too_large() -> None:
    ping = mp({"t": "ping", "id": 1})
    padded = mp({"t": "ping", "id": 1, "pad": "x" * 3000}) * 6  # > 16 KiB, parsed or not
    assert len(padded) > MAX_CLIENT_FRAME
    error = refused(padded, ErrorCode.FRAME_TOO_LARGE)
    assert error.detail == {"max_size": MAX_CLIENT_FRAME}
    refused(ping, ErrorCode.FRAME_TOO_LARGE, max_size=len(ping) - 1)
    assert decode(ping, direction="client", max_size=len(ping)) == Ping(id=1)


def test_default_size_limit_depends_on_the_sender() -> None:
    view = {f"k{i}": "x" * 4000 for i in range(10)}
    frame = encode(Snapshot(room="r1", seq=1, view=view))
    assert MAX_CLIENT_FRAME < len(frame) < MAX_SERVER_FRAME
    assert decode(frame, direction="server").view == view  # type: ignore[union-attr]
    refused(frame, ErrorCode.FRAME_TOO_LARGE, direction="any", max_size=MAX_CLIENT_FRAME)
    refused(frame, ErrorCode.FRAME_TOO_LARGE, direction="client")


def test_a_workers_review_may_be_larger_than_a_persons_frame() -> None:
    """A long hand's review is one ``review_done`` frame of up to about 21 KiB."""
    judged = [
        {"step": i, "played": "discard:7H", "loss": 5.75, "label": "mistake"} for i in range(400)
    ]
    frame = encode(ReviewDone(id=1, hand="r1-1", review={"decisions": judged}))
    assert MAX_CLIENT_FRAME < len(frame) < MAX_WORKER_FRAME
    assert decode(frame, direction="client", max_size=len(frame)).review == {"decisions": judged}  # type: ignore[union-attr]
    refused(frame, ErrorCode.FRAME_TOO_LARGE, direction="client")
    with pytest.raises(ProtocolError) as raised:
        encode(ReviewDone(id=1, hand="r1-1", review={str(k): judged for k in range(4)}))
    assert raised.value.code == ErrorCode.FRAME_TOO_LARGE
    assert raised.value.detail == {"max_size": MAX_WORKER_FRAME}


def test_unknown_type_keeps_the_request_id() -> None:
    error = refused(mp({"t": "shuffle", "id": "req-7"}), ErrorCode.UNKNOWN_TYPE)
    assert error.request_id == "req-7"
    assert error.to_message() == Error(
        id="req-7",
        code=ErrorCode.UNKNOWN_TYPE,
        message="t: unknown message type 'shuffle'",
        detail={"field": "t"},
    )


def test_each_side_refuses_the_other_sides_messages() -> None:
    pong = encode(Pong(id=3))
    assert refused(pong, ErrorCode.UNKNOWN_TYPE).request_id == 3
    assert decode(pong, direction="server") == Pong(id=3)
    refused(encode(Ping(id=3)), ErrorCode.UNKNOWN_TYPE, direction="server")
    with pytest.raises(ValueError, match="direction"):
        decode(pong, direction="sideways")  # type: ignore[arg-type]


def test_bad_card_is_invalid_argument() -> None:
    frame = mp(
        {"t": "act", "id": 8, "room": "r1", "seq": 3, "action": {"kind": "gin", "card": "1S"}}
    )
    error = refused(frame, ErrorCode.INVALID_ARGUMENT)
    assert (error.field, error.request_id) == ("action.card", 8)
    assert "bad rank '1'" in str(error)


def nest(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_is_bounded_at_16_containers() -> None:
    # The frame map is level 1, the view level 2: 14 more lists reach the limit.
    ok = mp({"t": "snapshot", "room": "r1", "seq": 1, "view": {"x": nest(14)}})
    assert decode(ok, direction="server").view == {"x": nest(14)}  # type: ignore[union-attr]
    deep = mp({"t": "ack", "id": 6, "result": {"x": nest(15)}})
    error = refused(deep, ErrorCode.BAD_MESSAGE, direction="server")
    assert error.request_id == 6 and "deeper than 16" in str(error)
    assert error.field is not None and error.field.startswith("result.x[0]")
    refused(b"\x91" * 5000 + b"\xc0", ErrorCode.BAD_MESSAGE)  # beyond msgpack's own stack


def test_map_keys_must_be_unique_strings() -> None:
    refused(mp(Pairs((("t", "ping"), (1, 2)))), ErrorCode.BAD_MESSAGE)
    refused(mp(Pairs((("t", "ping"), (b"id", 2)))), ErrorCode.BAD_MESSAGE)
    refused(mp(Pairs((("t", "ping"), ((1, 2), 2)))), ErrorCode.BAD_MESSAGE)
    nested = Pairs((("ok", 1), (None, 2)))
    error = refused(mp({"t": "ack", "id": 3, "result": nested}), "bad_message", direction="server")
    assert (error.field, error.request_id) == ("result", 3)
    dup = mp(Pairs((("t", "ping"), ("id", 1), ("id", 2))))
    assert "duplicate" in str(refused(dup, ErrorCode.BAD_MESSAGE))


@pytest.mark.parametrize(
    "ext", [Ext(1, b"\x00"), Ext(-1, b"\x00\x00\x00\x01"), Ext(5, b"abc")], ids=str
)
def test_ext_types_are_refused(ext: Ext) -> None:
    frame = mp({"t": "ack", "id": 1, "result": {"x": ext}})
    error = refused(frame, ErrorCode.BAD_MESSAGE, direction="any")
    assert (error.field, error.request_id) == ("result.x", 1)
    refused(mp(ext), ErrorCode.BAD_MESSAGE)


def test_trailing_bytes_are_refused_with_the_request_id() -> None:
    frame = encode(Ping(id=12))
    assert refused(frame + b"\xc0", ErrorCode.BAD_MESSAGE).request_id == 12
    assert refused(frame + frame, ErrorCode.BAD_MESSAGE).request_id == 12
    refused(frame[:-1], ErrorCode.BAD_MESSAGE)
    refused(b"", ErrorCode.BAD_MESSAGE)


def test_text_frames_and_other_objects_are_refused_but_any_bytes_like_works() -> None:
    frame = encode(Ping(id=1))
    refused(frame.decode("latin-1"), ErrorCode.BAD_MESSAGE)
    refused(12, ErrorCode.BAD_MESSAGE)
    assert decode(bytearray(frame), direction="client") == Ping(id=1)
    assert decode(memoryview(frame), direction="client") == Ping(id=1)


def test_strings_must_be_utf8_and_at_most_4_kib() -> None:
    error = refused(b"\x83\xa1t\xa4ping\xa2id\x05\xa1x\xa2\xff\xfe", ErrorCode.BAD_MESSAGE)
    assert (error.field, error.request_id) == ("x", 5)
    assert "UTF-8" in str(error)
    view = {"s": "é" * 2048}  # 4096 bytes: the limit
    assert decode(encode(Snapshot(room="r", seq=1, view=view)), direction="server").view == view  # type: ignore[union-attr]
    error = refused(
        mp({"t": "ack", "id": 2, "result": {"s": "é" * 2049}}), "bad_message", direction="server"
    )
    assert error.request_id == 2
    with pytest.raises(ProtocolError, match="string of 4098 bytes") as caught:
        encode(Ack(id=2, result={"s": "é" * 2049}))
    assert caught.value.field == "result.s"


def test_lists_and_maps_hold_at_most_1024_entries() -> None:
    decode(mp({"t": "ack", "id": 1, "result": {"l": [0] * 1024}}), direction="server")
    refused(
        mp({"t": "ack", "id": 1, "result": {"l": [0] * 1025}}), "bad_message", direction="server"
    )
    big = {f"k{i}": 0 for i in range(1025)}
    refused(mp({"t": "ack", "id": 1, "result": big}), ErrorCode.BAD_MESSAGE, direction="server")
    with pytest.raises(ProtocolError, match="1025 entries"):
        encode(Ack(id=1, result=big))


def test_numbers_in_plain_data_are_finite_and_safe_for_javascript() -> None:
    for bad in (2**53, -(2**53), 2**64 - 1, math.nan, math.inf):
        error = refused(
            mp({"t": "ack", "id": 1, "result": {"n": bad}}), "bad_message", direction="server"
        )
        assert error.field == "result.n"
        with pytest.raises(ProtocolError):
            encode(Ack(id=1, result={"n": bad}))
    ok = {"a": 2**53 - 1, "b": -(2**53 - 1), "c": 0.25}
    assert decode(encode(Ack(id=1, result=ok)), direction="server") == Ack(id=1, result=ok)


def test_encode_normalises_tuples_and_mappings_and_refuses_other_objects() -> None:
    message = Ack(id=1, result={"pair": (1, 2), "proxy": HIDDEN_EVENT, "code": ErrorCode.INTERNAL})
    assert decode(encode(message), direction="server") == Ack(
        id=1, result={"pair": [1, 2], "proxy": {"type": "hidden"}, "code": "internal"}
    )
    for bad in ({1, 2}, object(), {1: "int key"}, bytearray(b"x")):
        with pytest.raises(ProtocolError) as caught:
            encode(Ack(id=1, result={"x": bad}))
        assert caught.value.code == ErrorCode.BAD_MESSAGE
    with pytest.raises(TypeError):
        encode({"t": "ping", "id": 1})  # type: ignore[arg-type]


def test_encode_refuses_a_frame_the_receiver_would_refuse() -> None:
    view = {f"k{i}": "x" * 4096 for i in range(300)}
    with pytest.raises(ProtocolError) as caught:
        encode(Snapshot(room="r1", seq=1, view=view))
    assert caught.value.code == ErrorCode.FRAME_TOO_LARGE
    assert caught.value.detail == {"max_size": MAX_SERVER_FRAME}


# -- pack / unpack: plain data for storage ----------------------------------------------------


def test_pack_round_trips_plain_data_with_64_bit_integers() -> None:
    state = {"rng": [2**64 - 1, -(2**63)], "hands": (("AS", "2S"), ()), "blob": b"\x00\xff"}
    assert unpack(pack(state)) == {
        "rng": [2**64 - 1, -(2**63)],
        "hands": [["AS", "2S"], []],
        "blob": b"\x00\xff",
    }
    assert unpack(pack("scalar")) == "scalar"


@pytest.mark.parametrize("bad", [{1, 2}, 2**64, -(2**63) - 1, math.nan, {"k": {3: 4}}], ids=repr)
def test_pack_refuses_what_is_not_plain_data(bad: object) -> None:
    with pytest.raises(ProtocolError):
        pack(bad)


def test_unpack_validates_like_decode() -> None:
    for data in (mp(Pairs(((1, 2),))), mp([Ext(3, b"x")]), pack(1) + b"\x00", b"\xc1", b""):
        with pytest.raises(ProtocolError) as caught:
            unpack(data)
        assert caught.value.code == ErrorCode.BAD_MESSAGE
    with pytest.raises(ProtocolError) as caught:
        unpack(pack([1, 2, 3]), max_size=3)
    assert caught.value.code == ErrorCode.FRAME_TOO_LARGE


def test_unpack_accepts_larger_values_than_frames() -> None:
    blob = {"events": [{"type": "discard", "card": "QS"}] * 5000, "note": "x" * 10_000}
    assert unpack(pack(blob)) == blob
    assert codec.STORE_LIMITS.max_len > codec.WIRE_LIMITS.max_len


# -- fuzzing ----------------------------------------------------------------------------------

FUZZ = settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=12)
    | st.binary(max_size=12)
    | st.builds(Ext, st.integers(-128, 127), st.binary(max_size=9))
)
keys = st.text(max_size=8) | st.sampled_from(["t", "id", "room", "view", "type"]) | scalars
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(st.tuples(keys, inner), max_size=4).map(lambda items: Pairs(tuple(items)))
    ),
    max_leaves=12,
)
small = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=4)
plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)
plain_maps = st.dictionaries(st.text(max_size=6), plain, max_size=4)
ids = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True)
events = st.builds(lambda d, k: {**d, "type": k}, plain_maps, st.text(min_size=1, max_size=6))
VALID: dict[str, st.SearchStrategy[Any]] = {
    "id": st.integers(0, 2**53 - 1) | st.text(min_size=1, max_size=64),
    "version": st.sampled_from(["1.0", "1.9", "2.0", "0.1"]),
    "token": st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1),
    "name": st.text(min_size=1, max_size=32),
    "client": st.text(min_size=1, max_size=64),
    "mode": st.sampled_from(["ai", "private"]),
    "level": st.sampled_from(["easy", "normal", "hard"]),
    "rules": st.fixed_dictionaries(
        {},
        optional={"target": st.integers(1, 10_000), "game_bonus": st.booleans()},
    ),
    "turn_seconds": st.integers(0, 3600),
    "public": st.booleans(),
    "room": ids,
    "watch_token": ids,
    "invite": ids,
    "last_seq": st.integers(-1, 2**53 - 1),
    "seq": st.integers(0, 2**53 - 1),
    "action": st.sampled_from(ACTION_KINDS).flatmap(
        lambda kind: (
            st.builds(lambda card: {"kind": kind, "card": card}, st.sampled_from(DECK))
            if kind in CARD_ACTION_KINDS
            else st.just({"kind": kind})
        )
    ),
    "result": plain_maps,
    "code": st.sampled_from([*ErrorCode, "future_code"]),
    "message": st.text(min_size=1, max_size=20),
    "detail": plain_maps,
    "events": st.lists(events, max_size=3),
    "view": plain_maps,
    "seat": st.integers(0, 1),
    "reason": st.text(min_size=1, max_size=20),
    "retry_ms": st.integers(0, 3_600_000),
}
INVALID: dict[str, st.SearchStrategy[Any]] = {
    "id": st.sampled_from([-1, 2**53, "", "x" * 65, True]),
    "version": st.sampled_from(["1", "01.0", "1.0.0", "x"]),
    "token": st.sampled_from(["", "has space", "x" * 129]),
    "name": st.sampled_from(["", "   ", "x" * 33, "tab\there"]),
    "mode": st.just("solo"),
    "level": st.just("expert"),
    "rules": st.sampled_from([{"target": 0}, {"game_bonus": 1}, {"extra": None}]),
    "turn_seconds": st.sampled_from([-1, 3601]),
    "room": st.sampled_from(["", "a room", "x" * 65]),
    "seq": st.just(-1),
    "action": st.sampled_from(
        [{"kind": "cheat"}, {"kind": "discard"}, {"kind": "pass", "card": "QS"}, {"card": "QS"}]
        + [{"kind": "gin", "card": card} for card in ("ZZ", "10S", "", "qs")]
    ),
    "code": st.sampled_from(["Bad Code", "", "x" * 65]),
    "events": st.lists(plain_maps, min_size=1, max_size=2),
    "seat": st.sampled_from([-1, 2]),
}


def _value(name: str) -> st.SearchStrategy[Any]:
    valid = VALID.get(name, st.none())
    return st.one_of(valid, valid, valid, valid, INVALID.get(name, small), small)


def _shaped(tag: str) -> st.SearchStrategy[dict[str, Any]]:
    """Maps tagged ``tag``: its required fields (mostly valid), some optional ones, rarely a
    stray field."""
    cls = MESSAGES.get(tag, Ping)
    required: dict[str, st.SearchStrategy[Any]] = {"t": st.just(tag)}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in fields(cls):
        target = optional if field.default is not MISSING else required
        target[field.name] = _value(field.name)
    stray = st.sampled_from([None] * 9 + ["stray", "id", "t"])
    return st.builds(
        lambda value, name, junk: value if name is None else {**value, name: junk},
        st.fixed_dictionaries(required, optional=optional),
        stray,
        small,
    )


message_like = st.sampled_from([*MESSAGES, "nope"]).flatmap(_shaped)
directions = st.sampled_from(["client", "server", "any"])


def decode_or_refuse(data: bytes, direction: Any) -> Message | None:
    try:
        return decode(data, direction=direction)
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)
        return None


@settings(FUZZ, max_examples=1000)
@given(data=st.binary(max_size=64), direction=directions)
def test_fuzz_arbitrary_bytes(data: bytes, direction: Any) -> None:
    decode_or_refuse(data, direction)
    with contextlib.suppress(ProtocolError):
        unpack(data)


@FUZZ
@given(value=anything, direction=directions)
def test_fuzz_arbitrary_msgpack_values(value: Any, direction: Any) -> None:
    decode_or_refuse(mp(value), direction)
    with contextlib.suppress(ProtocolError):
        unpack(mp(value))


@FUZZ
@given(value=message_like, direction=directions)
def test_fuzz_message_shaped_maps_round_trip_when_accepted(value: Any, direction: Any) -> None:
    message = decode_or_refuse(mp(value), direction)
    if message is not None:
        assert type(message).t == value["t"]
        assert decode(encode(message), direction=direction) == message


@settings(FUZZ, max_examples=400)
@given(value=plain)
def test_fuzz_pack_is_canonical_and_round_trips(value: Any) -> None:
    assert pack(value) == mp(value)
    assert unpack(pack(value)) == value

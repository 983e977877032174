"""MessagePack framing: the only module of the project that imports ``msgpack``.

- :func:`decode` turns one binary websocket frame into a message, validating everything; on
  any input it returns a message or raises :class:`ProtocolError`, nothing else. One path for
  every frame: msgpack's ``unpackb`` (maps kept as their pairs), one walk that checks the plain
  data (``_plain``), and the message's own checks (``protocol.messages.from_wire``).
- :func:`encode` turns a message into its canonical frame: ``t`` first, then the fields in
  declaration order; opaque maps keep their key order.
- :func:`pack` / :func:`unpack` do the same for plain data the server stores (state blobs),
  with roomier limits and full 64-bit integers.

Plain data is ``None``, ``bool``, ``int``, finite ``float``, ``str``, ``bytes``, lists and maps
with string keys; no ext types. Tuples and other mappings are accepted when encoding and come
back as lists and dicts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import msgpack

from protocol.messages import (
    Direction,
    ErrorCode,
    Message,
    ProtocolError,
    ReviewDone,
    as_request_id,
    from_wire,
    sent_by_client,
    to_wire,
)

__all__ = [
    "MAX_BLOB_SIZE",
    "MAX_CLIENT_FRAME",
    "MAX_SERVER_FRAME",
    "MAX_WORKER_FRAME",
    "STORE_LIMITS",
    "WIRE_LIMITS",
    "Limits",
    "ProtocolError",
    "decode",
    "encode",
    "pack",
    "unpack",
]

#: Largest frame a client may send (bytes).
MAX_CLIENT_FRAME: Final = 16 * 1024
#: Largest frame a worker (a connection that said ``hello`` with the worker key) may send
#: (bytes): a review of a long hand (up to about 160 decisions, some 21 KiB) is one frame.
MAX_WORKER_FRAME: Final = 64 * 1024
#: Largest frame the server sends (bytes).
MAX_SERVER_FRAME: Final = 1024 * 1024
#: Largest stored blob :func:`unpack` accepts by default (bytes).
MAX_BLOB_SIZE: Final = 8 * 1024 * 1024

_MAX_SAFE_INT: Final = 2**53 - 1
_INT64_MIN: Final = -(2**63)
_UINT64_MAX: Final = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one value: nesting, string and bytes sizes, entries per list or map."""

    max_depth: int = 16
    """Containers nested in one another, the outermost counting as one."""
    max_str: int = 4096
    """UTF-8 bytes of one string."""
    max_bin: int = 4096
    """Bytes of one binary value."""
    max_len: int = 1024
    """Entries of one list or map."""
    safe_ints: bool = True
    """Integers within ±(2**53-1), exact in JavaScript; otherwise any 64-bit integer."""


#: Limits of a wire frame.
WIRE_LIMITS: Final = Limits()
#: Limits of a stored blob (:func:`pack`, :func:`unpack`).
STORE_LIMITS: Final = Limits(
    max_depth=32, max_str=1 << 20, max_bin=1 << 20, max_len=1 << 16, safe_ints=False
)


def encode(message: Message, *, validate: bool = True) -> bytes:
    """The canonical frame of ``message``.

    A ``ProtocolError`` when an opaque payload is not plain data within :data:`WIRE_LIMITS`,
    or the frame exceeds what its receiver accepts (``frame_too_large``). The server passes
    ``validate=False`` for the frames it builds from its own state: then the payloads are packed
    as they are (the receiver's :func:`decode` still checks everything).
    """
    wire = to_wire(message)
    frame = _packb(_plain(wire, WIRE_LIMITS, 1)) if validate else pack(wire, validate=False)
    limit = _frame_limit(message)
    if len(frame) > limit:
        raise _too_large(len(frame), limit)
    return frame


def _frame_limit(message: Message) -> int:
    if isinstance(message, ReviewDone):
        return MAX_WORKER_FRAME
    return MAX_CLIENT_FRAME if sent_by_client(message) else MAX_SERVER_FRAME


def decode(
    data: bytes | bytearray | memoryview,
    *,
    direction: Direction,
    max_size: int | None = None,
) -> Message:
    """The message in one frame, validated; ``ProtocolError`` on anything else.

    ``direction`` names who sent the frame: the server decodes with ``"client"``, a client
    with ``"server"``. ``max_size`` defaults to :data:`MAX_CLIENT_FRAME` for client frames and
    :data:`MAX_SERVER_FRAME` otherwise. The error carries the request id whenever the frame's
    top-level map holds a valid ``id``, so the answer reaches the right request.
    """
    if direction not in ("client", "server", "any"):
        raise ValueError(f"direction is 'client', 'server' or 'any', not {direction!r}")
    if max_size is None:
        max_size = MAX_CLIENT_FRAME if direction == "client" else MAX_SERVER_FRAME
    raw, trailing = _unpackb(data, max_size, WIRE_LIMITS)
    if not isinstance(raw, _Pairs):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a frame is one MessagePack map")
    request = _peek_request_id(raw)
    try:
        if trailing:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "bytes after the message map")
        wire = _plain(raw, WIRE_LIMITS, 1)
        assert isinstance(wire, dict)
        return from_wire(wire, direction=direction)
    except ProtocolError as error:
        if error.request_id is None:
            error.request_id = request
        raise


def pack(obj: object, *, validate: bool = True) -> bytes:
    """Plain data as MessagePack, for storage; ``ProtocolError`` when it is not plain data.
    ``validate=False`` packs the server's own data as it is (the hot path of every move)."""
    if validate:
        return _packb(_plain(obj, STORE_LIMITS, 1))
    try:  # the pool of ``_packb``, inlined: this is the hot path
        packer = _TRUSTED_PACKERS.pop()
    except IndexError:
        packer = msgpack.Packer(use_bin_type=True, autoreset=True, default=_as_dict)
    try:
        packed = packer.pack(obj)
    except (TypeError, ValueError, OverflowError) as error:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not plain data: {error}") from None
    _TRUSTED_PACKERS.append(packer)
    return packed


def unpack(
    data: bytes | bytearray | memoryview,
    *,
    max_size: int = MAX_BLOB_SIZE,
    validate: bool = True,
) -> object:
    """Plain data from :func:`pack`, validated; ``ProtocolError`` on anything else.
    ``validate=False`` trusts the bytes (the server's own blobs, read back from Redis)."""
    if not validate:
        try:
            return msgpack.unpackb(data, raw=False)
        except Exception as error:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not valid MessagePack: {error}") from None
    raw, trailing = _unpackb(data, max_size, STORE_LIMITS)
    if trailing:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "bytes after the value")
    return _plain(raw, STORE_LIMITS, 1)


# -- MessagePack ------------------------------------------------------------------------------


class _Pairs(list[tuple[object, object]]):
    """A decoded map, as its key-value pairs: keys are checked before a dict is built."""

    __slots__ = ()


class _Ext:
    """A decoded ext value: refused as not plain data."""

    __slots__ = ()

    def __init__(self, code: int, data: bytes) -> None:
        pass


# Packers are reused: ``msgpack.packb`` makes (and frees) a new ``Packer`` on every call, which
# costs several times what packing a small value does. A pool holds the packers not in use
# (``list.pop`` and ``append`` are atomic): a pack that runs while another is under way (in
# another thread, or from the ``default`` hook, which runs Python code) takes a packer of its
# own, never a buffer in use. A packer goes back only after a pack that succeeded, so a failure
# cannot leave bytes for the next value (msgpack drops them anyway: see the tests).
#: Packers of plain data (``_packb``).
_PACKERS: list[msgpack.Packer] = []
#: Packers of the server's own data (``pack(validate=False)``): mappings become dicts.
_TRUSTED_PACKERS: list[msgpack.Packer] = []


def _packb(obj: object) -> bytes:
    try:
        packer = _PACKERS.pop()
    except IndexError:
        packer = msgpack.Packer(use_bin_type=True, autoreset=True)
    frame = packer.pack(obj)
    _PACKERS.append(packer)
    return frame


def _as_dict(obj: object) -> object:
    if isinstance(obj, Mapping):
        return dict(obj)
    raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not plain data: {type(obj).__name__}")


def _unpackb(data: object, max_size: int, limits: Limits) -> tuple[object, bool]:
    """The first value in ``data``, and whether bytes follow it."""
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "frames are binary MessagePack, not text")
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "frames are bytes")
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size > max_size:
        raise _too_large(size, max_size)
    # msgpack only bounds each value by the frame size and keeps what it cannot accept (ext
    # types, non-string keys, duplicate keys, bad UTF-8) as markers (``_Pairs``, ``_Ext``,
    # surrogates): the finer checks of ``_plain`` come after the request id has been read, so
    # even those errors answer the right request.
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=False,
            object_pairs_hook=_Pairs,
            ext_hook=_Ext,
            unicode_errors="surrogateescape",
            max_str_len=size,
            max_bin_len=size,
            max_array_len=size,
            max_map_len=size,
            max_ext_len=size,
        )
    except msgpack.ExtraData as extra:
        return extra.unpacked, True  # type: ignore[attr-defined]
    except Exception:  # msgpack signals bad input with several exception types
        return _unpack_refused(data, size)
    return value, False


def _unpack_refused(data: bytes | bytearray | memoryview, size: int) -> tuple[object, bool]:
    """The refusal of bytes that are not MessagePack, worded as msgpack's streaming unpacker
    words it (the protocol's wording since 1.0; ``unpackb`` refuses the same bytes, in other
    words)."""
    unpacker = msgpack.Unpacker(
        raw=False,
        use_list=True,
        strict_map_key=False,
        object_pairs_hook=_Pairs,
        ext_hook=_Ext,
        unicode_errors="surrogateescape",
        max_buffer_size=max(size, 1),
        max_str_len=size,
        max_bin_len=size,
        max_array_len=size,
        max_map_len=size,
        max_ext_len=size,
    )
    try:
        unpacker.feed(data)
        value = unpacker.unpack()
    except Exception as error:  # msgpack signals bad input with several exception types
        reason = str(error) or type(error).__name__
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"not valid MessagePack: {reason}"[:200]
        ) from None
    return value, unpacker.tell() != size


def _too_large(size: int, limit: int) -> ProtocolError:
    return ProtocolError(
        ErrorCode.FRAME_TOO_LARGE,
        f"{size} bytes, the limit is {limit}",
        detail={"max_size": limit},
    )


def _peek_request_id(pairs: _Pairs) -> int | str | None:
    """The request id in a frame about to be refused, when its top-level map holds a valid one.
    A string id that was not valid UTF-8 (decoded with ``surrogateescape``) is none: the error
    could not carry it back."""
    for key, value in pairs:
        if key == "id" and isinstance(key, str):
            if isinstance(value, str) and not _is_utf8(value):
                return None
            return as_request_id(value)
    return None


def _is_utf8(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- plain data -------------------------------------------------------------------------------


def _plain(obj: object, limits: Limits, depth: int) -> object:
    """``obj`` as exact plain types (lists, dicts, str, int...), checked against ``limits``.
    What msgpack decodes (exact ``str`` and ``int``, ``_Pairs``) takes the first lines."""
    kind = type(obj)
    if kind is str:
        if obj.isascii() and len(obj) <= limits.max_str:  # type: ignore[attr-defined, arg-type]
            return obj
        return _text(obj, limits)  # type: ignore[arg-type]
    if kind is int:
        if -_MAX_SAFE_INT <= obj <= _MAX_SAFE_INT:  # type: ignore[operator]
            return obj
        return _integer(obj, limits)  # type: ignore[arg-type]
    if obj is None or obj is True or obj is False:
        return obj
    if kind is _Pairs:
        if depth > limits.max_depth:
            raise _too_deep(limits)
        return _map(obj, limits, depth)  # type: ignore[arg-type]
    if isinstance(obj, str):
        return _text(obj, limits)
    if isinstance(obj, int):
        return _integer(obj, limits)
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"numbers must be finite, got {obj}")
        return float(obj)
    if isinstance(obj, bytes):
        if len(obj) > limits.max_bin:
            raise _oversized(f"{len(obj)} bytes of binary", limits.max_bin)
        return bytes(obj)
    if depth > limits.max_depth:
        raise _too_deep(limits)
    if isinstance(obj, _Pairs):
        return _map(obj, limits, depth)
    if isinstance(obj, Mapping):
        return _map(list(obj.items()), limits, depth)
    if isinstance(obj, list | tuple):
        if len(obj) > limits.max_len:
            raise _oversized(f"a list of {len(obj)} entries", limits.max_len)
        items = []
        for index, item in enumerate(obj):
            try:
                items.append(_plain(item, limits, depth + 1))
            except ProtocolError as error:
                raise error.at(f"[{index}]") from None
        return items
    raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not plain data: {type(obj).__name__}")


def _map(pairs: list[tuple[object, object]], limits: Limits, depth: int) -> dict[str, object]:
    if len(pairs) > limits.max_len:
        raise _oversized(f"a map of {len(pairs)} entries", limits.max_len)
    out: dict[str, object] = {}
    max_str = limits.max_str
    for key, value in pairs:
        if type(key) is str and key.isascii() and len(key) <= max_str:
            name = key
        elif isinstance(key, str):
            name = _text(key, limits)
        else:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"map keys must be strings, got {type(key).__name__}"
            )
        if name in out:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"duplicate map key {name[:64]!r}")
        kind = type(value)
        if (
            value is None
            or kind is bool
            or (kind is str and value.isascii() and len(value) <= max_str)  # type: ignore[attr-defined, arg-type]
            or (kind is int and -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT)  # type: ignore[operator]
        ):
            out[name] = value  # the common values, in short
            continue
        try:
            out[name] = _plain(value, limits, depth + 1)
        except ProtocolError as error:
            raise error.at(name[:64]) from None
    return out


def _too_deep(limits: Limits) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_MESSAGE, f"nested deeper than {limits.max_depth} levels")


def _text(value: str, limits: Limits) -> str:
    value = str.__str__(value)
    if value.isascii():
        size = len(value)
    else:
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "strings must be valid UTF-8") from None
    if size > limits.max_str:
        raise _oversized(f"a string of {size} bytes", limits.max_str)
    return value


def _integer(value: int, limits: Limits) -> int:
    value = int(value)
    if limits.safe_ints:
        if not -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"integers are within ±(2**53-1), got {value}"
            )
    elif not _INT64_MIN <= value <= _UINT64_MAX:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"integers are 64-bit, got {value}")
    return value


def _oversized(what: str, limit: int) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_MESSAGE, f"{what} exceeds the limit of {limit}")

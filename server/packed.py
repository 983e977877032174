"""MessagePack written in parts: a map is its header (the number of entries) followed by its
keys and values, one after the other, so a map can be written as a header and the concatenated
bodies of smaller maps, in the order its keys must appear."""

from __future__ import annotations

from typing import Any

from protocol import codec

__all__ = ["array_header", "body", "map_body", "map_header", "pack"]


def pack(value: object) -> bytes:
    """The server's own plain data, encoded (not validated: nothing here came from a client)."""
    return codec.pack(value, validate=False)


def body(mapping: dict[str, Any]) -> bytes:
    """The entries of a packed map, without its header."""
    return map_body(pack(mapping))


def map_body(packed: bytes) -> bytes:
    """The entries of an encoded map, without its header."""
    first = packed[0]
    if 0x80 <= first <= 0x8F:
        return packed[1:]
    if first == 0xDE:
        return packed[3:]
    return packed[5:]  # 0xdf


def map_header(count: int) -> bytes:
    """The header of an encoded map of ``count`` entries."""
    if 0 <= count < 16:
        return _FIXMAPS[count]
    if count < 1 << 16:
        return b"\xde" + count.to_bytes(2, "big")
    return b"\xdf" + count.to_bytes(4, "big")


def array_header(count: int) -> bytes:
    """The header of an encoded array of ``count`` items."""
    if 0 <= count < 16:
        return _FIXARRAYS[count]
    if count < 1 << 16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


_FIXMAPS = tuple(bytes((0x80 | count,)) for count in range(16))
_FIXARRAYS = tuple(bytes((0x90 | count,)) for count in range(16))

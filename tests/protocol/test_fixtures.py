"""Golden fixtures: the committed ``.msgpack`` files match the manifest both ways.

Regenerate them with ``python -m protocol.fixtures`` after an intended change (see
``protocol/fixtures/__init__.py``); these tests never write into the source tree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocol.codec import decode, encode, unpack
from protocol.fixtures import FIXTURES_DIR, load_manifest, regenerate
from protocol.messages import (
    CLIENT_MESSAGES,
    MESSAGES,
    Direction,
    Error,
    Update,
    from_wire,
    to_wire,
)

MANIFEST = load_manifest()


def test_manifest_lists_exactly_the_fixture_files() -> None:
    assert sorted(MANIFEST) == sorted(p.name for p in FIXTURES_DIR.glob("*.msgpack"))


def test_fixtures_cover_every_message_type_and_the_tricky_cases() -> None:
    messages = [from_wire(value) for value in MANIFEST.values()]
    assert {type(m) for m in messages} == set(MESSAGES.values())
    assert any(isinstance(m, Update) and {"type": "hidden"} in m.events for m in messages), (
        "an update with a placeholder event"
    )
    assert any(isinstance(m, Error) and m.detail for m in messages), "an error with detail"
    assert any(isinstance(m, Error) and m.id is None for m in messages), "an error without id"


def _json_only(value: Any) -> bool:
    """Only what JSON and every MessagePack library agree on: no floats, no bytes."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_only(v) for v in value)
    return value is None or isinstance(value, bool | int | str)


@pytest.mark.parametrize("name", list(MANIFEST))
def test_fixture(name: str) -> None:
    expected = MANIFEST[name]
    data = (FIXTURES_DIR / name).read_bytes()
    assert _json_only(expected)
    sender: Direction = "client" if expected["t"] in CLIENT_MESSAGES else "server"
    message = decode(data, direction=sender)
    assert to_wire(message) == expected
    assert encode(from_wire(expected)) == data
    # What a JavaScript decoder sees: the same value with the same key order everywhere.
    assert json.dumps(unpack(data)) == json.dumps(expected)


def test_regenerate_reproduces_the_committed_files(tmp_path: Path) -> None:
    (tmp_path / "stale.msgpack").write_bytes(b"\xc0")
    assert regenerate(tmp_path) == list(MANIFEST)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(MANIFEST)
    for name in MANIFEST:
        assert (tmp_path / name).read_bytes() == (FIXTURES_DIR / name).read_bytes(), name

"""The web client's message types are generated from ``protocol.messages`` (``python -m
protocol.typescript``): the committed ``client/web/src/messages.ts`` and ``wire-types.ts``
are exactly what the declarations give, and they say every message, field and code."""

from __future__ import annotations

import re
import subprocess
import sys

from protocol import messages as m
from protocol import typescript
from protocol.fixtures import load_manifest


def test_the_generated_modules_are_up_to_date() -> None:
    assert typescript.stale() == [], "run python -m protocol.typescript and commit the result"
    check = subprocess.run(
        [sys.executable, "-m", "protocol.typescript", "--check"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


def interface(text: str, name: str) -> dict[str, str]:
    """Field → type of ``export interface NAME`` in ``text``."""
    body = re.search(rf"export interface {name} {{\n(.*?)\n}}", text, re.S)
    assert body is not None, name
    return dict(re.findall(r"^  (\w+\??): (.+);$", body.group(1), re.M))


def test_every_message_is_an_interface_with_its_tag_and_fields() -> None:
    text = typescript.render()[typescript.MESSAGES]
    for tag, cls in m.MESSAGES.items():
        fields = interface(text, f"{cls.__name__}Msg")
        assert fields.pop("t") == f'"{tag}"'
        assert list(fields) == [
            f.name + ("?" if f.optional else "") for f in m.schema(cls).fields
        ], tag
    assert interface(text, "ActMsg")["action"] == "Action"
    assert interface(text, "ErrorMsg")["id"] == "RequestId | null"
    assert interface(text, "UpdateMsg")["view?"] == "RoomView"
    assert interface(text, "UpdateMsg")["events"] == "GameEvent[]"
    union = re.search(r"export type ClientMessage =\n(.*?);", text, re.S)
    assert union is not None
    assert re.findall(r"\| (\w+)Msg", union.group(1)) == [
        cls.__name__ for cls in m.CLIENT_MESSAGES.values()
    ]


def test_the_shared_types_follow_the_declarations() -> None:
    text = typescript.render()[typescript.WIRE_TYPES]
    assert f'export const PROTOCOL_VERSION = "{m.PROTOCOL_VERSION}";' in text
    assert interface(text, "Action") == {"kind": "ActionKind", "card?": "string"}
    assert interface(text, "Rules") == {
        "target?": "number",
        "game_bonus?": "boolean",
        "box_bonus?": "boolean",
        "shutout_bonus?": "boolean",
    }
    kinds = re.search(r"export type ActionKind = (.*);", text)
    assert kinds is not None
    assert kinds.group(1) == " | ".join(f'"{kind}"' for kind in m.ACTION_KINDS)
    codes = re.search(r"export type ErrorCode = (.*);", text)
    assert codes is not None
    assert set(re.findall(r'"(\w+)"', codes.group(1))) == {code.value for code in m.ErrorCode}


def test_the_fixtures_hold_exactly_the_generated_tags() -> None:
    """The JS fixture test checks the same against ``CLIENT_TYPES`` and ``SERVER_TYPES``."""
    text = typescript.render()[typescript.MESSAGES]
    tags = re.findall(r"export const \w+_TYPES = \[(.*)\] as const;", text)
    generated = {tag for line in tags for tag in re.findall(r'"(\w+)"', line)}
    assert generated == {value["t"] for value in load_manifest().values()} == set(m.MESSAGES)

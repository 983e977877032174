"""``Session.message`` builds a request from its declaration alone (``protocol.messages``):
nested maps of any message as plain maps or as their classes, every field checked as the
server checks it, an unknown or missing field a ``ProtocolError`` (``bad_message``)."""

from __future__ import annotations

import pytest

from client.session import Session
from protocol import messages as m


def session() -> Session:
    return Session("ws://127.0.0.1:9/ws")  # never connects: message() only builds


def test_a_request_is_built_and_checked_by_its_declaration() -> None:
    s = session()
    act = s.message("act", room="r1", seq=3, action={"kind": "discard", "card": "7H"})
    assert act == m.Act(id=act.id, room="r1", seq=3, action=m.Action(kind="discard", card="7H"))
    create = s.message("create_room", mode="private", rules=m.Rules(target=50))
    assert isinstance(create, m.CreateRoom) and create.rules == m.Rules(target=50)
    assert s.message("lobby").id != s.message("lobby").id
    with pytest.raises(m.ProtocolError) as unknown:
        s.message("join_room", room="r1", bogus=1)
    assert unknown.value.code is m.ErrorCode.BAD_MESSAGE
    assert "unknown field(s) 'bogus'" in str(unknown.value)
    with pytest.raises(m.ProtocolError) as missing:
        s.message("leave")
    assert (missing.value.code, missing.value.field) == (m.ErrorCode.BAD_MESSAGE, "room")
    with pytest.raises(m.ProtocolError) as nested:
        s.message("act", room="r1", seq=3, action={"kind": "discard"})
    assert (nested.value.code, nested.value.field) == (m.ErrorCode.INVALID_ARGUMENT, "action.card")
    with pytest.raises(ValueError, match="unknown request type 'ack'"):
        s.message("ack", result={})

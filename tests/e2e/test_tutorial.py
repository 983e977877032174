"""Issue 24, a first match that teaches: the guided first hand's deal is public, and an
attacker who knows it cannot have it dealt in a room between people (where they would know
the other player's cards), against another level, nor in a rated or quick match. Real Redis,
a real server process, frames sent as they are (the client's own checks would not send them)."""

from __future__ import annotations

import pytest

from client.session import Session
from protocol import codec
from protocol import messages as m
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory

#: Every test here only talks to its servers: they are shared (tests/support/fixtures.py).
pytestmark = pytest.mark.shared_server

PERSON = ["2C", "4C", "5C", "6C", "6S", "7C", "7D", "7S", "AC", "QS"]


async def test_the_known_deal_is_never_dealt_between_people(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    attacker = await Session.connect(server.ws_url, name="Mallory")
    try:
        refused = [
            ("t1", {"t": "create_room", "mode": "private", "tutorial": True}),
            ("t2", {"t": "create_room", "mode": "private", "tutorial": True, "rated": True}),
            ("t3", {"t": "create_room", "mode": "ai", "level": "normal", "tutorial": True}),
            ("t4", {"t": "create_room", "mode": "ai", "level": "hard", "tutorial": True}),
            ("t5", {"t": "create_room", "mode": "quick", "tutorial": True}),
            ("t6", {"t": "quick_match", "tutorial": True}),
            ("t7", {"t": "create_room", "mode": "private", "tutorial": 1}),
        ]
        for request_id, frame in refused:
            answer = await attacker.raw_request(codec.pack({**frame, "id": request_id}), request_id)
            assert isinstance(answer, m.Error), (frame, answer)
            assert answer.code in ("invalid_argument", "bad_message"), (frame, answer)
        # nothing was made: the attacker sits in no room
        lobby = await attacker.request("lobby")
        assert lobby.result["my_hands"] == []
        # a private room the attacker made without it deals from fresh entropy
        private = await attacker.request("create_room", mode="private")
        guest = await Session.connect(server.ws_url, name="Victim")
        try:
            await guest.request("join_room", invite=private.result["invite"])
            room = private.result["room"]
            view = await guest.wait_for(room, lambda v: v.get("game") is not None, 10)
            assert view["tutorial"] is False
            assert sorted(view["game"]["cards"]) != sorted(PERSON)
        finally:
            await guest.close()
    finally:
        await attacker.close()


async def test_a_newcomer_s_guided_hand_is_the_friendly_deal(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    person = await Session.connect(server.ws_url, name="Ada")
    try:
        ack = await person.request("create_room", mode="ai", level="easy", tutorial=True)
        room = ack.result["room"]
        await person.resume(room)
        view = await person.wait_for(room, lambda v: v.get("game") is not None, 10)
        assert view["tutorial"] is True and view["rated"] is False
        assert sorted(view["game"]["cards"]) == sorted(PERSON)
        assert view["game"]["discard_pile"] == ["3C"]
    finally:
        await person.close()

"""Quick match cannot be broken by a third party: someone who learns the room id of a player
waiting in the queue (it is in the waiting player's ``quick_match`` ack, and anyone may
``join_room`` by room id) and takes that seat leaves a stale entry in the queue. The next
player who asks for a quick match must still get one (``docs/protocol.md``: ``quick_match``
answers ``queued`` or a room; its only error is ``already_in_queue``)."""

from __future__ import annotations

from client.session import RequestError, Session
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory


async def test_a_seat_taken_by_room_id_does_not_break_quick_match(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    bob = await Session.connect(server.ws_url, name="Bob")
    try:
        queued = await ada.request("quick_match")
        assert queued.result["queued"] is True, queued.result
        taken = await mallory.request("join_room", room=queued.result["room"])
        assert taken.result["seat"] == 1, taken.result
        try:
            answer = await bob.request("quick_match")
        except RequestError as error:
            answer_text = f"error {error.code}: {error.message}"
        else:
            answer_text = f"ack {answer.result}"
        print(f"\nAda queued, Mallory took her seat by room id; Bob's quick_match: {answer_text}")
        assert answer_text.startswith("ack"), f"quick_match answered {answer_text}"
    finally:
        for session in (ada, mallory, bob):
            await session.close()

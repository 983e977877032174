"""Nobody but the present player decides for an away one: a spectator or a stranger who knows
the room id cannot end the match (``claim_win``) or hand the away seat to an AI
(``stand_in``), and a malformed decision is refused with its own code, the connection alive
and the room unchanged (``docs/security.md``, "Leavers")."""

from __future__ import annotations

from client.session import RequestError, Session
from protocol import codec
from protocol import messages as m
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import expect_error, private_match

SHORT_GRACE = {**FAST_CLIENT_ENV, "GIN_DISCONNECT_GRACE": "1"}


async def test_a_stranger_cannot_decide_for_an_away_player(server_factory: ServerFactory) -> None:
    server = server_factory(env=SHORT_GRACE)
    ada, bob, room = await private_match(server.ws_url, server.ws_url)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        view = ada.view(room)
        assert view is not None
        link = view["watch_token"]  # Mallory was given the watch link: a spectator
        await mallory.request("watch", room=room, watch_token=link)
        await bob.close()
        opened = await ada.wait_for(room, lambda v: v["seats"][1]["away_choice"], timeout=30)
        await mallory.wait_seq(room, ada.room(room).seq)
        for kind in ("claim_win", "stand_in"):
            await expect_error("not_a_player", mallory.request(kind, room=room))
            await expect_error("not_found", mallory.request(kind, room="r-no-such-room"))
            for index, bad in enumerate(("../../etc", 7, None)):
                request_id = f"{kind}-{index}"
                frame = codec.pack({"t": kind, "id": request_id, "room": bad})
                answer = await mallory.raw_request(frame, request_id)
                assert isinstance(answer, m.Error), answer
                assert answer.code in ("invalid_argument", "bad_message"), answer
        await mallory.ping(timeout=10)
        now = await mallory.request("watch", room=room, watch_token=link)
        assert now.result["seq"] == ada.room(room).seq, "a refused decision changed the room"
        view = ada.view(room)
        assert view is not None and view["status"] == "playing"
        assert view["seats"][1]["stand_in"] is None and opened["seats"][1]["away"]
    finally:
        for session in (ada, mallory):
            await session.close()


async def test_the_away_player_cannot_claim_against_a_present_opponent(
    server_factory: ServerFactory,
) -> None:
    """Bob went away; back on a new connection he may not turn the tables on Ada, who is here."""
    server = server_factory(env=SHORT_GRACE)
    ada, bob, room = await private_match(server.ws_url, server.ws_url)
    token = bob.token
    try:
        await bob.close()
        await ada.wait_for(room, lambda v: v["seats"][1]["away_choice"], timeout=30)
        again = await Session.connect(server.ws_url, token=token)
        try:
            error = await expect_error("opponent_present", again.request("claim_win", room=room))
            assert isinstance(error, RequestError)
            await expect_error("opponent_present", again.request("stand_in", room=room))
        finally:
            await again.close()
    finally:
        await ada.close()

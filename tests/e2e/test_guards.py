"""Guard rails of a connection: origin check, hello first, tokens, protocol versions,
duplicate request ids."""

from __future__ import annotations

import pytest
from websockets.exceptions import InvalidHandshake, InvalidStatus

from client.session import RequestError, Session
from protocol import codec
from protocol import messages as m
from tests.support.players import close_all, expect_error, private_match
from tests.support.server_process import WORKER_KEY, ServerProcess

#: Every test here only talks to its servers: they are shared (tests/support/fixtures.py).
pytestmark = pytest.mark.shared_server


async def test_origin_check(gin_server: ServerProcess) -> None:
    for origin in ("http://evil.example.com", f"http://127.0.0.1:{gin_server.port + 1}"):
        with pytest.raises(InvalidHandshake) as refused:
            await Session.connect(gin_server.ws_url, origin=origin)
        assert isinstance(refused.value, InvalidStatus)
        assert refused.value.response.status_code == 403
    # the server's own origin (a browser on its page), and no origin at all (scripts, AI)
    same = await Session.connect(gin_server.ws_url, origin=gin_server.http_url)
    script = await Session.connect(gin_server.ws_url)
    try:
        await same.ping()
        assert (await same.request("lobby")).result is not None
        await script.ping()
    finally:
        await close_all(same, script)


async def test_hello_comes_first(gin_server: ServerProcess) -> None:
    session = await Session.connect(gin_server.ws_url, hello=False)
    try:
        await session.ping()  # ping is allowed before hello
        await expect_error("not_authenticated", session.request("lobby"))
        await expect_error("not_authenticated", session.request("create_room", mode="private"))
        await expect_error("not_authenticated", session.act("r-any", "pass", seq=0))
        await session.hello()
        assert session.player_id and session.token
        await session.request("lobby")
        # a second hello on the same connection is refused, identity unchanged
        player = session.player_id
        await expect_error("invalid_argument", session.hello())
        assert session.player_id == player
    finally:
        await session.close()


async def test_tokens(gin_server: ServerProcess) -> None:
    first = await Session.connect(gin_server.ws_url, name="Tok")
    try:
        again = await Session.connect(gin_server.ws_url, token=first.token)
        assert again.player_id == first.player_id and again.name == "Tok"
        await again.close()
        player = first.player_id
        assert player is not None
        for token in (f"{player}.not-the-secret", "p-nobody.secret", "no-dot-at-all"):
            with pytest.raises(RequestError) as refused:
                await Session.connect(gin_server.ws_url, token=token)
            assert refused.value.code == "bad_token"
        with pytest.raises(RequestError) as refused:
            await Session.connect(gin_server.ws_url, worker_key="not-the-key")
        assert refused.value.code == "bad_token"
        worker = await Session.connect(gin_server.ws_url, worker_key=WORKER_KEY)
        await worker.close()
    finally:
        await first.close()


async def test_protocol_versions(gin_server: ServerProcess) -> None:
    with pytest.raises(RequestError) as refused:
        await Session.connect(gin_server.ws_url, version="2.0")
    assert refused.value.code == "unsupported_version"
    # docs/protocol.md: "detail.supported is the server's version"
    assert refused.value.detail.get("supported") == m.PROTOCOL_VERSION, refused.value.detail
    with pytest.raises(RequestError) as refused:
        await Session.connect(gin_server.ws_url, version="0.9")
    assert refused.value.code == "unsupported_version"
    newer_minor = await Session.connect(gin_server.ws_url, version="1.7")
    try:
        assert newer_minor.server_info["protocol"] == m.PROTOCOL_VERSION
    finally:
        await newer_minor.close()


async def test_a_reused_request_id_is_refused_and_not_applied(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    try:
        view = await a.wait_for(room)
        first, dealer = (a, b)[view["game"]["turn"]], (a, b)[view["game"]["dealer"]]
        seq = a.room(room).seq
        assert (await first.act(room, "pass", id="once")).result["seq"] == seq + 1
        await dealer.wait_seq(room, seq + 1)
        await dealer.act(room, "pass")
        await first.wait_seq(room, seq + 2)
        # the same player, the same id, another action on the current number: refused
        await expect_error("duplicate_request", first.act(room, "draw_stock", id="once"))
        # ... also from another connection of the same player
        twin = await Session.connect(gin_server.ws_url, token=first.token)
        try:
            await expect_error(
                "duplicate_request", twin.act(room, "draw_stock", id="once", seq=seq + 2)
            )
        finally:
            await twin.close()
        await a.ping()
        await b.ping()
        assert a.room(room).seq == b.room(room).seq == seq + 2
        assert first.view(room)["game"]["phase"] == "first_draw"  # type: ignore[index]
        # with a fresh id the same move is applied
        await first.act(room, "draw_stock")
        await dealer.wait_seq(room, seq + 3)
    finally:
        await close_all(a, b)


async def test_a_replayed_act_is_answered_duplicate_request(gin_server: ServerProcess) -> None:
    """The very same request sent again (a client resending after a reconnect): refused as a
    replay, so the client knows it counted (docs/protocol.md, ``duplicate_request``)."""
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    try:
        view = await a.wait_for(room)
        mover = (a, b)[view["game"]["turn"]]
        seq = a.room(room).seq
        frame = codec.encode(m.Act(id="replay", room=room, seq=seq, action=m.Action(kind="pass")))
        first = await mover.raw_request(frame, "replay")
        assert isinstance(first, m.Ack) and first.result["seq"] == seq + 1
        await a.wait_seq(room, seq + 1)
        replay = await mover.raw_request(frame, "replay")
        await a.ping()
        assert a.room(room).seq == seq + 1
        assert isinstance(replay, m.Error) and replay.code == "duplicate_request", replay
    finally:
        await close_all(a, b)

"""Malformed frames, wrong types, unknown messages, oversized frames, floods and moves that
are not the sender's to make: each gets a clear error code, nothing changes, the server stays
up, and other connections do not notice."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed

from client.session import Session
from protocol import codec
from protocol import messages as m
from tests.support.fixtures import ServerFactory
from tests.support.players import close_all, expect_error, private_match
from tests.support.server_process import ServerProcess


def pack(value: Any) -> bytes:
    frame = msgpack.packb(value, use_bin_type=True)
    assert isinstance(frame, bytes)
    return frame


async def _unchanged(sessions: list[Session], room: str, seq: int, views: list[Any]) -> None:
    """Every session answers a ping (so every frame before it has been read) and still holds
    the same number and the same view of the room."""
    for session, view in zip(sessions, views, strict=True):
        await session.ping()
        assert session.room(room).seq == seq
        assert session.view(room) == view


async def test_malformed_frames_are_answered_and_change_nothing(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()  # default limits: a dozen bad frames is not a flood
    a, b, room = await private_match(server.ws_url, server.ws_url)
    try:
        seq = a.room(room).seq
        views = [a.view(room), b.view(room)]
        act = {"t": "act", "id": "w", "room": room, "seq": seq, "action": {"kind": "pass"}}
        cases: list[tuple[bytes | str, Any, str, str | None]] = [
            # frame, request id the answer carries, code, detail.field
            (b"\xc1", None, "bad_message", None),  # not MessagePack
            (b"\x93\x01\x02\x03", None, "bad_message", None),  # not a map
            ("hello", None, "bad_message", None),  # a text frame
            (pack({"t": "ping", "id": "t1"}) + b"\x00", "t1", "bad_message", None),
            (pack({**act, "id": "w1", "seq": str(seq)}), "w1", "bad_message", "seq"),
            (pack({**act, "id": "w2", "seq": float(seq)}), "w2", "bad_message", "seq"),
            (pack({**act, "id": "w3", "seq": -5}), "w3", "invalid_argument", "seq"),
            (pack({**act, "id": "w4", "room": 7}), "w4", "bad_message", "room"),
            (pack({**act, "id": "w5", "action": "pass"}), "w5", "bad_message", "action"),
            (
                pack({**act, "id": "w6", "action": {"kind": "discard", "card": "ZZ"}}),
                "w6",
                "invalid_argument",
                "action.card",
            ),
            (
                pack({**act, "id": "w7", "action": {"kind": "pass", "card": "QS"}}),
                "w7",
                "invalid_argument",
                "action.card",
            ),
            (pack({**act, "id": "w8", "action": {"kind": "fold"}}), "w8", "invalid_argument", None),
            (pack({**act, "id": "w9", "extra": 1}), "w9", "bad_message", None),
            (pack({**act, "id": "w10", "room": "no such/room"}), "w10", "invalid_argument", None),
            (pack({"t": "frobnicate", "id": "u1"}), "u1", "unknown_type", "t"),
            (pack({"t": "ack", "id": "u2", "result": {}}), "u2", "unknown_type", "t"),
            (pack({"id": "u3", "room": room}), "u3", "bad_message", "t"),
            (pack({"t": 5, "id": "u4"}), "u4", "bad_message", "t"),
            (pack({1: 2, "t": "ping", "id": "k1"}), "k1", "bad_message", None),
            (
                pack({"t": "lobby", "id": "k2", "x": msgpack.ExtType(1, b"x")}),
                "k2",
                "bad_message",
                None,
            ),
            (pack({"t": "hello", "id": "h1", "version": 1}), "h1", "bad_message", "version"),
        ]
        for frame, request_id, code, field in cases:
            answer = await a.raw_request(frame, request_id)
            assert isinstance(answer, m.Error), (frame, answer)
            assert answer.id == request_id and answer.code == code, (frame, answer)
            if field is not None:
                assert answer.detail is not None and answer.detail.get("field") == field, answer
            assert answer.message
        await _unchanged([a, b], room, seq, views)
        # a frame beyond what the websocket layer takes ends that connection only
        huge = await Session.connect(server.ws_url, reconnect=False)
        with_error = False
        try:
            await huge.send_raw(pack({"t": "set_name", "id": "huge", "name": "x" * (2 << 20)}))
            await asyncio.wait_for(huge._closed.wait(), 10)
        except ConnectionClosed:
            with_error = True
        assert huge.closed or with_error
        await _unchanged([a, b], room, seq, views)
        status, _ = await server.aget("/healthz")
        assert status == 200
        # and the room still plays: the right move is accepted
        turn = a.view(room)["game"]["turn"]  # type: ignore[index]
        await (a, b)[turn].act(room, "pass")
        await a.wait_seq(room, seq + 1)
    finally:
        await close_all(a, b)


@pytest.mark.shared_server
async def test_moves_that_are_not_the_senders_to_make(gin_server: ServerProcess) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    spectator = await Session.connect(gin_server.ws_url, name="Watcher")
    stranger = await Session.connect(gin_server.ws_url, name="Stranger")
    try:
        view = await a.wait_for(room)
        await spectator.request("watch", room=room, watch_token=view["watch_token"])
        turn = view["game"]["turn"]
        mover, waiter = (a, b)[turn], (a, b)[1 - turn]
        await mover.act(room, "take_upcard")
        await a.wait_seq(room, 2)
        seq = a.room(room).seq
        await b.wait_seq(room, seq)
        await spectator.wait_seq(room, seq)
        views = [a.view(room), b.view(room), spectator.view(room)]
        mine = mover.view(room)["game"]  # type: ignore[index]
        theirs = waiter.view(room)["game"]["cards"]  # type: ignore[index]
        assert mine["phase"] == "discard" and mine["turn"] == turn

        # out of turn
        await expect_error("not_your_turn", waiter.act(room, "discard", theirs[0]))
        await expect_error("not_your_turn", waiter.act(room, "draw_stock"))
        # a card of the other seat's hand, the card just taken, a move of another phase
        await expect_error("illegal_action", mover.act(room, "discard", theirs[0]))
        await expect_error("illegal_action", mover.act(room, "discard", mine["taken_card"]))
        await expect_error("illegal_action", mover.act(room, "draw_stock"))
        await expect_error("illegal_action", mover.act(room, "next_hand"))
        if not any(action["kind"] == "gin" for action in mine["legal_actions"]):
            await expect_error("illegal_action", mover.act(room, "gin", mine["cards"][0]))
        # a spectator, a stranger, a room that does not exist
        await expect_error("not_a_player", spectator.act(room, "discard", mine["cards"][0]))
        await expect_error("not_a_player", stranger.act(room, "discard", mine["cards"][0], seq=seq))
        await expect_error("not_a_player", stranger.request("leave", room=room))
        await expect_error("not_found", stranger.act("r-no-such-room", "pass", seq=0))
        await expect_error("not_found", stranger.request("watch", room="r-no-such-room"))
        # an old sequence number
        error = await expect_error(
            "stale_sequence", mover.act(room, "discard", mine["deadwood"][0], seq=seq - 1)
        )
        assert error.detail.get("seq") == seq
        await _unchanged([a, b, spectator], room, seq, views)
        status, _ = await gin_server.aget("/healthz")
        assert status == 200
    finally:
        await close_all(a, b, spectator, stranger)


async def test_a_flood_is_cut_off_and_others_do_not_notice(server_factory: ServerFactory) -> None:
    server = server_factory()  # default limits: 20 requests a second, bursts of 40
    flooder = await Session.connect(server.ws_url, name="Flood", record=True)
    other = await Session.connect(server.ws_url, name="Calm")
    try:
        frames = [codec.encode(flooder.message("lobby")) for _ in range(400)]
        for frame in frames:
            try:
                await flooder.send_raw(frame)
            except (ConnectionClosed, Exception):
                break
        bye = await flooder.next_message(lambda msg: isinstance(msg, m.Bye), timeout=15)
        assert isinstance(bye, m.Bye) and bye.code == "rate_limited"
        await asyncio.wait_for(flooder._closed.wait(), 10)
        assert flooder.closed and flooder.closed_reason == "rate_limited"
        assert flooder.connections == 1, "a flooded-out client must not come straight back"
        answers = [msg for msg in flooder.frames or [] if isinstance(msg, m.Ack | m.Error)]
        refused = [msg for msg in answers if isinstance(msg, m.Error)]
        assert refused and all(msg.code == "rate_limited" for msg in refused), refused[:3]
        assert all(msg.id is not None for msg in refused)
        assert len(answers) < len(frames)  # cut off before the end of the flood
        # the other connection is served as usual
        await other.ping()
        ack = await other.request("lobby")
        assert "recent_hands" in ack.result
        status, _ = await server.aget("/healthz")
        assert status == 200
    finally:
        await close_all(flooder, other)


@pytest.mark.shared_server
async def test_an_oversized_frame_is_refused_with_the_limit(gin_server: ServerProcess) -> None:
    session = await Session.connect(gin_server.ws_url, name="Big")
    try:
        big = pack({"t": "set_name", "id": "big", "name": "x" * 20_000})
        answer = await session.raw_request(big, None)
        assert isinstance(answer, m.Error) and answer.code == "frame_too_large", answer
        # docs/protocol.md: detail.max_size for frame_too_large
        assert answer.detail is not None, answer
        assert answer.detail.get("max_size") == codec.MAX_CLIENT_FRAME, answer
        await session.ping()
        assert (await session.request("set_name", name="Small")).result == {
            "name": "Small",
            "name_id": None,
        }
    finally:
        await session.close()


@pytest.mark.shared_server
async def test_the_longest_request_ids_are_kept_like_any_other(gin_server: ServerProcess) -> None:
    """A request id may be 64 characters of any script (up to 256 UTF-8 bytes): an ``act`` and
    a ``create_room`` with such an id are applied and remembered for their retries, not
    answered ``internal``."""
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    try:
        view = await a.wait_for(room)
        mover = (a, b)[view["game"]["turn"]]
        long_id = "🂡" * 64
        seq = mover.room(room).seq
        await mover.act(room, "pass", id=long_id)
        await expect_error("duplicate_request", mover.act(room, "pass", id=long_id, seq=seq))
        create = a.message("create_room", mode="private", id="ღ" * 64)
        first = await a.request(create)
        assert (await a.request(create)).result["room"] == first.result["room"]
    finally:
        await close_all(a, b)

"""What one stranger can make the server keep is bounded (issue #18; ``docs/security.md``,
"Resource limits"). Each test is the attack, against real server processes and a real Redis:

- one connection creates rooms (private, against the AI) without end, and would hold every
  AI seat; its refusals leave nothing behind;
- a player's further AI rooms delay nobody else's first AI seat;
- one address makes players without end; a player who never finished a hand is kept a year;
- a private room nobody joins, or a room nobody moves in, stays until the weekly sweep; and a
  room played slowly is deleted by its age while it is played;
- invite codes and room ids are guessed without end.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis

from client.session import RequestError, Session
from protocol import messages as m
from server import keys
from server.handlers.rooms import INVITE_ALPHABET, INVITE_LENGTH
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import choose, close_all, expect_error, play
from tests.support.server_process import WORKER_KEY

LIMITS_ENV = {
    **FAST_CLIENT_ENV,
    "GIN_MAX_OPEN_ROOMS": "5",
    "GIN_MAX_AI_ROOMS": "3",
    "GIN_NEW_PLAYERS_PER_MINUTE": "10",
    "GIN_LOOKUP_FAILURES_PER_MINUTE": "20",
}


async def _count(redis_url: str, pattern: str) -> int:
    client = aioredis.Redis.from_url(redis_url)
    try:
        return len([key async for key in client.scan_iter(match=pattern, count=1000)])
    finally:
        await client.aclose()


async def _answers(session: Session, count: int, kind: str, **fields: Any) -> list[str]:
    """Send ``count`` requests one after the other: ``ack`` or the error code of each."""
    return [await _guess(session, kind, **fields) for _ in range(count)]


async def _guess(session: Session, kind: str, **fields: Any) -> str:
    """``ack``, or the error code of the request."""
    try:
        await session.request(kind, **fields)
    except RequestError as error:
        return str(error.code)
    return "ack"


async def _room_exists(redis_url: str, room: str) -> bool:
    client = aioredis.Redis.from_url(redis_url)
    try:
        return bool(await client.exists(*keys.room_keys(room)[:4]))
    finally:
        await client.aclose()


async def _gone(redis_url: str, room: str, timeout: float = 30.0) -> bool:
    """Wait until every key of ``room`` is gone (True), or ``timeout`` passed (False)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if not await _room_exists(redis_url, room):
            return True
        await asyncio.sleep(0.2)
    return False


# --- rooms and AI seats per player --------------------------------------------------------


async def test_one_connection_cannot_open_rooms_without_end(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env=LIMITS_ENV)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        answers = await _answers(mallory, 12, "create_room", mode="private")
        print(f"\n12 private rooms asked for: {answers}")
        assert answers == ["ack"] * 5 + ["too_many_rooms"] * 7, answers
        # the refusals left nothing: five rooms, five invites
        assert await _count(redis_url, "{room:*}:room") == 5
        assert await _count(redis_url, "invite:*") == 5
        # the connection lives on, and a room left (finished) makes room for another
        assert (await mallory.request("lobby")).result is not None
        room = next(iter(mallory.rooms))
        await mallory.request("leave", room=room)
        assert await _answers(mallory, 2, "create_room", mode="private") == [
            "ack",
            "too_many_rooms",
        ]
    finally:
        await mallory.close()


async def test_one_player_cannot_take_every_ai_seat(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env=LIMITS_ENV)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        answers = await _answers(mallory, 8, "create_room", mode="ai", level="easy")
        print(f"\n8 AI rooms asked for: {answers}")
        assert answers == ["ack"] * 3 + ["too_many_ai_rooms"] * 5, answers
        client = aioredis.Redis.from_url(redis_url)
        try:
            assert await client.xlen(keys.ai_requests()) == 3  # no AI asked for the refused
        finally:
            await client.aclose()
        assert await _count(redis_url, "{room:*}:room") == 3
        # rooms with people still may be opened, up to the limit of all rooms
        assert await _answers(mallory, 3, "create_room", mode="private") == [
            "ack",
            "ack",
            "too_many_rooms",
        ]
    finally:
        await mallory.close()


async def test_further_ai_rooms_of_one_player_do_not_delay_anothers_first(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=LIMITS_ENV)
    worker = await Session.connect(
        server.ws_url, worker_key=WORKER_KEY, client="ai-worker/test", reconnect=False
    )
    mallory = await Session.connect(server.ws_url, name="Mallory")
    ada = await Session.connect(server.ws_url, name="Ada")
    try:
        await worker.request("ai_subscribe", capacity=1)
        first = await mallory.request("create_room", mode="ai", level="easy")
        offer = await worker.next_message(lambda msg: isinstance(msg, m.AiSeat), timeout=10)
        assert isinstance(offer, m.AiSeat) and offer.room == first.result["room"]
        await worker.request("join_room", room=offer.room)
        # the worker is full: Mallory's further rooms wait, then Ada's first one
        mallory_rooms = [
            (await mallory.request("create_room", mode="ai", level="easy")).result["room"]
            for _ in range(2)
        ]
        ada_room = (await ada.request("create_room", mode="ai", level="easy")).result["room"]
        await worker.request("ai_subscribe", capacity=2)  # room for one more seat
        offer = await worker.next_message(lambda msg: isinstance(msg, m.AiSeat), timeout=10)
        assert isinstance(offer, m.AiSeat)
        served = "Ada's" if offer.room == ada_room else "Mallory's"
        print(f"\none free AI seat, Mallory's 2nd and 3rd rooms waiting before Ada's 1st: {served}")
        assert offer.room == ada_room, (offer.room, mallory_rooms)
    finally:
        await close_all(worker, mallory, ada)


# --- players per address, and how long they are kept --------------------------------------


async def test_one_address_cannot_make_players_without_end(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env=LIMITS_ENV)
    first = await Session.connect(server.ws_url, name="Mallory")
    await first.close()
    answers = ["ack"]
    for _ in range(14):
        session = await Session.connect(server.ws_url, hello=False, reconnect=False)
        try:
            await session.hello()
        except RequestError as error:
            answers.append(error.code)
            # the connection survives its refusal: a known player may still say hello on it
            session.token = first.token
            assert (await session.hello()).result["player_id"] == first.player_id
        else:
            answers.append("ack")
        finally:
            await session.close()
    print(f"\n15 new players from one address: {answers}")
    assert answers == ["ack"] * 10 + ["too_many_players"] * 5, answers
    assert await _count(redis_url, "player:*") == 10
    # AI workers open a connection (and a player) per seat: they are not counted
    for _ in range(3):
        worker = await Session.connect(
            server.ws_url, worker_key=WORKER_KEY, client="ai-worker/test", reconnect=False
        )
        await worker.close()
    assert await _count(redis_url, "player:*") == 13


async def test_a_player_who_never_finished_a_hand_is_kept_a_day_not_a_year(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    bob = await Session.connect(server.ws_url, name="Bob")
    client = aioredis.Redis.from_url(redis_url)
    try:
        assert ada.player_id is not None and bob.player_id is not None
        ttl = await client.ttl(keys.player(ada.player_id))
        print(f"\na new player is kept {ttl} s")
        assert 0 < ttl <= 24 * 3600
        again = await Session.connect(server.ws_url, token=ada.token)  # seen again
        await again.close()
        assert 0 < await client.ttl(keys.player(ada.player_id)) <= 24 * 3600
        # once they finished a hand they are kept the long retention (GIN_PLAYER_RETENTION)
        created = await ada.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        rng = random.Random(18)
        await asyncio.gather(play(ada, room, rng), play(bob, room, random.Random(19)))
        for player in (ada.player_id, bob.player_id):
            assert await client.ttl(keys.player(player)) > 24 * 3600
    finally:
        await client.aclose()
        await close_all(ada, bob)


# --- room lifetimes -----------------------------------------------------------------------


async def test_a_private_room_nobody_joined_expires_soon(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env={**LIMITS_ENV, "GIN_UNJOINED_ROOM_SECONDS": "2"})
    mallory = await Session.connect(server.ws_url, name="Mallory")
    client = aioredis.Redis.from_url(redis_url)
    try:
        created = await mallory.request("create_room", mode="private")
        room = created.result["room"]
        assert 0 < await client.ttl(keys.room(room)) <= 2
        assert await _gone(redis_url, room), "the unjoined room is still there"
        bob = await Session.connect(server.ws_url, name="Bob")
        try:
            await expect_error(
                "not_found", bob.request("join_room", invite=created.result["invite"])
            )
        finally:
            await bob.close()
    finally:
        await client.aclose()
        await mallory.close()


async def _slow_moves(
    redis_url: str, players: Sequence[Session], room: str, moves: int, pause: float
) -> None:
    """Play ``moves`` moves of the room, one every ``pause`` seconds, each acked."""
    rng = random.Random(18)
    for move in range(moves):
        await asyncio.sleep(pause)
        seq = max(player.room(room).seq for player in players)
        views = [await player.wait_seq(room, seq) for player in players]
        mover = next(i for i, view in enumerate(views) if view["game"]["legal_actions"])
        action = choose(views[mover], rng)
        try:
            await players[mover].act(room, action["kind"], action.get("card"), seq=seq)
        except RequestError as error:
            kept = await _room_exists(redis_url, room)
            raise AssertionError(f"move {move} refused ({error}); room kept: {kept}") from error


async def test_a_room_is_kept_while_played_slowly_and_expires_once_idle(
    server_factory: ServerFactory, redis_url: str
) -> None:
    idle = 3
    server = server_factory(env={**LIMITS_ENV, "GIN_ROOM_IDLE": str(idle)})
    ada = await Session.connect(server.ws_url, name="Ada")
    bob = await Session.connect(server.ws_url, name="Bob")
    carol = await Session.connect(server.ws_url, name="Carol")
    dave = await Session.connect(server.ws_url, name="Dave")
    try:
        played = await ada.request("create_room", mode="private", rules={"target": 100})
        await bob.request("join_room", invite=played.result["invite"])
        idle_room = await carol.request("create_room", mode="private")
        await dave.request("join_room", invite=idle_room.result["invite"])
        room = played.result["room"]
        await ada.wait_for(room, lambda view: view["game"] is not None)
        # a move a second, for three times GIN_ROOM_IDLE: every move is taken
        await _slow_moves(redis_url, [ada, bob], room, moves=3 * idle, pause=1.0)
        assert (await ada.request("resume", room=room, last_seq=0)).result["seat"] == 0
        assert await _gone(redis_url, idle_room.result["room"]), "the idle room is still there"
    finally:
        await close_all(ada, bob, carol, dave)


# --- guessing invite codes and room ids ---------------------------------------------------


def _random_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


async def test_guessing_invite_codes_and_room_ids_is_cut_short(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=LIMITS_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        real = await ada.request("create_room", mode="private")
        answers = [await _guess(mallory, "join_room", invite=_random_code()) for _ in range(25)]
        print(f"\n25 invite codes guessed: {answers}")
        assert answers == ["not_found"] * 20 + ["too_many_lookups"] * 5, answers
        # a guess that would be right is refused too, and so are room ids, on any connection
        assert await _guess(mallory, "join_room", invite=real.result["invite"]) == (
            "too_many_lookups"
        )
        again = await Session.connect(server.ws_url, token=mallory.token)
        try:
            assert await _guess(again, "watch", room=real.result["room"]) == "too_many_lookups"
            assert await _guess(again, "join_room", room="r" + secrets.token_urlsafe(9)) == (
                "too_many_lookups"
            )
            assert (await again.request("lobby")).result is not None  # the connection lives
            # quick match is no lookup: the address out of lookups still gets its match
            assert (await again.request("quick_match")).result["queued"] is True
            paired = await ada.request("quick_match")  # Ada: the same address
            assert paired.result["queued"] is False, paired.result
        finally:
            await again.close()
    finally:
        await close_all(ada, mallory)

"""Rated play from a test, the same on one Redis and on a cluster: a player's rating and its
history as stored (read with any redis-py async client, a cluster's too), the check that each
rating moved exactly once per match, settled ratings for the leaderboard, a rated quick match
paired and seated, and the leaderboard as the API answers it."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from client.session import Session
from server import glicko, keys
from server.ratings import board_until_ms
from server.store import Store
from tests.support.accounts import acall, http_base, make_account_holder, pid, token_of
from tests.support.players import close_all, play_match
from tests.support.server_process import ServerProcess

#: What is read of Redis: one Redis's client or a cluster's.
RatingReader = aioredis.Redis | RedisCluster


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def history(
    client: RatingReader, player_id: str
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The player's stored rating and their rating changes, oldest first (each with its room)."""
    raw = await client.hgetall(keys.rating(player_id))
    rating = {_text(k): _text(v) for k, v in raw.items()}
    rooms = [_text(room) for room in await client.zrange(keys.rating_history(player_id), 0, -1)]
    entries = {
        _text(k): _text(v)
        for k, v in (await client.hgetall(keys.rating_entries(player_id))).items()
    }
    return rating, [{"room": room, **json.loads(entries[room])} for room in rooms]


async def wait_rated(client: RatingReader, players: list[str], count: int) -> None:
    """Until each player has ``count`` rated matches applied (``n``)."""
    done: list[int] = []
    for _ in range(300):
        done = [int((await history(client, player))[0].get("n", 0)) for player in players]
        if all(n >= count for n in done):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"ratings not written: {done} of {count}")


def check_chain(
    rating: dict[str, str], entries: list[dict[str, Any]], rooms: list[str], start: float = 1500.0
) -> None:
    """Each of ``rooms`` moved the rating once, in order, each change from the one before."""
    assert int(rating["n"]) == len(rooms) == len(entries)
    assert [entry["room"] for entry in entries] == rooms
    previous = start
    for entry in entries:
        assert entry["before"] == previous  # each change starts from the one before it
        previous = entry["after"]
    assert round(float(rating["rating"]), 2) == previous


#: The room of a settled rating's one history entry (``settle``).
SETTLED_ROOM = "settled-by-the-test"
SETTLED_RD = 60.0


async def settle(store: Store, session: Session, rating: float) -> None:
    """A settled (not provisional) rating for the player, written by the store's own scripts
    as the end of many rated matches would leave it: one history entry, on the leaderboard."""
    now = time.time()
    settled = glicko.Rating(rating, SETTLED_RD, 0.06)
    entry = {"opponent": "", "score": 1.0, "before": 1500.0, "after": rating, "rd": SETTLED_RD}
    entry |= {"shown": glicko.shown(rating, SETTLED_RD), "delta": round(rating) - 1500, "at": now}
    await store.rate_player(pid(session), SETTLED_ROOM, 0, (rating, SETTLED_RD, 0.06), now, entry)
    await store.put_on_leaderboard(pid(session), 1, rating, board_until_ms(settled, now))


async def rated_quick_match(a: Session, b: Session, timeout: float = 20) -> tuple[str, Session]:
    """Both ask for a rated quick match; once paired, the guest follows its room's
    ``next_room`` into the host's (as the web client does). Returns the room and its host."""
    first = await a.request("quick_match", rated=True)
    second = await b.request("quick_match", rated=True)
    assert first.result["queued"] and second.result["queued"]
    rooms = {first.result["room"]: a, second.result["room"]: b}
    deadline = time.monotonic() + timeout
    host_room = None
    while host_room is None:
        for room, session in rooms.items():
            view = session.view(room)
            if view is not None and view["next_room"] is not None:
                host_room = view["next_room"]
        assert time.monotonic() < deadline, "never paired"
        await asyncio.sleep(0.05)
    assert host_room in rooms
    guest = next(session for room, session in rooms.items() if room != host_room)
    await guest.resume(host_room, -1)
    view = await guest.wait_for(host_room, lambda v: v["game"] is not None)
    assert view["rated"] is True and view["mode"] == "quick"
    return host_room, rooms[host_room]


async def leaderboard(session: Session, base: str | None = None) -> dict[str, Any]:
    """``GET /api/leaderboard`` as the session's player (on ``base``, else its own server)."""
    status, board = await acall(base or http_base(session), "/api/leaderboard", token=session.token)
    assert status == 200, board
    return board


# -- the scenarios that run on one Redis and on a cluster ------------------------------------


async def holder(url: str, name: str, handle: str) -> Session:
    """A new player on the server at ``url``, claimed as the account ``handle``."""
    session = await Session.connect(url, name=name)
    await make_account_holder(session, handle)
    return session


async def rated_match_on(
    url: str, tokens: list[str | None], seed: int
) -> tuple[list[str], list[str], str]:
    """Ada and Bob (account holders, coming back with ``tokens``) play a rated private match
    to 10 on the server at ``url``: (their ids, their tokens, the room)."""
    a = await Session.connect(url, name="Ada", token=tokens[0])
    b = await Session.connect(url, name="Bob", token=tokens[1])
    try:
        for session, handle in ((a, "ada"), (b, "bob")):
            await make_account_holder(session, handle)
        created = await a.request("create_room", mode="private", rated=True, rules={"target": 10})
        room = created.result["room"]
        await b.request("join_room", invite=created.result["invite"], rated=True)
        await a.wait_for(room, lambda view: view["game"] is not None)
        await play_match([a, b], room, seed=seed)
        return [pid(a), pid(b)], [token_of(a), token_of(b)], room
    finally:
        await close_all(a, b)


async def killed_at_rated_ends(
    start_server: Callable[[], ServerProcess], client: RatingReader, matches: int
) -> None:
    """A sweeping server stays up; each rated match is played on a server of its own, killed
    (``kill -9``) the moment a player sees the match end: whatever it had not written of the
    match's records is written by the other's sweep, and each rating moves once per match."""
    sweeper = start_server()
    tokens: list[str | None] = [None, None]
    rooms: list[str] = []
    players: list[str] = []
    for index in range(matches):
        server = start_server()
        players, new_tokens, room = await rated_match_on(server.ws_url, tokens, index)
        server.kill()  # at once: the match's records are being written, or about to be
        tokens = list(new_tokens)
        rooms.append(room)
        await wait_rated(client, players, index + 1)
    assert sweeper.running
    for player in players:
        rating, entries = await history(client, player)
        check_chain(rating, entries, rooms)


async def rated_quick_match_across(
    first: ServerProcess, second: ServerProcess, store: Store, client: RatingReader
) -> None:
    """Two settled players, one on each server process, paired by rated quick match and
    playing it to its end; a third one settled above them. Each rating moves once; the
    leaderboard, asked of either process by any of the three, is the stored ratings' order,
    with each viewer's own rank."""
    a = await holder(first.ws_url, "Ada", "ada_rated")
    b = await holder(second.ws_url, "Bob", "bob_rated")
    top = await holder(first.ws_url, "Cy", "cy_rated")
    handle_of = {pid(a): "ada_rated", pid(b): "bob_rated", pid(top): "cy_rated"}
    try:
        for session, settled in ((a, 1600.0), (b, 1580.0), (top, 1750.0)):
            await settle(store, session, settled)
        room, host = await rated_quick_match(a, b)
        seated = host.view(room)
        assert seated is not None
        assert sorted(seat["rating"] for seat in seated["ratings"]) == [1580.0, 1600.0]
        await play_match([a, b], room, seed=11)
        await wait_rated(client, [pid(a), pid(b)], 2)
        await asyncio.sleep(0.5)  # a sweep or two more: nothing moves again
        stored = {pid(top): 1750.0}
        for session in (a, b):
            rating, entries = await history(client, pid(session))
            check_chain(rating, entries, [SETTLED_ROOM, room])
            stored[pid(session)] = float(rating["rating"])
        assert stored[pid(a)] != 1600.0 and stored[pid(b)] != 1580.0
        order = sorted(stored, key=lambda player: -stored[player])
        assert order[0] == pid(top)
        boards = [
            (viewer, await leaderboard(viewer, server.http_url))
            for server in (first, second)
            for viewer in (a, b, top)
        ]
        for viewer, board in boards:
            assert [row["handle"] for row in board["top"]] == [handle_of[p] for p in order]
            assert [row["rating"] for row in board["top"]] == [round(stored[p]) for p in order]
            assert board["total"] == 3
            assert board["you"]["rank"] == order.index(pid(viewer)) + 1
    finally:
        await close_all(a, b, top)

"""Accounts and ratings that must outlive a deployment's Redis (a backup restored, the volumes
kept over ``down``/``up``), checked through the public API only, so that one helper serves one
Redis, a cluster and the Docker suite alike.

``rated_holders`` makes two account holders (handles claimed with a password), settles them on
the leaderboard (``tests.support.rated.settle``: the store's own scripts) and has them play a
rated private match to its end: each rating moved by that match, both on the leaderboard. It
returns what was shown of them then (``Kept``). ``check_kept`` asks it all again of a server on
the restored data: each handle signs in with its password as the same player, the session
token they had still says who they are, their profile (record, rating, rating history,
matches) and the leaderboard are as they were.

``account_keys``: the Redis key families that hold accounts,
sessions, ratings and the leaderboard (``server.keys``), for the tests that compare a backup's
keys with the source's.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from client.session import Session
from server.store import Store
from tests.deploy.matches import play_to_end
from tests.support.accounts import (
    PASSWORD,
    acall,
    http_base,
    http_base_of,
    make_account_holder,
    pid,
    sign_in,
)
from tests.support.accounts import token_of as token
from tests.support.polling import eventually
from tests.support.rated import settle

__all__ = ["Kept", "account_keys", "check_kept", "rated_holders"]

#: Settled ratings before the rated match (both on the leaderboard, the first above).
SETTLED = (1640.0, 1590.0)

#: The profile's fields that do not move with time. Its rating's ``rd`` and ``shown`` do (the
#: deviation grows by the days since the last rated match), so of the rating only the rating
#: itself, its count of rated matches and whether it is provisional are compared.
_RATING_FIELDS = ("rating", "matches", "provisional")


@dataclass(frozen=True)
class Kept:
    """Two account holders after a rated match, as the API showed them."""

    handles: tuple[str, str]
    players: tuple[str, str]
    #: Their session tokens (the ones the claim gave).
    tokens: tuple[str, str]
    room: str
    #: handle -> its own profile (``/api/players/me``), without what moves with time.
    profiles: dict[str, dict[str, Any]]
    #: ``/api/leaderboard``'s top rows.
    board: list[dict[str, Any]]


def _steady(profile: Mapping[str, Any]) -> dict[str, Any]:
    rating = profile["rating"]
    return {
        "handle": profile["handle"],
        "name": profile["name"],
        "record": profile["record"],
        "rating": None if rating is None else {k: rating[k] for k in _RATING_FIELDS},
        "rating_history": profile["rating_history"],
        "matches": profile["matches"],
    }


async def _profile(base: str, session_token: str) -> dict[str, Any]:
    status, profile = await acall(base, "/api/players/me", token=session_token)
    assert status == 200, profile
    return profile


async def _board(base: str) -> list[dict[str, Any]]:
    status, board = await acall(base, "/api/leaderboard")
    assert status == 200, board
    return list(board["top"])


def _rated_once_more(profile: Mapping[str, Any], room: str) -> bool:
    """The match's records are written: the rating moved (the settled one, then this match's)
    and the match is in the player's list."""
    rating = profile.get("rating") or {}
    rooms = [match["room"] for match in profile.get("matches", [])]
    return rating.get("matches") == 2 and room in rooms


async def rated_holders(
    ws_url: str,
    store: Store,
    *,
    prefix: str,
    seed: str,
    think: float = 0.0,
    timeout: float = 150.0,
) -> Kept:
    """Two account holders ``PREFIX_a`` and ``PREFIX_b`` on the server at ``ws_url``, settled on
    the leaderboard (through ``store``), who play a rated private match to 10 there."""
    handles = (f"{prefix}_a", f"{prefix}_b")
    a = await Session.connect(ws_url, name="Ama")
    b = await Session.connect(ws_url, name="Ben")
    try:
        for session, handle, rating in zip((a, b), handles, SETTLED, strict=True):
            await make_account_holder(session, handle, PASSWORD)
            await settle(store, session, rating)
        created = await a.request("create_room", mode="private", rated=True, rules={"target": 10})
        room = created.result["room"]
        await b.request("join_room", invite=created.result["invite"], rated=True)
        await a.wait_for(room, lambda view: view["game"] is not None)
        await asyncio.gather(
            *(
                play_to_end(s, room, random.Random(f"{seed}/{i}"), timeout=timeout, think=think)
                for i, s in enumerate((a, b))
            )
        )
        base = http_base(a)
        profiles: dict[str, dict[str, Any]] = {}
        for session, handle in zip((a, b), handles, strict=True):
            mine = functools.partial(_profile, base, token(session))
            profile = await eventually(mine, lambda p: _rated_once_more(p, room), timeout=30)
            assert _rated_once_more(profile, room), profile
            assert profile["rating"]["rating"] != round(SETTLED[handles.index(handle)]), profile
            profiles[handle] = _steady(profile)
        owed = await eventually(
            functools.partial(store.owed_records, 2**62),
            lambda notes: all(owed_room != room for owed_room, _ in notes),
            timeout=30,
        )  # every record of the match written: nothing of theirs moves any more
        assert all(owed_room != room for owed_room, _ in owed), owed
        board = await _board(base)
        shown = {row["handle"]: row["rating"] for row in board}
        for handle in handles:  # on the board with the rating the match gave
            assert shown.get(handle) == profiles[handle]["rating"]["rating"], (handle, board)
        return Kept(handles, (pid(a), pid(b)), (token(a), token(b)), room, profiles, board)
    finally:
        await asyncio.gather(a.close(), b.close())


async def check_kept(ws_url: str, kept: Kept) -> None:
    """Everything of ``kept`` is back on the server at ``ws_url`` (see the module doc)."""
    base = http_base_of(ws_url)
    for handle, player, old_token in zip(kept.handles, kept.players, kept.tokens, strict=True):
        status, signed = await sign_in(base, handle, PASSWORD)
        assert status == 200, (handle, signed)
        assert signed["player_id"] == player and signed["handle"] == handle, signed
        for session_token in (signed["token"], old_token):  # the new session and the old one
            session = await Session.connect(ws_url, token=session_token, reconnect=False)
            try:
                assert session.player_id == player, (handle, session.player_id)
            finally:
                await session.close()
        assert _steady(await _profile(base, signed["token"])) == kept.profiles[handle]
    assert await _board(base) == kept.board


def account_keys(found: Mapping[bytes, Any], kept: Kept) -> dict[bytes, Any]:
    """The entries of ``found`` (key name -> anything) of ``kept``'s accounts and ratings: their
    player hashes, every handle, their ratings and the leaderboard. Asserts that each family is
    there."""
    players = {f"player:{player}".encode() for player in kept.players}
    ratings = {f"{{rating:{player}}}:{part}".encode() for player in kept.players for part in
               ("rating", "history", "entries")}  # fmt: skip
    board = {b"{leaderboard}:" + part for part in (b"ratings", b"until", b"n")}
    chosen = {
        name: value
        for name, value in found.items()
        if name in players | ratings | board or name.startswith(b"{handles}:")
    }
    missing = (players | ratings | board) - set(chosen)
    assert not missing, f"not there: {sorted(missing)}"
    assert sum(name.startswith(b"{handles}:") for name in chosen) >= len(kept.handles), chosen
    return chosen

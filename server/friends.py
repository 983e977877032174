"""Friends: an account holder asks another by handle, or from the table (the other seat of a
room the asker sits in); the other accepts or declines; either
removes the other (``/api/friends``, docs/protocol.md "Friends"). The list shows each friend's
presence (``server.presence``).

Each change is one script over both players' keys (``lua/friends.lua``, the ``{friends}``
group): two requests that cross (each asked the other) make the two friends at once.

A block keeps the two apart (``either_blocks``): a request between them is refused with the
same neutral ``friend_request_refused`` as one to a player whose requests are full, so the
sender cannot tell a block from a busy list; a friend who blocks, or is blocked, is dropped
from both lists and never shown to the other (docs/security.md, "Friends and presence").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from protocol.messages import ErrorCode
from server.accounts import AccountError, Accounts
from server.blocking import either_blocks
from server.presence import presence_entry
from server.store import Store
from server.store.friends import FriendCard, FriendChange, FriendLimits
from server.targets import opponent_at, player_by_handle

#: The most friends of one player.
MAX_FRIENDS = 200
#: The most unanswered requests one player sent, and that one player may receive.
MAX_SENT = 20
MAX_RECEIVED = 50
#: Friend requests one player may send per window, and the window (s).
FRIEND_REQUESTS = 30
FRIEND_WINDOW_SECONDS = 3600

LIMITS = FriendLimits(friends=MAX_FRIENDS, sent=MAX_SENT, received=MAX_RECEIVED)

NEUTRAL_REFUSAL = "this player takes no friend request from you now"


def _refused() -> AccountError:
    return AccountError(ErrorCode.FRIEND_REQUEST_REFUSED, NEUTRAL_REFUSAL, 403)


def _too_many_friends() -> AccountError:
    return AccountError(
        ErrorCode.TOO_MANY_FRIENDS,
        f"at most {MAX_FRIENDS} friends; remove one first",
        409,
        {"limit": MAX_FRIENDS},
    )


class Friends:
    def __init__(self, store: Store, accounts: Accounts) -> None:
        self._store = store
        self._accounts = accounts

    async def _member(self, token: str | None) -> str:
        return await self._accounts.holder(token, "friends")

    async def _other(self, me: str, data: dict[str, Any]) -> str:
        other = await player_by_handle(self._store, data.get("handle"))
        if other == me:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "a player cannot befriend themselves")
        return other

    async def _asked(self, me: str, data: dict[str, Any]) -> str:
        """The player a request names, by handle or from the table; an account holder."""
        if "room" in data or "seat" in data:
            other = await opponent_at(self._store, me, data.get("room"), data.get("seat"))
        else:
            other = await player_by_handle(self._store, data.get("handle"))
        if other == me:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "a player cannot befriend themselves")
        player = await self._store.get_player(other)
        if player is None or player.handle is None:
            raise AccountError(
                ErrorCode.NOT_AN_ACCOUNT,
                "this player has no account: friends are for account holders",
                403,
            )
        return other

    async def _change(self, change: FriendChange, me: str, other: str) -> str:
        return await self._store.change_friendship(
            change, me, other, int(time.time() * 1000), LIMITS
        )

    async def ask(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Ask the holder of ``handle``, or the person in ``seat`` of ``room``; if they had
        asked first, the two are friends now."""
        me = await self._member(token)
        other = await self._asked(me, data)
        if not await self._store.count_friend_request(me, FRIEND_REQUESTS, FRIEND_WINDOW_SECONDS):
            raise AccountError(
                ErrorCode.TOO_MANY_FRIEND_REQUESTS,
                f"at most {FRIEND_REQUESTS} friend requests an hour",
                429,
                {"retry_after": FRIEND_WINDOW_SECONDS, "limit": FRIEND_REQUESTS},
            )
        if await either_blocks(self._store, me, other):
            raise _refused()
        word = await self._change("ask", me, other)
        if word == "too_many_friends":
            raise _too_many_friends()
        if word == "too_many_open":
            raise AccountError(
                ErrorCode.TOO_MANY_OPEN_FRIEND_REQUESTS,
                f"at most {MAX_SENT} friend requests wait for an answer; cancel one first",
                409,
                {"limit": MAX_SENT},
            )
        if word == "refused":
            raise _refused()
        return {"status": word}

    async def accept(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        me = await self._member(token)
        other = await self._other(me, data)
        if await either_blocks(self._store, me, other):
            await self._change("remove", me, other)
            raise AccountError(ErrorCode.NO_FRIEND_REQUEST, "no friend request from them", 404)
        word = await self._change("accept", me, other)
        if word == "none":
            raise AccountError(ErrorCode.NO_FRIEND_REQUEST, "no friend request from them", 404)
        if word == "too_many_friends":
            raise _too_many_friends()
        if word == "refused":
            raise _refused()
        return {"status": word}

    async def decline(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        me = await self._member(token)
        other = await self._other(me, data)
        return {"declined": await self._change("decline", me, other) == "declined"}

    async def remove(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """End a friendship, or take back one's own request (either way, idempotent)."""
        me = await self._member(token)
        other = await self._other(me, data)
        return {"removed": await self._change("remove", me, other) == "removed"}

    async def listed(self, token: str | None) -> dict[str, Any]:
        """The asker's friends with their presence, and the requests to and from them. Each
        listed player costs three single-key reads (card, their block of the asker, presence;
        a playing friend's room too), all sent together on the pipelined connection: the page
        reads the list every second while it is shown (its cost: ``python -m
        bench.presence``, docs/protocol.md "Friends and presence")."""
        me = await self._member(token)
        standing, mine = await asyncio.gather(
            self._store.friend_standing(me), self._store.blocked_by(me)
        )
        listed = list({**standing.friends, **standing.received, **standing.sent})
        cards = await asyncio.gather(*(self._card(me, player, mine) for player in listed))
        shown = {player: card for player, card in zip(listed, cards, strict=True) if card}
        friend_ids = [player for player in standing.friends if player in shown]
        presences = await asyncio.gather(
            *(presence_entry(self._store, player, shown[player].seen) for player in friend_ids)
        )
        friends = [
            {**_entry(shown[player], standing.friends[player]), "presence": presence}
            for player, presence in zip(friend_ids, presences, strict=True)
        ]
        friends.sort(key=lambda entry: str(entry["handle"]).casefold())
        return {
            "friends": friends,
            "received": _newest_first(shown, standing.received),
            "sent": _newest_first(shown, standing.sent),
            "limits": {"friends": MAX_FRIENDS, "sent": MAX_SENT},
        }

    async def _card(self, me: str, player_id: str, mine: Mapping[str, int]) -> FriendCard | None:
        """A listed player's card; None for a player gone (their account deleted) or kept
        apart by a block, either way (as ``either_blocks``: ``mine``, the asker's own block
        list read once, and theirs of the asker, read with the card)."""
        if player_id in mine:
            return None
        card, theirs = await asyncio.gather(
            self._store.friend_card(player_id), self._store.blocks(player_id, me)
        )
        return None if theirs else card


def _entry(card: FriendCard, at: int) -> dict[str, Any]:
    return {"handle": card.handle, "name": card.name, "at": at}


def _newest_first(shown: dict[str, FriendCard], requests: dict[str, int]) -> list[dict[str, Any]]:
    entries = [_entry(shown[player], at) for player, at in requests.items() if player in shown]
    entries.sort(key=lambda entry: -int(entry["at"]))
    return entries

"""Blocking: a player blocks another, by handle or from the table (the room and the other
seat), and may read and undo their list (``/api/blocks``, docs/protocol.md "Blocking").

Any player may block, a guest too (the opponent at the table: a guest meets abusers as much as
an account holder does); by handle only an account holder is found. A block keeps the two
apart both ways: quick match (casual and rated) never pairs them, and neither one's quick
messages reach the other. ``either_blocks`` is the one check other features ask.

The blocked player learns nothing: nothing is sent to them, a message to the blocker is
accepted and dropped alike, and the list names no player id (each entry has a ``ref``, a
digest only the blocker's list maps back). A block also ends a friendship between the two and
the friend requests either way (``server.friends``). docs/security.md, "Blocking".
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from protocol.messages import ErrorCode
from server import keys
from server.accounts import AccountError, Accounts
from server.store import Store
from server.targets import named_player, player_by_handle

#: The most players one player keeps blocked.
MAX_BLOCKS = 500
#: Block and unblock requests one player may send per window, and the window (s).
BLOCK_REQUESTS = 60
BLOCK_WINDOW_SECONDS = 3600
REF_CHARS = 24


async def either_blocks(store: Store, one: str, other: str) -> bool:
    """Whether ``one`` blocked ``other`` or ``other`` blocked ``one``: what quick messages (and
    friend requests and challenges) check before anything reaches the other."""
    return await store.blocks(one, other) or await store.blocks(other, one)


def block_ref(blocker: str, blocked: str) -> str:
    """The list entry's name for a blocked player: no player id leaves the server."""
    return hashlib.sha256(keys.block_pair(blocker, blocked).encode()).hexdigest()[:REF_CHARS]


class Blocking:
    def __init__(self, store: Store, accounts: Accounts) -> None:
        self._store = store
        self._accounts = accounts

    async def block(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Block the holder of ``handle``, or the player in ``seat`` of ``room`` (the asker
        sits in the other seat)."""
        me = (await self._accounts.authenticate(token)).player_id
        target = await named_player(self._store, me, data)
        await self._count(me)
        if target == me:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "a player cannot block themselves")
        full = await self._store.block_count(me) >= MAX_BLOCKS
        if full and not await self._store.blocks(me, target):
            raise AccountError(
                ErrorCode.TOO_MANY_BLOCKS,
                f"at most {MAX_BLOCKS} players blocked; unblock one first",
                409,
                {"limit": MAX_BLOCKS},
            )
        await self._store.add_block(me, target, int(time.time() * 1000))
        # after the block: a step cut short leaves friends the friends list keeps apart
        await self._store.end_friendship(me, target)
        return {"blocked": await self._entry(me, target, None)}

    async def unblock(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Undo a block, named by the list's ``ref`` or by ``handle``."""
        me = (await self._accounts.authenticate(token)).player_id
        ref = data.get("ref")
        if ref is not None:
            if not isinstance(ref, str) or len(ref) != REF_CHARS:
                raise AccountError(ErrorCode.INVALID_ARGUMENT, "ref: a block list entry's ref")
            await self._count(me)
            listed = await self._store.blocked_by(me)
            target = next((p for p in listed if block_ref(me, p) == ref), None)
            if target is None:
                return {"unblocked": False}
        else:
            target = await player_by_handle(self._store, data.get("handle"))
            await self._count(me)
        return {"unblocked": await self._store.remove_block(me, target)}

    async def listed(self, token: str | None) -> dict[str, Any]:
        me = (await self._accounts.authenticate(token)).player_id
        listed = await self._store.blocked_by(me)
        entries = [await self._entry(me, player, at) for player, at in listed.items()]
        entries.sort(key=lambda entry: -entry["at"])
        return {"blocked": entries, "limit": MAX_BLOCKS}

    async def _count(self, me: str) -> None:
        if not await self._store.count_block_request(me, BLOCK_REQUESTS, BLOCK_WINDOW_SECONDS):
            raise AccountError(
                ErrorCode.TOO_MANY_BLOCK_REQUESTS,
                f"at most {BLOCK_REQUESTS} block and unblock requests an hour",
                429,
                {"retry_after": BLOCK_WINDOW_SECONDS, "limit": BLOCK_REQUESTS},
            )

    async def _entry(self, me: str, player_id: str, at: int | None) -> dict[str, Any]:
        player = await self._store.get_player(player_id)
        if at is None:
            at = (await self._store.blocked_by(me)).get(player_id, 0)
        return {
            "ref": block_ref(me, player_id),
            "handle": player.handle if player else None,
            "name": player.name if player else None,
            "at": at,
        }

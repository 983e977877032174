"""Blocks: who a player blocked (``blocks:ID``) and the pairs the quick-match queues keep apart
(``{quickmatch}:blocked``, ``{ratedqueue}:blocked``), written in the order ``server.keys``
explains (the queues' sets first when blocking, last when unblocking)."""

from __future__ import annotations

from server import keys
from server.store._base import StoreBase, as_text, check_positive

__all__ = ["BlockOps"]


class BlockOps(StoreBase):
    """``blocks:ID``, the queues' ``blocked`` sets and the ``block-requests:ID`` counters."""

    async def add_block(self, blocker: str, blocked: str, now_ms: int) -> None:
        """``blocker`` blocks ``blocked`` (idempotent; an existing block keeps its time)."""
        pair = keys.block_pair(blocker, blocked)
        await self._redis.sadd(keys.quickmatch_blocked(), pair)
        await self._redis.sadd(keys.rated_blocked(), pair)
        await self._redis.hsetnx(keys.blocks(blocker), blocked, str(int(now_ms)))

    async def remove_block(self, blocker: str, blocked: str) -> bool:
        """Undo a block (idempotent); False when it was not listed."""
        pair = keys.block_pair(blocker, blocked)
        listed = bool(await self._redis.hdel(keys.blocks(blocker), blocked))
        await self._redis.srem(keys.rated_blocked(), pair)
        await self._redis.srem(keys.quickmatch_blocked(), pair)
        return listed

    async def blocked_by(self, blocker: str) -> dict[str, int]:
        """The players ``blocker`` blocked -> when (ms)."""
        raw = await self._redis.hgetall(keys.blocks(blocker))
        return {as_text(player): int(as_text(at)) for player, at in raw.items()}

    async def block_count(self, blocker: str) -> int:
        return int(await self._redis.hlen(keys.blocks(blocker)))

    async def blocks(self, blocker: str, blocked: str) -> bool:
        """Whether ``blocker`` blocked ``blocked`` (one direction). On the pipelined connection:
        a friends list asks this of every listed player at once."""
        return bool(await self._fast("HEXISTS", keys.blocks(blocker), keys.check_id(blocked)))

    async def count_block_request(self, player_id: str, limit: int, window_seconds: int) -> bool:
        """Count one block or unblock request: False, counting nothing, past ``limit`` in the
        window (``lua/count_new_player.lua``, the same counter)."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.block_requests(player_id)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "window"))],
        )
        return int(reply) == 1

"""Reviews of finished hands (``docs/review.md``): claimed once in the hand's own hash (so a
review lives and expires with its hand), queued for the review workers in ``reviews:queue``,
taken by a worker for a lease, and written back with its progress."""

from __future__ import annotations

import time
from dataclasses import dataclass

from server import keys
from server.store._base import StoreBase, as_bytes, as_text, check_blob, check_positive

#: A review's states, in order.
REVIEW_STATES = ("queued", "running", "done")


@dataclass(frozen=True, slots=True)
class ReviewStatus:
    """Where the review of a hand stands: ``state`` (``none`` when nobody asked for it),
    decisions judged of ``total`` (0 until a worker started it), and the blob once done."""

    state: str
    done: int = 0
    total: int = 0
    blob: bytes | None = None


class ReviewOps(StoreBase):
    """The ``review_*`` fields of ``hand:ID``, ``reviews:queue`` and ``review-requests:ID``."""

    async def review_status(self, hand_id: str) -> ReviewStatus | None:
        """The review of a hand; None when there is no such hand (or it expired)."""
        fields = await self._redis.hmget(
            keys.hand(hand_id), "room", "review_state", "review_done", "review_total", "review"
        )
        room, state, done, total, blob = fields
        if room is None:
            return None
        if state is None:
            return ReviewStatus("none")
        return ReviewStatus(
            as_text(state),
            int(done or 0),
            int(total or 0),
            as_bytes(blob) if blob is not None else None,
        )

    async def claim_review(self, hand_id: str) -> str:
        """Claim the review of a finished hand (``lua/claim_review.lua``): ``missing``,
        ``new`` (claimed now), or the state it had. Every claim of a review not done (re)queues
        it (``ZADD NX``: a review a worker holds keeps its lease)."""
        state = as_text(
            await self._run_script(self._scripts.claim_review, [keys.hand(hand_id)], [])
        )
        if state in ("new", "queued", "running"):
            now_ms = int(time.time() * 1000)
            await self._fast("ZADD", keys.reviews_queue(), "NX", now_ms, hand_id)
        return state

    async def count_review_request(self, player_id: str, limit: int, window_seconds: int) -> bool:
        """Count one new review asked for by a player: False, counting nothing, when it asked
        for ``limit`` within the current window (``lua/count_new_player.lua``, the same
        counter)."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.review_requests(player_id)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "window"))],
        )
        return int(reply) == 1

    async def take_review(self, lease_seconds: float) -> tuple[str, bytes] | None:
        """The next review due, for a worker: (hand id, the hand's blob), its state now
        ``running`` and its lease ``lease_seconds``; None when none is due. A queued hand
        that is gone (expired) or whose review is done leaves the queue."""
        queue = keys.reviews_queue()
        lease_ms = int(check_positive(lease_seconds, "lease") * 1000)
        while True:
            now_ms = int(time.time() * 1000)
            taken = await self._run_script(self._scripts.take_review, [queue], [now_ms, lease_ms])
            if not taken:
                return None
            hand_id = as_text(taken)
            key = keys.hand(hand_id)
            blob, state = await self._redis.hmget(key, "blob", "review_state")
            if blob is None or state is None or as_text(state) == "done":
                await self._fast("ZREM", queue, hand_id)
                continue
            await self._run_script(self._scripts.hash_update, [key], ["review_state", "running"])
            return hand_id, as_bytes(blob)

    async def review_progress(
        self, hand_id: str, done: int, total: int, lease_seconds: float
    ) -> bool:
        """A worker judged ``done`` of ``total`` decisions: kept, and its lease renewed. False
        when the hand is gone or its review done already (the worker may stop)."""
        key = keys.hand(hand_id)
        state = await self._redis.hget(key, "review_state")
        if state is None or as_text(state) == "done":
            return False
        fields: list[str | int | bytes] = [
            "review_state",
            "running",
            "review_done",
            int(done),
            "review_total",
            int(total),
        ]
        if not await self._run_script(self._scripts.hash_update, [key], fields):
            return False
        until = int((time.time() + check_positive(lease_seconds, "lease")) * 1000)
        await self._fast("ZADD", keys.reviews_queue(), "XX", until, hand_id)
        return True

    async def finish_review(self, hand_id: str, blob: bytes, total: int) -> bool:
        """Store the finished review with its hand (never past the hand's life: a gone hand
        stays gone) and take it off the queue. False when the hand is gone."""
        check_blob(blob, "review")
        key = keys.hand(hand_id)
        fields: list[str | int | bytes] = [
            "review_state",
            "done",
            "review_done",
            int(total),
            "review_total",
            int(total),
            "review",
            blob,
        ]
        written = await self._run_script(self._scripts.hash_update, [key], fields)
        await self._fast("ZREM", keys.reviews_queue(), hand_id)
        return bool(written)

    async def review_queue_length(self) -> int:
        return int(await self._fast("ZCARD", keys.reviews_queue()))

    async def played_hand(self, player_id: str, hand_id: str) -> bool:
        """Whether the person played the hand (it is in their ``hands:player:ID``)."""
        keys.check_id(hand_id, "hand id")
        score = await self._fast("ZSCORE", keys.player_hands(player_id), hand_id)
        return score is not None

"""Reviews of finished hands: asked for by people (``review_hand``), done by review workers
(``review_take``, ``review_progress``, ``review_done``). Nothing here is on the path of a
move: a review is queued in Redis and judged by a worker process (``client.review``)."""

from __future__ import annotations

import logging
from typing import Any

from protocol import codec
from protocol import messages as m
from protocol.messages import ErrorCode
from server.blobs import decode_room
from server.connection import Connection
from server.requests import Reply, RequestFailed
from server.settings import Settings
from server.store import Store

log = logging.getLogger(__name__)

#: The window of ``Settings.reviews_per_hour``.
REVIEW_WINDOW_SECONDS = 3600


def review_reply(hand_id: str, state: str, done: int = 0, total: int = 0) -> dict[str, Any]:
    return {"hand": hand_id, "state": state, "done": done, "total": total}


class Reviews:
    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings

    async def review_hand(self, conn: Connection, message: m.ReviewHand) -> Reply:
        assert conn.player_id is not None
        store = self._store
        hand_id = message.hand
        status = await store.review_status(hand_id)
        if status is None:
            await self._not_over_yet(hand_id)
            raise RequestFailed(ErrorCode.NOT_FOUND, "no such hand")
        if not await store.played_hand(conn.player_id, hand_id):
            await self._match_over(hand_id)
        if status.state != "none":
            if status.state != "done":
                await store.claim_review(hand_id)  # queued again if its queueing was lost
            return Reply(review_reply(hand_id, status.state, status.done, status.total))
        limit = self._settings.reviews_per_hour
        if not await store.count_review_request(conn.player_id, limit, REVIEW_WINDOW_SECONDS):
            raise RequestFailed(
                ErrorCode.TOO_MANY_REVIEWS, f"at most {limit} new reviews per hour; try later"
            )
        state = await store.claim_review(hand_id)
        if state == "missing":
            raise RequestFailed(ErrorCode.NOT_FOUND, "no such hand")
        log.info("review asked for", extra={"hand": hand_id})
        return Reply(review_reply(hand_id, "queued" if state == "new" else state))

    async def _room_of(self, hand_id: str) -> tuple[Any, int] | None:
        room_id, _, number = hand_id.rpartition("-")
        if not room_id or not number.isdigit():
            return None
        try:
            loaded = await self._store.load_room(room_id)
        except ValueError:
            return None
        if loaded is None:
            return None
        return decode_room(loaded[1]), int(number)

    async def _not_over_yet(self, hand_id: str) -> None:
        """A hand with no record may be one still in play: say so."""
        found = await self._room_of(hand_id)
        if found is None:
            return
        room, number = found
        game = room.game
        if game is not None and game.hand_number == number and len(game.results) < number:
            raise RequestFailed(ErrorCode.HAND_NOT_OVER, "this hand is not over: review it after")

    async def _match_over(self, hand_id: str) -> None:
        """Someone who did not play the hand may ask once its match is over (or gone)."""
        found = await self._room_of(hand_id)
        if found is not None and found[0].status != "finished":
            raise RequestFailed(
                ErrorCode.NOT_A_PLAYER,
                "only the players may ask for this review until the match is over",
            )

    # --- the review workers -------------------------------------------------------------------

    def _worker(self, conn: Connection) -> None:
        if not conn.is_worker:
            raise RequestFailed(
                ErrorCode.NOT_AUTHENTICATED, "only a worker (hello with worker_key) may"
            )

    async def review_take(self, conn: Connection, message: m.ReviewTake) -> Reply:
        self._worker(conn)
        taken = await self._store.take_review(self._settings.review_lease_seconds)
        if taken is None:
            return Reply({})
        hand_id, blob = taken
        return Reply({"hand": hand_id, "record": codec.unpack(blob)})

    async def review_progress(self, conn: Connection, message: m.ReviewProgress) -> Reply:
        self._worker(conn)
        going = await self._store.review_progress(
            message.hand, message.done, message.total, self._settings.review_lease_seconds
        )
        return Reply({"going_on": going})

    async def review_done(self, conn: Connection, message: m.ReviewDone) -> Reply:
        self._worker(conn)
        decisions = message.review.get("decisions")
        total = len(decisions) if isinstance(decisions, list) else 0
        stored = await self._store.finish_review(message.hand, codec.pack(message.review), total)
        log.info("review stored", extra={"hand": message.hand, "stored": stored})
        return Reply({"stored": stored})

"""The review worker: an ordinary websocket client that reviews the finished hands people ask
about (``docs/review.md``).

It says ``hello`` with the workers' shared key and asks the server for the next review due
(``review_take``) every ``poll_seconds`` while it has none. A review is the hand's record
(every card, the hand is over); each decision is judged in a process pool (``verdict.judge``:
from that player's view only), ``review_progress`` after each one renews the lease, and
``review_done`` stores the review with the hand. A worker that dies mid-review loses its lease
and another worker takes the hand again. It imports neither the server nor Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from client.review.record import RecordError, decisions
from client.review.verdict import ReviewSettings, assemble, judge
from client.session import ConnectionLost, RequestError, Session, SessionClosed
from client.worker_run import first_connection, serve_worker
from protocol.messages import ProtocolError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReviewWorkerSettings:
    url: str
    worker_key: str
    review: ReviewSettings = field(default_factory=ReviewSettings)
    poll_seconds: float = 1.0
    processes: int = 1
    name: str = "Review"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ReviewWorkerSettings:
        key = env.get("GIN_AI_WORKER_KEY")
        if not key:
            raise ValueError("GIN_AI_WORKER_KEY is not set: the worker needs the server's key")
        base = ReviewSettings()
        return cls(
            url=env.get("GIN_SERVER_URL", "ws://127.0.0.1:8000/ws"),
            worker_key=key,
            review=ReviewSettings(
                samples=int(env.get("GIN_REVIEW_SAMPLES", str(base.samples))),
                confirm_samples=int(
                    env.get("GIN_REVIEW_CONFIRM_SAMPLES", str(base.confirm_samples))
                ),
                confirm_rounds=int(env.get("GIN_REVIEW_CONFIRM_ROUNDS", str(base.confirm_rounds))),
                knock_samples=int(env.get("GIN_REVIEW_KNOCK_SAMPLES", str(base.knock_samples))),
                seed=env.get("GIN_REVIEW_SEED", base.seed),
            ),
            poll_seconds=float(env.get("GIN_REVIEW_POLL_SECONDS", "1.0")),
            processes=int(env.get("GIN_REVIEW_PROCESSES", "1")),
        )


def _failed(reason: str) -> dict[str, Any]:
    """The review stored for a hand that could not be reviewed: the page shows the failure."""
    return {"error": reason, "decisions": [], "players": []}


class ReviewWorker:
    def __init__(self, settings: ReviewWorkerSettings, executor: Executor | None = None) -> None:
        self.settings = settings
        self._executor = executor
        self._stopped = asyncio.Event()
        self.reviewed = 0

    def stop(self) -> None:
        self._stopped.set()

    async def run(self) -> None:
        session = await self._first_connection()
        if session is None:
            return
        try:
            while not self._stopped.is_set():
                if session.closed:
                    raise SessionClosed(session.closed_reason or "closed")
                try:
                    ack = await session.request("review_take")
                except (ConnectionLost, RequestError, TimeoutError) as error:
                    log.warning("review_take failed: %r", error)
                    await self._pause()
                    continue
                job = ack.result
                hand = job.get("hand")
                if not isinstance(hand, str):
                    await self._pause()
                    continue
                await self._review(session, hand, job.get("record") or {})
        finally:
            await session.close()

    async def _pause(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.settings.poll_seconds):
                await self._stopped.wait()

    async def _review(self, session: Session, hand: str, record: Mapping[str, Any]) -> None:
        try:
            found = decisions(record)
        except RecordError as error:
            log.error("hand %s cannot be reviewed: %s", hand, error)
            await session.request("review_done", hand=hand, review=_failed(str(error)))
            return
        loop = asyncio.get_running_loop()
        total = sum(1 for d in found if d.choice)
        judged = []
        done = 0
        for decision in found:
            judged.append(
                await loop.run_in_executor(self._executor, judge, decision, self.settings.review)
            )
            if decision.choice:
                done += 1
                ack = await session.request("review_progress", hand=hand, done=done, total=total)
                if not ack.result.get("going_on", True):
                    log.info("review of %s is no longer wanted", hand)
                    return
        review = assemble(judged, self.settings.review)
        try:
            await session.request("review_done", hand=hand, review=review)
        except (ProtocolError, RequestError, TimeoutError) as error:
            # Never the worker's end: the page is told the review failed, the next hand goes on.
            log.error("the review of %s was refused: %s", hand, error)
            await session.request("review_done", hand=hand, review=_failed(str(error)))
            return
        self.reviewed += 1
        log.info("hand %s reviewed: %s decisions", hand, total)

    async def _first_connection(self) -> Session | None:
        return await first_connection(
            self.settings.url,
            name=self.settings.name,
            client="review-worker/0.1",
            worker_key=self.settings.worker_key,
            stopped=self._stopped,
        )


async def serve(settings: ReviewWorkerSettings) -> None:
    await serve_worker(settings.processes, lambda executor: ReviewWorker(settings, executor))

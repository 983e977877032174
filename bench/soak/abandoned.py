"""The abandoned-AI-room case: AI rooms whose person leaves, then as many new ones, each
timed from its creation to its AI's first move."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from client.session import Session
from tests.support.players import ai_rooms_at_the_persons_turn, first_ai_move, pending_ai_requests

#: A new AI room's AI must move within this (s), abandoned rooms or not.
LIMIT_SECONDS = 5.0
#: How long a room is timed at most (s): past the limit, to give the figure anyway.
PATIENCE_SECONDS = 60.0


@dataclass
class Abandoned:
    count: int
    #: Seconds from each new room's creation to its AI's first move (None: none in 60 s).
    firsts: list[float | None]
    #: AI seat requests handed out and not settled once the abandoned rooms waited the grace.
    pending: int

    def slow(self) -> int:
        return sum(1 for s in self.firsts if s is None or s > LIMIT_SECONDS)

    def line(self) -> str:
        times = sorted(s for s in self.firsts if s is not None)
        worst = f"{max(times):.2f} s" if times else "-"
        median = f"{times[len(times) // 2]:.2f} s" if times else "-"
        return (
            f"abandoned AI rooms: {self.count} left by their person, then {len(self.firsts)} new: "
            f"AI's first move within {LIMIT_SECONDS:g} s in {len(self.firsts) - self.slow()}/"
            f"{len(self.firsts)} (median {median}, slowest {worst}); AI requests pending "
            f"after the grace: {self.pending}"
        )


async def run_case(
    leave_url: str, new_url: str, redis_url: str, count: int, grace: float
) -> Abandoned:
    """``count`` AI rooms of a person who leaves at their turn (long matches); past the grace,
    ``count`` new AI rooms of another person, each timed to its AI's first move."""
    leaver = await Session.connect(leave_url, name="Leaver", reconnect=False, keep_log=False)
    try:
        await ai_rooms_at_the_persons_turn(leaver, count, target=500)
    except TimeoutError:
        print(f"  ! of {count} AI rooms, some had no AI move in 60 s (the worker's capacity?)")
    finally:
        await leaver.close()
    print(f"abandoned AI rooms: {count} dealt, their person left; the new ones come past the "
          "grace", flush=True)  # fmt: skip
    await asyncio.sleep(grace + 4.0)
    pending = await pending_ai_requests(redis_url)
    newcomer = await Session.connect(new_url, name="Newcomer", keep_log=False)

    async def timed() -> float | None:
        started = time.perf_counter()
        ack = await newcomer.request("create_room", mode="ai", level="easy")
        created = time.perf_counter() - started
        seconds = await first_ai_move(newcomer, ack.result["room"], PATIENCE_SECONDS)
        return None if seconds is None else created + seconds

    try:
        firsts = list(await asyncio.gather(*(timed() for _ in range(count))))
    finally:
        await newcomer.close()
    return Abandoned(count, firsts, pending)

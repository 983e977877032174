"""The AI worker: an ordinary websocket client that plays the AI seats the server hands it.

It says ``hello`` with the workers' shared key, asks for up to ``capacity`` seats
(``ai_subscribe``), and for every ``ai_seat`` it takes the seat (``join_room``) and plays it
from the updates like any client: it sees exactly what a person in that seat sees. Every
seat is played on the worker's one connection (no seat needs a connection that a limit could
refuse); a seat it cannot take is logged once with the server's code, and the server offers
it to another worker at once. Heavy
decisions (the hard level) run in a process pool, so one worker plays many seats without
blocking its event loop. After a dropped connection the session reconnects and resumes its
rooms, and the worker subscribes again. On SIGTERM it stops taking seats and finishes the
matches it is playing (or hands them back by disconnecting after ``drain_seconds``).

A room against the AI whose person has been away for ``release_away_seconds`` (as its views
say, like a person's page would) is given up (``unfollow``): its seat stops taking this
worker's capacity, which goes to whoever waits for an AI player, and the server asks for the
seat again when the person comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, get_args

from client.ai.pace import move_seconds
from client.ai.policies import get_policy
from client.session import ConnectionLost, RequestError, Session, SessionClosed
from client.worker_run import first_connection, serve_worker
from protocol import messages as m

log = logging.getLogger(__name__)

#: Logged once the server knows this worker takes no new seats (after SIGTERM).
DRAINING = "draining: the server offers no new seats"

#: Levels whose decisions are heavy enough to leave the event loop for a process pool.
POOLED_LEVELS = frozenset({"hard"})
#: Errors after which the seat is no longer this worker's to play.
LOST_SEAT_CODES = frozenset({"not_a_player", "not_your_seat", "not_found", "room_full"})
#: Pause before deciding again after a move was refused for another reason (``internal``).
RETRY_SECONDS = 0.2
#: How long to wait for the update of a move before asking for it again.
UPDATE_WAIT_SECONDS = 10.0
#: How long a seat waits for its turn before it asks the server for anything it missed.
TURN_WAIT_SECONDS = 15.0


@dataclass(frozen=True)
class WorkerSettings:
    url: str
    worker_key: str
    capacity: int = 50
    think_seconds: float = 1.1
    """The time each move takes, so that people can follow the AI's play (``client.ai.pace``:
    varied about it, less in a room that asked for a fast AI; 0 in tests: no pause)."""
    level_think_seconds: tuple[tuple[str, float], ...] = ()
    """``think_seconds`` of some levels of their own, ``(level, seconds)``."""
    drain_seconds: float = 600.0
    processes: int = 1
    name: str = "AI"
    release_away_seconds: float = 60.0
    """How long the person of a room against the AI may be away before its seat is given up:
    by default the servers' disconnect grace (``GIN_DISCONNECT_GRACE``), so that a room whose
    person is gone past the grace holds no worker's capacity."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WorkerSettings:
        key = env.get("GIN_AI_WORKER_KEY")
        if not key:
            raise ValueError("GIN_AI_WORKER_KEY is not set: the worker needs the server's key")
        return cls(
            url=env.get("GIN_SERVER_URL", "ws://127.0.0.1:8000/ws"),
            worker_key=key,
            capacity=int(env.get("GIN_AI_CAPACITY", "50")),
            think_seconds=float(env.get("GIN_AI_THINK_SECONDS", "1.1")),
            level_think_seconds=tuple(
                (level, float(env[f"GIN_AI_THINK_SECONDS_{level.upper()}"]))
                for level in get_args(m.AILevel)
                if env.get(f"GIN_AI_THINK_SECONDS_{level.upper()}")
            ),
            drain_seconds=float(env.get("GIN_AI_DRAIN_SECONDS", "600")),
            processes=int(env.get("GIN_AI_PROCESSES", "1")),
            release_away_seconds=float(
                env.get("GIN_AI_RELEASE_AWAY_SECONDS") or env.get("GIN_DISCONNECT_GRACE") or "60"
            ),
        )

    def think_for(self, level: str) -> float:
        """The seconds a move of ``level`` takes (before ``client.ai.pace`` varies them)."""
        return dict(self.level_think_seconds).get(level, self.think_seconds)


def decide(level: str, game: Mapping[str, Any], seed: str) -> dict[str, Any]:
    """One decision; a plain function so that a process pool can run it."""
    return get_policy(level)(game, random.Random(seed))


class Worker:
    def __init__(self, settings: WorkerSettings, executor: Executor | None = None) -> None:
        self.settings = settings
        self._executor = executor
        self._session: Session | None = None
        self._seats: dict[tuple[str, int], asyncio.Task[None]] = {}
        #: Varies the pace of the moves (``client.ai.pace``); the decisions have seeds of their own.
        self._rng = random.Random()
        self._accepting = True
        self._stopped = asyncio.Event()
        self._drain: asyncio.Task[None] | None = None
        self.moves = 0

    async def run(self) -> None:
        """Play seats until :meth:`stop`; reconnects by itself, and waits for a server that
        is not up yet when it starts."""
        session = await self._first_connection()
        if session is None:
            return
        self._session = session
        subscribed_on = -1
        try:
            while not self._stopped.is_set():
                if session.closed:
                    raise SessionClosed(session.closed_reason or "closed")
                if session.connected and subscribed_on != session.connections:
                    with contextlib.suppress(Exception):
                        await session.request("ai_subscribe", capacity=self._capacity())
                        subscribed_on = session.connections
                try:
                    message = await session.next_message(
                        lambda msg: isinstance(msg, m.AiSeat), timeout=1.0
                    )
                except TimeoutError:
                    continue
                assert isinstance(message, m.AiSeat)
                self._take(message)
        finally:
            await self._finish()

    async def _first_connection(self) -> Session | None:
        return await first_connection(
            self.settings.url,
            name=self.settings.name,
            client="ai-worker/0.1",
            worker_key=self.settings.worker_key,
            stopped=self._stopped,
        )

    def _capacity(self) -> int:
        return self.settings.capacity if self._accepting else 0

    def _take(self, offer: m.AiSeat) -> None:
        key = (offer.room, offer.seat)
        running = self._seats.get(key)
        if (running is not None and not running.done()) or not self._accepting:
            return
        task = asyncio.create_task(
            self._play(offer.room, offer.seat, offer.level), name=f"seat {key}"
        )
        self._seats[key] = task
        task.add_done_callback(lambda done: self._seat_done(key, done))

    def _seat_done(self, key: tuple[str, int], task: asyncio.Task[None]) -> None:
        """A seat's task ended: forget it, and retrieve (and log) what it raised."""
        if self._seats.get(key) is task:
            del self._seats[key]
        if task.cancelled():
            return
        error = task.exception()
        if error is not None and not isinstance(error, SessionClosed):
            log.error(
                "seat failed: room %s seat %s",
                *key,
                extra={"room": key[0], "seat": key[1]},
                exc_info=error,
            )

    async def _play(self, room: str, seat: int, level: str) -> None:
        """Take and play the seat on the worker's one connection (the server never offers a
        worker both seats of a room, which one connection could not follow)."""
        session = self._session
        assert session is not None
        try:
            await self._join_and_play(session, room, seat, level)
        finally:
            session.forget(room)

    async def _join_and_play(self, session: Session, room: str, seat: int, level: str) -> None:
        try:
            ack = await session.request("join_room", room=room, seat=seat)
        except RequestError as error:
            # Said once, with the server's code; the server hands the seat on at once.
            log.warning(
                "seat not taken: room %s seat %s: %s",
                room,
                seat,
                error.code,
                extra={"room": room, "seat": seat, "code": error.code},
            )
            return
        except ConnectionLost:
            # Taken or not, the seat's lease tells the server to offer it again if need be.
            log.info("seat not taken: connection lost", extra={"room": room})
            return
        try:
            await self._play_seat(session, room, ack.result["seat"], level)
        except (SessionClosed, asyncio.CancelledError):
            raise
        except RequestError as error:
            log.info(
                "seat lost: room %s: %s", room, error.code, extra={"room": room, "code": error.code}
            )
            if error.code == "not_found":
                await _let_go(session, room)
        except Exception:
            log.exception("seat failed", extra={"room": room})

    async def _play_seat(self, session: Session, room: str, seat: int, level: str) -> None:
        state = session.room(room)
        while True:
            view = await _await_turn(session, room, seat, self.settings.release_away_seconds)
            if view is None:
                log.info("seat given up: its person is away", extra={"room": room})
                await _let_go(session, room)
                return
            if view["status"] == "finished" or view.get("seat") != seat:
                with contextlib.suppress(RequestError, ConnectionLost):
                    await session.request("leave", room=room)
                return
            seq = state.seq
            game = view["game"]
            loop = asyncio.get_running_loop()
            done_at = loop.time() + move_seconds(self.settings.think_for(level), view, self._rng)
            action = await self._decide(level, game, f"{room}:{seat}:{seq}")
            if done_at > loop.time():
                await asyncio.sleep(done_at - loop.time())
            try:
                ack = await session.act(room, action["kind"], action.get("card"), seq=seq)
            except ConnectionLost:
                # The move may or may not have counted: the resumed view will tell.
                await session.wait_connected(timeout=60)
                continue
            except RequestError as error:
                if error.code in LOST_SEAT_CODES:
                    return
                if error.code not in ("stale_sequence", "duplicate_request"):
                    # e.g. store_unavailable while Redis restarts: decide again (if the move
                    # stood after all, the new decision's seq is behind: stale_sequence).
                    log.warning("move refused", extra={"room": room, "code": error.code})
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
                await _reach(session, room, seq + 1)
                continue
            self.moves += 1
            await _reach(session, room, ack.result["seq"])

    async def _decide(self, level: str, game: Mapping[str, Any], seed: str) -> dict[str, Any]:
        if self._executor is not None and level in POOLED_LEVELS:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, decide, level, dict(game), seed)
        return decide(level, game, seed)

    def stop(self) -> None:
        """Take no new seats; finish the current matches (up to ``drain_seconds``), then stop.
        Seats still in play then are handed back when the connection closes."""
        if not self._accepting or self._session is None:
            self._stopped.set()  # a second signal, or nothing to finish yet: stop now
            return
        self._accepting = False
        loop = asyncio.get_running_loop()
        loop.call_later(self.settings.drain_seconds, self._stopped.set)
        self._drain = loop.create_task(self._drain_seats())

    async def _drain_seats(self) -> None:
        session = self._session
        if session is not None and session.connected:
            with contextlib.suppress(Exception):
                await session.request("ai_subscribe", capacity=0)
                log.info(DRAINING, extra={"seats": len(self._seats)})
        while self._seats:
            await asyncio.gather(*self._seats.values(), return_exceptions=True)
        self._stopped.set()

    async def _finish(self) -> None:
        for task in list(self._seats.values()):
            task.cancel()
        await asyncio.gather(*self._seats.values(), return_exceptions=True)
        if self._session is not None:
            await self._session.close()


async def _let_go(session: Session, room: str) -> None:
    """The room is gone (a room that waited for its person expired): tell the server that
    the seat it counts against this worker's capacity is free."""
    with contextlib.suppress(RequestError, ConnectionLost, SessionClosed, TimeoutError):
        await session.request("unfollow", room=room)


async def _reach(session: Session, room: str, seq: int) -> None:
    """Wait for the room's update ``seq``; if it does not come, ask for what was missed."""
    try:
        await session.wait_seq(room, seq, timeout=UPDATE_WAIT_SECONDS)
    except TimeoutError:
        log.warning("update missing: resuming the room", extra={"room": room, "seq": seq})
        await session.resume(room)


async def _await_turn(
    session: Session, room: str, seat: int, release_away: float = float("inf")
) -> Mapping[str, Any] | None:
    """The room's view once the seat has a move to make (or the match is over); None once the
    person of a room against the AI has been away for ``release_away`` seconds. The opponent
    may think for long, but an update this session never got would stall the seat for good:
    every ``TURN_WAIT_SECONDS`` it resumes the room, and says so when updates were missing."""
    state = session.room(room)
    loop = asyncio.get_running_loop()
    away_since: float | None = None
    next_look = loop.time() + TURN_WAIT_SECONDS
    while True:
        away = state.view is not None and _person_away(state.view, seat)
        if not away:
            away_since = None
        elif away_since is None:
            away_since = loop.time()
        wait = next_look - loop.time()
        if away_since is not None:
            left = away_since + release_away - loop.time()
            if left <= 0:
                return None
            wait = min(wait, left)

        def worth_a_look(view: Mapping[str, Any], was_away: bool = away) -> bool:
            return _wants_move(view, seat) or _person_away(view, seat) != was_away

        try:
            view = await session.wait_for(room, worth_a_look, max(wait, 0.0))
            if _wants_move(view, seat):
                return view
            continue
        except TimeoutError:
            if loop.time() < next_look:
                continue
            next_look = loop.time() + TURN_WAIT_SECONDS
            seen = state.seq
            try:
                ack = await session.resume(room)
            except ConnectionLost:
                continue  # the session reconnects and resumes the room itself
            if ack.result.get("to_seq", seen) != seen:
                log.warning(
                    "updates missing while waiting for the turn: resumed",
                    extra={"room": room, "seq": seen, "to_seq": ack.result.get("to_seq")},
                )


def _person_away(view: Mapping[str, Any], seat: int) -> bool:
    """The room is against the AI and its person (the other seat) is away."""
    seats = view.get("seats") or []
    if view.get("mode") != "ai" or len(seats) != 2 or seat not in (0, 1):
        return False
    person = seats[1 - seat]
    return person.get("ai") is None and bool(person.get("away"))


def _wants_move(view: Mapping[str, Any], seat: int) -> bool:
    """Time to act: the seat has a move other than dealing the next hand (people deal), or
    the match is over, or the seat is not ours any more."""
    if view["status"] == "finished" or view.get("seat") != seat:
        return True
    game = view.get("game")
    if not game:
        return False
    return any(action["kind"] != "next_hand" for action in game["legal_actions"])


async def serve(settings: WorkerSettings) -> None:
    await serve_worker(settings.processes, lambda executor: Worker(settings, executor))

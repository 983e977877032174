"""The soak's people: tables of two, persons against the AI, watchers, and the dropper.

Each is a ``client.session.Session`` (the Python client: it reconnects and resumes by
itself) that counts, as its frames arrive, the sequence gaps and the snapshots that jumped
over numbers it had not seen. Players choose like ``tests.support.players.choose`` after a
human pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.soak.counts import Totals
from client.session import ConnectionLost, RequestError, Session, SessionClosed, View
from protocol import messages as m
from tests.support.players import choose


class CountingSession(Session):
    """A session that counts the gaps and the jumps in its rooms' numbers."""

    totals: Totals
    gaps = 0
    jumps = 0

    def _on_room_frame(self, message: m.Update | m.Snapshot) -> None:
        state = self.rooms.get(message.room)
        if state is not None and state.seq >= 0 and message.seq > state.seq + 1:
            if isinstance(message, m.Update):
                self.gaps += 1
                self.totals.gaps += 1
            elif state.current:
                self.jumps += 1
                self.totals.jumps += 1
        super()._on_room_frame(message)


async def connect(url: str, name: str, totals: Totals) -> CountingSession:
    session = await CountingSession.connect(url, name=name, keep_log=False, backoff=(0.05, 1.0))
    assert isinstance(session, CountingSession)
    session.totals = totals
    return session


@dataclass
class Pace:
    """How players play: a mean pause before each move (s), the wait for one's turn after
    which a room counts as stalled (s), and the target of each match."""

    think: float
    stall_seconds: float
    target: int


@dataclass
class Table:
    """Two people in one public private room at a time (a new one after each match)."""

    index: int
    sessions: tuple[CountingSession, CountingSession]
    room: str | None = None
    rooms: int = 0
    moved_on: asyncio.Event = field(default_factory=asyncio.Event)

    def start(self, room: str) -> None:
        self.room = room
        self.rooms += 1
        self.moved_on.set()
        self.moved_on = asyncio.Event()


def is_finished(view: View) -> bool:
    return bool(view["status"] == "finished")


async def play_seat(
    session: CountingSession, room: str, rng: random.Random, pace: Pace, totals: Totals
) -> bool:
    """Play ``session``'s seat in ``room`` at human pace until the match is over: True then,
    False when the room went away."""
    state = session.room(room)
    acted_on = -2
    while True:
        floor = acted_on

        def ready(view: View, floor: int = floor) -> bool:
            game = view.get("game")
            return is_finished(view) or (state.seq > floor and bool(game and game["legal_actions"]))

        try:
            view = await session.wait_for(room, ready, timeout=pace.stall_seconds)
        except TimeoutError:
            if session.connected:
                totals.stalls += 1
                print(f"  ! stall: room {room} at seq {state.seq}", flush=True)
            continue
        except RequestError as error:  # the room is gone
            totals.errors[f"room {error.code}"] += 1
            return False
        if is_finished(view):
            return True
        seen = state.seq
        connections = session.connections
        if pace.think > 0:
            await asyncio.sleep(min(rng.expovariate(1 / pace.think), 6 * pace.think))
        if state.seq != seen or state.view is None:
            continue  # news while thinking (the other seat dealt): look again
        action = choose(state.view, rng)
        acted_on = seen
        started = time.perf_counter()
        try:
            await session.act(room, action["kind"], action.get("card"), seq=seen)
        except RequestError as error:
            if error.code == "stale_sequence" and action["kind"] == "next_hand":
                continue  # both seats dealt the next hand at once: one of them first
            if error.code == "stale_sequence":
                # A change came first: this seat's view was of before its drop (the resume's
                # updates on the way), or a seat's presence changed (the other person dropped):
                # the protocol's answer to a race; the player looks again.
                if just_reconnected(session, connections):
                    totals.stale_after_reconnect += 1
                else:
                    totals.stale_races += 1
                continue
            totals.errors[error.code] += 1
            print(f"  ! {error.code} on {action} in {room}@{seen}: {error}", flush=True)
            continue
        except ConnectionLost:
            with contextlib.suppress(TimeoutError):
                await session.wait_connected(timeout=60)
            acted_on = -2  # applied or not: the resume tells
            continue
        except TimeoutError:
            totals.errors["act timed out"] += 1
            continue
        totals.latencies.append(time.perf_counter() - started)
        totals.moves += 1


#: A session that reconnected this recently (s) may still be catching up.
CATCH_UP_SECONDS = 5.0


def just_reconnected(session: Session, connections: int) -> bool:
    """The session reconnected since it had ``connections``, or a moment ago."""
    since = asyncio.get_running_loop().time() - session._connected_at
    return session.connections != connections or (
        session.connections > 1 and since < CATCH_UP_SECONDS
    )


async def leave_room(session: Session, room: str) -> None:
    """What a page does when it shows another room: stop following this one."""
    with contextlib.suppress(RequestError, ConnectionLost, TimeoutError, SessionClosed):
        await session.request("unfollow", room=room)
    session.forget(room)


async def retry_later(totals: Totals, what: str, error: Exception) -> None:
    if isinstance(error, ConnectionLost):
        totals.lost_requests += 1  # the dropper's doing: asked again once back
    else:
        code = error.code if isinstance(error, RequestError) else type(error).__name__
        totals.errors[f"{what}: {code}"] += 1
        print(f"  ! {what}: {error}", flush=True)
    await asyncio.sleep(1.0)


async def run_table(table: Table, pace: Pace, totals: Totals, seed: int) -> None:
    """Matches between the table's two people, one after the other, for ever."""
    a, b = table.sessions
    while True:
        try:
            created = await a.request(
                "create_room", mode="private", public=True, rules={"target": pace.target}
            )
            room = created.result["room"]
            await b.request("join_room", invite=created.result["invite"])
        except (RequestError, ConnectionLost, TimeoutError) as error:
            await retry_later(totals, "a table's new room", error)
            continue
        table.start(room)
        seeds = [f"{seed}/{table.index}/{table.rooms}/{i}" for i in range(2)]
        done = await asyncio.gather(
            *(
                play_seat(session, room, random.Random(seeds[i]), pace, totals)
                for i, session in enumerate(table.sessions)
            )
        )
        if all(done):
            totals.matches += 1
        await asyncio.gather(leave_room(a, room), leave_room(b, room))


@dataclass
class AiPerson:
    """A person playing AI rooms, one after the other; ``room``: the one in play."""

    session: CountingSession
    room: str | None = None

    async def leave(self) -> None:
        """Leave the room in play (the match is forfeited: its AI seat is free at once)."""
        if self.room is not None:
            with contextlib.suppress(RequestError, ConnectionLost, TimeoutError, SessionClosed):
                await self.session.request("leave", room=self.room, timeout=10)


async def run_ai_room(person: AiPerson, pace: Pace, totals: Totals, seed: int) -> None:
    """Matches of one person against the AI, one after the other, for ever."""
    rooms = 0
    session = person.session
    while True:
        try:
            created = await session.request(
                "create_room", mode="ai", level="easy", rules={"target": pace.target}
            )
        except (RequestError, ConnectionLost, TimeoutError) as error:
            await retry_later(totals, "a new AI room", error)
            continue
        room = person.room = created.result["room"]
        rooms += 1
        if await play_seat(session, room, random.Random(f"{seed}/ai/{rooms}"), pace, totals):
            totals.matches += 1
        person.room = None
        await leave_room(session, room)


async def run_watcher(watcher: CountingSession, table: Table, pace: Pace, totals: Totals) -> None:
    """Watch the table's room to its end, then the table's next room, for ever."""
    while True:
        room = table.room
        if room is None:
            await table.moved_on.wait()
            continue
        try:
            await watcher.request("watch", room=room)
        except (RequestError, ConnectionLost, TimeoutError) as error:
            if table.room != room:
                continue  # the match ended before the watch came
            await retry_later(totals, "a watch", error)
            continue
        totals.watched_rooms += 1
        state = watcher.room(room)
        last_seq, last_news = state.seq, time.monotonic()
        while table.room == room:
            moved_on = asyncio.ensure_future(table.moved_on.wait())
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(moved_on), 5.0)
            finally:
                moved_on.cancel()
            if state.seq != last_seq:
                last_seq, last_news = state.seq, time.monotonic()
            elif state.view is not None and is_finished(state.view):
                pass
            elif time.monotonic() - last_news > pace.stall_seconds and watcher.connected:
                totals.stalls += 1
                print(f"  ! a watcher's stall: room {room} at seq {state.seq}", flush=True)
                last_news = time.monotonic()
        await leave_room(watcher, room)


async def run_dropper(
    people: Sequence[CountingSession], every: float, totals: Totals, seed: int
) -> None:
    """Every ``every`` seconds one person's socket dies under them (the transport aborted, as
    a network would): the session reconnects, resumes its rooms, and counts as resumed
    exactly when no gap or jump came with it."""
    rng = random.Random(f"{seed}/dropper")
    while True:
        await asyncio.sleep(every)
        person = rng.choice(list(people))
        ws: Any = person._ws
        if ws is None or not person.connected:
            continue
        before = (person.connections, person.gaps, person.jumps)
        ws.transport.abort()
        totals.drops += 1
        try:
            await asyncio.sleep(0.1)
            await person.wait_connected(timeout=60)
        except TimeoutError:
            print("  ! a dropped person did not get back in 60 s", flush=True)
            continue
        await asyncio.sleep(min(every / 2, 3.0))  # the resumes' frames come in
        if person.connections > before[0]:
            totals.reconnects += 1
            if (person.gaps, person.jumps) == before[1:]:
                totals.resumed_exactly += 1

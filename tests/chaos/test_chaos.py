"""Fifty matches at once on two server processes and two AI workers, behind a load balancer,
while processes die: a server is killed (kill -9) and restarted, an AI worker is killed and
another one started, and Redis itself is killed and restarted from its append-only file
(``appendfsync always``), each at a random moment of the run.

Every match must still end, with the same scores for both players and scores that the rules
library computes again from the replayed hands; every person's log of the room must hold every
sequence number once, in order, with exactly its redaction of the true events; and every change
a person's seat made must be exactly one of its requests (see ``tests/chaos/players.py``).

The seed is printed; ``GIN_CHAOS_SEED=N`` replays the same choices (the timing of the processes
still varies).
"""

from __future__ import annotations

import asyncio
import faulthandler
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio

from client.session import Session, View
from server.hub import decode_change, decode_room
from server.store import Store
from tests.chaos.conftest import CHAOS_ENV, ProxyFactory, WorkerFactory
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.chaos.workers import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.redis_server import RedisServer

MATCHES = 50
TARGET = 30
LEVELS = ("easy", "normal", "hard")
#: What goes wrong, in a random order, each once the players made a random number of moves.
EVENTS = ("server", "server", "worker", "worker", "redis")
#: Moves (people's requests, all matches together) between which the events happen: a run
#: makes about 3000-4000, so every event falls in the middle of the matches.
EVENT_WINDOW = (150, 1500)
MATCH_TIMEOUT = 100.0
#: The whole test, cleanup included.
RUN_TIMEOUT = 150.0


@dataclass
class Match:
    index: int
    room: str
    kind: str
    plays: list[SeatPlay]
    finals: list[View] = field(default_factory=list)
    done: bool = False


async def _open_match(index: int, url: str, rng: random.Random) -> Match:
    person = await Session.connect(url, name=f"P{index}a", record=True)
    if index % 2 == 0:
        other = await Session.connect(url, name=f"P{index}b", record=True)
        created = await person.request("create_room", mode="private", rules={"target": TARGET})
        room = created.result["room"]
        joined = await other.request("join_room", invite=created.result["invite"])
        assert joined.result["seat"] == 1
        return Match(index, room, "people", [SeatPlay(person, room, 0), SeatPlay(other, room, 1)])
    level = rng.choice(LEVELS)
    created = await person.request(
        "create_room", mode="ai", level=level, rules={"target": TARGET}, stand_in=False
    )
    room = created.result["room"]
    return Match(index, room, f"ai-{level}", [SeatPlay(person, room, 0)])


async def _play(match: Match, seed: int, progress: Counter[str]) -> None:
    match.finals = list(
        await asyncio.gather(
            *(
                play_seat(
                    play,
                    random.Random(f"{seed}/{match.index}/{play.seat}"),
                    timeout=10 * MATCH_TIMEOUT,  # the test's own deadline comes first
                    progress=progress,
                )
                for play in match.plays
            )
        )
    )
    match.done = True


async def _stuck(
    store: Store, matches: list[Match], proxy_routes: dict[tuple[str, int], int]
) -> str:
    """Where the unfinished matches stand (for the failure message)."""
    lines = []
    for match in matches:
        if match.done:
            continue
        loaded = await store.load_room(match.room)
        view = match.plays[0].session.room(match.room).view or {}
        game = view.get("game") or {}
        changes = await store.changes_since(match.room, max(-1, (loaded[0] if loaded else 0) - 3))
        tail = [decode_change(blob) for _, blob in changes or []]
        lines.append(
            f"{match.room} ({match.kind}): last changes {tail}, "
            f"stored seq {loaded[0] if loaded else None}, "
            f"client seq {match.plays[0].session.room(match.room).seq}, "
            f"phase {game.get('phase')}, turn {game.get('turn')}, "
            f"AI seat bound to {decode_room(loaded[1]).seats[1].player if loaded else None}"
        )
        for play in match.plays:
            session = play.session
            ws = session._ws
            local = ws.local_address if ws is not None else None
            frames = [
                (type(frame).__name__, getattr(frame, "seq", getattr(frame, "code", "")))
                for frame in (session.frames or [])[-6:]
            ]
            lines.append(
                f"   seat {play.seat}: seq {session.room(match.room).seq}, connected "
                f"{session.connected}, connections {session.connections}, via "
                f"{proxy_routes.get(local) if local else None}, last intent "
                f"{play.intents[-1] if play.intents else None}, last frames {frames}"
            )
    return "\n".join(lines)


async def test_fifty_matches_survive_kills_and_a_redis_restart(
    private_redis: RedisServer,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
    proxy_factory: ProxyFactory,
) -> None:
    # A hang anywhere fails the test with the stack of what it waited for.
    faulthandler.dump_traceback_later(RUN_TIMEOUT + 30)
    try:
        await asyncio.wait_for(
            _chaos(private_redis, server_factory, worker_factory, proxy_factory), RUN_TIMEOUT
        )
    finally:
        faulthandler.cancel_dump_traceback_later()


async def _chaos(
    private_redis: RedisServer,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
    proxy_factory: ProxyFactory,
) -> None:
    seed = int(os.environ.get("GIN_CHAOS_SEED") or random.randrange(1 << 32))
    rng = random.Random(seed)
    print(f"\nchaos seed {seed} (GIN_CHAOS_SEED={seed} to replay the choices)")
    started = time.monotonic()
    servers = [server_factory(env=CHAOS_ENV, redis=private_redis.url) for _ in range(2)]
    proxy = await proxy_factory(lambda: [server.port for server in servers]).start()
    workers: list[WorkerProcess] = [worker_factory(proxy.url) for _ in range(2)]
    store = await Store.connect(private_redis.url)
    progress: Counter[str] = Counter()
    kills: Counter[str] = Counter()
    matches: list[Match] = []
    try:
        matches = list(
            await asyncio.gather(*(_open_match(i, proxy.url, rng) for i in range(MATCHES)))
        )
        tasks = [asyncio.create_task(_play(match, seed, progress)) for match in matches]

        deadline = time.monotonic() + MATCH_TIMEOUT
        events = list(EVENTS)
        rng.shuffle(events)
        moments = sorted(rng.sample(range(*EVENT_WINDOW), len(events)))
        running_at_event: list[int] = []
        for event, moment in zip(events, moments, strict=True):
            while progress["intents"] < moment:
                failed = [task for task in tasks if task.done() and task.exception()]
                if failed:
                    await failed[0]  # a player gave up: show why
                if time.monotonic() > deadline:
                    stuck = await _stuck(store, matches, proxy.routes)
                    raise AssertionError(f"stalled at {progress['intents']} moves:\n{stuck}")
                await asyncio.sleep(0.02)
            running_at_event.append(sum(1 for match in matches if not match.done))
            if event == "server":
                victim = rng.choice(servers)
                await victim.akill()
                await victim.astart()
            elif event == "worker":
                dead = rng.choice(workers)
                await asyncio.to_thread(dead.kill)
                workers.remove(dead)
                workers.append(worker_factory(proxy.url))
            else:
                await _redis_crash_and_restart(private_redis, store, matches)
            kills[event] += 1
            print(f"  {event} down and back after {moment} moves, {running_at_event[-1]} running")
        done, pending = await asyncio.wait(tasks, timeout=deadline - time.monotonic())
        if pending:
            for task in pending:
                task.cancel()
            stuck = await _stuck(store, matches, proxy.routes)
            requests = await _ai_requests(private_redis.url)
            raise AssertionError(
                f"{len(pending)} matches did not finish:\n{stuck}\nAI seat requests: {requests}"
            )
        for task in done:
            task.result()  # a player's failure, if any
        # every event hit matches in full swing
        assert min(running_at_event) >= MATCHES // 2, running_at_event

        totals: Counter[str] = Counter()
        for match in matches:
            counts = await check_room(store, match.room, match.plays, match.finals, TARGET)
            totals.update(counts)
            totals[f"matches:{match.kind.split('-')[0]}"] += 1

        # nothing died but what we killed; people were spread over both servers
        assert all(server.running for server in servers), "a server process died by itself"
        crashed = [worker.name for worker in workers if not worker.running]
        assert not crashed, f"AI workers died by themselves: {crashed}"
        assert len([port for port in proxy.accepted if proxy.accepted[port]]) == 2
        assert totals["frame_gaps"] == 0, "the server skipped sequence numbers on a connection"

        print(
            f"chaos: {len(matches)} matches ({totals['matches:people']} people vs people, "
            f"{totals['matches:ai']} people vs AI), {totals['hands']} hands, "
            f"{totals['changes']} changes in Redis"
        )
        print(
            f"kills: {kills['server']} server kill -9, {kills['worker']} AI worker kill -9, "
            f"{kills['redis']} Redis kill -9 + restart from the AOF"
        )
        print(
            f"people: {totals['intents']} actions decided, {totals['acked']} acked, "
            f"{totals['applied_after_lost_answer']} applied with the answer lost, "
            f"{totals['resends']} sent again with the same id, "
            f"{totals['reconnects']} reconnects; "
            f"answers {_answers(totals)}; frames received twice after a resume "
            f"{totals['frame_duplicates']}; connections per server {dict(proxy.accepted)}"
        )
        print(f"took {time.monotonic() - started:.1f} s")
    finally:
        sessions = [play.session for match in matches for play in match.plays]
        await asyncio.wait_for(
            asyncio.gather(store.close(), *(session.close() for session in sessions)), 20
        )


async def _ai_requests(url: str) -> str:
    """The AI seat request stream as Redis holds it (for the failure message)."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        length = await client.xlen("ai:requests")
        pending = await client.xpending("ai:requests", "ai-workers")
        return f"{length} requests, pending {pending}"
    finally:
        await client.aclose()


def _answers(totals: Counter[str]) -> dict[str, int]:
    prefix = "answer:"
    return {key[len(prefix) :]: value for key, value in totals.items() if key.startswith(prefix)}


async def _redis_crash_and_restart(redis: RedisServer, store: Store, matches: list[Match]) -> None:
    """kill -9 Redis and start it again on its folder: with ``appendfsync always`` every
    version acknowledged before the crash must come back from the append-only file."""
    before: dict[str, int] = {}
    for match in matches:
        version = await store.room_version(match.room)
        assert version is not None
        before[match.room] = version
    await asyncio.to_thread(redis.restart, crash=True)
    after: dict[str, Any] = {}
    for match in matches:
        after[match.room] = await store.room_version(match.room)
    lost = {
        room: (version, after[room])
        for room, version in before.items()
        if (after[room] or -1) < version
    }
    assert not lost, f"versions lost by the Redis restart: {lost}"

"""Fifty matches at once on two server processes and two AI workers, behind a load balancer,
while processes die, each at a random moment of the run (counted in the people's moves, or
sooner once only ``EARLY_AT`` matches still run), the machine going down first:

- ``server`` (twice): a server process that people are connected to is killed (kill -9) and
  started again on its port;
- ``worker`` (twice): an AI worker is killed (kill -9) and a new one is started;
- ``server+worker``: the machine of an AI worker that plays seats goes down with the server
  the worker is connected to (the worker is frozen, the server killed, then the worker
  killed: neither can say goodbye), and both come back; every seat the worker played must be
  asked for again once its lease runs out (``GIN_AI_LEASE_SECONDS``, ``server/ai_seats.py``)
  and be played on by another worker;
- ``redis``: Redis is killed (kill -9) and started again on its folder: the data comes back
  from its append-only file (``appendfsync always``, no RDB snapshot).

Half the matches are between two scripted people, half between a scripted person and an AI
(easy, normal or hard). Every match must still end, with the scores the rules library
computes again from the replayed hands, the same on both players' screens and in the replay
records; every person's log of the room must hold every sequence number once, in order, with
exactly its redaction of the true events, and the frames must have come without a gap; every
change a person's seat made must be exactly one of its requests, each request applied at most
once, and every acked one applied (``tests/chaos/players.py``).

The seed is printed; ``GIN_CHAOS_SEED=N`` replays the same choices (the timing of the
processes still varies).
"""

from __future__ import annotations

import asyncio
import functools
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import redis.asyncio

from client.session import Session, View
from server.blobs import decode_change, decode_room
from server.store import Store
from tests.chaos.conftest import ProxyFactory, WorkerFactory
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.chaos.proxy import Proxy
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.players import truth
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

MATCHES = 50
#: Matches long enough to outlast the events: the people's matches make 800 moves a second
#: between them, and an event takes 0.5 to 2 s (a server's restart), longer on a loaded machine.
TARGET = 50
LEVELS = ("easy", "normal", "hard")
#: What goes wrong, in a random order.
EVENTS = ("server", "server", "worker", "worker", "server+worker", "redis")
#: The events happen at random numbers of people's moves (all matches together) in this
#: window (the moves made while an event runs come on top). A match to 30 could end with its
#: first hand: by move 1,300 fewer than half the matches were still running in some runs.
EVENT_WINDOW = (150, 900)
#: An event also comes before its number of moves once no more than this many matches still
#: run: on a loaded machine the people's matches run ahead of the AI's and end early (seen in
#: CI: 15 of 50 running by move 769), and every event must still meet matches in full swing.
#: An event itself takes seconds on a loaded machine (a server's restart), in which 5 to 10
#: matches can end: the margin above half.
EARLY_AT = 40
#: From the first move to the end of the last match.
MATCH_TIMEOUT = 110.0
#: No person made a move for this long: the matches are stuck (an AI seat is taken over
#: within a few seconds of its lease running out).
STALL_SECONDS = 25.0
#: The whole test, cleanup included.
RUN_TIMEOUT = 150.0
LEASE_LOST = "AI seat lost its player"
#: An offer the worker never took (it froze first) is handed again from the request stream.
OFFER_AGAIN = "AI seat offer not taken: handed again"
#: A worker's connection to a live server closed: that server asks for its seats at once.
GIVEN_BACK = "AI seat given back by its worker"


@dataclass
class Match:
    index: int
    room: str
    kind: str
    plays: list[SeatPlay]
    finals: list[View] = field(default_factory=list)
    done: bool = False


async def _open_match(index: int, url: str, level: str | None) -> Match:
    person = await Session.connect(url, name=f"P{index}a", record=True)
    if level is None:
        other = await Session.connect(url, name=f"P{index}b", record=True)
        created = await person.request("create_room", mode="private", rules={"target": TARGET})
        room = created.result["room"]
        joined = await other.request("join_room", invite=created.result["invite"])
        assert joined.result["seat"] == 1
        return Match(index, room, "people", [SeatPlay(person, room, 0), SeatPlay(other, room, 1)])
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


class Chaos:
    """The processes of the run and what was done to them."""

    def __init__(
        self,
        rng: random.Random,
        redis_server: RedisServer,
        store: Store,
        servers: list[ServerProcess],
        workers: list[WorkerProcess],
        proxy: Proxy,
        worker_factory: WorkerFactory,
    ) -> None:
        self.rng = rng
        self.redis = redis_server
        self.store = store
        self.servers = servers
        self.workers = workers
        self.proxy = proxy
        self.worker_factory = worker_factory
        self.kills: Counter[str] = Counter()
        #: The seats of the worker that went down with its server: room -> number then.
        self.orphaned: dict[str, int] = {}
        #: People connected to a server when it was killed.
        self.people_cut = 0

    async def do(self, event: str, matches: list[Match]) -> str:
        if event == "server":
            # a server that people are connected to (after a kill they all move to the other)
            people = self._people_on(matches)
            victim = self.rng.choice([s for s in self.servers if people[s.port]] or self.servers)
            await victim.akill()
            self.kills["server"] += 1
            self.people_cut += people[victim.port]
            await victim.astart()
            return (
                f"server :{victim.port} killed with {people[victim.port]} people on it, "
                f"started again"
            )
        if event == "worker":
            dead = self.rng.choice(self.workers)
            await asyncio.to_thread(dead.kill)
            self.kills["worker"] += 1
            self._replace(dead)
            return f"worker {dead.name} killed, another one started"
        if event == "server+worker":
            return await self._machine_down(matches)
        assert event == "redis", event
        await self._redis_crash_and_restart(matches)
        self.kills["redis"] += 1
        return "Redis killed and started again from its append-only file"

    def _people_on(self, matches: list[Match]) -> Counter[int]:
        """How many people's websockets go to each server port now."""
        ports: Counter[int] = Counter()
        for match in matches:
            for play in match.plays:
                ws = play.session._ws
                port = self.proxy.routes.get(ws.local_address) if ws is not None else None
                if port is not None and play.session.connected:
                    ports[port] += 1
        return ports

    def _replace(self, dead: WorkerProcess) -> None:
        self.workers.remove(dead)
        self.workers.append(self.worker_factory(self.proxy.url))

    def _connection_of(self, worker: WorkerProcess) -> tuple[ServerProcess, str] | None:
        """The server the worker's websocket goes to, and the worker's player id."""
        for local in worker.local_ports():
            key = ("127.0.0.1", local)
            port, player = self.proxy.routes.get(key), self.proxy.players.get(key)
            server = next((server for server in self.servers if server.port == port), None)
            if server is not None and player is not None:
                return server, player
        return None

    async def _seats_of(self, player: str, matches: list[Match]) -> dict[str, int]:
        """The AI seats ``player`` plays now: room -> the room's current number."""
        seats: dict[str, int] = {}
        for match in matches:
            loaded = await self.store.load_room(match.room) if match.kind != "people" else None
            if loaded is not None:
                room = decode_room(loaded[1])
                if room.status == "playing" and room.seats[1].player == player:
                    seats[match.room] = loaded[0]
        return seats

    async def _machine_down(self, matches: list[Match]) -> str:
        # a worker that plays seats, and the server its websocket goes to (a worker may be
        # reconnecting just now: wait for one)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        candidates: list[tuple[int, WorkerProcess, ServerProcess, str]] = []
        while not candidates and loop.time() < deadline:
            for worker in self.workers:
                found = self._connection_of(worker)
                seats = await self._seats_of(found[1], matches) if found is not None else {}
                if found is not None and seats:
                    candidates.append((len(seats), worker, *found))
            await asyncio.sleep(0.05)
        assert candidates, "no AI worker that plays a seat is connected to a server"
        # one that plays more than one seat where there is one: a worker's single seat can be
        # in flight to another worker as it is taken down (seen in CI: none left at the read
        # below), which leaves no orphan to check
        several = [candidate for candidate in candidates if candidate[0] > 1]
        _, dead, victim, player = self.rng.choice(several or candidates)
        assert dead.pid is not None
        people = self._people_on(matches)
        os.killpg(dead.pid, signal.SIGSTOP)  # frozen: it can neither leave nor come back
        await victim.akill()
        # Read after the kill, once a commit the killed server had already sent has reached
        # Redis: an act the worker sent before it froze may still have been committed until
        # then; that is its own move, not a seat played again.
        await asyncio.sleep(0.2)
        self.orphaned = await self._seats_of(player, matches)
        await asyncio.to_thread(dead.kill)
        self.people_cut += people[victim.port]
        self.kills["server"] += 1
        self.kills["worker"] += 1
        self._replace(dead)
        await victim.astart()
        return (
            f"server :{victim.port} killed with worker {dead.name}, which played "
            f"{len(self.orphaned)} AI seats through it, and {people[victim.port]} people; "
            f"both back"
        )

    async def check_orphans(self) -> int:
        """Every seat the worker that went down with its server played, and that was played
        again afterwards, was asked for again first: by its lease running out, by an untaken
        offer handed again, or by a live server the worker was also connected to. No seat is
        taken over unasked. Returns how many."""
        asked = {
            record.get("room")
            for server in self.servers
            for record in server.log_records()
            if record.get("msg") in (LEASE_LOST, OFFER_AGAIN, GIVEN_BACK)
        }
        played_again = 0
        for room, seq in self.orphaned.items():
            changes = await truth(self.store, room)
            if any(actor == 1 for number, actor, _ in changes if number > seq):
                played_again += 1
                assert room in asked, f"{room}: its orphaned AI seat was played again, unasked"
        return played_again

    async def _redis_crash_and_restart(self, matches: list[Match]) -> None:
        """kill -9 Redis and start it again on its folder. No RDB snapshot is configured, so
        whatever comes back comes from the append-only file; with ``appendfsync always``
        every version acknowledged before the crash must come back."""
        async with redis.asyncio.Redis.from_url(self.redis.url) as admin:
            config = await admin.config_get("*")
        assert (config["appendonly"], config["appendfsync"], config["save"]) == (
            "yes",
            "always",
            "",
        ), {key: config[key] for key in ("appendonly", "appendfsync", "save")}
        before = {match.room: await self.store.room_version(match.room) for match in matches}
        await asyncio.to_thread(self.redis.restart, crash=True)
        async with redis.asyncio.Redis.from_url(self.redis.url) as admin:
            persistence = await admin.info("persistence")
        assert persistence["aof_enabled"] == 1, persistence
        after = {match.room: await self.store.room_version(match.room) for match in matches}
        lost = {
            room: (version, after[room])
            for room, version in before.items()
            if not _kept(version, after[room])
        }
        assert not lost, f"versions lost by the Redis restart (before, after): {lost}"


async def _stuck(store: Store, matches: list[Match], chaos: Chaos) -> str:
    """Where the unfinished matches stand (for the failure message)."""
    proxy = chaos.proxy
    lines = []
    for worker in chaos.workers:
        connections = [
            (proxy.players.get(("127.0.0.1", port)), proxy.routes.get(("127.0.0.1", port)))
            for port in worker.local_ports()
        ]
        lines.append(f"worker {worker.name} (player, server): {connections}")
    for match in matches:
        if match.done:
            continue
        loaded = await store.load_room(match.room)
        state = match.plays[0].session.room(match.room)
        game = (state.view or {}).get("game") or {}
        changes = await store.changes_since(match.room, max(-1, (loaded[0] if loaded else 0) - 3))
        tail = [decode_change(blob) for _, blob in changes or []]
        ai = ""
        if loaded is not None and match.kind != "people":
            ai = f", AI seat {decode_room(loaded[1]).seats[1]}"
        lines.append(
            f"{match.room} ({match.kind}): last changes {tail}, stored seq "
            f"{loaded[0] if loaded else None}, client seq {state.seq}, phase "
            f"{game.get('phase')}, turn {game.get('turn')}{ai}"
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
                f"{proxy.routes.get(local) if local else None}, last intent "
                f"{play.intents[-1] if play.intents else None}, last frames {frames}"
            )
    return "\n".join(lines)


async def _ai_requests(url: str) -> str:
    """The AI seat requests and leases as Redis holds them (for the failure message)."""
    client = redis.asyncio.Redis.from_url(url)
    try:
        length = await client.xlen("ai:requests")
        pending = await client.xpending("ai:requests", "ai-workers")
        leases = await client.zrange("ai:leases", 0, -1, withscores=True)
        return f"{length} requests, pending {pending}, leases {leases}"
    finally:
        await client.aclose()


def _kept(before: int | None, after: int | None) -> bool:
    """A room's version after the Redis restart is at least the one read before it."""
    return before is not None and after is not None and after >= before


def _reached(progress: Counter[str], moves: int) -> bool:
    return progress["intents"] >= moves


def _answers(totals: Counter[str]) -> dict[str, int]:
    prefix = "answer:"
    return {key[len(prefix) :]: value for key, value in totals.items() if key.startswith(prefix)}


async def test_fifty_matches_survive_kills_and_a_redis_restart(
    private_redis: RedisServer,
    server_factory: ServerFactory,
    worker_factory: WorkerFactory,
    proxy_factory: ProxyFactory,
) -> None:
    # A hang anywhere fails the test with what it waited for.
    await asyncio.wait_for(
        _chaos(private_redis, server_factory, worker_factory, proxy_factory), RUN_TIMEOUT
    )


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
    servers = [server_factory() for _ in range(2)]
    proxy = await proxy_factory(lambda: [server.port for server in servers]).start()
    workers: list[WorkerProcess] = [worker_factory(proxy.url) for _ in range(2)]
    store = await Store.connect(private_redis.url)
    chaos = Chaos(rng, private_redis, store, servers, workers, proxy, worker_factory)
    progress: Counter[str] = Counter()
    levels = [None if i % 2 == 0 else rng.choice(LEVELS) for i in range(MATCHES)]
    # the machine going down comes first, while every AI match still runs and each worker
    # plays many seats: late in a run a worker's last seat can end or move to another worker
    # as it is taken down (seen in CI: none left to orphan), and the orphan case goes unchecked
    events = [event for event in EVENTS if event != "server+worker"]
    rng.shuffle(events)
    events.insert(0, "server+worker")
    moments = sorted(rng.sample(range(*EVENT_WINDOW), len(events)))
    matches: list[Match] = []
    try:
        matches = list(
            await asyncio.gather(
                *(_open_match(i, proxy.url, level) for i, level in enumerate(levels))
            )
        )
        tasks = [asyncio.create_task(_play(match, seed, progress)) for match in matches]

        deadline = time.monotonic() + MATCH_TIMEOUT

        async def wait(until: Callable[[], bool], what: str) -> None:
            """Until ``until()``; fails at once if a player gave up, or when no person made
            a move for ``STALL_SECONDS``, or at the deadline, saying where matches stand."""
            moves, moved = progress["intents"], time.monotonic()
            while not until():
                failed = [task for task in tasks if task.done() and task.exception()]
                if failed:
                    await failed[0]  # a player gave up: show why
                now = time.monotonic()
                if progress["intents"] != moves:
                    moves, moved = progress["intents"], now
                elif now - moved > STALL_SECONDS or now > deadline:
                    stuck = await _stuck(store, matches, chaos)
                    requests = await _ai_requests(private_redis.url)
                    raise AssertionError(
                        f"waiting for {what}: no move for {now - moved:.0f} s, "
                        f"{sum(1 for m in matches if not m.done)} matches unfinished after "
                        f"{progress['intents']} moves:\n{stuck}\nAI seats: {requests}"
                    )
                await asyncio.sleep(0.05)

        def due(moment: int) -> bool:
            running = sum(1 for match in matches if not match.done)
            return _reached(progress, moment) or running <= EARLY_AT

        running_at_event: list[int] = []
        for event, moment in zip(events, moments, strict=True):
            await wait(functools.partial(due, moment), f"move {moment}")
            running_at_event.append(sum(1 for match in matches if not match.done))
            moves, began = progress["intents"], time.monotonic()
            what = await chaos.do(event, matches)
            print(
                f"  after {moves} moves (due at {moment}), "
                f"{running_at_event[-1]} matches running: {what} "
                f"({time.monotonic() - began:.1f} s)"
            )
        await wait(lambda: all(task.done() for task in tasks), "the end of every match")
        for task in tasks:
            task.result()  # a player's failure, if any
        played = time.monotonic() - started

        totals: Counter[str] = Counter()
        for match in matches:
            counts = await check_room(store, match.room, match.plays, match.finals, TARGET)
            totals.update(counts)
            totals[f"matches:{match.kind.split('-')[0]}"] += 1

        # every event hit matches in full swing
        assert min(running_at_event) >= MATCHES // 2, running_at_event
        # nothing died but what we killed; people and workers were spread over both servers
        assert all(server.running for server in servers), "a server process died by itself"
        crashed = [worker.name for worker in workers if not worker.running]
        assert not crashed, f"AI workers died by themselves: {crashed}"
        assert all(proxy.accepted[server.port] for server in servers), proxy.accepted
        # every person whose server was killed under them came back
        assert totals["reconnects"] >= chaos.people_cut > 0, (
            totals["reconnects"],
            chaos.people_cut,
        )
        # the seats of the worker that went down with its server were asked for again once
        # their leases ran out (no one else could know they were orphaned)
        orphans = await chaos.check_orphans()
        assert orphans >= 1, f"no orphaned AI seat was played again: {chaos.orphaned}"
        lease_lost = sum(server.log_text().count(LEASE_LOST) for server in servers)

        print(
            f"chaos: {len(matches)} matches ({totals['matches:people']} person vs person, "
            f"{totals['matches:ai']} person vs AI), {totals['hands']} hands, "
            f"{totals['changes']} changes in Redis, {totals['hand_records']} replay records"
        )
        print(
            f"kills: {chaos.kills['server']} server kill -9 (one with its AI worker), "
            f"{chaos.kills['worker']} AI worker kill -9, {chaos.kills['redis']} Redis kill -9 "
            f"and restart from the AOF; the worker killed with its server played "
            f"{len(chaos.orphaned)} seats, {orphans} taken over after their lease ran out; "
            f"{lease_lost} AI seats asked for again by a lease in all"
        )
        print(
            f"actions: people decided {totals['intents']} and {totals['acked']} were acked, "
            f"{totals['applied_after_lost_answer']} applied with the answer lost "
            f"({totals['applied_after_internal']} of them answered internal first, "
            f"{totals['duplicate_on_first_attempt']} answered duplicate at once), "
            f"{totals['resends']} sent again with the same id; AI moves {totals['ai_moves']}"
        )
        print(
            f"reconnects: people {totals['reconnects']} ({chaos.people_cut} were on a server "
            f"when it was killed); websocket connections per server "
            f"{dict(proxy.accepted)}; answers {_answers(totals)}; updates received twice "
            f"after a resume {totals['frame_duplicates']}, gaps {totals['frame_gaps']}"
        )
        print(f"played in {played:.1f} s, checked in {time.monotonic() - started - played:.1f} s")
    finally:
        sessions = [play.session for match in matches for play in match.plays]
        await asyncio.wait_for(
            asyncio.gather(store.close(), *(session.close() for session in sessions)), 20
        )

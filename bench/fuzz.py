"""Fuzz the codec and a real server with many more inputs than ``make test`` can afford.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.fuzz [--decode N] [--frames N] [--connections K]
[--seed S]``

1. decoder: ``--decode`` inputs (default 100,000) through ``codec.decode`` in this process,
   each judged by ``check_decoder`` (``tests/abuse/fuzzing.py``): a message or a
   ``ProtocolError`` and nothing else (anything else is a crash); a refusal with one of the
   codec's codes, an error that can itself be sent, and the frame's request id exactly when it
   held a valid one; an accepted frame that an independent parser reads as the same fields,
   and a canonical round trip.
2. server: ``--frames`` frames (default 100,000) against ONE ``python -m server`` process of
   its own (own redis-server on a free port, temporary folder), over ``--connections``
   connections that play both seats of the fuzzer's matches, each frame followed by a
   ``ping`` so that what answers it is known (``FuzzClient.check``: exactly the answer the
   protocol promises, never ``internal`` (also counted apart), never a closed connection; and
   the decoder's checks). Meanwhile two honest players play match after match on the same
   process, each checked (nothing lost, nothing applied twice, no gap), and the fuzzer watches
   them: it must never see a card a spectator may not.

The inputs: a corpus drawn by hypothesis from the strategies of ``tests/abuse/fuzzing.py`` (a
tenth of the count, at most 10,000: drawing is the slow part), then cheap mutations of it (byte
edits, values spliced between messages, replays) and, for the server, live requests on the
rooms it knows (legal moves of its matches, resumes, watches, leaves, rematches, joins).

It prints a table of the outcomes (request type -> answer) and of the problems with an
example of each, the crashes, whether the server survived and its logged errors, and the
rates. Exit status 1 when anything was wrong.
"""

from __future__ import annotations

import argparse
import queue
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
from hypothesis import HealthCheck, Phase, given, seed, settings

from protocol import messages as m
from tests.abuse.fuzzing import (
    Context,
    Frame,
    FuzzClient,
    HonestPlay,
    check_decoder,
    frames,
    logged_failures,
    open_connections,
    pack,
)
from tests.support.players import leaks, visible_cards
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

#: Loose limits: every fuzzed frame is followed by a ping, and most of them are refused.
FAST = {
    "GIN_RATE_PER_SECOND": "100000",
    "GIN_RATE_BURST": "100000",
    "GIN_PING_RATE": "100000",
    "GIN_PING_BURST": "100000",
    "GIN_FLOOD_STRIKES": "1000000",
}
CORPUS_MAX = 10_000


def generate(count: int, context: Context, player: str | None, rng_seed: int) -> list[Frame]:
    """``count`` frames drawn by hypothesis (generation only, no shrinking)."""
    out: list[Frame] = []

    @seed(rng_seed)
    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(frame=frames(context, player))
    def draw(frame: Frame) -> None:
        out.append(frame)

    draw()
    return out


def stream(
    count: int,
    corpus: list[Frame],
    rng: random.Random,
    live: Callable[[random.Random], Frame] | None = None,
) -> Iterator[Frame]:
    """``count`` frames: the corpus, then mutations of it (and, with ``live``, a fifth of
    live requests)."""
    yield from corpus[:count]
    maps = [value for value in map(_unpacked, corpus) if isinstance(value, dict)]
    for _ in range(count - len(corpus)):
        choice = rng.random()
        if live is not None and choice < 0.2:
            yield live(rng)
        elif choice < 0.55 and maps:
            yield _splice(rng, maps)
        elif choice < 0.9:
            yield _edit(rng, rng.choice(corpus))
        else:
            yield rng.choice(corpus)


def _unpacked(frame: Frame) -> Any:
    if isinstance(frame, str):
        return None
    try:
        return msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except Exception:
        return None


def _splice(rng: random.Random, maps: list[dict[Any, Any]]) -> bytes:
    """A message of the corpus with some of its values taken from other messages."""
    message = dict(rng.choice(maps))
    for _ in range(rng.randint(1, 3)):
        donor = rng.choice(maps)
        if donor:
            key = rng.choice(list(donor))
            message[key] = donor[key]
    if rng.random() < 0.5:
        message["id"] = rng.choice([rng.randrange(1 << 53), f"s{rng.randrange(1 << 30)}"])
    return pack(message)


def _edit(rng: random.Random, frame: Frame) -> Frame:
    if isinstance(frame, str):
        return frame[: rng.randrange(len(frame) + 1)]
    data = bytearray(frame)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        index = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(index, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data.insert(index, rng.randrange(256))
        elif kind == 2 and data:
            del data[min(index, len(data) - 1)]
        else:
            del data[index:]
    return bytes(data)


def live_request(context: Context, player: str) -> Callable[[random.Random], Frame]:
    """Requests on the rooms the fuzzer knows now, mostly legal moves of ``player``."""

    def make(rng: random.Random) -> Frame:
        pick = rng.randrange(1 << 30)
        room = context.room(pick)
        request_id = f"live-{rng.randrange(1 << 40)}"
        choice = rng.random()
        if choice < 0.6:
            return pack(context.legal_act(pick, player))
        if choice < 0.7:
            last = context.seq(room, rng.choice([-1, -3, -30, 0]))
            return pack({"t": "resume", "id": request_id, "room": room, "last_seq": last})
        if choice < 0.8:
            return pack({"t": "watch", "id": request_id, "room": room})
        if choice < 0.85:
            return pack({"t": "leave", "id": request_id, "room": room})
        if choice < 0.9:
            return pack({"t": "join_room", "id": request_id, "invite": context.invite(pick)})
        if choice < 0.95:
            return pack({"t": "create_room", "id": request_id, "mode": "private"})
        return pack({"t": "rematch", "id": request_id, "room": room})

    return make


def _table(title: str, column: str, counts: Counter[str]) -> None:
    print(f"  {title:<56} {column:>9}")
    for key, value in sorted(counts.items()):
        print(f"  {key:<56} {value:>9,}")


# --- 1. the decoder -----------------------------------------------------------------------------


def fuzz_decoder(count: int, rng_seed: int) -> bool:
    outcomes: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    examples: dict[str, str] = {}
    started = time.perf_counter()
    corpus = generate(max(1, min(count // 10, CORPUS_MAX)), Context(), None, rng_seed)
    drawn = time.perf_counter() - started
    for frame in stream(count, corpus, random.Random(rng_seed)):
        outcome, found = check_decoder(frame)
        outcomes[outcome] += 1
        for problem in found:
            kind = re.sub(r"[:(].*", "", problem)[:60]
            problems[kind] += 1
            examples.setdefault(kind, problem)
    seconds = time.perf_counter() - started
    total = sum(outcomes.values())
    crashes = outcomes["CRASH"]
    print(
        f"\n== decoder: {total:,} inputs in {seconds:.1f} s ({total / seconds:,.0f} inputs/s; "
        f"{len(corpus):,} drawn by hypothesis in {drawn:.1f} s, the rest mutated)"
    )
    _table("outcome", "inputs", outcomes)
    print(f"  crashes: {crashes}; problems: {sum(problems.values())}")
    for kind, number in problems.most_common():
        print(f"    {number:>6} x {kind}: e.g. {examples[kind][:300]}")
    return bool(problems) or crashes > 0


# --- 2. the server ------------------------------------------------------------------------------


class ServerFuzz:
    def __init__(self, server: ServerProcess, connections: int) -> None:
        self.server = server
        self.connections = connections
        self.context = Context()
        self.queues: list[queue.Queue[Frame | None]] = [
            queue.Queue(maxsize=4) for _ in range(connections)
        ]
        self.counts: Counter[str] = Counter()
        self.problems: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.crashes = 0
        self.lock = threading.Lock()
        self.players: list[tuple[str, str]] = []  # (token, player id)
        self.secret: set[str] = set()
        self.seen: list[m.Update | m.Snapshot] = []
        self.streams: list[Iterator[Frame]] = []

    def setup(self) -> None:
        """Two players in a private match of their own (the fuzzing connections say hello as
        one or the other, so that both seats' moves reach the game engine) and an AI room."""
        owner = FuzzClient(self.server.ws_url, "Owner", self.context)
        partner = FuzzClient(self.server.ws_url, "Partner", self.context)
        private = owner.request(m.CreateRoom(id="ctx-1", mode="private"))
        ai = owner.request(m.CreateRoom(id="ctx-2", mode="ai", level="easy"))
        assert isinstance(private, m.Ack) and isinstance(ai, m.Ack)
        joined = partner.request(m.JoinRoom(id="ctx-3", invite=private.result["invite"]))
        assert isinstance(joined, m.Ack), joined
        self.context.rooms[:] = [private.result["room"], ai.result["room"]]
        self.context.invites[:] = [private.result["invite"]]
        self.players = [(c.token, c.player_id) for c in (owner, partner)]
        token, player = owner.token, owner.player_id
        self.context.tokens[:] = [token, token[:-1], f"{player}.x", partner.token]
        owner.close()
        partner.close()

    def _client(self, index: int) -> FuzzClient:
        token = self.players[index % 2][0]
        client = FuzzClient(self.server.ws_url, f"Fuzz{index}", self.context, token=token)
        client.secret_rooms = self.secret
        return client

    def _worker(self, index: int) -> None:
        client = self._client(index)
        while True:
            frame = self.queues[index].get()
            if frame is None:
                break
            if not self.server.running:
                with self.lock:
                    if not self.server.running:
                        self.crashes += 1
                        self.server.start()
            try:
                found = client.check(frame)
            except Exception as error:  # the connection broke in a way check() did not expect
                found = [f"client failure {error!r}"]
                self._retire(client)
                client = self._client(index)
            with self.lock:
                for problem in found:
                    kind = _kind(problem)
                    self.problems[kind] += 1
                    self.examples.setdefault(kind, problem)
        self._retire(client)

    def _retire(self, client: FuzzClient) -> None:
        with self.lock:
            self.counts.update(client.counts)
            self.seen.extend(client.secret_frames)
        client.close()

    def prepare(self, count: int, rng_seed: int) -> None:
        """Draw the corpora (one per seat), before any other thread runs: hypothesis wants
        the global ``random`` left alone while it draws."""
        started = time.perf_counter()
        per_seat = max(1, min(count // 10, CORPUS_MAX) // 2)
        self.streams = [
            stream(
                count,
                generate(per_seat, self.context, player, rng_seed + index),
                random.Random(rng_seed + index),
                live_request(self.context, player),
            )
            for index, (_token, player) in enumerate(self.players)
        ]
        drawn = time.perf_counter() - started
        print(f"\n  (the server's corpus: {2 * per_seat:,} frames drawn in {drawn:.1f} s)")

    def run(self, count: int, rng_seed: int) -> float:
        threads = [
            threading.Thread(target=self._worker, args=(index,), daemon=True)
            for index in range(self.connections)
        ]
        for thread in threads:
            thread.start()
        started = time.perf_counter()
        rng = random.Random(rng_seed)
        for _ in range(count):
            index = rng.randrange(self.connections)
            self.queues[index].put(next(self.streams[index % 2]))
        for feed in self.queues:
            feed.put(None)
        for thread in threads:
            thread.join()
        return time.perf_counter() - started


def _kind(problem: str) -> str:
    for marker in (
        "internal error",
        "closed the connection",
        "no answer",
        "bye after",
        "undecodable",
        "expected one error",
        "expected one answer",
        "client failure",
        "decoder crash",
        "cannot be sent",
        "refused with id",
    ):
        if marker in problem:
            return marker
    return re.sub(r"[:(].*", "", problem)[:60]


def fuzz_server(count: int, connections: int, rng_seed: int) -> bool:
    folder = Path(tempfile.mkdtemp(prefix="gin-fuzz-"))
    with RedisServer() as redis:
        server = ServerProcess(redis.url, env=FAST, log_dir=folder)
        server.start()
        try:
            fuzz = ServerFuzz(server, connections)
            fuzz.setup()
            fuzz.prepare(count, rng_seed)
            honest = HonestPlay(server, redis.url, fuzz.context.rooms, fuzz.secret, target=25)
            honest.start()
            assert honest.started.wait(30), honest.error
            seconds = fuzz.run(count, rng_seed)
            honest.stop.set()
            honest.join(120)
            alive = server.running
            status = server.get("/healthz")[0] if alive else None
            deadline = time.monotonic() + 5
            while (left := open_connections(server.get("/metrics")[1].decode())) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.1)
            errors = _logged_errors(server)
        finally:
            server.kill()
    frames_sent = fuzz.counts.pop("frames", 0)
    moves = sum(n for label, n in fuzz.counts.items() if label.startswith("act -> ack"))
    allowed = {room: visible_cards(honest.changes[room], None) for room in honest.changes}
    shown = leaks([f for f in fuzz.seen if f.room in allowed], allowed)
    print(
        f"\n== server: {frames_sent:,} frames over {connections} connections in {seconds:.1f} s "
        f"({frames_sent / seconds:,.0f} frames/s); {moves:,} fuzzed moves applied, "
        f"{len(fuzz.context.rooms)} rooms known"
    )
    _table("request -> answer", "frames", fuzz.counts)
    internal = sum(n for label, n in fuzz.counts.items() if "internal" in label)
    print(f"  problems: {sum(fuzz.problems.values())}; `internal` answers: {internal}")
    for kind, number in fuzz.problems.most_common():
        print(f"    {number:>6} x {kind}: e.g. {fuzz.examples[kind][:300]}")
    print(
        f"  crashes (server restarted): {fuzz.crashes}; server up at the end: {alive} "
        f"(/healthz {status}); connections left open: {left:.0f}"
    )
    print(f"  server log errors: {sum(errors.values())} {dict(errors) if errors else ''}")
    print(
        f"  honest play alongside: {honest.matches} matches finished and checked "
        f"({honest.error or 'no failure'}), {dict(honest.counts)}"
    )
    print(
        f"  frames of the honest matches seen by the fuzzer: {len(fuzz.seen):,}, "
        f"showing a hidden card: {len(shown)} {shown[:2] if shown else ''}"
    )
    print(f"  server log: {server.log_path}")
    bad_honest = honest.error is not None or honest.matches == 0 or honest.is_alive()
    return (
        bool(fuzz.problems)
        or internal > 0
        or fuzz.crashes > 0
        or bool(errors)
        or not alive
        or bool(left)
        or bool(shown)
        or bad_honest
    )


def _logged_errors(server: ServerProcess) -> Counter[str]:
    """The server log's error records and tracebacks, by shape."""
    return Counter(
        re.sub(r"'[^']*'|[0-9]+", "_", failure)[:110]
        for failure in logged_failures(server.log_text())
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--decode", type=int, default=100_000, help="decoder inputs")
    parser.add_argument("--frames", type=int, default=100_000, help="frames sent to the server")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    print(f"seed {args.seed}")
    bad = False
    if args.decode:
        bad |= fuzz_decoder(args.decode, args.seed)
    if args.frames:
        bad |= fuzz_server(args.frames, args.connections, args.seed)
    print("\nresult:", "PROBLEMS FOUND" if bad else "nothing wrong found")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

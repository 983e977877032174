"""Load benchmark of one game server process, beside a bare websocket echo server and the floor
of a move (the game server's own I/O of a move, no game).

Run: ``PYTHONPATH=. .venv/bin/python -m bench.load [--rooms N] [--seconds S] [--idle N]``

It starts, all on loopback and all of its own (stopped on exit, on ctrl-c, and by the kernel if
the bench itself dies):

- a ``redis-server`` on a free port with a temporary folder (never the machine's 6379);
- ONE game server process, ``python -m server``, with rate limits raised out of the way;
- a bare echo server, ``python -m bench.echo_server``: the same Starlette + uvicorn stack and
  options, decoding each MessagePack frame and sending it back, nothing else;
- the floor of a move, ``python -m bench.floor_server``: the same stack, and per frame what the
  game server must do for a move whatever its game code costs (the commit script on the same
  Redis, its published copy received back, an ack and an update of a real view's size to the
  sender and the update to the other side), with the game server's own Redis connection and
  frame writer. The game's figures over the floor's are what the game code adds; the floor's
  over the echo's are what the design's write-before-broadcast costs.

The clients run in this process (one asyncio loop, callbacks, no task per message) on a small
RFC 6455 client of our own (``WSClient``): unmasked server frames are parsed in place and the
masking of the small client frames is done by websockets' C ``apply_mask``, so that the load
generator costs little of the machine's CPU. The same client measures both servers.

Phases, each with a warm-up (not counted) then ``--seconds`` of measurement (rates count what
was answered inside the window, latencies the requests sent inside it):

1. game, saturated: N rooms of two scripted players (private room: one creates, the other
   joins with the invite code). A player acts when its view's ``legal_actions`` is non-empty,
   picks one at random and sends ``act`` with ``seq`` = the last update's seq, at once (a closed
   loop: one action in flight per room). Reports applied actions per second (acks) and the
   latency from sending the ``act`` to BOTH seats holding the update with that new seq.
2. game, paced: the same rooms, each player waiting an exponential think time before acting so
   that the whole bench offers ``--rate`` actions/s (default: half of phase 1's throughput):
   the latency of a server that is not saturated.
3. echo, saturated and 4. echo, paced at the same rate: N pairs of connections, one frame of an
   ``act``'s size in flight per pair, alternating sides; latency = the round trip.
5. floor, saturated and 6. floor, paced at the same rate: N pairs of connections sharing a room,
   one ``act`` in flight per pair, alternating sides; latency = from sending it to both sides
   holding the update of its move, as for the game.
7. idle: a fresh game server process; ``--idle`` connections that only say ``hello``. Server RSS
   growth per connection and in total.

Memory per connection is the server's RSS (``/proc/PID/status``) after opening the
connections (and, for the game, seating them in rooms) minus before, divided by the number of
connections; the first few percent of the connections are opened before the "before" reading,
so one-off costs (imports, caches) are not charged to every connection. CPU columns are each
process's user+system time over the measured window (100% = one core; the machine's CPUs are
shared by the server, Redis and this client); ``other CPU`` is what the rest of the machine
used meanwhile (from /proc/stat): when it is high, other work competed for the CPUs and the
figures are pessimistic. Targets are printed beside the figures; nothing is asserted.

Before the servers start, it times the pure game code of a move on this machine
(``bench.engine_moves.speed``: ``act``, the stored blob and both update frames, no I/O) and
prints it in the header. The shared machines these benches run on vary in speed from day to day
(the same code has taken 47 and 108 us there): compare runs, and read the absolute targets,
with that figure beside them.

``CPU/op`` is the server's CPU time per applied action (per echo for the echo server): a
figure that other load on the machine disturbs less than the rates, and 1 s / CPU/op is what
one server process could do with a core of its own.

``--py-spy FILE`` samples the game server with py-spy (if installed in the venv) during the
saturated phase and prints where it spends its time; ``--cprofile FILE`` runs the game server
under cProfile instead and prints its top functions at the end. ``--server-module M`` runs the
game server as ``python -m M`` (a wrapper on PYTHONPATH that instruments or patches it, to try
an optimisation before writing it).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import ctypes
import functools
import gc
import hashlib
import io
import math
import os
import pstats
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from websockets.speedups import apply_mask  # C: masks the client frames

from bench import engine_moves

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

TARGET_ACTIONS_PER_S = 5000
TARGET_P99_MS = 5.0
TARGET_P99_ROOMS = 1000
TARGET_ECHO_RATIO = 3.0
TARGET_IDLE_CONNECTIONS = 10_000
TARGET_IDLE_BYTES = 1 << 30

MAX_ROOMS = 5000
MAX_IDLE = 50_000
MAX_SECONDS = 600.0
CONNECT_CONCURRENCY = 100
WORKER_KEY = "bench-worker-key"

# --------------------------------------------------------------------------------------------
# child processes


_CHILDREN: list[Child] = []


def _die_with_parent() -> None:
    """In the child, before exec: get SIGKILL when the bench dies (Linux prctl)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port != 6379:
            return port


class Child:
    """A process we started: its log, RSS and CPU time from /proc, and a clean stop."""

    def __init__(
        self,
        name: str,
        args: list[str],
        log_dir: Path,
        env: dict[str, str] | None = None,
        stop_signal: int = signal.SIGTERM,
    ) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self.stop_signal = stop_signal
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                args,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,  # noqa: PLW1509 (no threads here)
            )
        _CHILDREN.append(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss(self) -> int:
        return rss_of(self.pid)

    def cpu(self) -> float:
        return cpu_of(self.pid)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        if self in _CHILDREN:
            _CHILDREN.remove(self)


def stop_children() -> None:
    for child in reversed(list(_CHILDREN)):
        with contextlib.suppress(Exception):
            child.stop()


def rss_of(pid: int) -> int:
    """Resident set size in bytes (VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int | str) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


async def wait_http(port: int, path: str, child: Child, timeout: float = 20.0) -> None:
    """Until GET path answers 200 (or the child dies, or timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not child.alive():
            raise RuntimeError(f"{child.name} exited at start:\n{child.log_tail()}")
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            line = await asyncio.wait_for(reader.readline(), 2.0)
            writer.close()
            if b" 200 " in line:
                return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{child.name} did not answer {path} in {timeout}s:\n{child.log_tail()}")


def redis_ping(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as s:
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        return s.recv(64).startswith(b"+PONG")
    return False


def start_redis(work: Path) -> tuple[Child, int]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: run scripts/ensure-redis.sh")
    for _attempt in range(5):
        port = free_port()
        data = work / f"redis-{port}"
        data.mkdir()
        child = Child(
            "redis",
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
             "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning",
             "--maxclients", "10000"],
            work,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and child.alive():
            if redis_ping(port):
                return child, port
            time.sleep(0.02)
        tail = child.log_tail()
        child.stop()
        if "Address already in use" not in tail:
            raise RuntimeError(f"redis-server did not start:\n{tail}")
    raise RuntimeError("no free port for redis-server")


def _pythonpath() -> str:
    """The project first, then whatever PYTHONPATH the bench was given."""
    extra = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([str(ROOT), *(p for p in extra.split(os.pathsep) if p)])


def server_env(redis_url: str, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=_pythonpath(),
        REDIS_URL=redis_url,
        GIN_PORT=str(port),
        GIN_HOST="127.0.0.1",
        GIN_AI_WORKER_KEY=WORKER_KEY,
        GIN_RATE_PER_SECOND="1000000",
        GIN_RATE_BURST="1000000",
        GIN_MAX_CONNECTIONS_PER_ADDRESS="0",  # every simulated player comes from 127.0.0.1
        GIN_LOG_LEVEL="WARNING",
        GIN_IDLE_TIMEOUT="3600",
    )
    return env


async def start_game_server(
    name: str, redis_url: str, work: Path, module: str = "server", cprofile: Path | None = None
) -> tuple[Child, int]:
    port = free_port()
    if cprofile is not None:
        args = [PYTHON, "-m", "cProfile", "-o", str(cprofile), "-m", module]
        stop = signal.SIGINT  # uvicorn shuts down cleanly and cProfile writes its file
    else:
        args = [PYTHON, "-m", module]
        stop = signal.SIGTERM
    child = Child(name, args, work, server_env(redis_url, port), stop)
    await wait_http(port, "/readyz", child)
    return child, port


async def start_floor_server(work: Path, redis_url: str) -> tuple[Child, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    args = [PYTHON, "-m", "bench.floor_server", "--port", str(port), "--redis", redis_url]
    child = Child("floor", args, work, env)
    await wait_http(port, "/healthz", child)
    return child, port


async def start_echo_server(work: Path) -> tuple[Child, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    child = Child("echo", [PYTHON, "-m", "bench.echo_server", "--port", str(port)], work, env)
    await wait_http(port, "/healthz", child)
    return child, port


# --------------------------------------------------------------------------------------------
# a small websocket client (RFC 6455): callbacks, no task per message

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WSClient(asyncio.Protocol):
    """One client websocket. ``on_message(payload)`` runs inside ``data_received`` for every
    complete data message; pings are answered, a close is echoed."""

    def __init__(self, host: str, port: int, path: str, on_message: Callable[[Any], None]):
        loop = asyncio.get_running_loop()
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.failures = 0
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
        )
        self._key = base64.b64encode(os.urandom(16))
        self._buf = bytearray()
        self._open = False
        self._fragments: list[bytes] | None = None
        self._close_sent = False

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self._request.encode() + self._key + b"\r\n\r\n")

    def connection_lost(self, exc: Exception | None) -> None:
        self._open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        if not self._open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end]).decode("latin-1").split("\r\n")
            del buf[: end + 4]
            headers = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest()).decode()
            if not head[0].startswith("HTTP/1.1 101") or headers.get("sec-websocket-accept") != (
                accept
            ):
                self.opened.set_exception(ConnectionError(f"handshake refused: {head[0]}"))
                assert self.transport is not None
                self.transport.close()
                return
            self._open = True
            self.opened.set_result(None)
        self._parse()

    def _parse(self) -> None:
        buf = self._buf
        size = len(buf)
        pos = 0
        while size - pos >= 2:
            first = buf[pos]
            second = buf[pos + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if second & 0x80:
                raise ConnectionError("the server masked a frame")
            end = pos + head + length
            if end > size:
                break
            payload = buf[pos + head : end]
            pos = end
            opcode = first & 0x0F
            if opcode in (1, 2):
                if first & 0x80:
                    self._deliver(payload)
                else:
                    self._fragments = [bytes(payload)]
            elif opcode == 0 and self._fragments is not None:
                self._fragments.append(bytes(payload))
                if first & 0x80:
                    whole, self._fragments = b"".join(self._fragments), None
                    self._deliver(whole)
            elif opcode == 9:
                self.send(bytes(payload), 0xA)
            elif opcode == 8:
                if not self._close_sent:
                    self.send(bytes(payload[:2]), 0x8)
                    self._close_sent = True
                assert self.transport is not None
                self.transport.close()
        if pos:
            del buf[:pos]

    def _deliver(self, payload: Any) -> None:
        try:
            self.on_message(payload)
        except Exception:
            self.failures += 1
            if self.failures <= 3:
                traceback.print_exc()

    # -- API

    def send(self, payload: bytes, opcode: int = 2) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        size = len(payload)
        if size < 126:
            header = bytes((0x80 | opcode, 0x80 | size))
        elif size < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = random.getrandbits(32).to_bytes(4, "big")
        transport.write(header + mask + apply_mask(payload, mask))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            if self._open and not self._close_sent:
                self.send((1000).to_bytes(2, "big"), 0x8)
                self._close_sent = True
            self.transport.close()


async def open_ws(
    port: int, on_message: Callable[[Any], None], timeout: float = 30.0, path: str = "/ws"
) -> WSClient:
    loop = asyncio.get_running_loop()
    _, client = await asyncio.wait_for(
        loop.create_connection(
            lambda: WSClient("127.0.0.1", port, path, on_message), "127.0.0.1", port
        ),
        timeout,
    )
    await asyncio.wait_for(client.opened, timeout)
    return client


async def close_all(clients: list[WSClient], timeout: float = 5.0) -> None:
    for client in clients:
        client.close()
    pending = [client.closed for client in clients if not client.closed.done()]
    if pending:
        await asyncio.wait(pending, timeout=timeout)


async def bounded(
    count: int, make: Callable[[int], Any], limit: int = CONNECT_CONCURRENCY
) -> list[Any]:
    """Run make(i) for i in range(count), at most ``limit`` at a time, in order of i."""
    results: list[Any] = [None] * count
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            results[index] = await make(index)

    await asyncio.gather(*(worker() for _ in range(min(limit, count))))
    return results


# --------------------------------------------------------------------------------------------
# measurement


@dataclass
class Stats:
    """What one phase measured."""

    name: str
    key: str = ""  # "game saturated", "game paced", "echo saturated", ..., "floor paced"
    measuring: bool = False
    done: int = 0  # applied actions (acks) or echoes, inside the window
    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    seconds: float = 0.0
    started: float = 0.0  # perf_counter at the start of the measured window
    cpu: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    def sample(self, sent: float, now: float) -> None:
        """The latency of a request answered now, if it was sent inside the measured window: one
        sent before it waited through what came before (the collection that opens the window,
        the previous phase's load) and would charge that to the window."""
        if self.measuring and sent >= self.started:
            self.latencies.append(now - sent)

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
        return ordered[index] * 1000


class CpuWatch:
    """CPU seconds of the processes of interest over a window."""

    def __init__(self, processes: dict[str, int | str]) -> None:
        self.processes = processes
        self.start = {name: cpu_of(pid) for name, pid in processes.items()}
        self.machine = machine_busy()
        self.t0 = time.perf_counter()

    def shares(self) -> dict[str, float]:
        """Per process, and ``others``: the rest of the machine (other users' work)."""
        wall = time.perf_counter() - self.t0
        shares = {
            name: (cpu_of(pid) - self.start[name]) / wall * 100
            for name, pid in self.processes.items()
        }
        busy = (machine_busy() - self.machine) / wall * 100
        shares["others"] = max(0.0, busy - sum(shares.values()))
        return shares


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy (all CPUs), from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / _TICKS


async def measure(
    stats: Stats, warmup: float, seconds: float, processes: dict[str, int | str]
) -> None:
    await asyncio.sleep(warmup)
    gc.collect()
    stats.measuring = True
    watch = CpuWatch(processes)
    stats.started = time.perf_counter()
    await asyncio.sleep(seconds)
    stats.measuring = False
    stats.seconds = time.perf_counter() - stats.started
    stats.cpu = watch.shares()


# --------------------------------------------------------------------------------------------
# the game clients


class Player:
    """One seat's connection: requests with callbacks, updates handed to its table."""

    __slots__ = ("callbacks", "index", "next_id", "pending", "seq", "table", "ws")

    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.index = index
        self.ws: WSClient | None = None
        self.next_id = 1
        self.callbacks: dict[int, Callable[[dict[str, Any]], None]] = {}
        self.seq = -1
        self.pending: tuple[int, list[dict[str, Any]]] | None = None

    def request(
        self, message: dict[str, Any], on_reply: Callable[[dict[str, Any]], None] | None = None
    ) -> int:
        request_id = self.next_id
        self.next_id += 1
        message["id"] = request_id
        if on_reply is not None:
            self.callbacks[request_id] = on_reply
        assert self.ws is not None
        self.ws.send(msgpack.packb(message))
        return request_id

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.request(message, future.set_result)
        return await asyncio.wait_for(future, 30.0)

    def on_message(self, data: Any) -> None:
        now = time.perf_counter()
        message = msgpack.unpackb(data)
        kind = message["t"]
        if kind in ("update", "snapshot"):
            self.table.on_update(self, message, now)
        elif kind in ("ack", "error"):
            callback = self.callbacks.pop(message["id"], None)
            if callback is not None:
                callback(message)
            else:
                self.table.game.on_act_reply(message)
        else:
            self.table.game.stats.errors[f"{kind}:{message.get('code', '')}"] += 1


class Table:
    """Two players in one private room; a new room when the match is over."""

    __slots__ = ("game", "invite", "last_progress", "players", "restarting", "room", "sent")

    def __init__(self, game: GameLoad) -> None:
        self.game = game
        self.players = (Player(self, 0), Player(self, 1))
        self.room: str | None = None
        self.invite = ""
        self.sent: dict[int, float] = {}
        self.restarting = False
        self.last_progress = time.perf_counter()

    async def open(self, port: int) -> None:
        for player in self.players:
            player.ws = await open_ws(port, player.on_message)
            reply = await player.call(
                {"t": "hello", "version": "1.0", "name": "bench", "client": "bench/load"}
            )
            if reply["t"] != "ack":
                raise RuntimeError(f"hello refused: {reply}")
        await self.new_match()

    async def new_match(self) -> None:
        creator, joiner = self.players
        created: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_created(reply: dict[str, Any]) -> None:
            if reply["t"] != "ack":
                created.set_exception(RuntimeError(f"create_room refused: {reply}"))
                return
            # Set inside the callback: the room's first update follows in the same read.
            self.room = reply["result"]["room"]
            self.invite = reply["result"]["invite"]
            self.sent.clear()
            for player in self.players:
                player.seq = -1
                player.pending = None
            created.set_result(None)

        creator.request({"t": "create_room", "mode": "private"}, on_created)
        await asyncio.wait_for(created, 30.0)
        reply = await joiner.call({"t": "join_room", "invite": self.invite})
        if reply["t"] != "ack":
            raise RuntimeError(f"join_room refused: {reply}")
        self.restarting = False

    def on_update(self, player: Player, message: dict[str, Any], now: float) -> None:
        if message["room"] != self.room:
            return
        seq = message["seq"]
        if seq <= player.seq:
            return
        player.seq = seq
        self.last_progress = now
        if self.players[1 - player.index].seq >= seq:
            started = self.sent.pop(seq - 1, None)
            if started is not None:
                self.game.stats.sample(started, now)
        view = message.get("view")
        if view is None:
            return
        if view["status"] == "finished":
            if player.index == 0 and not self.restarting:
                self.restarting = True
                self.game.matches += 1
                task = asyncio.ensure_future(self.new_match())
                task.add_done_callback(_report_failure)
            return
        game = view.get("game")
        if game:
            legal = game["legal_actions"]
            if legal:
                self.game.decide(self, player, seq, legal)


class GameLoad:
    """N tables playing random legal actions."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tables: list[Table] = []
        self.stats = Stats("idle")
        self.running = False
        self.think = 0.0
        self.matches = 0
        self.loop = asyncio.get_running_loop()

    async def open(self, count: int) -> None:
        async def make(_index: int) -> Table:
            table = Table(self)
            await table.open(self.port)
            return table

        self.tables.extend(await bounded(count, make))

    def on_act_reply(self, reply: dict[str, Any]) -> None:
        stats = self.stats
        if reply["t"] == "ack":
            if stats.measuring:
                stats.done += 1
        elif stats.measuring:
            stats.errors[reply.get("code", "?")] += 1

    def decide(self, table: Table, player: Player, seq: int, legal: list[dict[str, Any]]) -> None:
        player.pending = (seq, legal)
        if not self.running:
            return
        if self.think > 0:
            self.loop.call_later(
                random.expovariate(1 / self.think), self._act_later, table, player, seq
            )
        else:
            self._act(table, player, seq, legal)

    def _act_later(self, table: Table, player: Player, seq: int) -> None:
        pending = player.pending
        if not self.running or pending is None or pending[0] != seq or player.seq != seq:
            return
        self._act(table, player, seq, pending[1])

    def _act(self, table: Table, player: Player, seq: int, legal: list[dict[str, Any]]) -> None:
        player.pending = None
        table.sent.setdefault(seq, time.perf_counter())
        if self.stats.measuring:
            self.stats.sent += 1
        player.request({"t": "act", "room": table.room, "seq": seq, "action": random.choice(legal)})

    def go(self, stats: Stats, think: float) -> None:
        """Start (or re-pace) playing: every seat with a decision waiting acts."""
        self.stats = stats
        self.think = think
        was_running, self.running = self.running, True
        if was_running:
            return
        for table in self.tables:
            for player in table.players:
                if player.pending is not None and player.pending[0] == player.seq:
                    self.decide(table, player, *player.pending)

    def stop(self) -> None:
        self.running = False

    def stalled(self, since: float) -> int:
        """Tables that made no progress since ``since`` (a perf_counter time)."""
        return sum(1 for table in self.tables if table.last_progress < since)

    def unanswered(self, seconds: float) -> int:
        """Acts whose update did not reach both seats within ``seconds``."""
        horizon = time.perf_counter() - seconds
        return sum(1 for t in self.tables for sent in t.sent.values() if sent < horizon)

    async def close(self) -> None:
        self.running = False
        await close_all([p.ws for t in self.tables for p in t.players if p.ws is not None])


def _report_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        print(f"  ! a table could not start a new match: {task.exception()}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# the echo clients


class EchoPair:
    """Two connections; one act-sized frame in flight, sides alternating."""

    __slots__ = ("clients", "load", "n", "room", "started", "turn")

    def __init__(self, load: PairLoad, index: int) -> None:
        self.load = load
        self.clients: list[WSClient] = []
        self.turn = 0
        self.n = 0
        self.started = 0.0
        self.room = "r" + base64.urlsafe_b64encode(os.urandom(9)).decode()

    def path(self, side: int) -> str:
        return "/ws"

    async def open(self, port: int) -> None:
        for side in (0, 1):
            on_message = functools.partial(self.on_message, side)
            self.clients.append(await open_ws(port, on_message, path=self.path(side)))

    def send(self) -> None:
        self.n += 1
        frame = msgpack.packb(
            {"t": "act", "id": self.n, "room": self.room, "seq": self.n - 1,
             "action": {"kind": "discard", "card": "QS"}}
        )  # fmt: skip
        self.started = time.perf_counter()
        self.clients[self.turn].send(frame)

    def on_message(self, side: int, data: Any) -> None:
        now = time.perf_counter()
        msgpack.unpackb(data)
        if side == self.turn:
            self.done(now)

    def done(self, now: float) -> None:
        """The frame in flight has done its round: count it, and the other side sends next."""
        stats = self.load.stats
        if stats.measuring:
            stats.done += 1
            stats.sample(self.started, now)
        self.turn ^= 1
        self.load.next(self)


class FloorPair(EchoPair):
    """Two connections sharing a room of the floor server; one act in flight, sides
    alternating; done when both sides hold the update of the act's move (as a game table)."""

    __slots__ = ("held", "seated")

    def __init__(self, load: PairLoad, index: int) -> None:
        super().__init__(load, index)
        self.held = [-1, -1]
        self.seated: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def path(self, side: int) -> str:
        return f"/ws?room={self.room}&side={side}"

    async def open(self, port: int) -> None:
        await super().open(port)
        await asyncio.wait_for(self.seated, 30.0)  # both seats' first update (seq 0)

    def on_message(self, side: int, data: Any) -> None:
        now = time.perf_counter()
        message = msgpack.unpackb(data)
        if message["t"] != "update":
            return
        self.held[side] = message["seq"]
        if self.n == 0:
            if self.held == [0, 0] and not self.seated.done():
                self.seated.set_result(None)
        elif self.held[0] == self.held[1] == self.n:
            self.done(now)


class PairLoad:
    """N pairs of connections to a baseline server: the echo's (``EchoPair``) or the floor's
    (``FloorPair``)."""

    def __init__(self, port: int, pair: type[EchoPair] = EchoPair) -> None:
        self.pair = pair
        self.port = port
        self.pairs: list[EchoPair] = []
        self.stats = Stats("idle")
        self.running = False
        self.think = 0.0
        self.loop = asyncio.get_running_loop()

    async def open(self, count: int) -> None:
        async def make(index: int) -> EchoPair:
            pair = self.pair(self, index)
            await pair.open(self.port)
            return pair

        self.pairs.extend(await bounded(count, make))

    def next(self, pair: EchoPair) -> None:
        if not self.running:
            return
        if self.think > 0:
            self.loop.call_later(random.expovariate(1 / self.think), self._send_later, pair)
        else:
            pair.send()

    def _send_later(self, pair: EchoPair) -> None:
        if self.running:
            pair.send()

    def go(self, stats: Stats, think: float) -> None:
        self.stats = stats
        self.think = think
        if self.running:
            return
        self.running = True
        for pair in self.pairs:
            self.next(pair)

    def stop(self) -> None:
        self.running = False

    async def close(self) -> None:
        self.running = False
        await close_all([c for pair in self.pairs for c in pair.clients])


# --------------------------------------------------------------------------------------------
# the run


@dataclass
class Memory:
    label: str
    connections: int
    before: int
    after: int
    extra: str = ""

    @property
    def per_connection(self) -> float:
        return (self.after - self.before) / self.connections if self.connections else math.nan


@dataclass
class Report:
    args: argparse.Namespace
    client_note: str = ""
    phases: list[Stats] = field(default_factory=list)
    memory: list[Memory] = field(default_factory=list)
    idle: Memory | None = None
    idle_seconds: float = 0.0
    matches: int = 0
    stalled: int = 0
    unanswered: int = 0
    rate: float = 0.0
    notes: list[str] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)
    engine_us: float = 0.0


def _warmup_count(total: int) -> int:
    """Connections opened before the "before" RSS reading (0 for small runs)."""
    return min(total // 20, 50)


async def settle(child: Child, seconds: float = 1.0) -> int:
    """The RSS once the process has had a moment (allocations after the last reply)."""
    await asyncio.sleep(seconds)
    return child.rss()


async def run_game(
    report: Report, server: Child, port: int, redis: Child, py_spy: Path | None
) -> None:
    args = report.args
    rooms = args.rooms
    load = GameLoad(port)
    first = _warmup_count(rooms)
    await load.open(first)
    before = await settle(server)
    started = time.perf_counter()
    await load.open(rooms - first)
    setup = time.perf_counter() - started
    after = await settle(server)
    gc.freeze()
    report.memory.append(
        Memory("game server", 2 * (rooms - first), before, after,
               f"seated in {rooms - first} rooms, opened in {setup:.1f} s")
    )  # fmt: skip
    processes: dict[str, int | str] = {"server": server.pid, "redis": redis.pid, "client": "self"}

    saturated = Stats(f"game, saturated ({rooms} rooms)", "game saturated")
    load.go(saturated, 0.0)
    spy = None
    if py_spy is not None:
        spy = start_py_spy(server.pid, py_spy, args.warmup + args.seconds)
    await measure(saturated, args.warmup, args.seconds, processes)
    report.phases.append(saturated)
    report.stalled = load.stalled(saturated.started)
    if spy is not None and py_spy is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            spy.wait(30)
        report.profile = summarize_py_spy(py_spy)

    rate = args.rate or max(1.0, saturated.rate * args.load_factor)
    report.rate = rate
    paced = Stats(f"game, paced ~{rate:,.0f}/s", "game paced")
    load.go(paced, rooms / rate)
    await measure(paced, max(args.warmup, 2 * rooms / rate), args.seconds, processes)
    report.phases.append(paced)
    load.stop()
    await asyncio.sleep(0.5)
    report.unanswered = load.unanswered(5.0)
    report.matches = load.matches
    report.memory.append(
        Memory("game server after play", 2 * rooms, before, server.rss(), "same connections")
    )
    await load.close()


async def run_echo(report: Report, echo: Child, port: int) -> None:
    args = report.args
    pairs = args.rooms
    load = PairLoad(port)
    first = _warmup_count(pairs)
    await load.open(first)
    before = await settle(echo)
    await load.open(pairs - first)
    after = await settle(echo)
    report.memory.append(Memory("echo server", 2 * (pairs - first), before, after, "no state"))
    processes: dict[str, int | str] = {"server": echo.pid, "client": "self"}
    await run_pairs(report, load, "echo", processes)
    await load.close()


async def run_floor(report: Report, floor: Child, port: int, redis: Child) -> None:
    load = PairLoad(port, FloorPair)
    await load.open(report.args.rooms)
    processes: dict[str, int | str] = {"server": floor.pid, "redis": redis.pid, "client": "self"}
    await run_pairs(report, load, "floor", processes)
    await load.close()


async def run_pairs(
    report: Report, load: PairLoad, name: str, processes: dict[str, int | str]
) -> None:
    """The saturated phase, then the paced one at the game's paced rate."""
    args = report.args
    pairs = len(load.pairs)
    saturated = Stats(f"{name}, saturated ({pairs} pairs)", f"{name} saturated")
    load.go(saturated, 0.0)
    await measure(saturated, args.warmup, args.seconds, processes)
    report.phases.append(saturated)
    paced = Stats(f"{name}, paced ~{report.rate:,.0f}/s", f"{name} paced")
    load.go(paced, pairs / report.rate)
    await measure(paced, max(args.warmup, 2 * pairs / report.rate), args.seconds, processes)
    report.phases.append(paced)


async def run_idle(report: Report, server: Child, port: int) -> None:
    count = report.args.idle
    if count <= 0:
        return
    clients: list[WSClient] = []
    failures: collections.Counter[str] = collections.Counter()

    async def make(_index: int) -> None:
        replies: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def on_message(data: Any) -> None:
            if not replies.done():
                replies.set_result(msgpack.unpackb(data))

        try:
            client = await open_ws(port, on_message)
        except (OSError, TimeoutError) as error:
            failures[type(error).__name__] += 1
            return
        clients.append(client)
        client.send(msgpack.packb({"t": "hello", "id": 1, "version": "1.0", "name": "idle"}))
        try:
            reply = await asyncio.wait_for(replies, 30.0)
        except TimeoutError:
            failures["hello timeout"] += 1
            return
        if reply.get("t") != "ack":
            failures[f"hello {reply.get('code')}"] += 1

    first = _warmup_count(count)
    await bounded(first, make)
    before = await settle(server)
    started = time.perf_counter()
    await bounded(count - first, make)
    report.idle_seconds = time.perf_counter() - started
    after = await settle(server, 2.0)
    opened = len(clients) - first
    alive = sum(1 for c in clients if not c.closed.done())
    extra = f"{alive:,} open at the end"
    if failures:
        extra += "; failed: " + ", ".join(f"{k} x{v}" for k, v in failures.items())
    report.idle = Memory("idle (hello only)", opened, before, after, extra)
    await close_all(clients, timeout=10.0)


def start_py_spy(pid: int, path: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    # Blocking sampling (py-spy pauses the server for each sample, 100 times a second): the
    # non-blocking mode reads the stacks while they change and cut many of them short.
    binary = Path(PYTHON).parent / "py-spy"
    found = str(binary) if binary.exists() else shutil.which("py-spy")
    if found is None:
        print("  ! py-spy is not installed (pip install py-spy into the venv); no profile")
        return None
    args = [found, "record", "--pid", str(pid), "--duration", str(max(1, int(seconds))),
            "--rate", "100", "--format", "raw", "--output", str(path)]  # fmt: skip
    return subprocess.Popen(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 (no threads here)
    )


def summarize_py_spy(path: Path, top: int = 20) -> list[str]:
    """Where the sampled time went, from py-spy's collapsed stacks (active samples only)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return ["(no py-spy output)"]
    own: collections.Counter[str] = collections.Counter()
    by_file: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_frame(text) for text in stack.split(";")]
        total += count
        name, where = frames[-1]
        own[f"{name} ({where})"] += count
        by_file[where] += count
        for name, where in {f for f in frames if f[1].startswith(("server/", "protocol/"))}:
            inclusive[f"{name} ({where})"] += count
    if not total:
        return ["(no samples)"]

    def listing(counter: collections.Counter[str], n: int) -> list[str]:
        return [f"  {count / total:6.1%}  {name}" for name, count in counter.most_common(n)]

    return [
        f"py-spy, {total:,} samples of the server while busy",
        "self time by file:",
        *listing(by_file, 12),
        "self time by function:",
        *listing(own, top),
        "inclusive time of the project's functions (with what they call):",
        *listing(inclusive, top),
    ]


def _frame(text: str) -> tuple[str, str]:
    """``func (path/file.py:12)`` -> (``func``, ``path/file.py``)."""
    name, _, where = text.partition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def summarize_cprofile(path: Path, top: int = 30) -> list[str]:
    if not path.exists():
        return ["(no cProfile output)"]
    stream = io.StringIO()
    stats = pstats.Stats(str(path), stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return stream.getvalue().splitlines()


async def run(args: argparse.Namespace, work: Path) -> Report:
    report = Report(args)
    report.client_note = f"1 process (this one, pid {os.getpid()})"
    report.engine_us = engine_moves.speed()
    print(f"  pure game code: {report.engine_us:.1f} us/move (bench.engine_moves)", flush=True)
    redis, redis_port = start_redis(work)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    print(f"  redis-server pid {redis.pid} on port {redis_port}", flush=True)

    server, port = await start_game_server(
        "server", redis_url, work, args.server_module, args.cprofile
    )
    print(f"  game server pid {server.pid} on port {port}: {args.rooms} rooms ...", flush=True)
    await run_game(report, server, port, redis, args.py_spy)
    server.stop(30)
    if args.cprofile is not None:
        report.profile = summarize_cprofile(args.cprofile)

    echo, echo_port = await start_echo_server(work)
    print(f"  echo server pid {echo.pid} on port {echo_port}: {args.rooms} pairs ...", flush=True)
    await run_echo(report, echo, echo_port)
    echo.stop()

    floor, floor_port = await start_floor_server(work, redis_url)
    print(
        f"  floor server pid {floor.pid} on port {floor_port}: {args.rooms} pairs ...", flush=True
    )
    await run_floor(report, floor, floor_port, redis)
    floor.stop()

    if args.idle > 0:
        idle_server, idle_port = await start_game_server(
            "server-idle", redis_url, work, args.server_module
        )
        print(
            f"  fresh game server pid {idle_server.pid} on port {idle_port}: "
            f"{args.idle:,} idle connections ...",
            flush=True,
        )
        await run_idle(report, idle_server, idle_port)
        idle_server.stop()
    redis.stop()
    return report


# --------------------------------------------------------------------------------------------
# output


def _mib(n: float) -> str:
    return f"{n / (1 << 20):,.1f} MiB"


def _kib(n: float) -> str:
    return "-" if math.isnan(n) else f"{n / 1024:,.1f} KiB"


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def format_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        parts = [
            str(cell).rjust(width) if i in right else str(cell).ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [line(headers), rule, *(line(row) for row in rows)]


def _phase_row(phase: Stats) -> list[str]:
    target = ""
    if phase.key == "game saturated":
        target = f">= {TARGET_ACTIONS_PER_S:,} actions/s"
    elif phase.key == "game paced":
        target = f"p99 < {TARGET_P99_MS:g} ms at {TARGET_P99_ROOMS:,} rooms"
    errors = ", ".join(f"{k} {v}" for k, v in sorted(phase.errors.items())) or "0"
    top = max(phase.latencies) * 1000 if phase.latencies else math.nan
    cpu = phase.cpu
    return [
        phase.name,
        f"{phase.rate:,.0f}",
        _ms(phase.percentile(50)),
        _ms(phase.percentile(90)),
        _ms(phase.percentile(99)),
        _ms(top),
        f"{len(phase.latencies):,}",
        f"{cpu.get('server', 0):.0f}%",
        f"{_cpu_per_op(phase):,.0f} us" if phase.rate else "-",
        f"{cpu['redis']:.0f}%" if "redis" in cpu else "-",
        f"{cpu.get('client', 0):.0f}%",
        f"{cpu.get('others', 0):.0f}%",
        errors,
        target,
    ]


def _ratio_rows(phases: dict[str, Stats]) -> list[list[str]]:
    rows = []
    for first, second in (("game", "echo"), ("floor", "echo"), ("game", "floor")):
        pairs = [("paced", TARGET_ECHO_RATIO if first == "game" and second == "echo" else None),
                 ("saturated", None)]  # fmt: skip
        for mode, target in pairs:
            a, b = phases.get(f"{first} {mode}"), phases.get(f"{second} {mode}")
            if a is None or b is None:
                continue
            for q in (50, 99):
                x, y = a.percentile(q), b.percentile(q)
                rows.append(
                    [f"{mode} latency p{q}: {first} / {second}", f"{x / y:.1f}x" if y else "-",
                     f"{_ms(x)} / {_ms(y)} ms", f"<= {target:g}x" if target else ""]
                )  # fmt: skip
        a, b = phases.get(f"{first} saturated"), phases.get(f"{second} saturated")
        if a is not None and b is not None:
            rows.append(
                [f"saturated throughput: {first} / {second}",
                 f"{a.rate / b.rate:.3f}x" if b.rate else "-",
                 f"{a.rate:,.0f} / {b.rate:,.0f} per s", ""]
            )  # fmt: skip
    for mode in ("saturated", "paced"):
        game, floor = phases.get(f"game {mode}"), phases.get(f"floor {mode}")
        if game is not None and floor is not None and game.rate and floor.rate:
            g, f = _cpu_per_op(game), _cpu_per_op(floor)
            rows.append(
                [f"{mode} CPU/op: game - floor (the game code)", f"{g - f:,.0f} us",
                 f"{g:,.0f} - {f:,.0f} us", ""]
            )  # fmt: skip
    return rows


def _cpu_per_op(phase: Stats) -> float:
    """The server's CPU time per done operation, in microseconds."""
    return phase.cpu.get("server", 0) * 10_000 / phase.rate if phase.rate else math.nan


def _memory_rows(report: Report) -> list[list[str]]:
    rows = [
        [m.label, f"{m.connections:,}", _mib(m.before), _mib(m.after), _kib(m.per_connection),
         m.extra]
        for m in report.memory
    ]  # fmt: skip
    idle = report.idle
    if idle is not None:
        speed = idle.connections / max(report.idle_seconds, 1e-9)
        rows.append(
            [idle.label, f"{idle.connections:,}", _mib(idle.before), _mib(idle.after),
             _kib(idle.per_connection),
             f"opened in {report.idle_seconds:.1f} s ({speed:,.0f}/s); {idle.extra}"]
        )  # fmt: skip
        total = report.args.idle
        what, rss = "measured", float(idle.after)
        if total != TARGET_IDLE_CONNECTIONS:
            what, rss = "projected", idle.before + idle.per_connection * TARGET_IDLE_CONNECTIONS
        verdict = "met" if rss < TARGET_IDLE_BYTES else "NOT met"
        rows.append(
            [f"{TARGET_IDLE_CONNECTIONS:,} idle: server RSS ({what})", "", "", _mib(rss), "",
             f"target < {_mib(TARGET_IDLE_BYTES)}: {verdict}"]
        )  # fmt: skip
    return rows


def render(report: Report) -> str:
    args = report.args
    phases = {phase.key: phase for phase in report.phases}
    out = [
        "",
        f"Gin Rummy server load bench: {args.rooms} rooms ({2 * args.rooms} connections), "
        f"{args.seconds:g} s per phase after {args.warmup:g} s of warm-up",
        f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; "
        f"clients: {report.client_note}; one game server process",
        f"machine speed now: the pure game code of a move (bench.engine_moves: act, stored blob,"
        f" both update frames) takes {report.engine_us:.1f} us, best of 3 in this run",
        "",
    ]
    headers = ["phase", "done/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "samples", "server CPU",
               "CPU/op", "redis CPU", "client CPU", "other CPU", "errors", "target"]  # fmt: skip
    out += format_table(headers, [_phase_row(p) for p in report.phases], set(range(1, 12)))
    out.append(
        "  game: done/s = applied actions (acks); latency = act sent -> the update with the new"
        " seq held by BOTH seats"
    )
    out.append("  echo: done/s = echoed frames; latency = round trip of one act-sized frame")
    out.append(
        "  floor: the game server's I/O of a move with no game (bench/floor_server.py): done/s ="
        " moves; latency as the game's"
    )
    out.append(
        "  CPU/op = server CPU time per applied action (per echo): 1 s / CPU/op is what one"
        " server process could do with a whole core to itself"
    )
    if "game paced" in phases:
        source = "--rate" if args.rate else f"{args.load_factor:.0%} of the saturated rate"
        out.append(
            f"  paced: each seat waits an exponential think time (mean"
            f" {args.rooms / report.rate * 1000:,.0f} ms) before acting, so that the bench"
            f" offers ~{report.rate:,.0f} actions/s ({source})"
        )
    out.append(
        f"  matches finished (a new room each): {report.matches}; tables with no update during the"
        f" saturated window: {report.stalled}; acts unanswered after 5 s at the end:"
        f" {report.unanswered}"
    )
    busy_client = [p.name for p in report.phases if p.cpu.get("client", 0) > 85]
    if busy_client:
        out.append(
            "  ! the client process was near one full core in: "
            + "; ".join(busy_client)
            + " (those figures may be limited by the load generator)"
        )
    crowded = [p.name for p in report.phases if p.cpu.get("others", 0) > 25]
    if crowded:
        out.append("  ! other work on the machine competed for the CPUs in: " + "; ".join(crowded))
    out.append("")
    ratio_rows = _ratio_rows(phases)
    if ratio_rows:
        out += format_table(["ratio", "value", "figures", "target"], ratio_rows, {1})
        out.append("")
    memory_rows = _memory_rows(report)
    if memory_rows:
        headers = ["server memory", "connections", "RSS before", "RSS after", "per conn", "notes"]
        out += format_table(headers, memory_rows, {1, 2, 3, 4})
        out.append(
            "  RSS before = after opening the first few connections (one-off costs excluded);"
            " per conn = (after - before) / connections"
        )
    for note in report.notes:
        out.append(f"  note: {note}")
    if report.profile:
        out.append("")
        when = "whole run, under cProfile" if args.cprofile else "saturated phase"
        out.append(f"where the game server spends its time ({when}):")
        out += ["  " + line for line in report.profile]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# main


def raise_fd_limit(needed: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, needed)) if hard != resource.RLIM_INFINITY else max(soft, needed)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--rooms", type=int, default=100, help="concurrent rooms (default 100)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="measured seconds per phase (default 10)"
    )
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="warm-up seconds before each phase (default 2)"
    )
    parser.add_argument(
        "--idle",
        type=int,
        default=TARGET_IDLE_CONNECTIONS,
        help="idle connections (default 10000; 0 to skip)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        help="actions/s offered in the paced phases (default: a share of the saturated rate)",
    )
    parser.add_argument(
        "--load-factor",
        type=float,
        default=0.5,
        help="paced rate as a share of the saturated rate (default 0.5)",
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        default=None,
        metavar="FILE",
        help="sample the server with py-spy during the saturated phase",
    )
    parser.add_argument(
        "--cprofile",
        type=Path,
        default=None,
        metavar="FILE",
        help="run the game server under cProfile",
    )
    parser.add_argument(
        "--server-module",
        default="server",
        metavar="MODULE",
        help="run the game server as python -m MODULE (default: server; e.g. a wrapper that"
        " instruments or patches it, found through PYTHONPATH)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="random seed of the clients' choices"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.rooms <= MAX_ROOMS:
        parser.error(f"--rooms is 1..{MAX_ROOMS}")
    if not 0 <= args.idle <= MAX_IDLE:
        parser.error(f"--idle is 0..{MAX_IDLE}")
    if not 0.5 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds is 0.5..{MAX_SECONDS:g}")
    if not 0 <= args.warmup <= 60:
        parser.error("--warmup is 0..60")
    if args.rate is not None and args.rate <= 0:
        parser.error("--rate must be positive")
    if not 0 < args.load_factor <= 1:
        parser.error("--load-factor is in (0, 1]")
    if args.py_spy and args.cprofile:
        parser.error("--py-spy and --cprofile exclude each other")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seed is not None:
        random.seed(args.seed)
    # The servers inherit the raised limit; each side holds one descriptor per connection.
    needed = max(2 * args.rooms, args.idle) + 256
    limit = raise_fd_limit(needed)
    notes = []
    if 2 * args.rooms + 256 > limit:
        print(f"--rooms {args.rooms} needs {2 * args.rooms + 256} open files, the limit is "
              f"{limit}", file=sys.stderr)  # fmt: skip
        return 2
    if args.idle + 256 > limit:
        notes.append(f"open files limited to {limit}: --idle lowered from {args.idle}")
        args.idle = limit - 256
    budget = 120 + 4 * (args.warmup + args.seconds) * 3 + args.rooms * 0.05 + args.idle * 0.01
    if args.rate is None:
        budget += 4 * args.rooms / 10  # paced warm-ups scale with the think time
    work = Path(tempfile.mkdtemp(prefix="gin-bench-"))

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
    print(
        f"bench.load: work folder {work}, open files limit {limit}, time limit {budget:.0f} s",
        flush=True,
    )
    code = 0
    try:
        report = asyncio.run(asyncio.wait_for(run(args, work), budget))
        report.notes[:0] = notes
        print(render(report))
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the processes", file=sys.stderr)
        code = 130
    except TimeoutError:
        print(f"\nthe bench ran over its time limit ({budget:.0f} s): stopped", file=sys.stderr)
        code = 1
    finally:
        for child in list(_CHILDREN):
            if child.alive() is False and child.proc.returncode not in (
                0,
                -signal.SIGTERM,
                -signal.SIGINT,
            ):
                print(
                    f"  ! {child.name} exited with {child.proc.returncode}:\n{child.log_tail()}",
                    file=sys.stderr,
                )
        stop_children()
        shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

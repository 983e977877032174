"""Load benchmark of one game server process, beside a bare websocket echo server and the floor
of a move (the game server's own I/O of a move, no game).

Run: ``PYTHONPATH=. .venv/bin/python -m bench.load [--rooms N] [--seconds S] [--idle N]
[--redis-cluster]``

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
8. with ``--redis-cluster`` only: a Redis Cluster of the bench's own (six ``redis-server
   --cluster-enabled yes`` on free ports, three masters with a replica each, made by
   ``tests.support.redis_cluster``, the cluster tests' own code), then the game (saturated,
   then paced at the rate of phase 2) on a game server with ``GIN_REDIS_CLUSTER=1`` and the
   floor on the cluster (``bench.floor_server --cluster``: the cluster connection, ``SPUBLISH``
   and ``SSUBSCRIBE``); then both again with each commit waiting for one replica
   (``GIN_REDIS_WAIT_REPLICAS=1``, ``--wait-replicas 1``). The Redis CPU of these phases is
   the three masters' together, the replicas' apart; a table puts them beside phases 1-2 and
   5-6 with the issue's targets (``targets.py``) and the cost of ``WAIT``.

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

The modules: ``__main__`` (the command and its flags), ``phases`` (the run, phase by phase),
``game_clients`` and ``pair_clients`` (the load: game tables; echo and floor pairs),
``websocket`` (the client above), ``stats`` (what a phase measures), ``servers`` and
``processes`` (what the run starts, and its stop), ``report`` (the printed tables), ``targets``,
``profiles`` (py-spy and cProfile summaries).
"""

from bench.load.pair_clients import EchoPair, FloorPair, PairLoad
from bench.load.servers import start_echo_server, start_floor_server, start_game_server
from bench.load.stats import Stats

__all__ = [
    "EchoPair",
    "FloorPair",
    "PairLoad",
    "Stats",
    "start_echo_server",
    "start_floor_server",
    "start_game_server",
]

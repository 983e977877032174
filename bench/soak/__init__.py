"""A soak: hours of mixed play at human pace on two servers, watched for what grows.

``python -m bench.soak --minutes N`` starts a redis-server of its own (free port, temporary
folder), two ``python -m server`` processes on it and one AI worker (``python -m client.ai``),
and runs the mixed load of issue 27: AI rooms (one person each), rooms between two people
(some of them with the two people on different servers), watchers following those rooms, and
a person whose connection drops every so often and comes back (the session reconnects and
resumes). Every player thinks before each move (an exponential pause, ``--think`` seconds on
average); a match over, its players start a new one.

Every ``--sample-every`` seconds it prints a row: each process's RSS, the servers' open file
descriptors, Redis ``used_memory`` and key count, and the p50/p99 latency of the acts sent in
that interval. At the end: the totals (matches, moves, errors by code, stalls, sequence gaps,
reconnects and how many resumed exactly), the servers' RSS growth over the last 30 minutes
(the last half of a shorter run), and the abandoned-AI-room case: ``--abandoned`` AI rooms
whose person leaves, then as many new ones, each timed to its AI's first move (the limit is
5 s).

``--tracemalloc`` (default: on the second server) runs the servers with ``GIN_TRACEMALLOC``
(``server/heap_trace.py``): a baseline snapshot where the last 30 minutes begin, the top
growth since then at the end, printed after the totals.

Nothing is asserted but the exit code: 1 when a move errs, a room stalls, a sequence has a
gap, a reconnect does not resume exactly or a new AI room waits over 5 s for its AI.
"""

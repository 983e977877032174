"""The command: ``python -m bench.load [--rooms N] [--seconds S] [--idle N] ...``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import resource
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from bench import load
from bench.load.phases import run
from bench.load.processes import Children
from bench.load.report import render
from bench.load.targets import TARGET_IDLE_CONNECTIONS

DESCRIPTION = (load.__doc__ or "").split("\n", 1)[0]
MAX_ROOMS = 5000
MAX_IDLE = 50_000
MAX_SECONDS = 600.0


def raise_fd_limit(needed: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, needed)) if hard != resource.RLIM_INFINITY else max(soft, needed)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=DESCRIPTION)
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
        "--redis-cluster",
        action="store_true",
        help="also run the game and the floor on a Redis Cluster of six redis-servers of the"
        " bench's own (3 masters, 3 replicas; needs redis-cli), at the single node's paced"
        " rate: once with GIN_REDIS_CLUSTER=1, once more with GIN_REDIS_WAIT_REPLICAS=1; prints"
        " server and Redis CPU per move (masters and replicas apart), paced p50/p99 and"
        " saturated moves/s beside the single node's, the cost of WAIT, and the targets",
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="also run the game and the floor on a Redis reached over TLS only (rediss://,"
        " certificates made for the run; needs openssl), at the single node's paced rate;"
        " prints server and Redis CPU per move, moves/s and paced p50/p99 beside plain TCP",
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
    if args.tls:  # one more pass of the game and the floor, saturated and paced
        budget += 60 + 4 * (args.warmup + args.seconds) * 2 + args.rooms * 0.05
        if args.rate is None:
            budget += 2 * args.rooms / 10
    if args.redis_cluster:  # two passes of the game and the floor, each saturated and paced
        budget += 120 + 2 * 4 * (args.warmup + args.seconds) * 3 + args.rooms * 0.1
        if args.rate is None:
            budget += 2 * 2 * args.rooms / 10
    work = Path(tempfile.mkdtemp(prefix="gin-bench-"))
    children = Children()

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
        report = asyncio.run(asyncio.wait_for(run(args, work, children), budget))
        report.notes[:0] = notes
        print(render(report))
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the processes", file=sys.stderr)
        code = 130
    except TimeoutError:
        print(f"\nthe bench ran over its time limit ({budget:.0f} s): stopped", file=sys.stderr)
        code = 1
    finally:
        for child in children:
            if child.alive() is False and child.proc.returncode not in (
                0,
                -signal.SIGTERM,
                -signal.SIGINT,
            ):
                print(
                    f"  ! {child.name} exited with {child.proc.returncode}:\n{child.log_tail()}",
                    file=sys.stderr,
                )
        children.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

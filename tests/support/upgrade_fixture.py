"""Make the upgrade fixture: a backup written by a previous release, with a match in play.

    git archive 72d70d3 | tar -x -C /tmp/release
    PYTHONPATH=. .venv/bin/python -m tests.support.upgrade_fixture /tmp/release \\
        tests/data/upgrade-72d70d3 --release 72d70d3

runs that release's server and AI worker (``python -m server``, ``python -m client.ai`` from
its folder) on a redis-server of our own, plays a match against the AI until its first hand
is over, backs the Redis up with today's ``python -m server.admin backup`` and writes beside
the backup what the test needs to resume (``fixture.json``: the player's token, the room,
the scores at the pause). Retention settings of ten years keep the keys' expiry times (an
RDB stores them as dates) far in the future, so the fixture restores years later.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.error
from pathlib import Path

from client.session import Session
from tests.support.backups import admin, play_first_hand
from tests.support.fixtures import FAST_CLIENT_ENV
from tests.support.ports import free_port
from tests.support.redis_server import RedisServer
from tests.support.server_process import TEST_LIMITS, WORKER_KEY, http_get

TEN_YEARS = str(10 * 365 * 24 * 3600)
RETENTION = {
    "GIN_ROOM_IDLE": TEN_YEARS,
    "GIN_HAND_RETENTION": TEN_YEARS,
    "GIN_PLAYER_RETENTION": TEN_YEARS,
    "GIN_NEW_PLAYER_RETENTION": TEN_YEARS,
}
TARGET = 100


def _spawn(code: Path, module: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIN_", "REDIS_"))}
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", module],
            cwd=code,
            env={**base, "PYTHONPATH": str(code), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _ready(port: int) -> bool:
    try:
        return http_get(f"http://127.0.0.1:{port}/readyz")[0] == 200
    except (urllib.error.URLError, OSError):
        return False


async def make(code: Path, out: Path, release: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    logs = Path(tempfile.mkdtemp(prefix="gin-upgrade-fixture-"))
    with RedisServer(appendfsync="always") as redis:
        port = free_port()
        env = {
            **FAST_CLIENT_ENV, **TEST_LIMITS, **RETENTION,
            "REDIS_URL": redis.url, "GIN_HOST": "127.0.0.1", "GIN_PORT": str(port),
            "GIN_AI_WORKER_KEY": WORKER_KEY, "GIN_LOG_LEVEL": "WARNING",
        }  # fmt: skip
        server = _spawn(code, "server", env, logs / "server.log")
        worker: subprocess.Popen[bytes] | None = None
        try:
            deadline = time.monotonic() + 30
            while not _ready(port):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the release's server did not start (logs: {logs})")
                time.sleep(0.2)
            worker_env = {
                "GIN_SERVER_URL": f"ws://127.0.0.1:{port}/ws", "GIN_AI_WORKER_KEY": WORKER_KEY,
                "GIN_AI_THINK_SECONDS": "0", "GIN_AI_PROCESSES": "0",
            }  # fmt: skip
            worker = _spawn(code, "client.ai", worker_env, logs / "worker.log")
            ann = await Session.connect(f"ws://127.0.0.1:{port}/ws", name="Ann")
            created = await ann.request(
                "create_room", mode="ai", level="easy", rules={"target": TARGET}, public=True
            )
            room = created.result["room"]
            paused = await play_first_hand(ann, room, random.Random(23))
            await ann.close()
            await asyncio.sleep(1.0)  # the AI's bookkeeping of the hand settles
            made = admin("backup", str(out / "backup"), env={"REDIS_URL": redis.url})
            if made.returncode != 0:
                raise RuntimeError(made.stderr)
        finally:
            for proc in (worker, server):
                if proc is not None:
                    proc.kill()
                    proc.wait(10)
    fixture = {
        "release": release,
        "made": time.strftime("%Y-%m-%d", time.gmtime()),
        "token": ann.token,
        "room": room,
        "target": TARGET,
        "scores": paused["game"]["scores"],
    }
    (out / "fixture.json").write_text(json.dumps(fixture, indent=2) + "\n")
    print(f"wrote {out}: room {room}, scores {fixture['scores']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("code", type=Path, help="a checkout of the previous release")
    parser.add_argument("out", type=Path, help="the fixture's folder (tests/data/upgrade-REV)")
    parser.add_argument("--release", required=True, help="the release's commit (72d70d3)")
    args = parser.parse_args()
    asyncio.run(make(args.code.resolve(), args.out.resolve(), args.release))


if __name__ == "__main__":
    main()

"""What the backup, restore and upgrade tests share: the operator commands run as an operator
would (``python -m server.admin`` in a process of its own, the server's environment), a
match played until its first hand is over (and paused there), and the same match resumed
to its end on another server."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import redis

from client.session import Session, View
from tests.deploy.matches import Played, play_to_end

__all__ = ["Paused", "admin", "play_first_hand", "snapshot_contents", "snapshot_keys"]

ROOT = Path(__file__).resolve().parents[2]


def admin(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m server.admin ARGS`` with ``env`` (``REDIS_URL``...) and nothing else of
    the test's ``GIN_*`` / ``REDIS_*`` environment."""
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GIN_", "REDIS_")) and key != "PYTHONPATH"
    }
    return subprocess.run(
        [sys.executable, "-m", "server.admin", *args],
        cwd=ROOT,
        env={**base, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


class Paused(Exception):
    """Raised from ``play_to_end``'s hook: the seat stops playing here."""


async def play_first_hand(session: Session, room: str, rng: random.Random) -> View:
    """Play the seat until a hand is over with points scored and the match goes on; the
    view there (the seat's next move not made)."""

    async def stop_after_a_hand(view: View, moves: int) -> None:
        if sum(view["game"]["scores"]) > 0:
            raise Paused(view)

    try:
        played: Played = await play_to_end(
            session, room, rng, timeout=180, before_move=stop_after_a_hand
        )
    except Paused as paused:
        view: View = paused.args[0]
        return view
    raise AssertionError(f"the match ended in its first hand: {played.final['game']['scores']}")


def snapshot_keys(port: int) -> dict[bytes, tuple[bytes, int]]:
    """Every key of our Redis on ``port`` (plain TCP, database 0): its DUMP and whether it has
    a time to live (-1 none, else 1), read with redis-py."""
    client = redis.Redis(host="127.0.0.1", port=port, protocol=2)
    try:
        found: dict[bytes, tuple[bytes, int]] = {}
        for name in client.scan_iter(count=500):
            dump = client.dump(name)
            ttl = client.pttl(name)
            assert isinstance(dump, bytes)
            found[name] = (dump, -1 if ttl == -1 else 1)
        return found
    finally:
        client.close()


def snapshot_contents(port: int) -> dict[bytes, Any]:
    """Every key of our Redis on ``port`` (plain TCP, database 0) by what it holds, read by its
    type: the same after a restore even where ``DUMP`` differs (a large hash reloaded is laid
    out anew, its fields in another order)."""
    client = redis.Redis(host="127.0.0.1", port=port, protocol=2)
    readers: dict[bytes, Any] = {
        b"string": client.get,
        b"hash": client.hgetall,
        b"set": client.smembers,
        b"zset": lambda name: client.zrange(name, 0, -1, withscores=True),
        b"list": lambda name: client.lrange(name, 0, -1),
        b"stream": client.xrange,
    }
    try:
        found: dict[bytes, Any] = {}
        for name in client.scan_iter(count=500):
            kind = client.type(name)
            assert isinstance(kind, bytes)
            found[name] = (kind, readers[kind](name))  # a type not listed here: KeyError
        return found
    finally:
        client.close()

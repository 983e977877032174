"""Backups and restores of one Redis with ``python -m server.admin`` (``server.store.backup``):
a snapshot over the network (``SYNC``), restored key by key (``RESTORE``) into a fresh
redis-server on an empty folder; every key back with its time to live; a match in play
resumes on a new server and finishes; bad folders and non-empty targets refused clearly."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
import redis

from client.session import Session
from server.store import Store
from tests.deploy.matches import check_match, play_to_end, stats_agree
from tests.support.backups import admin, play_first_hand, snapshot_contents, snapshot_keys
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.kept_accounts import account_keys, check_kept, rated_holders
from tests.support.redis_server import RedisServer


def _fill(port: int) -> None:
    """Keys of every type the server writes, some with a time to live."""
    client = redis.Redis(host="127.0.0.1", port=port, protocol=2)
    try:
        client.set("{room:r1}:room", b"\x00\x01blob" * 50, ex=3600)
        client.set("{room:r1}:version", 7)
        client.hset("player:p1", mapping={"name": "Ann", "token_hash": "ab" * 16})
        client.zadd("rooms:active", {"r1": 1.0, "r2": 2.0})
        client.xadd("{room:r1}:events", {"seq": "1", "change": b"\xff" * 40}, id="1-1")
        client.xadd("ai:requests", {"room": "r1", "seat": "1"})
        client.xgroup_create("ai:requests", "ai-workers", id="0")
        client.set("invite:CODE1234", "r1", px=900_000)
        for i in range(1200):  # more than one SCAN batch
            client.hset(f"hand:h{i}", mapping={"room": "r1", "blob": b"x" * 30})
    finally:
        client.close()


def _env(url: str) -> dict[str, str]:
    return {"REDIS_URL": url}


def test_a_backup_restores_every_key_into_a_fresh_redis(tmp_path: Path) -> None:
    with RedisServer() as source, RedisServer() as fresh:
        assert source.port is not None and fresh.port is not None
        _fill(source.port)
        before = snapshot_keys(source.port)
        made = admin("backup", str(tmp_path / "b1"), env=_env(source.url))
        assert made.returncode == 0, made.stderr
        assert "single, 1 snapshot(s)" in made.stdout
        manifest = json.loads((tmp_path / "b1" / "manifest.json").read_text())
        assert manifest["kind"] == "single" and manifest["format"] == 1
        assert [node["file"] for node in manifest["nodes"]] == ["node-0.rdb"]
        assert manifest["redis_version"].startswith("7.")
        # written after the snapshot: not in it (a point in time)
        redis.Redis(port=source.port).set("player:late", "x")

        done = admin("restore", str(tmp_path / "b1"), env=_env(fresh.url))
        assert done.returncode == 0, done.stderr
        assert f"restored {len(before):,} keys" in done.stdout
        assert snapshot_keys(fresh.port) == before
        client = redis.Redis(port=fresh.port)
        assert 0 < client.pttl("invite:CODE1234") <= 900_000
        assert 3_500_000 < client.pttl("{room:r1}:room") <= 3_600_000
        assert client.pttl("player:p1") == -1
        assert client.xinfo_groups("ai:requests")[0]["name"] == b"ai-workers"

        again = admin("restore", str(tmp_path / "b1"), env=_env(fresh.url))
        assert again.returncode == 2
        assert "the target Redis is not empty" in again.stderr and "Traceback" not in again.stderr
        client.set("player:p1", "changed")
        replaced = admin("restore", str(tmp_path / "b1"), "--replace", env=_env(fresh.url))
        assert replaced.returncode == 0, replaced.stderr
        assert snapshot_keys(fresh.port) == before
        client.close()


def test_bad_folders_are_refused_with_the_reason(tmp_path: Path) -> None:
    with RedisServer() as source:
        (tmp_path / "full").mkdir()
        (tmp_path / "full" / "x").write_text("x")
        busy = admin("backup", str(tmp_path / "full"), env=_env(source.url))
        assert busy.returncode == 2 and "is not empty" in busy.stderr
        nothing = admin("restore", str(tmp_path / "full"), env=_env(source.url))
        assert nothing.returncode == 2 and "is not a backup" in nothing.stderr
        made = admin("backup", str(tmp_path / "b"), env=_env(source.url))
        assert made.returncode == 0, made.stderr
        with (tmp_path / "b" / "node-0.rdb").open("r+b") as rdb:
            rdb.seek(20)
            rdb.write(b"\x00\x00\x00")
        damaged = admin("restore", str(tmp_path / "b"), env=_env(source.url))
        assert damaged.returncode == 2 and "missing or damaged" in damaged.stderr
        wrong = admin("backup", str(tmp_path / "c"), env=_env("redis://:s3cret@127.0.0.1:1/0"))
        assert wrong.returncode == 2 and "s3cret" not in wrong.stderr + wrong.stdout


async def test_play_back_up_destroy_restore_and_the_match_resumes(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    """A match against the AI, paused after its first hand, and two account holders who
    played a rated match; backed up; the server, the worker and the Redis (its folder)
    destroyed; a fresh Redis restored; a new server and worker: the accounts', sessions',
    ratings' and leaderboard's keys are back as they were, the holders sign in with their
    passwords as the same players, their ratings and the leaderboard unchanged; the player
    comes back with their token and name, the match resumes and finishes, and every hand
    (the one before the backup included) checks against the truth."""
    target = 100
    source = RedisServer(appendfsync="always").start()
    try:
        first = server_factory(env=FAST_CLIENT_ENV, redis=source.url)
        worker = WorkerProcess(first.ws_url, tmp_path, "w1").start()
        ann = await Session.connect(first.ws_url, name="Ann")
        created = await ann.request(
            "create_room", mode="ai", level="easy", rules={"target": target}, public=True
        )
        room = created.result["room"]
        paused = await play_first_hand(ann, room, random.Random(11))
        token = ann.token
        await ann.close()
        store = await Store.connect(source.url)
        try:
            kept = await rated_holders(first.ws_url, store, prefix="kept", seed="backup")
        finally:
            await store.close()
        made = admin("backup", str(tmp_path / "backup"), env=_env(source.url))
        assert made.returncode == 0, made.stderr
        assert source.port is not None
        accounts_then = account_keys(snapshot_contents(source.port), kept)
        worker.kill()
        first.kill()
    finally:
        source.close()  # the Redis and its folder: gone

    with RedisServer(appendfsync="always") as fresh:
        done = admin("restore", str(tmp_path / "backup"), env=_env(fresh.url))
        assert done.returncode == 0, done.stderr
        assert fresh.port is not None
        assert account_keys(snapshot_contents(fresh.port), kept) == accounts_then
        second = server_factory(env=FAST_CLIENT_ENV, redis=fresh.url)
        await check_kept(second.ws_url, kept)
        worker = WorkerProcess(second.ws_url, tmp_path, "w2").start()
        try:
            back = await Session.connect(second.ws_url, token=token)
            assert back.token == token
            assert (await back.request("stats")).result["hands"] >= 1
            await back.resume(room, -1)
            view = await back.wait_for(room, lambda v: v.get("game") is not None, timeout=20)
            assert view["game"]["scores"] == paused["game"]["scores"]
            played = await play_to_end(back, room, random.Random(12), timeout=240)
            store = await Store.connect(fresh.url)
            try:
                checked = await check_match(store, room, [played], target, second.http_url)
            finally:
                await store.close()
            assert checked["hands"] >= 2
            await stats_agree(back, [checked], 0)
            await back.close()
        finally:
            worker.kill()
    await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def _no_stray_admin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REDIS_URL", "GIN_REDIS_CLUSTER"):
        monkeypatch.delenv(name, raising=False)

"""Upgrades: data written by a previous release is served by today's server. The fixture
``tests/data/upgrade-72d70d3`` is a backup made by release 72d70d3's own server and AI worker
with a match against the AI paused after its first hand (how it was made:
``tests/support/upgrade_fixture.py``). Restored into a fresh Redis, today's server and worker
take it up: the player is recognised by their token, the match resumes where it stopped and
finishes, and every hand, the old one included, checks against the truth."""

from __future__ import annotations

import json
import random
from pathlib import Path

import redis

from client.session import Session
from server.store import Store
from tests.deploy.matches import check_match, play_to_end, stats_agree
from tests.support.backups import admin
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.redis_server import RedisServer

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "upgrade-72d70d3"


async def test_a_match_stored_by_the_previous_release_resumes_and_finishes(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    fixture = json.loads((FIXTURE / "fixture.json").read_text())
    room, target = fixture["room"], fixture["target"]
    with RedisServer(appendfsync="always") as fresh:
        done = admin("restore", str(FIXTURE / "backup"), env={"REDIS_URL": fresh.url})
        assert done.returncode == 0, done.stderr
        assert "(0 expired since the backup" in done.stdout  # the fixture's keys outlive us
        assert fresh.port is not None
        client = redis.Redis(port=fresh.port)
        assert client.exists(f"{{room:{room}}}:room")
        client.close()
        server = server_factory(env=FAST_CLIENT_ENV, redis=fresh.url)
        worker = WorkerProcess(server.ws_url, tmp_path, "w1").start()
        try:
            ann = await Session.connect(server.ws_url, token=fixture["token"])
            assert ann.token == fixture["token"]
            await ann.resume(room, -1)
            view = await ann.wait_for(room, lambda v: v.get("game") is not None, timeout=20)
            assert view["game"]["scores"] == fixture["scores"]
            played = await play_to_end(ann, room, random.Random(29), timeout=240)
            store = await Store.connect(fresh.url)
            try:
                checked = await check_match(store, room, [played], target, server.http_url)
            finally:
                await store.close()
            assert checked["hands"] >= 2
            await stats_agree(ann, [checked], 0)
            await ann.close()
        finally:
            worker.kill()

"""Self-hosting on a real Docker engine (``make test-docker``): the project's own Dockerfile
and docker-compose.yml, built and run by ``docker compose`` as a user runs them, reached
through ports published on 127.0.0.1 only.

The tests run in order on one deployment (project ``gin-rummy-docker-test-<checkout>``, taken
down with its volumes before and after; in one process, see ``conftest.py``):

1. the image builds; its size is printed (target <= 250 MB); it runs as a non-root user;
2. ``up -d --wait --profile proxy``: everything healthy, every port on 127.0.0.1, /readyz on
   both replicas and through nginx, no process of the servers, workers or Redis as root;
3. a match against the AI played to its end through the bundled nginx, over a websocket;
4. a match between two people, one on each replica: ``restart server`` in the middle (both
   resume, nothing lost), then ``kill redis`` and ``start redis`` (every acknowledged move is
   still there: the append-only file); every hand of both matches replayed and scored again;
5. two account holders (handles claimed with a password, settled on the leaderboard) play a
   rated match; ``down`` then ``up``: the players, their statistics and the finished hands are
   still there (the volume), and the holders sign in with their passwords as the same players,
   their ratings and the leaderboard unchanged (``tests.support.kept_accounts``);
6. a backup made in a server container, the volumes destroyed, restored into the fresh Redis:
   the players and their hands are back, the accounts and ratings too;
7. TLS in front (``-f deploy/compose.tls.yml``, a certificate the test makes): HTTPS and a
   websocket over wss:// through nginx, plain HTTP redirected, /metrics not served outside;
8. ``--profile cluster``: ``up -d --wait`` exits 0 once the init job has formed the cluster,
   the servers run on it, and a match against the AI finishes.

Docker, Compose and the base images are made ready by ``scripts/docker/ensure-docker.sh`` and
``scripts/docker/standins.sh`` (the Makefile's ``test-docker`` runs them first).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import secrets
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from client.session import Session, View
from server.store import Store
from tests.deploy.matches import Played, check_match, play_to_end, stats_agree
from tests.docker import engine
from tests.docker.compose_cli import (
    IMAGE,
    PROFILES,
    ROOT,
    TLS_FILE,
    Compose,
    docker,
    free_port_pair,
    process_users,
)
from tests.docker.conftest import Phases
from tests.support.kept_accounts import check_kept, rated_holders
from tests.support.polling import eventually
from tests.support.ports import free_port
from tests.support.server_process import http_get
from tests.support.tls import make_certificates

TARGET = 50
#: The runtime image's size target (the stand-in base images here are Debian's, a little
#: larger than the official slim ones).
IMAGE_TARGET_BYTES = 250_000_000
#: People pause before each move: the deployment's default rate limit is for people
#: (``GIN_RATE_PER_SECOND``, 20 requests a second per connection, a burst of 40). A pause of
#: at least 1/20 s keeps each seat under it however fast its opponent answers, so the bucket
#: is never emptied and the requests after the match (``stats``) are not refused; at 0.015 s
#: a seat could make more than 20 a second, and a CI run's ``stats`` was refused rate_limited.
THINK = 1 / 20 + 0.005
#: The backup a previous release made (tests/server/store/test_upgrade.py plays it locally).
UPGRADE_FIXTURE = ROOT / "tests" / "data" / "upgrade-72d70d3"
#: Bob's moves before which the servers are restarted, then Redis killed: early, and in a
#: longer match (one big hand can end a match to 50 within a few moves).
RESTART_AT, KILL_AT = 2, 4
PEOPLE_TARGET = 100


@dataclass
class Deployment:
    compose: Compose
    #: The host ports of the two server replicas, by replica index (1, 2).
    servers: dict[int, int] = field(default_factory=dict)
    proxy: int = 0
    redis: int = 0
    #: What the earlier phases left for the later ones to find.
    memory: dict[str, Any] = field(default_factory=dict)

    def ws(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.servers[index]}/ws"

    def http(self, index: int) -> str:
        return f"http://127.0.0.1:{self.servers[index]}"

    def find_ports(self, *, proxy: bool = True) -> None:
        self.servers = {index: self.compose.port("server", 8000, index) for index in (1, 2)}
        self.redis = self.compose.port("redis", 6379)
        if proxy:
            self.proxy = self.compose.port("proxy", 80)


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    base = free_port_pair()
    env = {
        "GIN_AI_WORKER_KEY": secrets.token_urlsafe(24),
        "GIN_IMAGE": IMAGE,
        "GIN_PUBLISH_PORTS": f"127.0.0.1:{base}-{base + 1}",
        "GIN_PROXY_PORT": f"127.0.0.1:{free_port()}",
        "GIN_TEST_REDIS_PORT": str(free_port()),
        # the legacy builder: BuildKit would want a buildx plugin (see docs/operations.md)
        "DOCKER_BUILDKIT": "0",
        "COMPOSE_PROGRESS": "plain",
    }
    compose = Compose(env, profiles=("proxy",))
    engine.ensure()
    compose.run("down", "-v", "--remove-orphans", profiles=PROFILES)  # a run cut short
    try:
        yield Deployment(compose)
    finally:
        compose.run("down", "-v", "--remove-orphans", "--timeout", "5", profiles=PROFILES)


async def _ready(url: str) -> int:
    """/readyz's status, 0 while nothing answers (Docker's port proxy resets the connection
    while the container behind it starts)."""
    try:
        status, _ = await asyncio.to_thread(http_get, f"{url}/readyz")
    except OSError:
        return 0
    return status


async def _all_ready(deployment: Deployment, timeout: float = 60) -> None:
    for index in deployment.servers:
        url = deployment.http(index)
        status = await eventually(
            functools.partial(_ready, url), lambda s: s == 200, timeout=timeout
        )
        assert status == 200, f"server replica {index}: /readyz {status}"


async def _play(
    session: Session, room: str, seed: str, deployment: Deployment, **hook: Any
) -> Played:
    try:
        return await play_to_end(
            session, room, random.Random(seed), timeout=150, think=THINK, **hook
        )
    except TimeoutError as stuck:
        raise AssertionError(f"{room} stuck: {stuck}\n{deployment.compose.logs()}") from None


def test_the_image_builds_and_is_small(deployment: Deployment, phases: Phases) -> None:
    with phases("build the Dockerfile (docker compose build)"):
        deployment.compose.run("build", timeout=900)
    size = int(docker("image", "inspect", IMAGE, "--format", "{{.Size}}"))
    user = docker("image", "inspect", IMAGE, "--format", "{{.Config.User}}").strip()
    print(f"\nruntime image {IMAGE}: {size / 1e6:.0f} MB (target <= 250 MB), user {user!r}")
    assert user and user not in ("root", "0"), f"the image runs as {user!r}"
    assert size <= IMAGE_TARGET_BYTES, f"runtime image {size / 1e6:.0f} MB"


async def test_up_wait_is_healthy_on_loopback_ports_only(
    deployment: Deployment, phases: Phases
) -> None:
    compose = deployment.compose
    with phases("up -d --wait --profile proxy"):
        compose.run("up", "-d", "--wait", timeout=300)
    deployment.find_ports()
    rows = compose.containers()
    running = {row["Service"] for row in rows if row["State"] == "running"}
    assert running >= {"redis", "server", "ai-worker", "proxy"}, rows
    for row in rows:
        if row["Service"] in ("redis", "server"):
            assert row["Health"] == "healthy", row
        for publisher in row.get("Publishers") or []:
            if publisher.get("PublishedPort"):
                assert publisher["URL"] == "127.0.0.1", (row["Name"], publisher)
    for index in deployment.servers:
        assert await _ready(deployment.http(index)) == 200
    assert await _ready(f"http://127.0.0.1:{deployment.proxy}") == 200
    # the metrics: on the servers (the compose network; here their published ports), not
    # through the proxy that faces the public
    metrics, body = await asyncio.to_thread(http_get, f"{deployment.http(1)}/metrics")
    assert metrics == 200 and b"gin_connections" in body, metrics
    outside, _ = await asyncio.to_thread(http_get, f"http://127.0.0.1:{deployment.proxy}/metrics")
    assert outside == 404, outside
    # no process of ours (nor Redis) runs as root; nginx's master does, its workers do not
    for row in rows:
        if row["State"] != "running":
            continue
        users = process_users(row["ID"])
        assert users, row["Name"]
        if row["Service"] == "proxy":
            workers = [uid for uid, args in users if "worker process" in args]
            assert workers and 0 not in workers, users
        else:
            assert all(uid != 0 for uid, _ in users), (row["Name"], users)
    seen = sorted(
        {
            (row["Service"], uid)
            for row in rows
            if row["State"] == "running"
            for uid, _ in process_users(row["ID"])
        }
    )
    print(f"\nprocess users (service, uid): {seen}")


async def test_an_ai_match_through_the_bundled_nginx(
    deployment: Deployment, phases: Phases
) -> None:
    origin = f"http://127.0.0.1:{deployment.proxy}"
    ada = await Session.connect(f"ws://127.0.0.1:{deployment.proxy}/ws", name="Ada", origin=origin)
    try:
        with phases("a match against the AI through nginx"):
            created = await ada.request(
                "create_room", mode="ai", level="easy", rules={"target": TARGET}
            )
            room = created.result["room"]
            played = await _play(ada, room, "ada-ai", deployment)
        assert played.final["seats"][1]["ai"] == "easy", played.final["seats"]
        store = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
        try:
            match = await check_match(store, room, [played], TARGET, origin)
        finally:
            await store.close()
        await stats_agree(ada, [match], 0)
        print(f"\nAda vs the AI through nginx: {match}")
        deployment.memory["ada"] = (ada.token, room, match)
    finally:
        await ada.close()


async def test_people_on_both_replicas_through_a_restart_and_a_redis_kill(
    deployment: Deployment, phases: Phases
) -> None:
    compose = deployment.compose
    bob = await Session.connect(deployment.ws(1), name="Bob")
    cy = await Session.connect(deployment.ws(2), name="Cy")
    events: dict[str, Any] = {}
    try:
        invite = await bob.request("create_room", mode="private", rules={"target": PEOPLE_TARGET})
        room = invite.result["room"]
        await cy.request("join_room", invite=invite.result["invite"])

        async def disrupt(view: View, moves: int) -> None:
            """Before Bob's moves: the servers restarted, then Redis killed (Cy waits)."""
            if moves == RESTART_AT and "restart" not in events:
                assert view["status"] == "playing"
                events["restart"] = bob.room(room).seq
                with phases("docker compose restart server (mid-match)"):
                    await asyncio.to_thread(compose.run, "restart", "server")
                    await _all_ready(deployment)
            elif moves == KILL_AT and "kill" not in events:
                assert view["status"] == "playing"
                acknowledged = max(bob.room(room).seq, cy.room(room).seq)
                with phases("docker compose kill redis, start redis (mid-match)"):
                    await asyncio.to_thread(compose.run, "kill", "redis")
                    await asyncio.to_thread(compose.run, "up", "-d", "--wait", "redis")
                    kept = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
                    try:
                        stored = await kept.room_version(room)
                    finally:
                        await kept.close()
                    await _all_ready(deployment)
                assert stored is not None and stored >= acknowledged, (stored, acknowledged)
                events["kill"] = (acknowledged, stored)

        with phases("a match between two people, one per replica"):
            bob_play, cy_play = await asyncio.gather(
                _play(bob, room, "bob", deployment, before_move=disrupt),
                _play(cy, room, "cy", deployment),
            )
        assert set(events) == {"restart", "kill"}, f"the match ended first: {events}"
        # at a person's pace, the deployment's rate limit never refuses a move
        assert bob_play.rate_limited == cy_play.rate_limited == 0, (bob_play, cy_play)
        # both came back after the restart (a Redis restart does not cut the websockets)
        assert bob.connections >= 2 and cy.connections >= 2, (bob.connections, cy.connections)
        store = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
        try:
            match = await check_match(
                store, room, [bob_play, cy_play], PEOPLE_TARGET, deployment.http(2)
            )
        finally:
            await store.close()
        await stats_agree(bob, [match], 0)
        await stats_agree(cy, [match], 1)
        print(
            f"\nBob (replica 1) vs Cy (replica 2): {match}; restarted at room seq "
            f"{events['restart']}; Redis killed with {events['kill'][0]} acknowledged, "
            f"{events['kill'][1]} found after; connections: Bob {bob.connections}, "
            f"Cy {cy.connections}"
        )
        deployment.memory["bob"] = (bob.token, room, match)
    finally:
        await asyncio.gather(bob.close(), cy.close())


async def test_down_then_up_keeps_players_hands_accounts_and_ratings(
    deployment: Deployment, phases: Phases
) -> None:
    compose = deployment.compose
    assert {"ada", "bob"} <= set(deployment.memory), "the earlier phases did not finish"
    store = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
    try:
        with phases("two account holders play a rated match"):
            kept = await rated_holders(
                deployment.ws(1), store, prefix="kept", seed="docker", think=THINK
            )
    finally:
        await store.close()
    deployment.memory["kept"] = kept
    print(f"\nrated match {kept.room}: {kept.board}")
    with phases("down, then up -d --wait"):
        compose.run("down", timeout=120)
        assert not compose.containers(), "down left containers"
        compose.run("up", "-d", "--wait", timeout=300)
    deployment.find_ports()
    for name, index in (("ada", 1), ("bob", 2)):
        token, room, match = deployment.memory[name]
        session = await Session.connect(deployment.ws(index), token=token)
        try:
            await stats_agree(session, [match], 0)  # the same player, with their matches
        finally:
            await session.close()
        for number in range(1, match["hands"] + 1):
            status, body = await asyncio.to_thread(
                http_get, f"{deployment.http(index)}/api/hands/{room}-{number}"
            )
            assert status == 200, (room, number, status, body[:200])
    store = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
    try:
        for name in ("ada", "bob"):
            _, room, match = deployment.memory[name]
            assert await store.room_version(room) == match["changes"] - 1, room
    finally:
        await store.close()
    await check_kept(deployment.ws(2), kept)  # signed in on the other replica


def _restore_into_fresh_volumes(deployment: Deployment, folder: Path) -> str:
    """``down -v``, the Redis alone started on its empty volume, ``server.admin restore`` of
    ``folder`` into it (from the host, through its published port), then everything started
    again; returns what the restore printed."""
    compose = deployment.compose
    compose.run("down", "-v", timeout=120)
    compose.run("up", "-d", "--wait", "redis")
    deployment.redis = compose.port("redis", 6379)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.admin",
            "restore",
            str(folder),
            "--single",
            "--url",
            f"redis://127.0.0.1:{deployment.redis}/0",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    compose.run("up", "-d", "--wait", timeout=300)
    deployment.find_ports()
    return done.stdout


async def test_a_backup_restored_into_a_fresh_deployment(
    deployment: Deployment, phases: Phases, tmp_path: Path
) -> None:
    """``python -m server.admin backup`` in a server container (over the compose network),
    the volumes destroyed, ``restore`` into the fresh Redis, then the servers started."""
    compose = deployment.compose
    assert {"ada", "bob", "kept"} <= set(deployment.memory), "the earlier phases did not finish"
    folder = tmp_path / "backup"
    with phases("backup, down -v, up redis, restore, up -d --wait"):
        made = compose.exec("server", "python", "-m", "server.admin", "backup", "/tmp/backup")
        compose.run("cp", "--index", "1", "server:/tmp/backup", str(folder))  # from the exec's
        done = _restore_into_fresh_volumes(deployment, folder)
    for name, index in (("ada", 2), ("bob", 1)):
        token, room, match = deployment.memory[name]
        session = await Session.connect(deployment.ws(index), token=token)
        try:
            await stats_agree(session, [match], 0)
        finally:
            await session.close()
        status, _ = await asyncio.to_thread(
            http_get, f"{deployment.http(index)}/api/hands/{room}-{match['hands']}"
        )
        assert status == 200, (room, status)
    await check_kept(deployment.ws(1), deployment.memory["kept"])
    print(f"\nbackup: {made.strip()}; restore: {done.strip()}")


async def test_the_previous_releases_backup_resumes_in_the_image(
    deployment: Deployment, phases: Phases
) -> None:
    """Upgrades (docs/operations.md): the backup release 72d70d3 made of a match against the AI
    paused after its first hand (``tests/data/upgrade-72d70d3``) restored into fresh volumes;
    the image's servers and AI worker take it up, the player is known by their token, and the
    match resumes where it stopped, finishes, and checks against the truth."""
    fixture = json.loads((UPGRADE_FIXTURE / "fixture.json").read_text())
    room, target = fixture["room"], fixture["target"]
    with phases("down -v, restore the previous release's backup, up -d --wait"):
        done = _restore_into_fresh_volumes(deployment, UPGRADE_FIXTURE / "backup")
    assert "(0 expired since the backup" in done, done  # the fixture's keys outlive the test
    with phases("the previous release's match resumed and played to its end"):
        ann = await Session.connect(deployment.ws(1), token=fixture["token"])
        try:
            assert ann.token == fixture["token"]
            await ann.resume(room, -1)
            view = await ann.wait_for(room, lambda v: v.get("game") is not None, timeout=30)
            assert view["game"]["scores"] == fixture["scores"]
            played = await _play(ann, room, "upgrade", deployment)
            store = await Store.connect(f"redis://127.0.0.1:{deployment.redis}/0")
            try:
                checked = await check_match(store, room, [played], target, deployment.http(2))
            finally:
                await store.close()
            assert checked["hands"] >= 2
            await stats_agree(ann, [checked], 0)
        finally:
            await ann.close()


def _https_get(url: str, context: ssl.SSLContext) -> tuple[int, bytes, str]:
    """(status, body, Location) of a GET that follows no redirect."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))
    try:
        with opener.open(url, timeout=10) as response:
            return int(response.status), bytes(response.read()), ""
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read()), str(error.headers.get("Location", ""))


async def test_tls_in_front_with_the_bundled_nginx(
    deployment: Deployment, phases: Phases, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compose = deployment.compose
    files = make_certificates(tmp_path / "tls")  # for 127.0.0.1 and localhost, by a CA
    certs = tmp_path / "certs"
    certs.mkdir()
    shutil.copy(files.server_cert, certs / "fullchain.pem")
    shutil.copy(files.server_key, certs / "privkey.pem")
    (certs / "privkey.pem").chmod(0o644)  # read by nginx in the container
    certs.chmod(0o755)
    https_port = free_port()
    compose.env.update({"GIN_TLS_CERTS": str(certs), "GIN_HTTPS_PORT": f"127.0.0.1:{https_port}"})
    compose.extra_files = (TLS_FILE,)
    try:
        with phases("up -d --wait with deploy/compose.tls.yml"):
            compose.run("up", "-d", "--wait", timeout=300)
        assert compose.port("proxy", 443) == https_port
        context = ssl.create_default_context(cafile=str(files.ca))
        base = f"https://127.0.0.1:{https_port}"

        async def https_ready() -> int:
            try:
                return (await asyncio.to_thread(_https_get, f"{base}/readyz", context))[0]
            except OSError:  # nginx has no healthcheck: `--wait` returns once it runs
                return 0

        status = await eventually(https_ready, lambda s: s == 200, timeout=30)
        assert status == 200, f"https /readyz: {status}\n{compose.logs()}"
        status, _, _ = await asyncio.to_thread(_https_get, f"{base}/metrics", context)
        assert status == 404, "the metrics are served outside"
        plain = f"http://127.0.0.1:{deployment.proxy}/x"
        status, _, location = await asyncio.to_thread(_https_get, plain, context)
        assert (status, location) == (301, "https://127.0.0.1/x"), (status, location)
        # a websocket over wss://, the CA trusted as a browser would trust a real one
        monkeypatch.setenv("SSL_CERT_FILE", str(files.ca))
        ada = await Session.connect(
            f"wss://127.0.0.1:{https_port}/ws", name="Ada", origin=base, reconnect=False
        )
        try:
            created = await ada.request("create_room", mode="private")
            assert created.result["invite"]
        finally:
            await ada.close()
    finally:
        compose.extra_files = ()
        for name in ("GIN_TLS_CERTS", "GIN_HTTPS_PORT"):
            compose.env.pop(name, None)


async def test_the_cluster_profile_forms_the_cluster_and_serves_a_match(
    deployment: Deployment, phases: Phases
) -> None:
    compose = deployment.compose
    cluster = {
        "GIN_REDIS_CLUSTER": "1",
        "GIN_REDIS_NODES": "redis://redis-node-1:6379,redis-node-2:6379,redis-node-3:6379/0",
        "GIN_REDIS_WAIT_REPLICAS": "1",
    }
    compose.env.update(cluster)
    compose.profiles = ("cluster",)
    with phases("down -v, then up -d --wait --profile cluster"):
        compose.run("down", "-v", "--remove-orphans", profiles=PROFILES, timeout=120)
        started = time.monotonic()
        up = compose.run("up", "-d", "--wait", check=False, timeout=300)
        took = time.monotonic() - started
    assert up.returncode == 0, (
        f"up -d --wait --profile cluster exited {up.returncode} after {took:.0f} s:\n"
        f"{up.stderr[-4000:]}\n{compose.logs()}"
    )
    init = compose.containers("redis-cluster-init")
    assert [(row["State"], row["ExitCode"]) for row in init] == [("exited", 0)], init
    info = compose.exec("redis-node-1", "redis-cli", "cluster", "info")
    assert "cluster_state:ok" in info and "cluster_known_nodes:6" in info, info
    deployment.find_ports(proxy=False)
    await _all_ready(deployment)
    ada = await Session.connect(deployment.ws(2), name="Ada")
    try:
        with phases("a match against the AI on the cluster"):
            created = await ada.request(
                "create_room", mode="ai", level="easy", rules={"target": TARGET}
            )
            room = created.result["room"]
            played = await _play(ada, room, "ada-cluster", deployment)
        assert played.final["status"] == "finished" and played.final["forfeit"] is None
        # the committing process writes the hand's record just after the commit the final
        # view came from (server/commits.py, write_records): read it once it is there
        hand = f"{deployment.http(1)}/api/hands/{room}-1"
        status, body = await eventually(
            lambda: asyncio.to_thread(http_get, hand), lambda got: got[0] == 200, timeout=10
        )
        assert status == 200, body[:200]
    finally:
        await ada.close()
    # the match is on the cluster's masters, not in the single Redis beside it
    keys = 0
    for node in range(1, 7):
        role = compose.exec(f"redis-node-{node}", "redis-cli", "role").split()[0]
        if role == "master":
            keys += int(compose.exec(f"redis-node-{node}", "redis-cli", "dbsize").strip())
    single = int(compose.exec("redis", "redis-cli", "dbsize").strip())
    assert keys > 0 and single == 0, (keys, single)
    print(
        f"\ncluster: up --wait in {took:.0f} s, {keys} keys on the masters, the AI match finished"
    )

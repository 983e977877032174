"""A Redis Cluster that speaks TLS only to the server: six nodes with ``--tls-port``,
``--tls-cluster`` and ``--tls-replication`` (their bus and their replication over TLS too),
certificates the test makes, and the server's ACL user exactly as ``docs/operations.md``
writes it, set on every node. The slot table the store reads over TLS names the nodes' TLS
ports (Redis answers ``CLUSTER SLOTS`` with the port of the asking connection's kind).

The store's per-master connections, its sharded feed and ``WAIT`` for a replica all run over
TLS; a whole match against the AI finishes on two server processes in cluster mode.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from client.session import Session
from server.store import RoomUpdate, Store, StoreConfig
from server.store.cluster import ClusterConnection
from tests.deploy.matches import play_to_end
from tests.server.store.conftest import next_item
from tests.support.backups import admin
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV
from tests.support.redis_cluster import RedisCluster, _reply
from tests.support.redis_server import _command
from tests.support.server_process import ServerProcess
from tests.support.tls import TlsFiles, acl_from_docs, make_certificates

USER, PASSWORD = "gin", "cluster-Tls-Secret-0815"


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_cluster(tls_files: TlsFiles) -> Iterator[RedisCluster]:
    with RedisCluster(tls=tls_files) as cluster:
        for node in cluster.nodes:
            reply = _command(node.port, "ACL", "SETUSER", *acl_from_docs(USER, PASSWORD))
            assert reply == b"+OK", reply
        yield cluster


@pytest.fixture
def tls_url(tls_cluster: RedisCluster) -> str:
    tls_cluster.ensure_running()
    tls_cluster.flushall()
    return tls_cluster.tls_url(f"{USER}:{PASSWORD}")


@pytest_asyncio.fixture(loop_scope="function")
async def tls_store(tls_url: str, tls_files: TlsFiles) -> AsyncIterator[Store]:
    config = StoreConfig(cluster=True, wait_replicas=1, tls_ca=str(tls_files.ca))
    store = await Store.connect(tls_url, config)
    yield store
    await store.close()


def _user_clients(cluster: RedisCluster) -> dict[int, set[str]]:
    """For each node (its TLS port): the local ports of the ACL user's connections."""
    found: dict[int, set[str]] = {}
    for node in cluster.nodes_running():
        assert node.tls_port is not None
        ports = set()
        for line in _reply(node.port, "CLIENT", "LIST").splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if fields.get("user") == USER:
                ports.add(fields["laddr"].rsplit(":", 1)[1])
        found[node.tls_port] = ports
    return found


async def test_commits_wait_for_replicas_and_the_sharded_feed_runs_over_tls(
    tls_store: Store, tls_cluster: RedisCluster
) -> None:
    direct = tls_store._direct
    assert isinstance(direct, ClusterConnection)
    rooms = [f"r{i}" for i in range(12)]  # spread over the three masters
    for room in rooms:
        await tls_store.create_room(room, b"s0")
    async with tls_store.feed() as feed:
        for room in rooms:
            await feed.add(room)
        for room in rooms:
            assert (await tls_store.commit(room, 0, b"s1", b"c1")).ok  # WAIT 1 over TLS
        got = {(await next_item(feed)) for _ in rooms}
        assert got == {RoomUpdate(room, 1, b"c1", b"s1") for room in rooms}
        tls_ports = {node.tls_port for node in tls_cluster.nodes}
        assert {port for port in (address[1] for address in direct.masters)} <= tls_ports
        by_node = _user_clients(tls_cluster)
        masters = {address[1] for address in direct.masters}
        for port in masters:  # every master: the ACL user's connections, on its TLS port only
            assert by_node[port] == {str(port)}, by_node


async def test_an_ai_match_finishes_on_a_tls_cluster(
    tls_url: str, tls_files: TlsFiles, tmp_path: Path
) -> None:
    env = {
        **FAST_CLIENT_ENV,
        "GIN_REDIS_CLUSTER": "1",
        "GIN_REDIS_WAIT_REPLICAS": "1",
        "GIN_REDIS_CA": str(tls_files.ca),
    }
    servers = [ServerProcess(tls_url, env=env, log_dir=tmp_path) for _ in range(2)]
    worker: WorkerProcess | None = None
    try:
        for server in servers:
            server.start()
        worker = WorkerProcess(servers[0].ws_url, tmp_path, "w1").start()
        session = await Session.connect(servers[1].ws_url, name="tls")
        try:
            created = await session.request(
                "create_room", mode="ai", level="easy", rules={"target": 30}
            )
            played = await play_to_end(
                session, created.result["room"], random.Random(3), timeout=180
            )
            assert played.final["status"] == "finished"
        finally:
            await session.close()
        for server in servers:
            log = server.log_path.read_text()
            assert PASSWORD not in log and "NOPERM" not in log
    except BaseException:
        for server in servers:
            print(f"--- server {server.port}\n{server.log_tail(60)}")
        raise
    finally:
        if worker is not None:
            worker.kill()
        for server in servers:
            server.kill()


async def test_a_tls_cluster_backs_up_and_restores_with_the_operator_user(
    tls_cluster: RedisCluster, tls_url: str, tls_files: TlsFiles, tmp_path: Path
) -> None:
    """``python -m server.admin`` over ``rediss://`` on every master, with the documented
    ``gin-backup`` user (set on every node), into the same cluster emptied."""
    for node in tls_cluster.nodes:
        rule = acl_from_docs("ops", "ops-Secret-77", "gin-backup")
        assert _command(node.port, "ACL", "SETUSER", *rule) == b"+OK"
    config = StoreConfig(cluster=True, tls_ca=str(tls_files.ca))
    store = await Store.connect(tls_url, config)
    try:
        rooms = [f"b{i}" for i in range(20)]
        for room in rooms:
            await store.create_room(room, b"s0")
            assert (await store.commit(room, 0, b"s1", b"c1")).ok
    finally:
        await store.close()
    env = {
        "REDIS_URL": tls_cluster.tls_url("ops:ops-Secret-77"),
        "GIN_REDIS_CLUSTER": "1",
        "GIN_REDIS_CA": str(tls_files.ca),
    }
    made = admin("backup", str(tmp_path / "b"), env=env)
    assert made.returncode == 0, made.stderr
    assert "cluster, 3 snapshot(s)" in made.stdout and "ops-Secret-77" not in made.stdout
    tls_cluster.flushall()
    done = admin("restore", str(tmp_path / "b"), env=env)
    assert done.returncode == 0, done.stderr
    store = await Store.connect(tls_url, config)
    try:
        for room in rooms:
            assert await store.load_room(room) == (1, b"s1")
    finally:
        await store.close()

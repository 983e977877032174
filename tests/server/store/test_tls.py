"""TLS and ACL users to one Redis (``rediss://USER:PASSWORD@...``): a redis-server the test
starts with ``--tls-port`` and certificates it makes (``tests.support.tls``), and the server's
ACL user exactly as ``docs/operations.md`` writes it.

The commands, the feed and ``WAIT`` go through the store's own hiredis connections over TLS
(no redis-py pool for them); the CA comes from ``StoreConfig.tls_ca`` or ``SSL_CERT_FILE``; a
Redis that asks for client certificates gets one; a whole match against the AI finishes on
a real server and worker with that user; the password shows in no error and no log line.

The servers keep their plain port for the test's own commands (``ACL SETUSER``, ``CLIENT
LIST``) as the ``default`` user; the store only ever gets the TLS port.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoPermissionError, ResponseError

from client.session import Session
from server.store import FeedReconnected, RoomUpdate, Store, StoreConfig, redact
from server.store.challenges import ChallengeTerms
from server.store.direct import DirectConnection
from server.store.friends import FriendLimits
from server.store.resp import supports
from tests.deploy.matches import play_to_end
from tests.server.store.conftest import next_item
from tests.support.backups import admin
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.ports import free_port
from tests.support.redis_server import RedisServer, _command
from tests.support.tls import TlsFiles, acl_from_docs, make_certificates, redis_tls_args

USER, PASSWORD = "gin", "tls-test-Secret-4711"


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_certificates(tmp_path_factory.mktemp("tls"))


def set_acl(port: int, user: str = USER, password: str = PASSWORD, documented: str = "gin") -> None:
    """The documented ACL of ``documented`` for ``user`` on our server (its plain port)."""
    reply = _command(port, "ACL", "SETUSER", *acl_from_docs(user, password, documented))
    assert reply == b"+OK", reply


class TlsRedis:
    """A redis-server with a TLS port (and its plain one for the test), the ACL user set."""

    def __init__(self, files: TlsFiles, *, clients: str = "no", extra: tuple[str, ...] = ()):
        # the TLS port is the plain one + 1, chosen with it at each start attempt
        self.server = RedisServer(
            extra_args=extra,
            pick_port=lambda: free_port(also=(1,)),
            port_args=lambda port: redis_tls_args(files, port + 1, clients=clients),
        )

    def start(self) -> TlsRedis:
        self.server.start()
        assert self.server.port is not None
        set_acl(self.server.port)
        return self

    @property
    def port(self) -> int:
        assert self.server.port is not None
        return self.server.port

    @property
    def tls_port(self) -> int:
        return self.port + 1

    def url(self, credentials: str = f"{USER}:{PASSWORD}", host: str = "127.0.0.1") -> str:
        return f"rediss://{credentials}@{host}:{self.tls_port}/0"

    def clients(self) -> list[dict[str, str]]:
        """CLIENT LIST of the ACL user's connections (fields by name)."""
        raw = _raw_reply(self.port, "CLIENT", "LIST")
        rows = [
            dict(f.split("=", 1) for f in line.split() if "=" in f) for line in raw.splitlines()
        ]
        return [row for row in rows if row.get("user") == USER]


def _raw_reply(port: int, *args: str) -> str:
    done = subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, timeout=10, check=True
    )
    return done.stdout.decode()


@pytest.fixture(scope="module")
def tls_redis(tls_files: TlsFiles) -> Iterator[TlsRedis]:
    # also on 127.0.0.2, an address its certificate does not name
    redis = TlsRedis(tls_files, extra=("--bind", "127.0.0.1", "127.0.0.2")).start()
    try:
        yield redis
    finally:
        redis.server.close()


@pytest.fixture
def tls_url(tls_redis: TlsRedis) -> str:
    if not tls_redis.server.running:
        tls_redis.start()
    tls_redis.server.flushall()
    return tls_redis.url()


@pytest_asyncio.fixture(loop_scope="function")
async def tls_store(tls_url: str, tls_files: TlsFiles) -> AsyncIterator[Store]:
    store = await Store.connect(tls_url, StoreConfig(tls_ca=str(tls_files.ca)))
    yield store
    await store.close()


def test_every_url_of_the_store_is_served_by_its_own_connections() -> None:
    assert supports("rediss://user:secret@example:6380/0")
    assert not supports("http://example/")
    with pytest.raises(ValueError, match=r"unsupported Redis URL: ftp://u:\*\*\*@h/0") as caught:
        DirectConnection("ftp://u:hunter2@h/0", StoreConfig())
    assert "hunter2" not in str(caught.value)


def test_redact_hides_the_password_only() -> None:
    assert redact("rediss://gin:pw@h:6380/0") == "rediss://gin:***@h:6380/0"
    assert redact("redis://:pw@h/0") == "redis://:***@h/0"
    assert redact("redis://pw@h/0") == "redis://***@h/0"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"
    assert redact("rediss://gin:pw@a:1,b:2/0") == "rediss://gin:***@a:1,b:2/0"


async def test_commands_and_the_feed_go_over_tls_on_the_direct_connections(
    tls_store: Store, tls_redis: TlsRedis
) -> None:
    assert isinstance(tls_store._direct, DirectConnection)
    await tls_store.create_room("r1", b"s0")
    async with tls_store.feed() as feed:
        await feed.add("r1")
        assert (await tls_store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")
        assert await tls_store.load_room("r1") == (1, b"s1")
        wire = tls_store._direct._wire
        assert wire is not None and wire._transport is not None
        assert isinstance(wire._transport.get_extra_info("ssl_object"), ssl.SSLObject)
        link = feed._link
        assert link is not None
        sub = link._wire._transport  # type: ignore[attr-defined]
        assert isinstance(sub.get_extra_info("ssl_object"), ssl.SSLObject)
        clients = tls_redis.clients()
        # the direct connection, the feed's and redis-py's pool: all the ACL user's, all TLS
        assert len(clients) >= 2, clients
        assert {row["laddr"].rsplit(":", 1)[1] for row in clients} == {str(tls_redis.tls_port)}
        assert any(row["flags"] == "P" for row in clients)  # the feed: a pub/sub connection


async def test_a_tls_feed_reconnects_and_resubscribes(
    tls_store: Store, tls_redis: TlsRedis
) -> None:
    """As the redis-py fallback did for TLS before: a killed feed connection comes back."""
    raw = Redis(host="127.0.0.1", port=tls_redis.port, protocol=2)
    try:
        await tls_store.create_room("r1", b"s0")
        async with tls_store.feed() as feed:
            await feed.add("r1")
            assert (await tls_store.commit("r1", 0, b"s1", b"c1")).ok
            assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")
            assert await raw.client_kill_filter(_type="pubsub") >= 1
            assert await next_item(feed) == FeedReconnected(frozenset({"r1"}))
            await feed.remove("r1")
            assert (await tls_store.commit("r1", 1, b"s2", b"c2")).ok
            await feed.add("r1")
            assert (await tls_store.commit("r1", 2, b"s3", b"c3")).ok
            assert await next_item(feed) == RoomUpdate("r1", 3, b"c3", b"s3")
    finally:
        await raw.aclose()


async def test_the_ca_from_ssl_cert_file(
    tls_url: str, tls_files: TlsFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_files.ca))
    store = await Store.connect(tls_url, StoreConfig())
    try:
        await store.create_room("r1", b"s0")
        assert await store.load_room("r1") == (0, b"s0")
        assert isinstance(store._direct, DirectConnection)  # the fast path, not redis-py's pool
        wire = store._direct._wire
        assert wire is not None and wire._transport is not None
        assert wire._transport.get_extra_info("ssl_object") is not None
    finally:
        await store.close()


async def test_an_untrusted_certificate_or_host_is_refused(
    tls_redis: TlsRedis, tls_files: TlsFiles
) -> None:
    config = StoreConfig(tls_ca=str(tls_files.other_ca), retries=0, socket_connect_timeout=2)
    with pytest.raises(RedisConnectionError, match="certificate verify failed"):
        await Store.connect(tls_redis.url(), config)
    trusted = StoreConfig(tls_ca=str(tls_files.ca), retries=0, socket_connect_timeout=2)
    direct = DirectConnection(tls_redis.url(host="127.0.0.2"), trusted)  # not in the cert
    try:
        with pytest.raises(RedisConnectionError, match="TLS to Redis"):
            await direct.execute("PING")
    finally:
        direct.close()


async def test_a_wrong_password_fails_without_showing_it(
    tls_redis: TlsRedis, tls_files: TlsFiles, caplog: pytest.LogCaptureFixture
) -> None:
    config = StoreConfig(tls_ca=str(tls_files.ca), retries=0)
    with pytest.raises(Exception) as caught:
        await Store.connect(tls_redis.url(f"{USER}:not-{PASSWORD}"), config)
    assert "WRONGPASS" in str(caught.value) or "invalid username-password" in str(caught.value)
    assert PASSWORD not in str(caught.value) and PASSWORD not in caplog.text


async def test_the_acl_user_may_do_nothing_else(tls_store: Store) -> None:
    for command in (("FLUSHALL",), ("KEYS", "*"), ("CONFIG", "GET", "*"), ("SET", "x", "1")):
        with pytest.raises((NoPermissionError, ResponseError), match="NOPERM"):
            await tls_store._fast(*command)


async def test_the_acl_user_may_keep_friends_and_presence(tls_store: Store) -> None:
    """The documented ACL names the friends' and presence keys (``server.keys``)."""
    await tls_store.create_player("pAda", "hash", "Ada")
    limits = FriendLimits(friends=5, sent=5, received=5)
    assert await tls_store.count_friend_request("pAda", 5, 60)
    assert await tls_store.change_friendship("ask", "pAda", "pBob", 1, limits) == "asked"
    assert (await tls_store.friend_standing("pBob")).received == {"pAda": 1}
    await tls_store.put_presence("p1", {"pAda": None}, 30_000)
    assert (await tls_store.presence_of("pAda")).online
    card = await tls_store.friend_card("pAda")
    assert card is None  # no handle: a guest is nobody's friend
    await tls_store.drop_presence("p1", "pAda")
    assert not (await tls_store.presence_of("pAda")).online


async def test_the_acl_user_may_keep_challenges(tls_store: Store) -> None:
    """The documented ACL names the challenges' keys (``server.keys``) and their nudges'
    channel."""
    await tls_store.create_player("pAda", "hash", "Ada")
    terms = ChallengeTerms(rated=False, turn_seconds=30, target=100)
    assert await tls_store.count_challenge("pAda", 5, 60)
    assert await tls_store.challenge_setting("pAda") is None
    await tls_store.set_challenge_setting("pAda", "everyone")
    word = await tls_store.send_challenge("c1", "pAda", "pBob", terms, 1, 60_001, 60_000, 3)
    assert word == "sent"
    received, _ = await tls_store.challenge_lists("pBob", 2)
    assert [record.id for record in received] == ["c1"]
    assert await tls_store.answer_challenge("decline", received[0], 3) == "ok"
    _, sent = await tls_store.challenge_lists("pAda", 4)
    assert [record.state for record in sent] == ["declined"]
    assert not await tls_store.are_friends("pAda", "pBob")

    nudged: asyncio.Queue[str] = asyncio.Queue()
    nudges = tls_store.challenge_nudges(nudged.put_nowait)
    await nudges.start()
    try:
        await nudges.publish("pBob")  # its channel, subscribed and published by the ACL user
        assert await asyncio.wait_for(nudged.get(), 5) == "pBob"
    finally:
        await nudges.stop()


async def test_client_certificates_where_redis_asks_for_them(tls_files: TlsFiles) -> None:
    redis = TlsRedis(tls_files, clients="yes").start()
    try:
        bare = StoreConfig(tls_ca=str(tls_files.ca), retries=0, socket_connect_timeout=2)
        with pytest.raises(RedisConnectionError):
            await Store.connect(redis.url(), bare)
        config = StoreConfig(
            tls_ca=str(tls_files.ca),
            tls_cert=str(tls_files.client_cert),
            tls_key=str(tls_files.client_key),
        )
        store = await Store.connect(redis.url(), config)
        try:
            await store.create_room("r1", b"s0")
            async with store.feed() as feed:
                await feed.add("r1")
                assert (await store.commit("r1", 0, b"s1", b"c1")).ok
                assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")
        finally:
            await store.close()
    finally:
        redis.server.close()


async def test_commits_wait_for_a_tls_replica(tls_files: TlsFiles) -> None:
    master = TlsRedis(tls_files).start()
    replica = TlsRedis(
        tls_files,
        extra=(
            "--tls-replication", "yes",
            "--replicaof", "127.0.0.1", str(master.tls_port),
            "--masteruser", USER, "--masterauth", PASSWORD,
        ),
    )  # fmt: skip
    try:
        # the replica's link to its master: TLS, as the ACL user (which may PSYNC for this)
        reply = _command(master.port, "ACL", "SETUSER", USER, "+psync", "+replconf", "+ping")
        assert reply == b"+OK"
        replica.start()
        config = StoreConfig(tls_ca=str(tls_files.ca), wait_replicas=1, wait_timeout_ms=10_000)
        store = await Store.connect(master.url(), config)
        try:
            await store.create_room("r1", b"s0")
            assert (await store.commit("r1", 0, b"s1", b"c1")).ok
            # acknowledged: the replica has it already, no waiting here
            assert _command(replica.port, "GET", "{room:r1}:version") == b"$1"
        finally:
            await store.close()
    finally:
        replica.server.close()
        master.server.close()


async def test_an_ai_match_finishes_over_tls_with_the_documented_acl(
    server_factory: ServerFactory, tls_url: str, tls_files: TlsFiles, tmp_path: Path
) -> None:
    env = {**FAST_CLIENT_ENV, "GIN_REDIS_CA": str(tls_files.ca)}
    server = server_factory(env=env, redis=tls_url)
    worker = WorkerProcess(server.ws_url, tmp_path, "w1").start()
    try:
        session = await Session.connect(server.ws_url, name="tls")
        try:
            created = await session.request(
                "create_room", mode="ai", level="easy", rules={"target": 30}
            )
            room = created.result["room"]
            played = await play_to_end(session, room, random.Random(7), timeout=120)
            assert played.final["status"] == "finished"
        finally:
            await session.close()
    finally:
        worker.kill()
    await asyncio.sleep(0)
    log = server.log_path.read_text()
    assert PASSWORD not in log
    assert "NOPERM" not in log  # the documented ACL is all the server asks for
    assert f"rediss://{USER}:***@" in log  # the start line names the Redis, redacted


def test_backup_and_restore_over_tls_with_the_documented_operator_user(
    tls_files: TlsFiles, tmp_path: Path
) -> None:
    """``python -m server.admin`` over ``rediss://`` with the ``gin-backup`` user of
    docs/operations.md; the server's own user may not take a backup."""
    source, fresh = TlsRedis(tls_files).start(), TlsRedis(tls_files).start()
    try:
        for redis in (source, fresh):
            set_acl(redis.port, "ops", "ops-Secret-99", documented="gin-backup")
        assert _command(source.port, "SET", "player:p1", "Ann") == b"+OK"
        assert _command(source.port, "SET", "invite:ABCD1234", "r1", "EX", "600") == b"+OK"
        env = {"GIN_REDIS_CA": str(tls_files.ca)}
        refused = admin("backup", str(tmp_path / "no"), env={**env, "REDIS_URL": source.url()})
        assert refused.returncode == 2 and "NOPERM" in refused.stderr, refused.stderr
        assert PASSWORD not in refused.stderr
        made = admin(
            "backup", str(tmp_path / "b"),
            env={**env, "REDIS_URL": source.url("ops:ops-Secret-99")},
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert "rediss://ops:***@" in made.stdout and "ops-Secret-99" not in made.stdout
        done = admin(
            "restore", str(tmp_path / "b"),
            env={**env, "REDIS_URL": fresh.url("ops:ops-Secret-99")},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "restored 2 keys" in done.stdout
        assert _command(fresh.port, "GET", "player:p1") == b"$3"
        assert int(_command(fresh.port, "TTL", "invite:ABCD1234")[1:]) > 500
    finally:
        source.server.close()
        fresh.server.close()

"""The cluster settings and the cluster URL: read as documented, bad values refused clearly."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.settings import Settings
from server.store import Store, StoreConfig
from server.store.cluster import node_url, startup_nodes


def test_cluster_settings_are_read_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "GIN_REDIS_CLUSTER": "1",
            "GIN_REDIS_WAIT_REPLICAS": "2",
            "GIN_REDIS_WAIT_TIMEOUT_MS": "250",
            "GIN_REDIS_FAILOVER_SECONDS": "30",
        }
    )
    assert settings.redis_cluster is True
    assert (settings.redis_wait_replicas, settings.redis_wait_timeout_ms) == (2, 250)
    assert settings.redis_failover_seconds == 30.0
    assert Settings.from_env({}).redis_cluster is False
    assert Settings.from_env({"GIN_REDIS_CLUSTER": "0"}).redis_cluster is False


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("GIN_REDIS_CLUSTER", "maybe", "GIN_REDIS_CLUSTER must be 0 or 1"),
        ("GIN_REDIS_WAIT_REPLICAS", "-1", "GIN_REDIS_WAIT_REPLICAS must be at least 0"),
        ("GIN_REDIS_WAIT_TIMEOUT_MS", "0", "GIN_REDIS_WAIT_TIMEOUT_MS must be at least 1"),
        ("GIN_REDIS_FAILOVER_SECONDS", "soon", "GIN_REDIS_FAILOVER_SECONDS must be a number"),
    ],
)
def test_bad_cluster_settings_are_refused_with_their_name(
    name: str, value: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_env({name: value})


def test_a_cluster_url_names_one_or_more_startup_nodes() -> None:
    assert startup_nodes("redis://10.0.0.1:7000/0") == [("10.0.0.1", 7000)]
    url = "redis://user:secret@a:7000,b:7001,c/0"
    assert startup_nodes(url) == [("a", 7000), ("b", 7001), ("c", 6379)]
    assert node_url(url, ("b", 7001)) == "redis://user:secret@b:7001/0"
    tls = "rediss://user:secret@a:7000,b:7001/0"
    assert startup_nodes(tls) == [("a", 7000), ("b", 7001)]
    assert node_url(tls, ("c", 7002)) == "rediss://user:secret@c:7002/0"
    for wrong in ("unix:///tmp/redis.sock", "a:7000", "http://user:secret@a:7000/0"):
        with pytest.raises(ValueError, match="a cluster URL is redis://HOST:PORT") as caught:
            startup_nodes(wrong)
        assert "secret" not in str(caught.value)


def test_the_tls_files_are_read_from_the_environment(tmp_path: Path) -> None:
    ca, cert, key = (tmp_path / name for name in ("ca.pem", "cert.pem", "key.pem"))
    for path in (ca, cert, key):
        path.write_text("-")
    env = {"GIN_REDIS_CA": str(ca), "GIN_REDIS_CERT": str(cert), "GIN_REDIS_KEY": str(key)}
    settings = Settings.from_env(env)
    assert (settings.redis_ca, settings.redis_cert, settings.redis_key) == (
        str(ca),
        str(cert),
        str(key),
    )
    assert Settings.from_env({}).redis_ca is None
    with pytest.raises(ValueError, match="GIN_REDIS_CA: no such file"):
        Settings.from_env({"GIN_REDIS_CA": str(tmp_path / "missing.pem")})
    with pytest.raises(
        ValueError, match=r"a TLS client key needs its certificate \(GIN_REDIS_CERT"
    ):
        StoreConfig(tls_key=str(key))


async def test_waiting_for_replicas_works_with_tls_urls_too() -> None:
    """``rediss://`` goes through the direct connection, so ``WAIT`` is possible (a Redis
    that is not there fails as any would; tests/server/store/test_tls.py waits for one)."""
    config = StoreConfig(wait_replicas=1, retries=0, socket_connect_timeout=0.5)
    with pytest.raises(RedisConnectionError):
        await Store.connect("rediss://127.0.0.1:1/0", config)

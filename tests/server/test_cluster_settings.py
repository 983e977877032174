"""The cluster settings and the cluster URL: read as documented, bad values refused clearly."""

from __future__ import annotations

import pytest

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
    for wrong in ("rediss://a:7000/0", "unix:///tmp/redis.sock", "a:7000"):
        with pytest.raises(ValueError, match="a cluster URL is redis://HOST:PORT"):
            startup_nodes(wrong)


async def test_waiting_for_replicas_needs_a_direct_connection() -> None:
    with pytest.raises(ValueError, match="waiting for replicas needs a redis:// or unix://"):
        await Store.connect("rediss://127.0.0.1:1/0", StoreConfig(wait_replicas=1))

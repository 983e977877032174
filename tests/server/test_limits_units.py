"""The pieces of the connection limits on their own: client addresses behind trusted proxies,
the per-address count, the leaky strike count, widening a bucket, the token's shape, and the
settings that configure them."""

from __future__ import annotations

import pytest

from server import identity
from server.addresses import AddressCounter, TrustedProxies, parse_networks
from server.ratelimit import StrikeCount, TokenBucket
from server.settings import LOCAL_HOSTS, Settings


def test_forwarded_for_is_believed_from_trusted_proxies_only() -> None:
    proxies = TrustedProxies(parse_networks(["127.0.0.1", "10.0.0.0/8", "::1"]))
    assert proxies.client_address("203.0.113.5", "198.51.100.1") == "203.0.113.5"
    assert proxies.client_address("127.0.0.1", None) == "127.0.0.1"
    assert proxies.client_address("127.0.0.1", "198.51.100.1") == "198.51.100.1"
    # right-most untrusted: what the client wrote on the left is ignored
    assert proxies.client_address("127.0.0.1", "1.2.3.4, 198.51.100.1") == "198.51.100.1"
    assert proxies.client_address("127.0.0.1", "198.51.100.1, 10.1.2.3") == "198.51.100.1"
    assert proxies.client_address("::1", "2001:db8::1") == "2001:db8::1"
    # garbage where the client address should be: the proxy's own
    assert proxies.client_address("127.0.0.1", "not-an-ip") == "127.0.0.1"
    assert proxies.client_address("127.0.0.1", "10.0.0.1, 10.0.0.2") == "10.0.0.1"
    assert "10.200.0.1" in proxies and "11.0.0.1" not in proxies and "x" not in proxies
    with pytest.raises(ValueError, match="not an IP"):
        parse_networks(["nginx"])


def test_addresses_are_counted_up_to_the_limit() -> None:
    counter = AddressCounter(2)
    assert counter.acquire("a") and counter.acquire("a") and not counter.acquire("a")
    assert counter.acquire("b")
    counter.release("a")
    assert counter.held("a") == 1 and counter.acquire("a")
    counter.release("b")
    assert counter.held("b") == 0
    unlimited = AddressCounter(0)
    assert all(unlimited.acquire("a") for _ in range(1000))


def test_strikes_are_forgiven_by_time_only() -> None:
    strikes = StrikeCount(limit=5, window=10.0, now=0.0)
    assert not any(strikes.strike(0.0) for _ in range(4))
    assert strikes.strike(0.0)  # the fifth within the window
    slow = StrikeCount(limit=5, window=10.0, now=0.0)
    # one strike every 2 s leaks away as fast as it comes: never a flood
    assert not any(slow.strike(2.0 * n) for n in range(1, 100))


def test_a_widened_bucket_never_narrows() -> None:
    bucket = TokenBucket(1.0, 2, now=0.0)
    assert bucket.allow(0.0) and bucket.allow(0.0) and not bucket.allow(0.0)
    bucket.widen(10.0, 20)
    assert bucket.rate == 10.0
    assert sum(bucket.allow(0.0) for _ in range(30)) == 18  # the tokens grew with the burst
    bucket.widen(1.0, 2)
    assert bucket.rate == 10.0


def test_a_token_must_have_the_shape_new_token_gives() -> None:
    player = identity.new_player_id()
    token = identity.new_token(player)
    assert identity.token_player_id(token) == player
    for bad in (
        "p!x.y",
        f"p{'a' * 65}.{token.split('.')[1]}",
        token[:-1],
        token + "A",
        token + "\n",
        token.replace(".", ".."),
        "q" + token[1:],
        player,
        f"{player}.",
        "",
    ):
        assert identity.token_player_id(bad) is None, bad


def test_settings_of_the_limits() -> None:
    base = {"GIN_AI_WORKER_KEY": "k"}
    settings = Settings.from_env(base)
    assert settings.allowed_hosts == LOCAL_HOSTS
    assert settings.max_connections_per_address == 32 and settings.hello_timeout_seconds == 10
    named = Settings.from_env({**base, "GIN_ALLOWED_HOSTS": "gin.example, *.gin.example"})
    assert named.allowed_hosts == (*LOCAL_HOSTS, "gin.example", "*.gin.example")
    bound = Settings.from_env({**base, "GIN_HOST": "192.0.2.7"})
    assert bound.allowed_hosts == (*LOCAL_HOSTS, "192.0.2.7")
    assert Settings.from_env({**base, "GIN_HOST": "0.0.0.0"}).allowed_hosts == LOCAL_HOSTS
    proxies = Settings.from_env({**base, "GIN_TRUSTED_PROXIES": "10.0.0.0/8,127.0.0.1"})
    assert len(proxies.trusted_proxies) == 2
    for name, value in (
        ("GIN_TRUSTED_PROXIES", "nginx"),
        ("GIN_ALLOWED_HOSTS", "gin.*.example"),
        ("GIN_ALLOWED_HOSTS", "*gin.example"),
        ("GIN_HELLO_TIMEOUT", "0"),
        ("GIN_PING_BURST", "0"),
        ("GIN_MAX_CONNECTIONS_PER_ADDRESS", "-1"),
    ):
        with pytest.raises(ValueError, match=name):
            Settings.from_env({**base, name: value})

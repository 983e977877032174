"""The store tests of ``tests/server/store`` that make sense on a cluster, run on it: the same
tests, with this directory's fixtures (``store`` and ``store_factory`` in cluster mode, ``raw``
redis-py's cluster client, ``redis_url`` a startup node of the session's cluster).

A test's own store configuration (short TTLs, tiny streams, short socket timeouts) is used
in cluster mode (``conftest.store_factory``). Left out: a test that writes with a one-Redis
client of its own (which a cluster answers ``MOVED``), and the feed tests of the one-Redis
connection's internals (classic pub/sub, its own channel, the redis-py fallback, a scripted
fake server); the cluster feed's own behaviour is in ``test_store.py``.
"""

from __future__ import annotations

from types import ModuleType

from tests.server.store import (
    test_abandonment,
    test_ai,
    test_feed,
    test_finished_history,
    test_hands,
    test_live,
    test_lobby,
    test_players,
    test_presence,
    test_quotas,
    test_rated_pairing,
    test_ratings,
    test_request_keys,
    test_rooms,
    test_talk,
)

ONE_REDIS_ONLY = frozenset(
    {
        # a one-Redis client of its own
        "test_a_request_without_a_token_is_wanted",
        # the one-Redis feed's connection
        "test_feed_reconnects_after_losing_its_connection",
        "test_an_idle_feed_stays_connected",
        "test_an_unanswered_ping_makes_the_feed_reconnect",
        "test_the_redis_py_fallback",
        # the one-Redis feed's connection against a scripted fake server, not a Redis
        "test_a_message_split_across_many_reads",
        "test_many_messages_in_one_read",
        "test_a_silent_redis_is_left_for_a_new_connection",
        "test_an_idle_feed_pings_only_when_silent",
        "test_an_unconfirmed_subscription_times_out_and_is_retried",
        "test_a_feed_on_a_unix_socket",
    }
)


def _tests_of(*modules: ModuleType) -> dict[str, object]:
    found: dict[str, object] = {}
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("test_") and callable(value) and name not in ONE_REDIS_ONLY:
                assert name not in found, f"two store tests are called {name}"
                found[name] = value
    return found


globals().update(
    _tests_of(
        test_rooms,
        test_players,
        test_lobby,
        test_live,
        test_hands,
        test_ai,
        test_feed,
        test_quotas,
        test_talk,
        test_request_keys,
        test_finished_history,
        test_ratings,
        test_rated_pairing,
        test_abandonment,
        test_presence,
    )
)

"""Which store failures a client may send again (``store_unavailable``) and which are faults
(``internal``)."""

from __future__ import annotations

import pytest
from redis.exceptions import (
    AuthenticationError,
    BusyLoadingError,
    ClusterDownError,
    MasterDownError,
    NoPermissionError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import ReplicationTimeout, store_unavailable


@pytest.mark.parametrize(
    "error",
    [
        RedisConnectionError("cannot reach Redis: [Errno 111] Connection refused"),
        RedisTimeoutError("no reply from Redis in 5 s"),
        BusyLoadingError("Redis is loading the dataset in memory"),
        ClusterDownError("The cluster is down"),
        MasterDownError("Link with MASTER is down"),
        TryAgainError("Multiple keys request during rehashing of slot"),
        ReadOnlyError("You can't write against a read only replica."),
        SlotNotCoveredError("slot 1234 is not covered by the cluster"),
        # the direct connection returns error replies unsorted, as ResponseError
        ResponseError("CLUSTERDOWN The cluster is down"),
        ResponseError("TRYAGAIN Multiple keys request during rehashing of slot"),
        ResponseError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is no"),
        ResponseError("LOADING Redis is loading the dataset in memory"),
        ResponseError("READONLY You can't write against a read only replica."),
    ],
)
def test_redis_out_of_reach_is_unavailable(error: Exception) -> None:
    assert store_unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        AuthenticationError("invalid username-password pair"),
        NoPermissionError("this user has no permissions to run the 'set' command"),
        ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
        ResponseError("ERR Error running script"),
        ReplicationTimeout("0 of 1 replicas confirmed the write within 300 ms"),
        ValueError("a bug"),
    ],
)
def test_faults_are_not_unavailable(error: Exception) -> None:
    assert not store_unavailable(error)

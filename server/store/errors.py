"""Which store failures are Redis out of reach for a moment (a restart, a failover, a
network cut), so that the request may simply be sent again, and which are faults."""

from __future__ import annotations

from redis.exceptions import (
    AuthenticationError,
    AuthorizationError,
    ClusterDownError,
    ExternalAuthProviderError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["store_unavailable"]

_OUT_OF_REACH = (
    RedisConnectionError,  # refused, lost, no reply in time (BusyLoadingError included)
    RedisTimeoutError,
    ClusterDownError,  # CLUSTERDOWN, MASTERDOWN: a shard without a master
    TryAgainError,  # a slot's keys split between two nodes in a migration
    ReadOnlyError,  # a master just demoted to a replica
    SlotNotCoveredError,
)
#: A connection that Redis refuses to authenticate is a configuration fault, not an outage.
_MISCONFIGURED = (AuthenticationError, AuthorizationError, ExternalAuthProviderError)
#: The same answers as plain error replies (the direct connection does not sort replies).
_OUT_OF_REACH_REPLIES = frozenset({"CLUSTERDOWN", "MASTERDOWN", "TRYAGAIN", "LOADING", "READONLY"})


def store_unavailable(error: BaseException) -> bool:
    """True when ``error`` says Redis (or the shard of the request's keys) could not be
    reached or could not serve just now: whatever the request did may or may not have been
    applied, and the same request sent again later is answered as the first would have been."""
    if isinstance(error, _MISCONFIGURED):
        return False
    if isinstance(error, _OUT_OF_REACH):
        return True
    if isinstance(error, ResponseError):
        return str(error).split(" ", 1)[0] in _OUT_OF_REACH_REPLIES
    return False

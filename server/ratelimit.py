"""A token bucket per connection: a steady rate with a burst allowance."""

from __future__ import annotations


class TokenBucket:
    """Allows ``rate`` events per second on average and bursts of up to ``burst`` events.

    The caller passes the current monotonic time, which keeps the bucket free of clocks.
    """

    __slots__ = ("_burst", "_rate", "_stamp", "_tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp = now

    def allow(self, now: float) -> bool:
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._tokens = min(self._burst, self._tokens + elapsed * self._rate)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

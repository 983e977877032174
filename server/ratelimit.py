"""Rate limits of a connection: token buckets (a steady rate with a burst allowance) and the
strike count of refused frames that cuts a flood off."""

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

    @property
    def rate(self) -> float:
        return self._rate

    def allow(self, now: float) -> bool:
        """Take one token if there is one."""
        if self.left(now) >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def left(self, now: float) -> float:
        """The tokens there are at ``now``."""
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._tokens = min(self._burst, self._tokens + elapsed * self._rate)
        return self._tokens

    def spend(self, now: float) -> None:
        """Take one token, or what is left of one (a budget spent by what happened)."""
        self._tokens = max(0.0, self.left(now) - 1.0)

    def widen(self, rate: float, burst: int) -> None:
        """Raise the rate and the burst (never lower them); the tokens grow by as much."""
        if rate <= self._rate and burst <= self._burst:
            return
        self._tokens += max(0.0, burst - self._burst)
        self._rate = max(self._rate, rate)
        self._burst = max(self._burst, float(burst))


class StrikeCount:
    """Refused frames, forgiven with time only: ``limit`` of them within ``window`` seconds
    (a leaky count that loses ``limit / window`` strikes a second) make a flood."""

    __slots__ = ("_leak", "_level", "_limit", "_stamp")

    def __init__(self, limit: int, window: float, now: float) -> None:
        self._limit = float(limit)
        self._leak = limit / window
        self._level = 0.0
        self._stamp = now

    def strike(self, now: float) -> bool:
        """Count a refused frame; True once the connection has struck out."""
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._level = max(0.0, self._level - elapsed * self._leak) + 1.0
        return self._level >= self._limit

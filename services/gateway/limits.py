"""Per-process rate limits (token buckets) keyed by seat token and by client address.

Limits are per gateway process: behind N replicas a client gets at most N times the rate, which
is enough to stop a flood from hurting other players without any shared state.
"""

from __future__ import annotations

import time
from collections import OrderedDict


class Buckets:
    """``allow(key)`` spends one token of ``key``'s bucket (``rate`` per second, ``burst`` max)."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)  # a bucket that never holds a whole token refuses for ever
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        if allowed:
            tokens -= 1
        self._buckets[key] = (tokens, now)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return allowed

    def wait_s(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key``'s bucket holds a whole token again (0 if it does now): when a
        refused request would be allowed (the ``Retry-After`` of ``rate_limited``)."""
        if self.rate <= 0 or key not in self._buckets:
            return 0.0
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets[key]
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        return max(0.0, (1 - tokens) / self.rate)

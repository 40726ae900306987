"""Retry policy with exponential backoff and ``Retry-After`` support."""
import random
import time
from dataclasses import dataclass, field

RETRYABLE_STATUSES = frozenset({413, 429, 503})


@dataclass(frozen=True)
class Retry:
    """How often and how long to wait before repeating a failed request.

    ``backoff_factor * 2 ** (attempt - 1)`` seconds are slept before the attempt-th retry, capped at
    ``backoff_max``; a ``Retry-After`` header on a retryable response wins over the backoff.
    """

    total: int = 3
    backoff_factor: float = 0.5
    backoff_max: float = 120.0
    jitter: float = 0.0
    status_forcelist: frozenset = field(default=RETRYABLE_STATUSES)
    respect_retry_after: bool = True
    attempt: int = 0

    def increment(self):
        if self.exhausted:
            raise RuntimeError("retries exhausted")
        return Retry(
            total=self.total,
            backoff_factor=self.backoff_factor,
            backoff_max=self.backoff_max,
            jitter=self.jitter,
            status_forcelist=self.status_forcelist,
            respect_retry_after=self.respect_retry_after,
            attempt=self.attempt + 1,
        )

    @property
    def exhausted(self):
        return self.attempt >= self.total

    def is_retryable(self, status):
        return status in self.status_forcelist

    def backoff(self, rng=random):
        if self.attempt == 0:
            return 0.0
        delay = min(self.backoff_max, self.backoff_factor * (2 ** (self.attempt - 1)))
        if self.jitter:
            delay += rng.uniform(0, self.jitter)
        return delay

    def parse_retry_after(self, value, now=None):
        """Seconds to wait according to a ``Retry-After`` value, or ``None`` if it is unusable.

        ``now`` (a POSIX timestamp) is only there for tests.
        """
        value = value.strip()
        if value.isdigit():
            return float(int(value))
        return None

    def sleep_for(self, status=None, headers=None, now=None):
        """How long to sleep before the next attempt, given the last response."""
        if self.respect_retry_after and headers is not None and self.is_retryable(status):
            retry_after = headers.get("Retry-After")
            if retry_after:
                seconds = self.parse_retry_after(retry_after, now=now)
                if seconds is not None:
                    return min(seconds, self.backoff_max)
        return self.backoff()

    def sleep(self, status=None, headers=None):
        delay = self.sleep_for(status, headers)
        if delay > 0:
            time.sleep(delay)
        return delay

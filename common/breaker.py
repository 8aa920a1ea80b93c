"""A circuit breaker: stop calling a failing dependency for a while, then let one trial through."""

from __future__ import annotations

import time
from collections.abc import Callable


class CircuitBreaker:
    """Closed → (`failures` in a row) → open for `reset_s` → half-open: one trial; success closes it."""

    def __init__(self, failures: int = 3, reset_s: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.failures = failures
        self.reset_s = reset_s
        self.clock = clock
        self._count = 0
        self._opened_at: float | None = None
        self._trial = False

    @property
    def state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self.clock() - self._opened_at >= self.reset_s:
            return "half_open"
        return "open"

    def allow(self) -> bool:
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._trial:
            self._trial = True
            return True
        return False

    def success(self) -> None:
        self._count = 0
        self._opened_at = None
        self._trial = False

    def failure(self) -> None:
        self._count += 1
        if self._opened_at is not None or self._count >= self.failures:
            self._opened_at = self.clock()  # a failed trial re-opens for another full period
        self._trial = False

"""Retry delays: exponential backoff with a cap and jitter, one schedule per retrying thing."""

from __future__ import annotations

import random


class Backoff:
    """Delay n is base × factor^n, capped at `cap`.

    `factor_jitter` adds U(0, factor_jitter) to the factor once (OBS spreads reconnecting encoders
    that way); `wait_jitter` scales each wait by U(1 - wait_jitter, 1) so many clients that failed
    together do not retry together.
    """

    def __init__(self, base: float, cap: float, *, factor: float = 2.0, factor_jitter: float = 0.0,
                 wait_jitter: float = 0.0, rng: random.Random | None = None) -> None:
        if base <= 0 or cap < base:
            raise ValueError("backoff needs 0 < base ≤ cap")
        self._rng = rng or random.Random()
        self.base, self.cap = base, cap
        self.factor = factor + (self._rng.uniform(0, factor_jitter) if factor_jitter else 0.0)
        self.wait_jitter = wait_jitter
        self.attempts = 0

    def next_delay(self) -> float:
        raw = min(self.cap, self.base * self.factor ** min(self.attempts, 60))
        self.attempts += 1
        if self.wait_jitter:
            raw *= 1.0 - self.wait_jitter * self._rng.random()
        return raw

    def reset(self) -> None:
        self.attempts = 0

"""The shared building blocks: bounded dict, backoff, circuit breaker."""

from __future__ import annotations

import itertools
import random

import pytest

from common.bounded import BoundedDict
from common.breaker import CircuitBreaker
from common.retry import Backoff


def test_bounded_dict_forgets_the_least_recently_set() -> None:
    d: BoundedDict[str, int] = BoundedDict(3)
    for i, k in enumerate("abcd"):
        d[k] = i
    assert list(d) == ["b", "c", "d"] and d.evicted == 1
    d["b"] = 9  # setting again makes it the newest
    d["e"] = 5
    assert list(d) == ["d", "b", "e"]
    d.touch("d")
    d["f"] = 6
    assert list(d) == ["e", "d", "f"]


def test_bounded_dict_seen_is_a_dedup_window() -> None:
    d: BoundedDict[str, None] = BoundedDict(2)
    assert [d.seen(k) for k in ("x", "x", "y", "z", "x")] == [False, True, False, False, False]
    with pytest.raises(ValueError):
        BoundedDict(0)


def test_backoff_obs_schedule() -> None:
    b = Backoff(2.0, 900.0, factor=1.5, factor_jitter=0.05, rng=random.Random(1))
    delays = [b.next_delay() for _ in range(30)]
    assert delays[0] == 2.0
    assert all(1.5 - 1e-9 <= y / x <= 1.55 + 1e-9 for x, y in itertools.pairwise(delays[:9]))
    assert max(delays) == 900.0
    b.reset()
    assert b.next_delay() == 2.0


def test_backoff_wait_jitter_spreads_each_wait() -> None:
    b = Backoff(1.0, 8.0, wait_jitter=0.5, rng=random.Random(3))
    delays = [b.next_delay() for _ in range(8)]
    for d, cap in zip(delays, [1, 2, 4, 8, 8, 8, 8, 8], strict=True):
        assert cap * 0.5 <= d <= cap
    assert len({round(d, 6) for d in delays[3:]}) > 1


def test_breaker_opens_half_opens_and_closes() -> None:
    now = [0.0]
    br = CircuitBreaker(failures=2, reset_s=10.0, clock=lambda: now[0])
    br.failure()
    assert br.allow()
    br.failure()
    assert br.state == "open" and not br.allow()
    now[0] = 10.0
    assert br.allow() and not br.allow()  # one trial only
    br.failure()
    assert br.state == "open"
    now[0] = 20.0
    assert br.allow()
    br.success()
    assert br.state == "closed" and br.allow()

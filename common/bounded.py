"""A dict that keeps at most `maxlen` entries, forgetting the least recently set (or touched) one."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedDict(OrderedDict[K, V]):
    """Setting a key makes it the newest; past `maxlen` the oldest entries are dropped.

    Long-running rooms see unbounded streams of user ids, message ids and names: every per-key
    memory of them goes through this, so memory stays flat over days.
    """

    def __init__(self, maxlen: int) -> None:
        if maxlen < 1:
            raise ValueError("maxlen must be ≥ 1")
        super().__init__()
        self.maxlen = maxlen
        self.evicted = 0

    def __setitem__(self, key: K, value: V) -> None:
        if key in self:
            self.move_to_end(key)
        super().__setitem__(key, value)
        while len(self) > self.maxlen:
            self.popitem(last=False)
            self.evicted += 1

    def touch(self, key: K) -> None:
        """Marks a key as recently used without changing its value."""
        self.move_to_end(key)

    def seen(self, key: K) -> bool:
        """True when key was already there; otherwise remembers it (value None). For dedup windows."""
        if key in self:
            return True
        self[key] = None  # type: ignore[assignment]
        return False

"""The ranked queue of lines waiting to be said: bounded, near-duplicates merged, stale lines purged.

A line's rank is its priority, plus a little for every viewer who asked the same (up to ten), then
first come first served. When the queue is full a new line must outrank the worst waiting one, which
it then replaces. Questions whose normalized key is the same as or similar to (rapidfuzz ratio ≥
`merge_similarity`) a waiting one within `merge_window_s` fold into it, counting the asker; a key
handed out less than the window ago is reported as recently answered.

Every line it drops is reported through `on_drop(reason, n)`; the queue counts nothing itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from broadcaster.director.triage import Candidate, Drop, TriagedLine
from broadcaster.lines import LineKind, LineSource
from common.bounded import BoundedDict
from danmaku.event import Event

ANSWERED_KEYS = 1000  # keys of handed-out lines remembered for `recently_answered`
MAX_NAMES = 5  # askers remembered per merged line


@dataclass(slots=True)
class Item:
    """A queued line; `count` and `names` grow as near-duplicates merge into it."""

    kind: LineKind
    priority: float
    seq: int
    key: str
    text: str
    event: Event | None
    first_mono: float
    deadline: float
    source: LineSource = LineSource.ANSWER
    count: int = 1
    names: list[str] = field(default_factory=list)

    def rank(self) -> tuple[float, int]:
        # Higher priority first; a question many viewers ask climbs a little; then first come first served.
        return (self.priority + min(self.count - 1, 10) * 2.0, -self.seq)

    def banner(self) -> str:
        who = self.names[0] if self.names else ""
        more = f" 等{self.count}人" if self.count > 1 else ""
        return f"{who}{more}：{self.text}" if who else self.text

    def line(self) -> TriagedLine:
        return TriagedLine(text=self.text, source=self.source, event=self.event, priority=int(self.priority),
                           deadline_mono=self.deadline, created_mono=self.first_mono, banner=self.banner(),
                           kind=self.kind, count=self.count, names=tuple(self.names))


class LineQueue:
    def __init__(self, maxlen: int, *, merge_similarity: float, merge_window_s: float,
                 on_drop: Callable[[Drop, int], None] = lambda reason, n: None,
                 on_gone: Callable[[Item, Drop], None] = lambda item, reason: None) -> None:
        self.maxlen = maxlen
        self.on_gone = on_gone  # each queued line dropped (stale, pushed out), for the audit of comments left unanswered
        self.merge_cutoff = merge_similarity * 100.0
        self.merge_window_s = merge_window_s
        self.on_drop = on_drop
        self.items: list[Item] = []
        self._by_key: dict[str, Item] = {}  # waiting answers that near-duplicates may merge into
        self.answered: BoundedDict[str, float] = BoundedDict(ANSWERED_KEYS)  # key → when it was handed out
        self._seq = itertools.count(1)
        self._dirty = True
        self._worst: Item | None = None
        self._min_deadline = float("inf")

    def __len__(self) -> int:
        return len(self.items)

    def _stats(self) -> tuple[Item | None, float]:
        """The lowest-ranked item and the earliest deadline (cached until the queue changes)."""
        if self._dirty:
            self._worst = min(self.items, key=Item.rank, default=None)
            self._min_deadline = min((it.deadline for it in self.items), default=float("inf"))
            self._dirty = False
        return self._worst, self._min_deadline

    def has_room(self, priority: float, key: str, now: float) -> bool:
        """Whether a line of this priority could get in (cheap: asked before moderation under a flood)."""
        if len(self.items) < self.maxlen or (key and key in self._by_key):
            return True
        worst, min_deadline = self._stats()
        if min_deadline < now:
            return True  # a stale line will make room
        # Equal rank loses to the older item, so a new line needs strictly higher priority.
        return worst is None or worst.rank()[0] < priority

    def merge(self, key: str, name: str, now: float) -> bool:
        """Folds an asker into a waiting near-duplicate of `key` within the window; False when there is none."""
        if not key:
            return False
        item = self._by_key.get(key)
        if item is None and self._by_key:
            found = process.extractOne(key, list(self._by_key), scorer=fuzz.ratio, score_cutoff=self.merge_cutoff)
            if found is not None:
                item = self._by_key[found[0]]
        if item is None or item.first_mono < now - self.merge_window_s:
            return False
        item.count += 1
        self._dirty = True  # its rank rose
        if len(item.names) < MAX_NAMES and name not in item.names:
            item.names.append(name)
        return True

    def recently_answered(self, key: str, now: float) -> bool:
        answered = self.answered.get(key)
        return answered is not None and now - answered < self.merge_window_s

    def push(self, c: Candidate, event: Event | None, now: float) -> bool:
        """Queues a line; when full, it replaces the worst one if it outranks it. False when it was dropped."""
        item = Item(c.kind, c.priority, next(self._seq), c.key, c.text, event, now, c.deadline, c.source,
                    names=[c.name])
        if len(self.items) >= self.maxlen:
            self.purge_stale(now)
        if len(self.items) >= self.maxlen:
            worst = self._stats()[0]
            assert worst is not None
            self.on_drop(Drop.QUEUE_FULL, 1)
            if worst.rank() >= item.rank() and worst.priority >= item.priority:
                self.on_gone(item, Drop.QUEUE_FULL)
                return False
            self._remove(worst)
            self.on_gone(worst, Drop.QUEUE_FULL)
        self.items.append(item)
        self._dirty = True
        if item.key and item.source == LineSource.ANSWER and item.kind != LineKind.SUPER_CHAT:
            self._by_key[item.key] = item
        return True

    def _remove(self, item: Item) -> None:
        self.items.remove(item)
        self._dirty = True
        if item.key and self._by_key.get(item.key) is item:
            del self._by_key[item.key]

    def purge_stale(self, now: float) -> None:
        """Drops every line whose deadline has passed."""
        if self._stats()[1] >= now:
            return
        stale = [it for it in self.items if it.deadline < now]
        for it in stale:
            self._remove(it)
            self.on_gone(it, Drop.STALE)
        if stale:
            self.on_drop(Drop.STALE, len(stale))

    def remove_where(self, doomed: Callable[[Item], bool]) -> int:
        """Removes every queued item `doomed` selects; returns how many."""
        gone = [it for it in self.items if doomed(it)]
        for it in gone:
            self._remove(it)
        return len(gone)

    def best(self) -> Item | None:
        """The highest-ranked waiting item (stays queued; `take` hands it out)."""
        return max(self.items, key=Item.rank, default=None)

    def take(self, item: Item, now: float) -> TriagedLine:
        """Hands out a queued item as a line; its key counts as answered from now."""
        self._remove(item)
        if item.key:
            self.answered[item.key] = now
        return item.line()

    def live(self, now: float) -> bool:
        """True when some line waits whose deadline has not passed."""
        return any(it.deadline >= now for it in self.items)

    def rows(self, now: float) -> list[dict[str, Any]]:
        """The console's view, best first."""
        return [
            {
                "kind": it.kind,
                "text": it.text,
                "count": it.count,
                "names": list(it.names),
                "priority": it.rank()[0],
                "age_s": round(now - it.first_mono, 2),
                "expires_in_s": round(it.deadline - now, 2),
            }
            for it in sorted(self.items, key=Item.rank, reverse=True)
        ]

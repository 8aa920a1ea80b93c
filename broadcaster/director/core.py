"""The Director: triage of a room's chat into a small ranked queue of Lines, plus operator lines and the talk track.

`offer(event)` is synchronous and cheap (microseconds): normalize, drop noise and repeats of a
platform message id, moderate, rate-limit per user, merge near-duplicate questions (counting
them), batch gifts into one thanks line, rank, and keep the queue bounded. Every event that
will not get its own line is counted by reason (metrics DROPS and `snapshot()["drops"]`).

`next_line()` hands out the best line now: operator lines first, then the best of queued answers,
thanks and the ready gift batch, dropping lines whose deadline has passed; when nothing is
waiting and the stage is (estimated) idle, a talk-track line, never more than `talk.max_ahead`
of them handed out and not yet over.

All times come from the injected clock (`fps_clock`), so tests drive hours of chat in
milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from broadcaster import metrics
from broadcaster.brain.moderation import Moderator
from broadcaster.brain.textnorm import clean, normalize, question_key
from broadcaster.director.config import DirectorConfig
from broadcaster.director.talk import TalkTrack
from broadcaster.lines import Line, LineSource
from danmaku.event import Event, EventKind

log = logging.getLogger(__name__)

_QUESTION = re.compile(
    r"[?？]|吗|呢|么|多少|几[个天号点时]|怎么|怎样|如何|什么|哪|为什么|为啥|能不能|可不可以|可以吗|有没有|是不是|"
    r"要不要|会不会|好不好|请问|咋|啥|多[大久重长高远宽厚]|(.)不\1|"
    r"\b(?:how|what|when|where|why|which|can|does|is there)\b",
    re.IGNORECASE,
)
_NOISE = re.compile(r"^(?:\d+|(.)\1*|(.)(.)(?:\2\3)+)$")  # 666, 哈哈哈哈, 2333, 哈哈哈 …
_GUARD_NAMES = {1: "总督", 2: "提督", 3: "舰长"}


@dataclass(frozen=True, slots=True)
class TriagedLine(Line):
    """A Line with what triage knew: its kind, how many viewers asked it, and who."""

    kind: str = ""  # super_chat | guard | gift | question | comment | follow | operator | script
    count: int = 1
    names: tuple[str, ...] = ()
    segment: str = ""  # talk-track segment of a script line


@dataclass(slots=True)
class _Item:
    kind: str
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


@dataclass(slots=True)
class _GiftBatch:
    started: float
    people: OrderedDict[str, dict[str, int]] = field(default_factory=OrderedDict)
    value: float = 0.0
    events: int = 0


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class Director:
    def __init__(self, room: str, cfg: DirectorConfig, moderator: Moderator, *,
                 fps_clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], dt.datetime] = dt.datetime.now) -> None:
        self.room = room
        self.cfg = cfg
        self.tcfg = cfg.triage
        self.clock = fps_clock
        self.wall_clock = wall_clock
        self.moderator = moderator
        self._queue: list[_Item] = []
        self._by_key: dict[str, _Item] = {}
        self._operator: deque[Line] = deque()
        self._gifts: _GiftBatch | None = None
        self._follows: _GiftBatch | None = None
        self._users: OrderedDict[str, _Bucket] = OrderedDict()
        self._msg_ids: OrderedDict[str, None] = OrderedDict()
        self._answered: OrderedDict[str, float] = OrderedDict()  # key → when it was handed out
        self._recent: deque[dict[str, Any]] = deque(maxlen=self.tcfg.recent_chat)
        self.drops: dict[str, int] = {}
        self._drop_metric: dict[str, Any] = {}
        self._depth = metrics.QUEUE_DEPTH.labels(room)
        self._seq = 0
        self._stats_dirty = True
        self._worst: _Item | None = None
        self._min_deadline = float("inf")
        self._names_ok: OrderedDict[str, str] = OrderedDict()  # raw name → name safe to read out
        self._wakeup: asyncio.Event | None = None
        # Called with (event, verdict) for every comment moderation blocked: the room writes it to the audit log.
        self.on_blocked: Callable[[Event, str], None] | None = None
        self.talk: TalkTrack | None = None
        if cfg.talk.file is not None:
            self.talk = TalkTrack.load(cfg.talk.file, cfg.talk.variables)
        self._script_out: dict[int, float] = {}  # script line id → estimated end
        self._busy_until = -float("inf")  # estimated end of everything handed out
        self._last_handed = 0

    # -- bookkeeping ------------------------------------------------------------------------------------

    def _drop(self, reason: str, n: int = 1) -> None:
        self.drops[reason] = self.drops.get(reason, 0) + n
        child = self._drop_metric.get(reason)
        if child is None:
            child = self._drop_metric[reason] = metrics.DROPS.labels(self.room, reason)
        child.inc(n)

    def _note(self, event: Event, verdict: str, kind: str) -> None:
        if self._recent.maxlen:
            self._recent.append({
                "at": event.received_wall,
                "user": event.user.name if event.user is not None else "",
                "kind": kind,
                "text": event.text,
                "verdict": verdict,
            })

    def _wake(self) -> None:
        if self._wakeup is not None:
            self._wakeup.set()

    def _event_time(self, event: Event, now: float) -> float:
        # Events carry the time they arrived; trust it unless it comes from another clock.
        t = event.received_mono
        return t if now - 3600.0 <= t <= now else now

    def _rate_ok(self, user_id: str, now: float) -> bool:
        if not user_id:
            return True
        b = self._users.pop(user_id, None)
        if b is None:
            b = _Bucket(float(self.tcfg.user_burst), now)
        else:
            b.tokens = min(float(self.tcfg.user_burst), b.tokens + (now - b.stamp) * self.tcfg.user_rate_per_min / 60.0)
            b.stamp = now
        self._users[user_id] = b
        if len(self._users) > self.tcfg.max_tracked_users:
            self._users.popitem(last=False)
        if b.tokens < 1.0:
            return False
        b.tokens -= 1.0
        return True

    def _seen_msg(self, msg_id: str) -> bool:
        if not msg_id:
            return False
        if msg_id in self._msg_ids:
            return True
        self._msg_ids[msg_id] = None
        if len(self._msg_ids) > 4096:
            self._msg_ids.popitem(last=False)
        return False

    def _safe_name(self, event: Event) -> str:
        raw = event.user.name if event.user is not None else ""
        safe = self._names_ok.get(raw)
        if safe is None:
            name = normalize(raw)[:16]
            safe = name if name and self.moderator.check(name).ok else "这位朋友"
            self._names_ok[raw] = safe
            if len(self._names_ok) > 4096:
                self._names_ok.popitem(last=False)
        return safe

    # -- triage -----------------------------------------------------------------------------------------

    def offer(self, event: Event) -> None:
        """Takes one chat event; never blocks and never raises for bad input."""
        try:
            self._offer(event)
        except Exception:  # one odd event must not take the room down
            log.exception("room %s: triage failed for an event", self.room)
            self._drop("error")

    def _offer(self, event: Event) -> None:
        now = self.clock()
        if self._seen_msg(event.msg_id):
            self._drop("duplicate_id")
            return
        kind = event.kind
        if kind in (EventKind.GIFT,):
            self._add_gift(event, now)
            return
        if kind == EventKind.FOLLOW:
            if self.tcfg.thank_follows:
                self._add_follow(event, now)
            else:
                self._drop("ignored_kind")
            return
        if kind == EventKind.GUARD:
            self._add_guard(event, now)
            return
        if kind not in (EventKind.COMMENT, EventKind.SUPER_CHAT, EventKind.VOICE):
            self._drop("ignored_kind")  # likes, enters, system notices: nothing to say
            return
        text = normalize(event.text)[: self.tcfg.max_chars]
        key = question_key(text)
        is_sc = kind == EventKind.SUPER_CHAT
        if not is_sc:
            if len(key) < self.tcfg.min_chars:
                self._drop("too_short")
                return
            if _NOISE.match(key):
                self._drop("noise")
                return
        if is_sc:
            kind_name = "super_chat"
            priority = self.tcfg.priorities.super_chat + self.tcfg.priorities.per_cny * max(0.0, event.value_cny)
            deadline_s = self.tcfg.deadlines.super_chat
        elif _QUESTION.search(text):
            kind_name, priority, deadline_s = "question", self.tcfg.priorities.question, self.tcfg.deadlines.question
        else:
            if not self.tcfg.answer_chit_chat:
                self._drop("chit_chat")
                return
            kind_name, priority, deadline_s = "comment", self.tcfg.priorities.comment, self.tcfg.deadlines.comment
        if self._no_room_for(priority, key, now):
            # Under a flood the queue is full of better lines: drop before the costlier checks.
            self._drop("queue_full")
            return
        if text:
            verdict = self.moderator.check(text)
            if not verdict.ok:
                metrics.MODERATION_BLOCKS.labels(self.room, "input").inc()
                self._note(event, verdict.describe(), str(kind))
                if self.on_blocked is not None:
                    self.on_blocked(event, verdict.describe())
                self._drop("moderation")  # input is never repeated, whatever the output action is
                return
        user_id = event.user.id or event.user.name if event.user is not None else ""
        if not is_sc and not self._rate_ok(user_id, now):
            self._drop("rate_limit")
            self._note(event, "rate limited", str(kind))
            return
        self._note(event, "ok", kind_name)
        name = self._safe_name(event)
        if not is_sc:
            if self._merge(key, name, now):
                return
            answered = self._answered.get(key)
            if answered is not None and now - answered < self.tcfg.merge_window_s:
                self._drop("recently_answered")
                return
        if is_sc and not text:
            # A super chat without words is thanked like a guard.
            self._push(_Item("super_chat", priority, self._next_seq(), "", f"感谢{name}的醒目留言！", event,
                             now, self._event_time(event, now) + deadline_s, LineSource.THANKS, names=[name]))
            return
        # The line carries what the viewer wrote (cleaned), not the normalized form used for matching.
        shown = clean(event.text)[: self.tcfg.max_chars] or text
        self._push(_Item(kind_name, priority, self._next_seq(), key, shown, event, now,
                         self._event_time(event, now) + deadline_s, names=[name]))

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _merge(self, key: str, name: str, now: float) -> bool:
        """Folds a question into a waiting near-duplicate (same or similar key within the window)."""
        if not key:
            return False
        window_start = now - self.tcfg.merge_window_s
        item = self._by_key.get(key)
        if item is None and self._by_key:
            cutoff = self.tcfg.merge_similarity * 100.0
            found = process.extractOne(key, list(self._by_key), scorer=fuzz.ratio, score_cutoff=cutoff)
            if found is not None:
                item = self._by_key[found[0]]
        if item is None or item.first_mono < window_start:
            return False
        item.count += 1
        self._stats_dirty = True  # its rank rose
        if len(item.names) < 5 and name not in item.names:
            item.names.append(name)
        self._drop("merged")
        return True

    def _stats(self) -> tuple[_Item | None, float]:
        """The lowest-ranked queued item and the earliest deadline (cached until the queue changes)."""
        if self._stats_dirty:
            self._worst = min(self._queue, key=_Item.rank, default=None)
            self._min_deadline = min((it.deadline for it in self._queue), default=float("inf"))
            self._stats_dirty = False
        return self._worst, self._min_deadline

    def _no_room_for(self, priority: float, key: str, now: float) -> bool:
        if len(self._queue) < self.tcfg.queue_max or (key and key in self._by_key):
            return False
        worst, min_deadline = self._stats()
        if min_deadline < now:
            return False  # a stale line will make room
        # Equal rank loses to the older item, so a new line needs strictly higher priority.
        return worst is not None and worst.rank()[0] >= priority

    def _push(self, item: _Item) -> None:
        if len(self._queue) >= self.tcfg.queue_max:
            self._purge_stale(self.clock())
        if len(self._queue) >= self.tcfg.queue_max:
            worst = self._stats()[0]
            assert worst is not None
            if worst.rank() >= item.rank() and worst.priority >= item.priority:
                self._drop("queue_full")
                return
            self._remove(worst)
            self._drop("queue_full")
        self._queue.append(item)
        self._stats_dirty = True
        if item.key and item.source == LineSource.ANSWER and item.kind != "super_chat":
            self._by_key[item.key] = item
        self._depth.set(len(self._queue))
        self._wake()

    def _remove(self, item: _Item) -> None:
        self._queue.remove(item)
        self._stats_dirty = True
        if item.key and self._by_key.get(item.key) is item:
            del self._by_key[item.key]
        self._depth.set(len(self._queue))

    def _purge_stale(self, now: float) -> None:
        if self._stats()[1] >= now:
            return
        stale = [it for it in self._queue if it.deadline < now]
        for it in stale:
            self._remove(it)
        if stale:
            self._drop("stale", len(stale))

    def _add_gift(self, event: Event, now: float) -> None:
        if event.value_cny < self.tcfg.gift_min_cny:
            self._drop("small_gift")
            return
        if self._gifts is None:
            self._gifts = _GiftBatch(started=now)
        batch = self._gifts
        name = self._safe_name(event)
        gift = str(event.extra.get("gift_name") or event.extra.get("gift") or "礼物")
        count = int(event.extra.get("count") or event.extra.get("num") or 1)
        gifts = batch.people.setdefault(name, {})
        gifts[gift] = gifts.get(gift, 0) + count
        batch.value += max(0.0, event.value_cny)
        batch.events += 1
        if batch.events > 1:
            self._drop("gift_batched")  # folded into the batch's one thanks line

    def _add_follow(self, event: Event, now: float) -> None:
        if self._follows is None:
            self._follows = _GiftBatch(started=now)
        self._follows.people.setdefault(self._safe_name(event), {})
        self._follows.events += 1
        if self._follows.events > 1:
            self._drop("follow_batched")

    def _add_guard(self, event: Event, now: float) -> None:
        name = self._safe_name(event)
        level = int(event.extra.get("guard_level") or (event.user.guard_level if event.user else 0) or 3)
        text = self.tcfg.thanks_guard.format(name=name, guard=_GUARD_NAMES.get(level, "舰长"))
        self._push(_Item("guard", self.tcfg.priorities.guard, self._next_seq(), "", text, event, now,
                         self._event_time(event, now) + self.tcfg.deadlines.guard, LineSource.THANKS, names=[name]))

    def _batch_ready(self, batch: _GiftBatch | None, now: float) -> bool:
        if batch is None:
            return False
        return now - batch.started >= self.tcfg.gift_batch_s or len(batch.people) >= self.tcfg.gift_batch_names

    @staticmethod
    def _join_names(names: list[str], limit: int) -> str:
        shown = names[:limit]
        if len(names) > limit:
            return "、".join(shown) + f"等{len(names)}位朋友"
        if len(shown) == 1:
            return shown[0]
        return "、".join(shown[:-1]) + "和" + shown[-1]

    def _gift_line(self, now: float) -> Line:
        batch = self._gifts
        assert batch is not None
        self._gifts = None
        totals: dict[str, int] = {}
        for gifts in batch.people.values():
            for g, c in gifts.items():
                totals[g] = totals.get(g, 0) + c
        top = sorted(totals, key=lambda g: -totals[g])[:2]
        names = list(batch.people)
        text = self.tcfg.thanks_gifts.format(names=self._join_names(names, self.tcfg.gift_batch_names),
                                             gifts="和".join(top) if top else "礼物")
        return TriagedLine(text=text, source=LineSource.THANKS, priority=int(self.tcfg.priorities.gift),
                           deadline_mono=batch.started + self.tcfg.deadlines.gift, created_mono=now,
                           kind="gift", count=batch.events, names=tuple(names[:20]))

    def _follow_line(self, now: float) -> Line:
        batch = self._follows
        assert batch is not None
        self._follows = None
        names = list(batch.people)
        text = self.tcfg.thanks_follow.format(names=self._join_names(names, self.tcfg.gift_batch_names))
        return TriagedLine(text=text, source=LineSource.THANKS, priority=int(self.tcfg.priorities.follow),
                           deadline_mono=batch.started + self.tcfg.deadlines.follow, created_mono=now,
                           kind="follow", count=batch.events, names=tuple(names[:20]))

    # -- operator ---------------------------------------------------------------------------------------

    def say(self, text: str) -> Line:
        """An operator line: jumps the queue (the brain still moderates it)."""
        now = self.clock()
        line = TriagedLine(text=text.strip(), source=LineSource.OPERATOR, priority=self.cfg.operator.priority,
                           deadline_mono=now + self.tcfg.deadlines.operator, created_mono=now, kind="operator")
        if len(self._operator) >= self.cfg.operator.queue_max:
            self._operator.popleft()
            self._drop("operator_overflow")
        self._operator.append(line)
        self._wake()
        return line

    # -- handing out lines ------------------------------------------------------------------------------

    def urgent_waiting(self) -> bool:
        """True when something better than the talk track waits (the stage may cut a script line short)."""
        now = self.clock()
        return bool(self._operator) or any(it.deadline >= now for it in self._queue) or self._batch_ready(self._gifts, now)

    def line_done(self, line: Line) -> None:
        """Optional hint from the stage: the line finished (or was cut). The stage is idle now only when it
        was the last line handed out: the next one may already be playing back to back."""
        self._script_out.pop(line.id, None)
        if line.id == self._last_handed and not self._script_out:
            self._busy_until = min(self._busy_until, self.clock())

    def _est_s(self, text: str) -> float:
        return len(text) / self.cfg.talk.chars_per_s + 0.3

    def _handed(self, line: Line, now: float) -> Line:
        # An answer is longer than the question it answers: assume a few seconds at least.
        est = self._est_s(line.text)
        if line.source == LineSource.ANSWER:
            est = max(est, 5.0)
        self._busy_until = max(self._busy_until, now) + est
        self._last_handed = line.id
        return line

    def pick(self) -> Line | None:
        """The best line right now, or None (non-blocking)."""
        now = self.clock()
        while self._operator:
            line = self._operator.popleft()
            if line.deadline_mono >= now:
                return self._handed(line, now)
            self._drop("stale")
        self._purge_stale(now)
        best = max(self._queue, key=_Item.rank, default=None)
        gifts_ready = self._batch_ready(self._gifts, now)
        if gifts_ready and (best is None or best.priority < self.tcfg.priorities.gift):
            return self._handed(self._gift_line(now), now)
        if best is not None:
            self._remove(best)
            if best.key:
                self._answered[best.key] = now
                self._answered.move_to_end(best.key)
                while len(self._answered) > 1000:
                    self._answered.popitem(last=False)
            line = TriagedLine(text=best.text, source=best.source, event=best.event, priority=int(best.priority),
                               deadline_mono=best.deadline, created_mono=best.first_mono,
                               banner=self._banner(best), kind=best.kind, count=best.count,
                               names=tuple(best.names))
            return self._handed(line, now)
        if self._batch_ready(self._follows, now):
            return self._handed(self._follow_line(now), now)
        return self._script(now)

    def _banner(self, item: _Item) -> str:
        who = item.names[0] if item.names else ""
        more = f" 等{item.count}人" if item.count > 1 else ""
        return f"{who}{more}：{item.text}" if who else item.text

    def _script(self, now: float) -> Line | None:
        if self.talk is None or self._gifts is not None or self._follows is not None:
            return None
        self._script_out = {k: end for k, end in self._script_out.items() if end > now}
        if len(self._script_out) >= self.cfg.talk.max_ahead:
            return None
        if now < self._busy_until + self.cfg.talk.gap_s:
            return None  # the stage is (estimated) still speaking: no script line queues up behind it
        got = self.talk.next(now, self.wall_clock().time())
        if got is None:
            return None
        segment, text = got
        line = TriagedLine(text=text, source=LineSource.SCRIPT, priority=0,
                           deadline_mono=now + self.cfg.triage.deadlines.script, created_mono=now,
                           kind="script", segment=segment)
        self._handed(line, now)
        self._script_out[line.id] = self._busy_until
        return line

    def _next_timer(self, now: float) -> float:
        """Seconds until something time-based may produce a line (gift batch, script)."""
        waits = [0.5]
        for batch in (self._gifts, self._follows):
            if batch is not None:
                waits.append(batch.started + self.tcfg.gift_batch_s - now)
        if self.talk is not None:
            waits.append(self._busy_until + self.cfg.talk.gap_s - now)
        return max(0.005, min(waits))

    async def next_line(self, timeout: float | None = None) -> Line | None:
        """Waits up to timeout seconds (forever when None) for the best line; None when nothing came."""
        if self._wakeup is None:
            self._wakeup = asyncio.Event()
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while True:
            line = self.pick()
            if line is not None:
                return line
            remaining = None if end is None else end - loop.time()
            if remaining is not None and remaining <= 0:
                return None
            wait = self._next_timer(self.clock())
            if remaining is not None:
                wait = min(wait, remaining)
            self._wakeup.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), wait)

    # -- console ----------------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """What the operator console shows: queue, held comments, recent chat with verdicts, drop counts."""
        now = self.clock()
        queue = sorted(self._queue, key=_Item.rank, reverse=True)
        return {
            "room": self.room,
            "queue": [
                {
                    "kind": it.kind,
                    "text": it.text,
                    "count": it.count,
                    "names": list(it.names),
                    "priority": it.rank()[0],
                    "age_s": round(now - it.first_mono, 2),
                    "expires_in_s": round(it.deadline - now, 2),
                }
                for it in queue
            ],
            "operator": [line.text for line in self._operator],
            "gift_batch": None if self._gifts is None else {
                "people": list(self._gifts.people), "events": self._gifts.events,
                "value_cny": round(self._gifts.value, 2), "age_s": round(now - self._gifts.started, 2),
            },
            "recent": list(self._recent),
            "drops": dict(self.drops),
            "script_outstanding": len(self._script_out),
        }

"""The Director: a room's chat in, the next line to say out; operator lines and the talk track.

`offer(event)` is synchronous and cheap (microseconds): `triage` decides what the event asks for,
the queue merges near-duplicates and keeps the best lines, `Thanks` batches gifts and follows. Every
event that will not get its own line is counted by reason (metrics DROPS and `snapshot()["drops"]`).

`pick()` / `next_line()` hand out the best line now: operator lines first, then (in a products room) the
first line of a product's turn when a switch is due, then the best of queued answers and thanks and the
ready gift batch, dropping lines whose deadline has passed; when nothing waits and `Pacing` says the stage
is idle, a talk-track line (with the product on screen as its Scene: desk.py).

All times come from the injected clock (`fps_clock`), so tests drive hours of chat in milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from broadcaster import metrics
from broadcaster.brain.moderation import Moderator
from broadcaster.director.config import DirectorConfig
from broadcaster.director.desk import ProductDesk
from broadcaster.director.pacing import Pacing
from broadcaster.director.queue import Item, LineQueue
from broadcaster.director.talk import TalkTrack
from broadcaster.director.thanks import Thanks
from broadcaster.director.triage import (
    SEEN_IDS,
    Candidate,
    Drop,
    Dropped,
    RateLimiter,
    SafeNames,
    Thank,
    TriagedLine,
    Withdraw,
    sc_id,
    triage,
)
from broadcaster.lines import Line, LineKind, LineSource
from common.bounded import BoundedDict
from danmaku.event import Event, EventKind

log = logging.getLogger(__name__)

# Enum members offer() compares on every event, looked up once (a class attribute lookup costs more than the test).
_MODERATION, _RATE_LIMIT, _GIFT_BATCHED, _FOLLOW_BATCHED, _MERGED, _RECENTLY_ANSWERED = (
    Drop.MODERATION, Drop.RATE_LIMIT, Drop.GIFT_BATCHED, Drop.FOLLOW_BATCHED, Drop.MERGED, Drop.RECENTLY_ANSWERED)
_GUARD, _GIFT, _SUPER_CHAT = LineKind.GUARD, LineKind.GIFT, LineKind.SUPER_CHAT
_COMMENTS = frozenset({EventKind.COMMENT, EventKind.SUPER_CHAT, EventKind.VOICE})  # a viewer's words


class Director:
    def __init__(self, room: str, cfg: DirectorConfig, moderator: Moderator, *,
                 fps_clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], dt.datetime] = dt.datetime.now) -> None:
        self.room = room
        self.cfg = cfg
        self.tcfg = tcfg = cfg.triage
        self.clock = fps_clock
        self.wall_clock = wall_clock
        self.moderator = moderator
        self.queue = LineQueue(tcfg.queue_max, merge_similarity=tcfg.merge_similarity,
                               merge_window_s=tcfg.merge_window_s, on_drop=self._drop, on_gone=self._gone)
        self.pacing = Pacing(cfg.talk)
        self.seen_ids: BoundedDict[str, None] = BoundedDict(SEEN_IDS)
        self.rates = RateLimiter(tcfg.user_burst, tcfg.user_rate_per_min, tcfg.max_tracked_users)
        self.names = SafeNames(moderator)
        self.withdrawn: BoundedDict[str, None] = BoundedDict(SEEN_IDS)  # super chats the platform deleted
        self._operator: deque[Line] = deque()
        self._recent: deque[dict[str, Any]] = deque(maxlen=tcfg.recent_chat)
        self.drops: dict[str, int] = {}
        self._drop_metric: dict[Drop, tuple[str, Any]] = {}  # reason → (its name, its DROPS child)
        self._depth = metrics.QUEUE_DEPTH.labels(room)
        self._wakeup: asyncio.Event | None = None
        # Called with (event, verdict) for every comment moderation blocked: the room writes it to the audit log.
        self.on_blocked: Callable[[Event, str], None] | None = None
        # Called with (event, why) for every other viewer's comment that gets no line of its own (too short, rate
        # limited, merged into another, stale …): the room writes that to the audit log too.
        self.on_silent: Callable[[Event, str], None] | None = None
        products = bool(cfg.products.items)
        # A products room says how much material its track has with each product's own lines in the loop.
        self.talk: TalkTrack | None = TalkTrack.for_room(cfg.talk, room=room, moderator=moderator, warn=not products)
        self.products: ProductDesk | None = None
        if products:
            if self.talk is None:  # the products' own talk, with no room lines between
                self.talk = TalkTrack([], dict(cfg.talk.variables), window_s=cfg.talk.repeat_window_s,
                                      seed=cfg.talk.seed, room=room)
                self.talk.moderator = moderator
            self.products = ProductDesk(cfg.products, self.talk, clock=fps_clock)
            self.talk.log_material(cfg.talk, self.products.scenes())
        self.thanks = Thanks(tcfg, self.talk)

    # -- bookkeeping ------------------------------------------------------------------------------------

    def _drop(self, reason: Drop, n: int = 1) -> None:
        slot = self._drop_metric.get(reason)
        if slot is None:
            slot = self._drop_metric[reason] = (reason.value, metrics.DROPS.labels(self.room, reason.value))
        name, child = slot
        self.drops[name] = self.drops.get(name, 0) + n
        child.inc(n)

    def _silent(self, event: Event, why: str) -> None:
        if self.on_silent is not None:
            self.on_silent(event, why)

    def _gone(self, item: Item, reason: Drop) -> None:
        if item.event is not None and item.event.kind in _COMMENTS:
            self._silent(item.event, reason.value)

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

    def wake(self) -> None:
        """Something outside chat changed what may be said next (the operator switched products): look again."""
        self._wake()

    def _push(self, c: Candidate, event: Event, now: float) -> None:
        if self.queue.push(c, event, now):
            self._wake()
        self._depth.set(len(self.queue))

    # -- chat in ----------------------------------------------------------------------------------------

    def offer(self, event: Event) -> None:
        """Takes one chat event; never blocks and never raises for bad input."""
        try:
            self._offer(event)
        except Exception:  # one odd event must not take the room down
            log.exception("room %s: triage failed for an event", self.room)
            self._drop(Drop.ERROR)

    def _offer(self, event: Event) -> None:
        now = self.clock()
        if self.talk is not None:
            self.talk.observe(event)  # the viewer count, the last gift: the talk's live slots
        got = triage(event, now, self.tcfg, self.moderator, self.seen_ids, self.rates, self.names, self.queue.has_room,
                     self.withdrawn)
        if type(got) is Withdraw:
            self._withdraw(got.ids)
            return
        if type(got) is Dropped:
            reason = got.reason
            if reason is _MODERATION:
                metrics.MODERATION_BLOCKS.labels(self.room, "input").inc()
                self._note(event, got.verdict, str(event.kind))
                if self.on_blocked is not None:
                    self.on_blocked(event, got.verdict)
            elif reason is _RATE_LIMIT:
                self._note(event, "rate limited", str(event.kind))
            if reason is not _MODERATION and event.kind in _COMMENTS:
                self._silent(event, reason.value)
            self._drop(reason)
        elif type(got) is Thank:
            if got.kind is _GUARD:
                self._push(self.thanks.guard(got), event, now)
            elif self.thanks.add(got, now):
                self._drop(_GIFT_BATCHED if got.kind is _GIFT else _FOLLOW_BATCHED)
        else:
            assert type(got) is Candidate
            self._note(event, "ok", str(got.kind))
            if got.kind is not _SUPER_CHAT:
                if self.queue.merge(got.key, got.name, now):
                    self._drop(_MERGED)
                    self._silent(event, "merged into a waiting question like it")
                    return
                if self.queue.recently_answered(got.key, now):
                    self._drop(_RECENTLY_ANSWERED)
                    self._silent(event, "recently answered")
                    return
            # A keyword or question rule's reply (already checked), drawn only for a comment that will be queued.
            reply = self.talk.reply(got, event, now) if self.talk is not None else None
            self._push(reply if reply is not None else got, event, now)

    def _withdraw(self, ids: tuple[str, ...]) -> None:
        """The platform deleted these super chats: a queued one is dropped, a later copy is never queued."""
        for i in ids:
            self.withdrawn[i] = None
        gone = self.queue.remove_where(lambda it: it.event is not None and sc_id(it.event) in ids)
        if gone:
            self._drop(Drop.WITHDRAWN, gone)
            self._depth.set(len(self.queue))

    def is_withdrawn(self, line: Line) -> bool:
        """True when the line answers a super chat the platform has since deleted (the room stops voicing it)."""
        return line.event is not None and bool(sc_id(line.event)) and sc_id(line.event) in self.withdrawn

    # -- operator ---------------------------------------------------------------------------------------

    def say(self, text: str) -> Line:
        """An operator line: jumps the queue (the brain still moderates it)."""
        now = self.clock()
        line = TriagedLine(text=text.strip(), source=LineSource.OPERATOR, priority=self.cfg.operator.priority,
                           deadline_mono=now + self.tcfg.deadlines.operator, created_mono=now,
                           kind=LineKind.OPERATOR)
        if len(self._operator) >= self.cfg.operator.queue_max:
            self._operator.popleft()
            self._drop(Drop.OPERATOR_OVERFLOW)
        self._operator.append(line)
        self._wake()
        return line

    # -- lines out --------------------------------------------------------------------------------------

    def urgent_waiting(self) -> bool:
        """True when something better than the talk track waits (the stage may cut a script line short)."""
        now = self.clock()
        return bool(self._operator) or self.queue.live(now) or self.thanks.gifts_ready(now)

    def line_done(self, line: Line) -> None:
        """Optional hint from the stage: the line finished (or was cut)."""
        self.pacing.line_done(line, self.clock())

    def pick(self) -> Line | None:
        """The best line right now, or None (non-blocking)."""
        now = self.clock()
        line = self._pick(now)
        if line is not None:
            self.pacing.handed(line, now)
        self._depth.set(len(self.queue))
        return line

    def _pick(self, now: float) -> Line | None:
        while self._operator:
            line = self._operator.popleft()
            if line.deadline_mono >= now:
                return line
            self._drop(Drop.STALE)
        if self.products is not None and self.products.switch(now):
            # A switch is due: the first line of the new product's turn goes now, at this line boundary.
            line = self.products.line(now, self.wall_clock().time(), self.tcfg.deadlines.script,
                                      self.cfg.operator.priority)
            if line is not None:
                return line
        self.queue.purge_stale(now)
        best = self.queue.best()
        if self.thanks.gifts_ready(now) and (best is None or best.priority < self.tcfg.priorities.gift):
            return self.thanks.gift_line(now)
        if best is not None:
            return self.queue.take(best, now)
        if self.thanks.follows_ready(now):
            return self.thanks.follow_line(now)
        return self._script(now)

    def _script(self, now: float) -> Line | None:
        if self.talk is None or self.thanks.open or not self.pacing.script_due(now):
            return None
        if self.products is not None:
            return self.products.line(now, self.wall_clock().time(), self.tcfg.deadlines.script)
        got = self.talk.next(now, self.wall_clock().time())
        if got is None:
            return None
        segment, text = got
        return TriagedLine(text=text, source=LineSource.SCRIPT, priority=0,
                           deadline_mono=now + self.tcfg.deadlines.script, created_mono=now,
                           kind=LineKind.SCRIPT, segment=segment)

    def _next_timer(self, now: float) -> float:
        """Seconds until something time-based may produce a line (a batch's window, the talk track)."""
        waits = [0.5, *self.thanks.due_in(now)]
        if self.talk is not None:
            waits.append(self.pacing.due_in(now))
        if self.products is not None:
            waits.append(self.products.due_in(now))
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
        """What the operator console shows: queue, operator lines, recent chat with verdicts, drop counts."""
        now = self.clock()
        snap = {
            "room": self.room,
            "queue": self.queue.rows(now),
            "operator": [line.text for line in self._operator],
            "gift_batch": self.thanks.snapshot(now),
            "recent": list(self._recent),
            "drops": dict(self.drops),
            "script_outstanding": self.pacing.outstanding,
        }
        if self.talk is not None:
            snap["talk"] = self.talk.snapshot(now)
        if self.products is not None:
            snap["products"] = self.products.view()
        return snap

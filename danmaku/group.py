"""A source group: several feeds of one room, delivered from the best healthy one, failing over and back.

Every member runs all the time (a hot standby): while the active member fails, the others keep reading, so a
switch loses nothing. Standby events wait in a short buffer; on a switch the new member's buffered events are
replayed, less those the old member already delivered. The feeds carry different message and user ids (the
Bilibili web feed has uids, the open platform open_ids), so "already delivered" is judged by a cross-feed
fingerprint: kind, normalized text (or gift and count, or guard level), the user's name (a masked web name such
as 观*** matches 观众乙), within `dedup_window_s` of each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import unicodedata
from collections import deque
from dataclasses import dataclass

from common.bounded import BoundedDict
from danmaku import metrics
from danmaku.config import GroupSource
from danmaku.event import Event, EventKind
from danmaku.source import Source, SourceHealth

log = logging.getLogger("danmaku")

# How often the group looks at its members' health (switch timing is a multiple of this at worst).
_TICK_S = 0.05


def _norm(text: str) -> str:
    # Full-width/half-width and case differences between feeds must not hide a duplicate.
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def fingerprint(ev: Event) -> str | None:
    """What two feeds agree on for the same real event (no ids: each platform API has its own), or None
    for events that are never deduplicated across feeds."""
    kind = ev.kind
    if kind in (EventKind.COMMENT, EventKind.SUPER_CHAT):
        body = _norm(ev.text)
    elif kind == EventKind.GIFT:
        body = f"{_norm(str(ev.extra.get('gift_name', '')))}x{ev.extra.get('count', '')}"
    elif kind == EventKind.GUARD:
        body = f"{ev.extra.get('guard_level', '')}x{ev.extra.get('count', '')}"
    elif kind in (EventKind.ENTER, EventKind.FOLLOW, EventKind.LIKE):
        body = ""
    elif kind == EventKind.SYSTEM:
        body = f"{ev.extra.get('type', '')}:{_norm(ev.text)}"
    else:
        return None
    return f"{kind.value}|{body}"


def same_user(a: str, b: str) -> bool:
    """Names equal once normalized, or one masked by the platform (观***) and the other starting alike."""
    a, b = _norm(a), _norm(b)
    if a == b:
        return True
    if "*" in a or "*" in b:
        pa, pb = a.split("*", 1)[0], b.split("*", 1)[0]
        if "*" in a and "*" in b:
            return pa == pb
        prefix, full = (pa, b) if "*" in a else (pb, a)
        return bool(prefix) and full.startswith(prefix)
    return False


@dataclass(slots=True)
class _Delivered:
    member: int
    name: str
    mono: float


class SourceGroup(Source):
    """A Source whose events come from the highest-priority healthy member (see the module docstring)."""

    platform = "group"

    def __init__(self, cfg: GroupSource, room_id: str, members: list[Source]):
        super().__init__(cfg, room_id)
        self.cfg: GroupSource = cfg
        self.members = members
        self.active = 0
        self.switches = 0
        self.cross_feed_duplicates = 0
        n = len(members)
        retention = max(cfg.switch_after_s, cfg.stale_after_s or 0.0) + cfg.dedup_window_s
        self._retention_s = retention
        self._buffers: list[deque[Event]] = [deque(maxlen=cfg.queue_max) for _ in range(n)]
        self._delivered: BoundedDict[str, list[_Delivered]] = BoundedDict(8192)
        now = time.monotonic()
        self._started = now
        self._down_since: list[float | None] = [now] * n  # nobody is up before connecting
        self._up_since: list[float | None] = [None] * n
        self._pumps: list[asyncio.Task[None]] = []
        self._m_active = [metrics.SOURCE_ACTIVE.labels(room_id, self.name, m.name) for m in members]
        self._m_dups = metrics.SOURCE_CROSS_FEED_DUPLICATES.labels(room_id, self.name)
        for i, m in enumerate(members):
            self._m_active[i].set(1 if i == 0 else 0)
            m.add_health_listener(lambda _h: self._notify())

    # ------------------------------------------------------------------ health

    def health(self) -> SourceHealth:
        hs = tuple(m.health() for m in self.members)
        a = hs[self.active]
        errors: dict[str, int] = {}
        for h in hs:
            for k, v in h.decode_errors.items():
                errors[k] = errors.get(k, 0) + v
        return SourceHealth(
            name=self.name,
            connected=a.connected,
            last_message_age_s=a.last_message_age_s,
            reconnects=sum(h.reconnects for h in hs),
            decode_errors=errors,
            silent=a.silent,
            last_warning=self._last_warning or a.last_warning,
            unknown_commands=sum(h.unknown_commands for h in hs),
            dropped_events=self._dropped + sum(h.dropped_events for h in hs),
            endpoint=a.endpoint,
            active=self.members[self.active].name,
            members=hs,
        )

    def _is_up(self) -> bool:
        return self.members[self.active].health().healthy

    # ------------------------------------------------------------------ the loop

    async def _session(self) -> None:
        if not self._pumps:
            self._pumps = [asyncio.create_task(self._pump(i, m), name=f"danmaku-{self.room}-{m.name}")
                           for i, m in enumerate(self.members)]
        while True:
            self._evaluate(time.monotonic())
            await asyncio.sleep(_TICK_S)

    async def _pump(self, i: int, member: Source) -> None:
        async for ev in member.events():
            if i == self.active:
                self._deliver(i, ev)
            elif ev.kind != EventKind.SYSTEM:  # room counters and states: the next active sends fresh ones
                buf = self._buffers[i]
                buf.append(ev)
                cutoff = time.monotonic() - self._retention_s
                while buf and buf[0].received_mono < cutoff:
                    buf.popleft()

    def _up(self, i: int, healths: list[SourceHealth], now: float) -> tuple[bool, str]:
        """Whether member i is fit to deliver, and if not, why."""
        h = healths[i]
        if not h.connected:
            return False, "down"
        if h.silent:
            return False, "silent"
        stale = self.cfg.stale_after_s
        if stale is not None and self._age(h, now) > stale and any(
            j != i and healths[j].connected and self._age(healths[j], now) <= stale for j in range(len(healths))
        ):
            return False, "stale"
        return True, ""

    def _age(self, h: SourceHealth, now: float) -> float:
        return h.last_message_age_s if h.last_message_age_s is not None else now - self._started

    def _evaluate(self, now: float) -> None:
        healths = [m.health() for m in self.members]
        states = [self._up(i, healths, now) for i in range(len(self.members))]
        for i, (up, _) in enumerate(states):
            if up:
                self._down_since[i] = None
                if self._up_since[i] is None:
                    self._up_since[i] = now
            else:
                self._up_since[i] = None
                if self._down_since[i] is None:
                    self._down_since[i] = now
        a = self.active
        self._set_connected(healths[a].connected)
        up_a, why = states[a]
        if not up_a:
            since = self._down_since[a]
            # A stale member has already been given stale_after_s; a dropped one gets switch_after_s to reconnect.
            if why == "stale" or (since is not None and now - since >= self.cfg.switch_after_s):
                for j, (up, _) in enumerate(states):
                    if up and j != a:
                        self._switch(j, why)
                        return
            return
        for j in range(a):
            since = self._up_since[j]
            if states[j][0] and since is not None and now - since >= self.cfg.recover_after_s:
                self._switch(j, "recovered")
                return

    def _switch(self, j: int, reason: str) -> None:
        old, new = self.members[self.active], self.members[j]
        self.active = j
        self.switches += 1
        metrics.SOURCE_SWITCHES.labels(self.room, self.name, new.name, reason).inc()
        for i, g in enumerate(self._m_active):
            g.set(1 if i == j else 0)
        message = f"switched from {old.name} ({reason}) to {new.name}"
        if j == 0:
            log.warning("%s/%s: %s", self.room, self.name, message)
            self._last_warning = ""
            self._notify()
        else:
            self._warn(message, until_recovery=False)
        # The new member's recent events: what the old one missed goes out now, the rest is a duplicate.
        buf = self._buffers[j]
        while buf:
            self._deliver(j, buf.popleft())

    def _deliver(self, i: int, ev: Event) -> None:
        fp = fingerprint(ev)
        if fp is not None:
            name = ev.user.name if ev.user is not None else ""
            window = self.cfg.dedup_window_s
            seen = self._delivered.get(fp)
            if seen is not None:
                seen[:] = [d for d in seen if ev.received_mono - d.mono <= self._retention_s]
                for k, d in enumerate(seen):
                    # Only another feed's copy is a duplicate: one viewer may well send "666" twice.
                    if d.member != i and abs(ev.received_mono - d.mono) <= window and same_user(d.name, name):
                        del seen[k]  # each delivered event absorbs one copy
                        self.cross_feed_duplicates += 1
                        self._m_dups.inc()
                        return
            else:
                seen = self._delivered[fp] = []
            seen.append(_Delivered(i, name, ev.received_mono))
        self._touch()
        self._emit(ev)

    # ------------------------------------------------------------------ stopping

    async def _drain(self) -> None:
        # Members stop first (the open platform's `end` call, final combos), and their last events still flow.
        await asyncio.gather(*(m.stop() for m in self.members), return_exceptions=True)
        if self._pumps:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*self._pumps, return_exceptions=True), 5.0)

    async def _on_stop(self) -> None:
        for t in self._pumps:
            t.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        await asyncio.gather(*(m.stop() for m in self.members), return_exceptions=True)

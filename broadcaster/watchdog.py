"""The systemd watchdog task: READY once every room is on air, WATCHDOG pings only while every media clock ticks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from broadcaster import metrics
from broadcaster.sdnotify import Notifier, watchdog_interval

log = logging.getLogger(__name__)

STALL_AFTER_S = 5.0
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class _Room(Protocol):
    id: str

    def status(self) -> dict[str, Any]: ...

    def clock_age(self) -> float: ...


class _Daemon(Protocol):
    rooms: Mapping[str, _Room]


def resident_memory_bytes() -> int:
    """Current RSS from /proc (cheap, no dependency); falls back to the peak RSS elsewhere."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def update_process_metrics(rooms: Mapping[str, Any] | None = None) -> None:
    """The service's resident memory: the daemon's own plus every room worker's (rooms run in workers)."""
    workers = sum(int(r.rss_bytes()) for r in (rooms or {}).values() if hasattr(r, "rss_bytes"))
    metrics.PROCESS_RSS.set(resident_memory_bytes() + workers)


@dataclass(frozen=True, slots=True)
class Health:
    """One look at every room: which are on air, which clocks have stalled, which are off air."""

    rooms: int
    on_air: tuple[str, ...]
    stalled: tuple[tuple[str, float], ...]  # (room id, seconds since its clock last ticked)
    off_air: tuple[str, ...] = ()
    restarting: tuple[str, ...] = ()  # rooms whose worker the supervisor is starting again

    @property
    def healthy(self) -> bool:
        return self.rooms > 0 and len(self.on_air) == self.rooms

    @property
    def supervised(self) -> bool:
        """Every room on air or being restarted by the daemon's supervisor: the daemon is doing its job."""
        return self.rooms > 0 and len(self.on_air) + len(self.restarting) == self.rooms

    def describe(self) -> str:
        if self.rooms == 0:
            return "no rooms"
        if self.healthy:
            return f"{self.rooms} room{'s' if self.rooms != 1 else ''} on air"
        parts = [f"{len(self.on_air)}/{self.rooms} rooms on air"]
        parts += [f"{rid} stalled {age:.1f}s" for rid, age in self.stalled]
        parts += [f"{rid} restarting" for rid in self.restarting]
        parts += [f"{rid} off air" for rid in self.off_air]
        return "; ".join(parts)


def check_rooms(rooms: Mapping[str, _Room], stall_after_s: float) -> Health:
    on_air: list[str] = []
    stalled: list[tuple[str, float]] = []
    off_air: list[str] = []
    restarting: list[str] = []
    for room_id, room in list(rooms.items()):
        try:
            age = float(room.clock_age())
            status = room.status()
            live = bool(status.get("on_air"))
        except Exception:  # a room that cannot even report counts as stalled, not as a crash here
            log.exception("room %s failed to report its health", room_id)
            stalled.append((room_id, float("inf")))
            continue
        if status.get("restarting"):
            restarting.append(room_id)
        elif not live:
            off_air.append(room_id)
        elif age >= stall_after_s:
            stalled.append((room_id, age))
        else:
            on_air.append(room_id)
    return Health(len(rooms), tuple(on_air), tuple(stalled), tuple(off_air), tuple(restarting))


class Watchdog:
    """Drives sd_notify from the rooms' media clocks.

    READY=1 is sent once, the first time every room is on air with a ticking clock. After that a
    WATCHDOG=1 ping goes out each interval only while every clock is ticking: a room whose clock
    stalls for `stall_after_s` stops the pings, so systemd (WatchdogSec) kills and restarts a
    daemon that is alive but no longer broadcasting. A room whose worker the supervisor is restarting
    does not stop them: that room is being mended alone, and killing the daemon would cut every other
    room. STATUS= follows every change of state.
    """

    def __init__(
        self,
        daemon: _Daemon,
        notifier: Notifier | None = None,
        *,
        stall_after_s: float | None = None,
        interval_s: float | None = None,
    ):
        self.daemon = daemon
        self.notifier = notifier if notifier is not None else Notifier()
        period = watchdog_interval()
        # A clock stalled for 5 s is stuck (a frame is 40 ms); with a shorter WatchdogSec, a stall as
        # long as the whole period already counts.
        if stall_after_s is None:
            stall_after_s = min(STALL_AFTER_S, period) if period else STALL_AFTER_S
        self.stall_after_s = stall_after_s
        # systemd recommends pinging at half the watchdog period; without one, still keep STATUS fresh.
        self.interval_s = interval_s if interval_s is not None else (period / 2 if period else 1.0)
        self.ready_sent = False
        self.pings = 0
        self.last_health: Health | None = None
        self._last_status = ""
        self._note = ""  # appended to every STATUS until cleared (e.g. a reload that did not fully apply)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Starts the background loop (returns at once; the first look happens right away)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="sd-watchdog")

    async def stop(self, status: str = "stopping") -> None:
        """Cancels the loop and tells systemd we are going down (before the rooms drain)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.notifier.stopping(status)

    def tick(self) -> Health:
        """One round: look at the rooms, send READY / WATCHDOG / STATUS as they call for."""
        update_process_metrics(self.daemon.rooms)
        health = check_rooms(self.daemon.rooms, self.stall_after_s)
        self.last_health = health
        status = health.describe() + (f"; {self._note}" if self._note else "")
        if not self.ready_sent:
            if health.healthy:
                self.ready_sent = self.notifier.ready(status) or not self.notifier.enabled
                self._last_status = status
                log.info("ready: %s", status)
            elif status != self._last_status:
                self.notifier.status(status)
                self._last_status = status
            return health
        if health.healthy or health.supervised:
            self.notifier.watchdog()
            self.pings += 1
        elif self._last_status != status:
            log.error("not every room is on air%s: %s", "" if health.supervised else ", withholding watchdog pings",
                      status)
        if status != self._last_status:
            self.notifier.status(status)
            self._last_status = status
        return health

    async def _run(self) -> None:
        while True:
            try:
                self.tick()
            except Exception:  # the watchdog must outlive any one bad look; missing pings is the signal
                log.exception("watchdog tick failed")
            await asyncio.sleep(self.interval_s)

    def reloading(self) -> None:
        self.notifier.reloading("reloading config")

    def reloaded(self, summary: str) -> None:
        # After RELOADING=1 systemd waits for READY=1 again.
        self.notifier.ready(summary)
        self._last_status = summary

    def note(self, text: str) -> None:
        """A standing remark for STATUS (the next tick sends it), or "" to clear it."""
        self._note = text

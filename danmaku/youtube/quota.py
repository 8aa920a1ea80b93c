"""The YouTube Data API's daily quota, paced: units spent per Pacific day and the poll interval that makes the
rest last the room's stream day.

The default project quota is 10,000 units a day and liveChatMessages.list costs 5: polling at the server's
suggested interval (a few seconds) would spend it in about three hours. So each poll waits at least
pollingIntervalMillis and at least (stream time left today) / (polls the units left allow). The day resets at
midnight Pacific time, as Google's does. What was spent is written to `state_file` (when set), so a restart
does not spend the day twice.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
from pathlib import Path

log = logging.getLogger("danmaku.youtube")

try:
    from zoneinfo import ZoneInfo

    PACIFIC: dt.tzinfo = ZoneInfo("America/Los_Angeles")
except Exception:  # no tz database in a slim image: standard time all year (off by an hour in summer)
    PACIFIC = dt.timezone(dt.timedelta(hours=-8))

RESERVE_UNITS = 10  # kept for the calls a session starts with (videos.list, liveBroadcasts.list: 1 each)
MIN_PACE_WINDOW_S = 60.0


def pacific_day(now: float) -> str:
    return dt.datetime.fromtimestamp(now, PACIFIC).date().isoformat()


def next_reset(now: float) -> float:
    """The Unix time of the next midnight Pacific."""
    local = dt.datetime.fromtimestamp(now, PACIFIC)
    tomorrow = (local + dt.timedelta(days=1)).date()
    return dt.datetime.combine(tomorrow, dt.time(0), PACIFIC).timestamp()


class QuotaBudget:
    def __init__(self, per_day: int, stream_hours: float, state_file: Path | None = None) -> None:
        self.per_day = per_day
        self.stream_s = stream_hours * 3600.0
        self.state_file = state_file
        self.day = ""
        self.spent = 0
        self.active_s = 0.0  # how long the source has polled today
        self._last_tick: float | None = None

    def _roll(self, now: float) -> None:
        day = pacific_day(now)
        if day != self.day:
            self.day, self.spent, self.active_s = day, 0, 0.0

    def tick(self, now: float) -> None:
        """Counts polling time toward today's stream day (call on every poll)."""
        self._roll(now)
        if self._last_tick is not None and 0 < now - self._last_tick < 3600:
            self.active_s += now - self._last_tick
        self._last_tick = now

    def pause(self) -> None:
        """The source stopped polling (quota wait, offline chat): that time is no stream time."""
        self._last_tick = None

    def spend(self, units: int, now: float) -> None:
        self._roll(now)
        self.spent += units

    def exhaust(self, now: float) -> None:
        """The API said quotaExceeded: whatever we counted, nothing is left today."""
        self._roll(now)
        self.spent = max(self.spent, self.per_day)

    def new_day(self, now: float) -> None:
        """The quota day reset (we waited for it): start counting again, whatever the calendar says."""
        self.day, self.spent, self.active_s = pacific_day(now), 0, 0.0
        self._last_tick = None

    def left(self, now: float) -> int:
        self._roll(now)
        return max(0, self.per_day - self.spent)

    def can_spend(self, units: int, now: float) -> bool:
        return self.left(now) >= units

    def interval(self, cost: int, server_s: float, now: float) -> float:
        """Seconds to wait before the next call of `cost` units; the time until the reset when none is left."""
        until_reset = next_reset(now) - now
        calls = (self.left(now) - RESERVE_UNITS) // cost
        if calls <= 0:
            return until_reset
        stream_left = self.stream_s - self.active_s
        window = until_reset if stream_left <= 0 else min(until_reset, stream_left)
        return max(server_s, max(window, MIN_PACE_WINDOW_S) / calls)

    # ------------------------------------------------------------ persistence (called off the event loop)

    def load(self) -> None:
        if self.state_file is None or not self.state_file.is_file():
            return
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
            day, spent, active = data["day"], int(data["spent"]), float(data.get("active_s", 0.0))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("youtube quota state %s unreadable (%s): counting today from 0", self.state_file, exc)
            return
        if day == pacific_day(time.time()):
            self.day, self.spent, self.active_s = day, spent, active

    def save(self) -> None:
        if self.state_file is None:
            return
        tmp = self.state_file.with_suffix(self.state_file.suffix + ".tmp")
        try:
            self.state_file.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"day": self.day, "spent": self.spent, "active_s": round(self.active_s, 1)}),
                           encoding="utf-8")
            os.replace(tmp, self.state_file)
        except OSError as exc:
            log.warning("youtube quota state %s not written: %s", self.state_file, exc)

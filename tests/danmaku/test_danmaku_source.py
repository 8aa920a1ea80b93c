"""Source plumbing: backoff with jitter and cap, decode errors logged once per burst, consumer walking away."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from danmaku.config import ReplaySource
from danmaku.event import Event, EventKind, User
from danmaku.source import DecodeErrors, Source


def test_decode_errors_counted_and_logged_once_per_burst(caplog: pytest.LogCaptureFixture) -> None:
    errs = DecodeErrors("room", "src")
    with caplog.at_level(logging.WARNING, logger="danmaku"):
        for _ in range(50):
            errs.add("truncated", "x")
        errs.add("json", "y")
    assert errs.counts == {"truncated": 50, "json": 1}
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "truncated" in lines[0] and "json" in lines[1]


class _Flood(Source):
    """Emits numbered events as fast as it can: drives the queue and the stop path."""

    async def _session(self) -> None:
        self._set_connected(True)
        i = 0
        while True:
            self._touch()
            self._emit(Event("test", self.room, EventKind.COMMENT, User("1", "u"), str(i)))
            i += 1
            if i % 100 == 0:
                await asyncio.sleep(0)


async def test_queue_drops_oldest_and_consumer_leaving_stops_the_source(tmp_path) -> None:
    cfg = ReplaySource.model_validate({"type": "replay", "path": str(tmp_path / "x"), "queue_max": 50})
    src = _Flood(cfg, "r")
    seen = []
    async with contextlib.aclosing(src.events()) as events:
        async for ev in events:
            seen.append(int(ev.text))
            await asyncio.sleep(0.001)  # a slow consumer
            if len(seen) == 20:
                break
    h = src.health()
    assert h.dropped_events > 0 and seen[-1] > 50  # old chat dropped, new chat kept
    assert src._stopping and not h.connected

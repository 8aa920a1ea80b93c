"""A real `virtual-anchor run` daemon, two rooms (each its own worker process) speaking their talk tracks through one
shared Piper service: kill -9 the service, it is restarted and serves again, and both recordings have no timestamp
gap and their workers never restarted (a sentence caught by the outage is said by the fallback voice)."""

from __future__ import annotations

import json
import os
import re
import signal
import urllib.request
from pathlib import Path

import pytest

from tests.chaos.chaos_support import Daemon, assert_no_gap, config, recordings, room
from tests.support.servers import wait_until
from tests.voice.tinymodels import build_tiny_piper_voice, require

require("piper")
require("onnx")


def _metric(text: str, name: str) -> float:
    """Sum of a metric's samples over its labels (there is one TTS service here)."""
    return sum(float(m.group(1)) for m in re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


def _pids(log: str) -> list[int]:
    """Service process ids in the order the daemon started them (its 'service … started (pid N' lines)."""
    out = []
    for line in log.splitlines():
        try:
            msg = json.loads(line).get("msg", "")
        except ValueError:
            continue
        m = re.match(r"service tts-\w+ started \(pid (\d+)", msg)
        if m:
            out.append(int(m.group(1)))
    return out


@pytest.mark.slow
def test_two_rooms_share_a_service_that_is_killed_and_comes_back(tmp_path: Path) -> None:
    model = build_tiny_piper_voice(tmp_path / "voice")
    voice = {"backend": "piper", "piper": {"model": str(model)}, "device": "cpu", "host_service": True,
             "cache": {"enabled": False}}  # every talk line goes to the service, not the utterance cache
    rooms = [room(tmp_path, rid, voice=voice) for rid in ("r1", "r2")]
    d = Daemon(tmp_path, config(tmp_path, rooms, services={"restart_backoff_s": 1.0, "stats_interval_s": 0.5}))
    url = f"http://127.0.0.1:{d.port}/metrics"

    def scrape() -> str:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()

    d.start()
    try:
        assert wait_until(d.ready, 120), d.logs()[-3000:]
        assert wait_until(lambda: _metric(scrape(), "va_service_requests_total") >= 4, 60), "rooms speak via it"
        (first,) = _pids(d.logs())
        os.kill(first, signal.SIGKILL)
        assert wait_until(lambda: len(_pids(d.logs())) == 2, 60), d.logs()[-3000:]
        assert wait_until(lambda: _metric(scrape(), "va_service_up") == 1, 60)
        served = _metric(scrape(), "va_service_requests_total")
        assert wait_until(lambda: _metric(scrape(), "va_service_requests_total") >= served + 4, 60), \
            "the restarted service speaks for the rooms again"
        text = scrape()
        assert _metric(text, "va_service_restarts_total") == 1
        assert d.stop() == 0
    finally:
        d.kill()
    for rid in ("r1", "r2"):
        files = recordings(tmp_path, rid)
        assert len(files) == 1, f"room {rid}'s worker restarted: {files}"
        assert_no_gap(files[0], min_seconds=3.0)

"""The real daemon under a real NOTIFY_SOCKET: READY once on air, WATCHDOG only while every clock ticks."""

from __future__ import annotations

import pytest
from ops_support import DaemonThread, small_room, wait_for, write_config

from broadcaster import faults


@pytest.fixture
def watched(monkeypatch, notify_socket):
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket.env_value)
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")  # 1 s: pings every 0.5 s, a 1 s stall counts
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    return notify_socket


def _kinds(messages):
    return [k for m in messages for k in m if k != "STATUS"]


def test_ready_then_pings_that_stop_while_a_clock_is_stalled(watched, tmp_path):
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("a", []), small_room("b", [])],
                       workers="inline")  # faults armed in this process; a worker's hang: tests/scale
    d = DaemonThread(cfg)
    d.start()
    try:
        first = watched.collect(1.6)
        ready = [m for m in first if m.get("READY") == "1"]
        assert len(ready) == 1 and ready[0]["STATUS"] == "2 rooms on air"
        # READY comes before any ping, and only once both rooms' clocks were running
        kinds = _kinds(first)
        assert kinds.index("READY") < kinds.index("WATCHDOG") and kinds.count("WATCHDOG") >= 2

        faults.arm(faults.CLOCK_HANG, room="b")
        stalled = wait_for(lambda: [m for m in watched.messages() if "stalled" in m.get("STATUS", "")], 5)
        assert stalled and stalled[0]["STATUS"].startswith("1/2 rooms on air; b stalled ")
        quiet = watched.collect(2.0)
        assert "WATCHDOG" not in _kinds(quiet), "no pings while room b's clock is stalled"
        assert d.room("a").clock_age() < 0.5, "room a kept running"

        faults.disarm(faults.CLOCK_HANG)
        back = watched.collect(2.0)
        assert _kinds(back).count("WATCHDOG") >= 2, "pings resume once the clock ticks again"
        assert any(m.get("STATUS") == "2 rooms on air" for m in back)
    finally:
        faults.disarm()
        d.stop()
    assert {"STOPPING": "1", "STATUS": "stopping"} in watched.messages(timeout=2.0)


def test_no_ready_while_a_room_is_not_on_air(watched, tmp_path):
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("a", [])], workers="inline")
    d = DaemonThread(cfg)
    d.start()
    try:
        assert any(m.get("READY") == "1" for m in watched.collect(1.0))
        # A room whose clock thread has ended is not on air: the daemon reports it and stops pinging.
        clock = d.room("a").clock
        clock.stop()
        clock.join(5)
        after = watched.collect(1.5)
        assert "WATCHDOG" not in _kinds(after[1:])
        assert {"STATUS": "0/1 rooms on air; a off air"} in after
    finally:
        d.stop()

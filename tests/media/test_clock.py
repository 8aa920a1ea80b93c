"""The media clock under injected faults: a hang stops the ticks (what the watchdog sees), a failing render
repeats the last frame with timestamps intact, a crash is recorded instead of vanishing."""

from __future__ import annotations

import time

import pytest

from broadcaster import faults
from broadcaster.clock import MediaClock
from broadcaster.config import AudioConfig, VideoConfig
from broadcaster.output.encoder import Encoder
from broadcaster.stage import Stage
from broadcaster.watchdog import check_rooms
from tests.support.media import CardAvatar

W, H, FPS = 160, 96, 25


@pytest.fixture(autouse=True)
def _clean_faults():
    faults.disarm()
    yield
    faults.disarm()


def _clock(room: str) -> MediaClock:
    video = VideoConfig(width=W, height=H, fps=FPS, bitrate_kbps=200, preset="ultrafast")
    return MediaClock(room, Stage(FPS, 44100), CardAvatar(W, H), Encoder(video, AudioConfig()), [], paced=True)


class _Room:
    def __init__(self, clock: MediaClock) -> None:
        self.clock = clock

    def clock_age(self) -> float:
        return self.clock.age()

    def status(self) -> dict:
        return {"on_air": self.clock.running}


def _wait(pred, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def test_clock_hang_stops_ticks_for_that_room_only_and_the_watchdog_sees_it() -> None:
    hung, fine = _clock("hung"), _clock("fine")
    hung.start()
    fine.start()
    try:
        assert _wait(lambda: hung.frames > 5 and fine.frames > 5)
        faults.arm(faults.CLOCK_HANG, room="hung")
        time.sleep(0.2)
        frozen = hung.frames
        time.sleep(1.2)
        assert hung.frames == frozen and fine.frames > frozen
        health = check_rooms({"hung": _Room(hung), "fine": _Room(fine)}, stall_after_s=1.0)
        assert [rid for rid, _ in health.stalled] == ["hung"]
        faults.disarm(faults.CLOCK_HANG)
        assert _wait(lambda: hung.frames > frozen + 5), "ticks resume when the fault is lifted"
    finally:
        for c in (hung, fine):
            c.stop()
            c.join(3)


def test_render_error_repeats_the_last_frame_and_keeps_timestamps() -> None:
    clock = _clock("render")
    clock.start()
    try:
        assert _wait(lambda: clock.frames > 3)
        faults.arm(faults.RENDER_ERROR, room="render")
        assert _wait(lambda: clock.render_errors > 10)
        assert clock.running and clock.encoder.audio_samples / 44100 == pytest.approx(clock.frames / FPS, abs=1 / FPS)
    finally:
        clock.stop()
        clock.join(3)


def test_clock_crash_is_recorded_and_the_thread_ends() -> None:
    clock = _clock("crash")
    faults.arm(faults.CLOCK_CRASH, room="crash", after_s=0.2)
    clock.start()
    assert _wait(lambda: not clock.running)
    assert isinstance(clock.error, faults.FaultInjected) and clock.frames > 0


def test_faults_from_the_environment() -> None:
    faults.arm_from_env("clock.hang@r1+5, render.error")
    assert faults.armed and not faults.fires(faults.CLOCK_HANG, "r1")  # not yet: +5 s
    assert faults.fires(faults.RENDER_ERROR, "any-room")
    with pytest.raises(ValueError, match="VA_FAULTS"):
        faults.arm_from_env("clock.melt")

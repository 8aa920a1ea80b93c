"""The media clock: one thread per room that ticks at the output fps, renders, encodes and feeds the sinks."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import numpy as np

from broadcaster import faults, metrics
from broadcaster.output.encoder import EncodedPacket, Encoder
from broadcaster.output.sinks import Sink
from broadcaster.stage import Stage
from renderer.base import Avatar, FrameState

log = logging.getLogger(__name__)

# Render only when the clock is at most this many frames behind; later than that the last picture is
# repeated (cheap) so the stream keeps its timestamps and catches up.
LATE_FRAMES = 1


class MediaClock:
    """Frame n is due at t0 + n/fps. Timestamps come from n alone, never from wall-clock reads."""

    def __init__(
        self,
        room: str,
        stage: Stage,
        avatar: Avatar,
        encoder: Encoder,
        sinks: list[Sink],
        *,
        paced: bool = True,
        on_packets: Callable[[int, list[EncodedPacket]], None] | None = None,
    ):
        self.room = room
        self.stage, self.avatar, self.encoder, self.sinks = stage, avatar, encoder, sinks
        self.fps = stage.fps
        self.paced = paced
        self.on_packets = on_packets
        self.frames = 0
        self.late_frames = 0
        self.render_errors = 0
        self.last_tick = time.monotonic()
        self.last_frame: np.ndarray | None = None
        self._stop = threading.Event()
        self._stop_after_sentence = threading.Event()
        self._drain_deadline = float("inf")
        self._thread = threading.Thread(target=self._run, name=f"clock-{room}", daemon=True)
        self.error: BaseException | None = None
        self._m_frames = metrics.FRAMES.labels(room)
        self._m_late = metrics.LATE_FRAMES.labels(room)
        self._m_render = metrics.RENDER_SECONDS.labels(room)
        self._m_encode = metrics.ENCODE_SECONDS.labels(room)
        self._m_lag = metrics.CLOCK_LAG.labels(room)
        self._m_tick = metrics.CLOCK_LAST_TICK.labels(room)
        self._m_offset = metrics.AV_OFFSET.labels(room)
        # The compositor's double-buffered render (reuses what did not change) where the avatar has one: the
        # frame it returns stays intact while the next is drawn, which is all last_frame needs.
        self._render: Callable[[FrameState], np.ndarray] = getattr(avatar, "render_next", avatar.render)

    def start(self) -> None:
        self._thread.start()

    def stop(self, *, finish_sentence: bool = False, grace_s: float = 5.0) -> None:
        """Stops ticking; with finish_sentence, first lets the utterance being spoken end (≤ grace_s)."""
        if finish_sentence:
            self.stage.clear()
            self._drain_deadline = time.monotonic() + grace_s
            self._stop_after_sentence.set()
        else:
            self._stop.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def age(self) -> float:
        """Seconds since the last tick: a stalled clock shows here (and stops the watchdog pings)."""
        return time.monotonic() - self.last_tick

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # the room supervisor restarts us; never die silently
            self.error = exc
            log.exception("room %s: media clock crashed", self.room)

    def _loop(self) -> None:
        frame_s = 1.0 / self.fps
        t0 = time.monotonic()
        n = 0
        while not self._stop.is_set():
            if faults.armed:
                self._injected_faults()
            if self._stop_after_sentence.is_set() and (
                not self.stage.speaking or time.monotonic() > self._drain_deadline
            ):
                break
            state, audio = self.stage.tick(n)
            now = time.monotonic()
            lag = now - (t0 + n * frame_s) if self.paced else 0.0
            if self.last_frame is not None and lag > LATE_FRAMES * frame_s:
                frame = self.last_frame
                self.late_frames += 1
                self._m_late.inc()
            else:
                try:
                    if faults.armed and faults.fires(faults.RENDER_ERROR, self.room):
                        raise faults.FaultInjected(faults.RENDER_ERROR)
                    frame = self._render(state)
                except Exception:
                    if self.last_frame is None:
                        raise
                    # One bad frame must not take the room off air: show the last good one, say so.
                    self.render_errors += 1
                    if self.render_errors in (1, 10, 100) or self.render_errors % 1000 == 0:
                        log.exception("room %s: render failed (%d so far); repeating the last frame",
                                      self.room, self.render_errors)
                    frame = self.last_frame
                self._m_render.observe(time.monotonic() - now)
            t_enc = time.monotonic()
            packets = self.encoder.encode(n, frame, audio)
            self._m_encode.observe(time.monotonic() - t_enc)
            for sink in self.sinks:
                sink.put(packets)
            if self.on_packets is not None:
                self.on_packets(n, packets)
            self.last_frame = frame
            n += 1
            self.frames = n
            self.last_tick = time.monotonic()
            self._m_frames.inc()
            self._m_tick.set(time.time())
            self._m_lag.set(max(0.0, lag))
            self._m_offset.set(self.encoder.audio_samples / self.encoder.sample_rate - n * frame_s)
            if self.paced:
                delay = t0 + n * frame_s - time.monotonic()
                if delay > 0:
                    self._stop.wait(delay)
        tail = self.encoder.flush()
        for sink in self.sinks:
            sink.put(tail)
        if self.on_packets is not None:
            self.on_packets(n, tail)

    def _injected_faults(self) -> None:
        while faults.fires(faults.CLOCK_HANG, self.room) and not self._stop.is_set():
            time.sleep(0.05)  # hung: no tick, no frame, no packet — what the watchdog and supervisor must see
        if faults.fires(faults.CLOCK_CRASH, self.room):
            raise faults.FaultInjected(faults.CLOCK_CRASH)

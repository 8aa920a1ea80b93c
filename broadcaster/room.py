"""A room on air: avatar, stage, media clock, encoder and sinks, plus the asyncio side that feeds the stage."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path

import cv2

from broadcaster import metrics
from broadcaster.clock import MediaClock
from broadcaster.config import RoomConfig
from broadcaster.lines import Utterance
from broadcaster.output.encoder import Encoder
from broadcaster.output.sinks import Sink, build_sinks
from broadcaster.stage import Stage, StageEvent
from renderer.base import Avatar

log = logging.getLogger(__name__)


class Room:
    """Owns one room's media path; its Show (sources → director → brain → voice) pushes what is said."""

    def __init__(self, cfg: RoomConfig, *, base_dir: Path | None = None, paced: bool = True,
                 avatar: Avatar | None = None, with_voice: bool = True):
        self.cfg = cfg
        self.id = cfg.id
        self.base_dir = base_dir or Path.cwd()
        self.paced = paced
        self._avatar = avatar
        self._with_voice = with_voice
        self.stage = Stage(cfg.video.fps, cfg.audio.sample_rate, on_event=self._on_stage_event)
        self.encoder: Encoder | None = None
        self.sinks: list[Sink] = []
        self.clock: MediaClock | None = None
        self.voice = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._line_done: dict[int, asyncio.Future] = {}
        self._stage_listeners: list[Callable[[StageEvent], None]] = []
        self._utt_watch: dict[int, tuple[int, Callable[[str, float], None]]] = {}
        self._sample_watches: list[tuple[int, Callable[[str, float], None]]] = []  # clock thread only
        self.show = None
        self.started_at = 0.0
        self.spoken_lines = 0

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        cfg = self.cfg
        if self._avatar is None:
            from renderer.factory import build_avatar

            self._avatar = await asyncio.to_thread(
                build_avatar, cfg.avatar, cfg.video.width, cfg.video.height, cfg.video.fps, base_dir=self.base_dir
            )
        self.encoder = Encoder(cfg.video, cfg.audio)
        self.sinks = build_sinks(cfg.id, cfg.outputs, self.encoder)
        self.clock = MediaClock(cfg.id, self.stage, self._avatar, self.encoder, self.sinks, paced=self.paced,
                                on_packets=self._on_packets)
        if self._with_voice:
            self.voice = await self._build_voice()
            from broadcaster.show import Show

            self.show = Show(self, base_dir=self.base_dir)
        for sink in self.sinks:
            sink.start()
        self.clock.start()
        self.started_at = time.monotonic()
        metrics.ROOMS_ON_AIR.inc()
        if self.show is not None:
            await self.show.start()
        log.info("room %s on air: %dx%d@%d, %d output(s)", cfg.id, cfg.video.width, cfg.video.height,
                 cfg.video.fps, len(self.sinks))

    async def _build_voice(self):
        from broadcaster.voice import voice_for_room

        voice = voice_for_room(self.cfg)
        await voice.start()
        return voice

    async def stop(self, grace_s: float = 5.0) -> None:
        """Finishes the sentence being spoken (≤ grace_s), ends every stream cleanly and closes files."""
        if self.show is not None:
            await self.show.stop()
        if self.clock is not None:
            self.clock.stop(finish_sentence=True, grace_s=grace_s)
            await asyncio.to_thread(self.clock.join, grace_s + 2.0)
            if self.clock.running:
                self.clock.stop()
                await asyncio.to_thread(self.clock.join, 2.0)
            metrics.ROOMS_ON_AIR.dec()
        if self.show is not None:
            await self.show.close()
        await asyncio.gather(*(asyncio.to_thread(s.close, 3.0) for s in self.sinks))
        if self.encoder is not None:
            self.encoder.close()
        if self.voice is not None:
            await self.voice.close()
        log.info("room %s off air", self.id)

    # -- content --------------------------------------------------------------------------------
    def push(self, utterance: Utterance) -> None:
        if utterance.last and self._loop is not None:
            self._line_done.setdefault(utterance.line.id, self._loop.create_future())
        prepare = getattr(self._avatar, "prepare", None)
        if prepare is not None and self._loop is not None:
            # Draw its caption off the clock thread, so the frame that first shows it is not late.
            self._loop.run_in_executor(None, prepare, utterance.text, utterance.line.banner)
        self.stage.push(utterance)
        metrics.STAGE_QUEUE.labels(self.id).set(len(self.stage.queued()))

    async def wait_spoken(self, line_id: int, timeout: float | None = None) -> bool:
        assert self._loop is not None
        fut = self._line_done.setdefault(line_id, self._loop.create_future())
        try:
            await asyncio.wait_for(asyncio.shield(fut), timeout)
            return True
        except TimeoutError:
            return False

    def add_stage_listener(self, fn: Callable[[StageEvent], None]) -> None:
        """fn runs on the event loop for every stage start/end event."""
        self._stage_listeners.append(fn)

    def watch_utterance_audio(self, utt: Utterance, onset: int, callback: Callable[[str, float], None]) -> None:
        """callback(sink name, monotonic time) on the event loop when the packet holding sample `onset` of
        utt is handed to each sink: the end of the latency trail."""
        self._utt_watch[id(utt)] = (onset, callback)

    def _on_packets(self, n: int, packets) -> None:  # media clock thread
        if not self._sample_watches:
            return
        for pkt in packets:
            if pkt.video:
                continue
            end = pkt.pts + pkt.duration
            due = [w for w in self._sample_watches if w[0] < end]
            if not due:
                continue
            self._sample_watches = [w for w in self._sample_watches if w[0] >= end]
            now = time.monotonic()
            for _, callback in due:
                for sink in self.sinks:
                    self._loop.call_soon_threadsafe(callback, sink.name, now)

    def _on_stage_event(self, event: StageEvent) -> None:  # media clock thread
        if event.kind == "start":
            watch = self._utt_watch.pop(id(event.utterance), None)
            if watch is not None:
                self._sample_watches.append((event.sample + watch[0], watch[1]))
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._dispatch_stage_event, event)

    def _dispatch_stage_event(self, event: StageEvent) -> None:
        metrics.SPEAKING.labels(self.id).set(1 if event.kind == "start" else 0)
        if event.kind == "end" and event.utterance.last:
            self.spoken_lines += 1
            fut = self._line_done.pop(event.utterance.line.id, None)
            if fut is not None and not fut.done():
                fut.set_result(event.frame)
        for fn in self._stage_listeners:
            try:
                fn(event)
            except Exception:
                log.exception("room %s: stage listener failed", self.id)

    # -- operator -------------------------------------------------------------------------------
    def say(self, text: str) -> dict:
        if self.show is None:
            raise RuntimeError(f"room {self.id} has no voice: it cannot say anything")
        return self.show.say(text)

    def interrupt_line(self, line_id: int | None = None) -> int:
        """Cuts a line (the one being spoken if None) at the next sentence boundary; returns sentences cut."""
        dropped = self.stage.interrupt_line(line_id)
        for utt in dropped:
            self._utt_watch.pop(id(utt), None)
            fut = self._line_done.pop(utt.line.id, None) if utt.last else None
            if fut is not None and not fut.done():
                fut.set_result(-1)
        return len(dropped)

    def skip(self) -> int:
        return self.show.skip() if self.show is not None else self.interrupt_line()

    def pause(self) -> None:
        self.stage.pause()

    def resume(self) -> None:
        self.stage.resume()

    # -- observation ----------------------------------------------------------------------------
    def clock_age(self) -> float:
        return self.clock.age() if self.clock is not None else float("inf")

    def snapshot_jpeg(self, quality: int = 70) -> bytes | None:
        frame = self.clock.last_frame if self.clock is not None else None
        if frame is None:
            return None
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return buf.tobytes() if ok else None

    def recent_chat(self) -> list[dict]:
        return self.show.director.snapshot().get("recent", []) if self.show is not None else []

    def status(self) -> dict:
        current = self.stage.current
        return {
            "id": self.id,
            "on_air": bool(self.clock and self.clock.running),
            "frames": self.clock.frames if self.clock else 0,
            "late_frames": self.clock.late_frames if self.clock else 0,
            "clock_age_s": round(self.clock_age(), 3),
            "speaking": current is not None,
            "current": current.text if current else "",
            "paused": self.stage.paused,
            "queue": [{"line": u.line.id, "text": u.text, "source": u.line.source.value} for u in self.stage.queued()],
            "spoken_lines": self.spoken_lines,
            "sinks": [s.status() for s in self.sinks],
            "sources": [s.health().to_json() for s in self.show.sources] if self.show is not None else [],
            "director": self.show.status() if self.show is not None else None,
        }

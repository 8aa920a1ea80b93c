"""A room on air: composes the media path (avatar, stage, clock, encoder, sinks) and the Show beside it."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import cv2

from broadcaster import metrics
from broadcaster.clock import MediaClock
from broadcaster.config import RoomConfig
from broadcaster.output.encoder import Encoder
from broadcaster.output.sinks import Sink, build_sinks
from broadcaster.show import Show
from broadcaster.stage import Stage, StageEvent, StageEventKind
from broadcaster.stage_port import StagePort
from renderer.base import Avatar

log = logging.getLogger(__name__)


class Room:
    """Owns one room's media path and its Show (sources → director → brain → voice), which it starts and stops.

    Media calls flow down only: the Show reaches the stage through the StagePort and never sees the room.
    """

    def __init__(self, cfg: RoomConfig, *, paced: bool = True, avatar: Avatar | None = None,
                 with_voice: bool = True, state_dir: Path | None = None):
        self.cfg = cfg
        self.id = cfg.id
        self.paced = paced
        self.state_dir = state_dir
        self._avatar = avatar
        self._with_voice = with_voice
        self.encoder: Encoder | None = None
        self.sinks: list[Sink] = []
        self.stage = Stage(cfg.video.fps, cfg.audio.sample_rate, on_event=lambda ev: self.port.on_stage_event(ev))
        self.port = StagePort(self.stage, lambda: self._avatar, lambda: self.sinks)
        self.clock: MediaClock | None = None
        self.voice = None
        self.show: Show | None = None
        self.started_at = 0.0
        self.spoken_lines = 0
        self.port.subscribe(self._count)

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self.port.bind(asyncio.get_running_loop())
        cfg = self.cfg
        if self._avatar is None:
            from renderer.factory import build_avatar

            self._avatar = await asyncio.to_thread(
                build_avatar, cfg.avatar, cfg.video.width, cfg.video.height, cfg.video.fps
            )
        self.encoder = Encoder(cfg.video, cfg.audio)
        self.sinks = build_sinks(cfg.id, cfg.outputs, self.encoder)
        self.clock = MediaClock(cfg.id, self.stage, self._avatar, self.encoder, self.sinks, paced=self.paced,
                                on_packets=self.port.on_packets)
        if self._with_voice:
            from broadcaster.voice import voice_for_room

            self.voice = voice_for_room(cfg)
            await self.voice.start()
            self.show = Show(cfg, self.port, self.voice)
        for sink in self.sinks:
            sink.start()
        self.clock.start()
        self.started_at = time.monotonic()
        metrics.ROOMS_ON_AIR.inc()
        if self.show is not None:
            await self.show.start()
        log.info("room %s on air: %dx%d@%d, %d output(s)", cfg.id, cfg.video.width, cfg.video.height,
                 cfg.video.fps, len(self.sinks))

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

    def _count(self, event: StageEvent) -> None:
        if event.kind == StageEventKind.START:
            metrics.SPEAKING.labels(self.id).set(1)
        elif event.kind == StageEventKind.END:
            metrics.SPEAKING.labels(self.id).set(0)
        elif event.played:
            self.spoken_lines += 1
        metrics.STAGE_QUEUE.labels(self.id).set(len(self.stage.queued()))

    # -- operator -------------------------------------------------------------------------------
    def say(self, text: str) -> dict:
        if self.show is None:
            raise RuntimeError(f"room {self.id} has no voice: it cannot say anything")
        return self.show.say(text)

    def skip(self) -> int:
        return self.show.skip() if self.show is not None else self.port.interrupt()

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
        return self.show.recent_chat() if self.show is not None else []

    def status(self) -> dict:
        current = self.stage.current
        show = self.show.status() if self.show is not None else None
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
            "sources": show["sources"] if show is not None else [],
            "director": show,
        }

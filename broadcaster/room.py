"""A room on air: composes the media path (avatar, stage, clock, encoder, sinks) and the Show beside it.

A room goes on air in two steps so a reload can hand over without a dead air gap: `prepare()` does everything
that can fail or take long (avatar loaded and a frame rendered, encoder opened, outputs parsed, voice and
brain started) while nothing is published; `go_live()` starts the sinks, the media clock and the show.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

import cv2

from broadcaster import faults, metrics
from broadcaster.clock import MediaClock
from broadcaster.config import RoomConfig
from broadcaster.output.encoder import Encoder
from broadcaster.output.sinks import Sink, build_sinks
from broadcaster.show import Show
from broadcaster.stage import Stage, StageEvent, StageEventKind
from broadcaster.stage_port import StagePort
from renderer.base import Avatar, FrameState

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
        self._voice = None
        self.show: Show | None = None
        self.face = None  # FaceLink of a neural avatar (broadcaster.services.face)
        self.started_at = 0.0
        self.spoken_lines = 0
        self.live = False  # sinks and clock started (go_live); a prepared room publishes nothing
        self._prepared = False
        self._media_stopped = False
        self.port.subscribe(self._count)

    @property
    def voice(self):
        """The voice the show speaks with now (a content reload may have swapped it)."""
        return self.show.voice if self.show is not None else self._voice

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        await self.prepare()
        await self.go_live()

    async def prepare(self) -> None:
        """Everything that can fail or take long before going on air; publishes and records nothing. On an
        error, what was built is closed again and the error raised."""
        self.port.bind(asyncio.get_running_loop())
        cfg = self.cfg
        try:
            if faults.armed and faults.fires(faults.ROOM_PREPARE_ERROR, cfg.id):
                raise faults.FaultInjected(f"{faults.ROOM_PREPARE_ERROR} (injected)")
            if self._avatar is None:
                from renderer.factory import build_avatar

                # The state dir keeps the portrait's detected landmarks (keyed by the photo's hash) across runs.
                self._avatar = await asyncio.to_thread(
                    build_avatar, cfg.avatar, cfg.video.width, cfg.video.height, cfg.video.fps,
                    cache_dir=self.state_dir,
                )
            # Warm: the first frame pays for lazy loads (fonts, portrait mesh), and a broken avatar fails here.
            await asyncio.to_thread(self._avatar.render, FrameState(n=0, fps=cfg.video.fps))
            figure = getattr(self._avatar, "figure", None)
            if cfg.avatar.kind == "neural" and hasattr(figure, "use_fallback"):
                from broadcaster.services.face import FaceLink

                # The host's face service draws its speech; the stage may hold a start for its first frames.
                self.face = FaceLink(cfg.id, figure, cfg.avatar, self.stage)
                await self.face.start()
                self.stage.set_gate(self.face.ready, self.face.hold_frames)
                self.port.face = self.face
            self.encoder = Encoder(cfg.video, cfg.audio)
            self.sinks = build_sinks(cfg.id, cfg.outputs, self.encoder)
            self.clock = MediaClock(cfg.id, self.stage, self._avatar, self.encoder, self.sinks, paced=self.paced,
                                    on_packets=self.port.on_packets)
            if self._with_voice:
                from broadcaster.voice import voice_for_room

                self._voice = voice_for_room(cfg)
                await self._voice.start()
                self.show = Show(cfg, self.port, self._voice)
                await self.show.prepare()
        except BaseException:
            await self.discard()
            raise
        self._prepared = True

    async def go_live(self) -> None:
        """Starts publishing: sinks, media clock (its first frame a keyframe), then the show."""
        if not self._prepared:
            await self.prepare()
        cfg = self.cfg
        for sink in self.sinks:
            sink.start()
        assert self.clock is not None
        self.clock.start()
        self.live = True
        self.started_at = time.monotonic()
        metrics.ROOMS_ON_AIR.inc()
        if self.show is not None:
            await self.show.start()
        log.info("room %s on air: %dx%d@%d, %d output(s)", cfg.id, cfg.video.width, cfg.video.height,
                 cfg.video.fps, len(self.sinks))

    async def discard(self) -> None:
        """Closes a room that was prepared (fully or in part) but never went on air."""
        with contextlib.suppress(Exception):
            if self.show is not None:
                await self.show.close()
        with contextlib.suppress(Exception):
            if self._voice is not None:
                await self._voice.close()
        if self.encoder is not None:
            self.encoder.close()
        await self._close_face()
        self.show = None
        self._voice = None

    async def apply(self, cfg: RoomConfig) -> list[str]:
        """A content-only change, applied inside the running room (see Show.apply); the media path is
        untouched. Returns the sections applied."""
        if self.show is None:
            self.cfg = cfg
            return []
        changed = await self.show.apply(cfg)
        self.cfg = cfg
        return changed

    async def stop(self, grace_s: float = 5.0) -> None:
        """Finishes the sentence being spoken (≤ grace_s), ends every stream cleanly and closes files."""
        await self.stop_media(grace_s)
        await self.close_content()

    async def stop_media(self, grace_s: float = 5.0) -> None:
        """Stops taking chat, lets the sentence end (≤ grace_s), stops the clock and closes every sink: from
        here this room publishes and writes nothing, so a successor may take the stream keys and files."""
        if self._media_stopped:
            return
        self._media_stopped = True
        if self.show is not None:
            await self.show.stop()
        if self.clock is not None and self.live:
            self.clock.stop(finish_sentence=True, grace_s=grace_s)
            await asyncio.to_thread(self.clock.join, grace_s + 2.0)
            if self.clock.running:
                self.clock.stop()
                await asyncio.to_thread(self.clock.join, 2.0)
            metrics.ROOMS_ON_AIR.dec()
        if self.live:
            await asyncio.gather(*(asyncio.to_thread(s.close, 3.0) for s in self.sinks))
        if self.encoder is not None:
            self.encoder.close()

    async def close_content(self) -> None:
        """After stop_media: audits what was heard of unfinished lines, closes brain, audit log and voice."""
        if self.show is not None:
            await self.show.close()
        voice = self.voice
        if voice is not None:
            await voice.close()
        await self._close_face()
        log.info("room %s off air", self.id)

    async def _close_face(self) -> None:
        face, self.face = self.face, None
        if face is not None:
            self.port.face = None
            self.stage.set_gate(None, 0)
            await face.close()

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

    def product(self, action: str, args: dict) -> dict:
        """An operator's product action (present, next, start_offer, stop_offer, stock, view)."""
        if self.show is None:
            raise ValueError(f"room {self.id} has no voice: it presents no products")
        return self.show.product(action, args)

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
            "products": show.get("products") if show is not None else None,
        }

"""NeuralAvatar: the `neural` avatar kind's figure — the source's idle loop, model-drawn utterances, the portrait as fallback.

It sits inside renderer.factory.CompositeAvatar like the portrait (background and overlays around it)
and needs no torch: model crops arrive through `deliver` (from a face service, or from `speak`, which
runs a FaceModel in-process) and are pasted back here through the source frame's jaw mask. Every frame
of an utterance is the model's (its pauses too); frames between utterances show the source loop (played
forward then backward). An utterance marked with
`use_fallback` is drawn, all of it, by the CPU portrait avatar of the same source, placed identically,
so a style switch can only happen between utterances.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from renderer.base import FrameState
from renderer.idle import Pose
from renderer.neural.audio import frame_count, is_pause
from renderer.neural.infer import FaceItem, compose
from renderer.neural.prepare import PreparedSource

if TYPE_CHECKING:
    from renderer.neural.infer import FaceModel, UtteranceFeatures
    from renderer.portrait import PortraitFigure


@dataclass(frozen=True, slots=True)
class FramePlan:
    """One stage frame of an utterance that the model must draw: the stage frame number and the model's item."""

    n: int
    item: FaceItem


def plan_utterance(
    prepared: PreparedSource, start_n: int, features: UtteranceFeatures, fps: int
) -> list[FramePlan]:
    """The model requests of an utterance starting at stage frame `start_n`: every frame, each with the source frame
    the room's idle loop shows then (the model redraws that frame's mouth). The face service calls this with the
    PreparedSource it registered and the features it computed; the room gets back (n, crop) pairs."""
    return [
        FramePlan(start_n + k, FaceItem(prepared.key, prepared.source.loop_index(start_n + k, fps), w))
        for k, w in enumerate(features.windows)
    ]


class NeuralAvatar:
    """The neural figure of one room (a renderer.factory.Figure): render_into draws stage frame n."""

    def __init__(self, prepared: PreparedSource, fallback: PortraitFigure, fps: int, keep_s: float = 2.0):
        self.prepared = prepared
        self.source = prepared.source
        self.geometry = prepared.geometry
        self.fallback = fallback
        self.fps = fps
        # Where the portrait puts the photo: the same place, so a switch never jumps.
        self.rect = fallback.rect
        self.covers_canvas = fallback.covers_canvas
        s = fallback.photo_scale
        # The portrait's crop offset of the scaled photo, read back from its landmarks (lm = photo_lm * s - offset).
        chin_photo, chin_work = fallback.photo_landmarks.p("chin"), fallback.lm.p("chin")
        self._offset = (
            round(float(chin_photo[0]) * s - float(chin_work[0])),
            round(float(chin_photo[1]) * s - float(chin_work[1])),
        )
        h, w = self.source.frames[0].shape[:2]
        self._scaled = (max(1, round(w * s)), max(1, round(h * s)))
        self._interp = cv2.INTER_AREA if s < 1 else (cv2.INTER_LANCZOS4 if s > 1.5 else cv2.INTER_CUBIC)
        self._crops: dict[int, np.ndarray] = {}  # stage frame -> model crop (256x256 BGR)
        self._planned: set[int] = set()  # stage frames sent to the model (the frames of neural utterances)
        self._last: np.ndarray | None = None  # the last crop drawn, held for a planned frame that is late
        self.late_frames = 0  # planned frames drawn before their crop came (the previous crop held)
        self._fallback: list[tuple[int, int]] = []  # [start, end) stage frames drawn by the portrait
        self._lock = threading.Lock()
        self._keep = max(1, round(keep_s * fps))
        self._idle_cache: tuple[int, np.ndarray] | None = None
        self._work = np.empty((h, w, 3), np.uint8)

    @property
    def key(self) -> str:
        """The source key a FaceModel knows this source's latents by (FaceModel.register)."""
        return self.prepared.key

    # -- the speech frames -------------------------------------------------------------------------

    def expect(self, start_n: int, frames: int) -> None:
        """An utterance of `frames` frames from stage frame `start_n` is going to the model: each will get a crop,
        and holds the previous mouth if its crop is late."""
        with self._lock:
            self._planned.update(range(start_n, start_n + frames))

    def plan(self, start_n: int, features: UtteranceFeatures) -> list[FramePlan]:
        """In-process: `expect` the utterance and return its model requests (plan_utterance)."""
        self.expect(start_n, len(features))
        return plan_utterance(self.prepared, start_n, features, self.fps)

    def deliver(self, n: int, crop: np.ndarray) -> None:
        """A model crop for stage frame n (thread-safe; from the service's answer or from `speak`)."""
        with self._lock:
            self._crops[n] = crop

    def has_frames(self, start_n: int, count: int = 1) -> bool:
        """Are the expected frames among stage frames [start_n, start_n + count) all delivered? The stage's
        hold-the-start check; frames no utterance sent to the model need no crop."""
        with self._lock:
            return all(n in self._crops for n in range(start_n, start_n + count) if n in self._planned)

    def use_fallback(self, start_n: int, frames: int) -> None:
        """Draw stage frames [start_n, start_n + frames) with the portrait (the whole utterance, never half of one)."""
        with self._lock:
            self._fallback.append((start_n, start_n + frames))
            for n in range(start_n, start_n + frames):
                self._crops.pop(n, None)
                self._planned.discard(n)

    def speak(self, model: FaceModel, start_n: int, pcm: np.ndarray, sample_rate: int) -> int:
        """In-process: audio features, one batched run, crops delivered (none for a pause: the idle loop draws it).
        Returns the utterance's frame count."""
        if is_pause(pcm, sample_rate, self.fps):
            return frame_count(len(pcm), sample_rate, self.fps)
        features = model.audio_features(pcm, sample_rate, self.fps)
        plans = self.plan(start_n, features)
        for p, crop in zip(plans, model.run_batch([p.item for p in plans]), strict=True):
            self.deliver(p.n, crop)
        return len(features)

    # -- drawing ----------------------------------------------------------------------------------

    def _forget_before(self, n: int) -> None:
        """Drop what frames already drawn needed (called under the lock about once a second)."""
        self._fallback = [r for r in self._fallback if r[1] > n]
        for old in [k for k in self._crops if k < n]:
            del self._crops[old]
        self._planned = {k for k in self._planned if k >= n}

    def _pick(self, n: int) -> tuple[bool, np.ndarray | None]:
        """(draw with the portrait?, the crop to paste or None for the idle frame) for stage frame n."""
        with self._lock:
            if n % self.fps == 0:
                self._forget_before(n - self._keep)
            if any(a <= n < b for a, b in self._fallback):
                return True, None
            crop = self._crops.get(n)
            if crop is None and n in self._planned and self._last is not None:
                # A frame whose crop is late: hold the previous mouth rather than flash the idle one.
                self.late_frames += 1
                crop = self._last
            if crop is not None:
                self._last = crop
            elif n not in self._planned:
                self._last = None
            return False, crop

    def _place(self, frame: np.ndarray) -> np.ndarray:
        sw, sh = self._scaled
        ox, oy = self._offset
        _, _, rw, rh = self.rect
        placed = cv2.resize(frame, (sw, sh), interpolation=self._interp)
        return placed[oy : oy + rh, ox : ox + rw]

    def render_into(self, canvas: np.ndarray, state: FrameState, pose: Pose) -> None:
        n = state.n
        fallback, crop = self._pick(n)
        if fallback:
            self.fallback.render_into(canvas, state, pose)
            return
        i = self.source.loop_index(n, self.fps)
        if crop is not None:
            np.copyto(self._work, self.source.frames[i])
            compose(self._work, crop, self.geometry.box(i), self.geometry.masks[i])
            placed = self._place(self._work)
        else:
            if self._idle_cache is None or self._idle_cache[0] != i:
                self._idle_cache = (i, self._place(self.source.frames[i]))
            placed = self._idle_cache[1]
        rx, ry, rw, rh = self.rect
        ch, cw = canvas.shape[:2]
        x0, y0 = max(rx, 0), max(ry, 0)
        x1, y1 = min(rx + rw, cw), min(ry + rh, ch)
        np.copyto(canvas[y0:y1, x0:x1], placed[y0 - ry : y1 - ry, x0 - rx : x1 - rx])


def fallback_photo(prepared: PreparedSource, cache_dir: Path | None) -> Path:
    """The photo the portrait fallback is built from: the source itself, or a video's first frame saved as PNG."""
    src = prepared.source
    if len(src.frames) == 1:
        return src.path
    folder = (cache_dir / "neural-face") if cache_dir is not None else Path(tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{src.sha256[:24]}-first.png"
    if not path.is_file():
        cv2.imwrite(str(path), src.frames[0])
    return path

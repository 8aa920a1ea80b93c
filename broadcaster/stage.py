"""The stage: what frame n shows and sounds like — utterances back to back on frame boundaries, idle between."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from broadcaster.lines import Utterance
from renderer.base import FrameState, Viseme


@dataclass(frozen=True, slots=True)
class StageEvent:
    kind: str  # "start" (first frame of an utterance) or "end" (its last frame was emitted)
    utterance: Utterance
    frame: int  # the frame index it started on / ended on
    sample: int  # the stage sample index of that frame's first sample


class Stage:
    """Thread-safe: the asyncio side pushes utterances, the media clock thread calls tick(n) once per frame.

    Frame n always carries exactly samples_per_frame samples, so audio sample n*spf starts with video
    frame n: A/V offset is zero by construction and cannot drift.
    """

    def __init__(self, fps: int, sample_rate: int, on_event: Callable[[StageEvent], None] | None = None):
        if sample_rate % fps:
            raise ValueError(f"sample rate {sample_rate} is not a whole number of samples per frame at {fps} fps")
        self.fps = fps
        self.sample_rate = sample_rate
        self.spf = sample_rate // fps
        self._silence = np.zeros(self.spf, np.float32)
        self._silence.setflags(write=False)
        self._lock = threading.Lock()
        self._queue: deque[Utterance] = deque()
        self._current: Utterance | None = None
        self._started_at = 0
        self._last_n = -1
        self._paused = False
        self._on_event = on_event

    # -- asyncio side ---------------------------------------------------------------------------
    def push(self, utterance: Utterance) -> None:
        with self._lock:
            self._queue.append(utterance)

    def interrupt_line(self, line_id: int | None = None) -> list[Utterance]:
        """Drops the not-yet-started sentences of a line (the current one if None): cut at a sentence boundary.
        Returns what was dropped."""
        with self._lock:
            if line_id is None:
                if self._current is None:
                    return []
                line_id = self._current.line.id
            dropped = [u for u in self._queue if u.line.id == line_id]
            self._queue = deque(u for u in self._queue if u.line.id != line_id)
            return dropped

    def clear(self) -> int:
        with self._lock:
            dropped = len(self._queue)
            self._queue.clear()
            return dropped

    def pause(self) -> None:
        """Finish the sentence being spoken, then stay idle until resume()."""
        with self._lock:
            self._paused = True

    def resume(self) -> None:
        with self._lock:
            self._paused = False

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def speaking(self) -> bool:
        return self._current is not None

    @property
    def current(self) -> Utterance | None:
        return self._current

    def queued(self) -> list[Utterance]:
        with self._lock:
            return list(self._queue)

    def remaining_seconds(self) -> float:
        """Audio still to play: the rest of the current utterance plus everything queued."""
        with self._lock:
            samples = sum(u.pcm.shape[0] for u in self._queue)
            if self._current is not None:
                played = (self._last_n - self._started_at + 1) * self.spf
                samples += max(0, self._current.pcm.shape[0] - played)
        return samples / self.sample_rate

    def busy(self) -> bool:
        """True while something is being spoken or waits to be spoken."""
        with self._lock:
            return self._current is not None or bool(self._queue)

    # -- media clock side -----------------------------------------------------------------------
    def tick(self, n: int) -> tuple[FrameState, np.ndarray]:
        """The state and exactly spf audio samples (float32 mono) of frame n."""
        events: list[StageEvent] = []
        with self._lock:
            self._last_n = n
            utt = self._current
            if utt is None and self._queue and not self._paused:
                utt = self._current = self._queue.popleft()
                self._started_at = n
                events.append(StageEvent("start", utt, n, n * self.spf))
            if utt is None:
                state, audio = FrameState(n=n, fps=self.fps), self._silence
            else:
                k = n - self._started_at
                lo = k * self.spf
                audio = utt.pcm[lo : lo + self.spf]
                if audio.shape[0] < self.spf:
                    audio = np.concatenate([audio, np.zeros(self.spf - audio.shape[0], np.float32)])
                track = utt.mouth
                if k < len(track):
                    openness, viseme = float(track.openness[k]), Viseme(int(track.viseme[k]))
                else:
                    openness, viseme = 0.0, Viseme.CLOSED
                state = FrameState(
                    n=n,
                    fps=self.fps,
                    openness=openness,
                    viseme=viseme,
                    speaking=True,
                    subtitle=utt.text,
                    banner=utt.line.banner,
                )
                if lo + self.spf >= utt.pcm.shape[0]:
                    self._current = None
                    events.append(StageEvent("end", utt, n, n * self.spf))
        if self._on_event is not None:
            for event in events:
                self._on_event(event)
        return state, audio

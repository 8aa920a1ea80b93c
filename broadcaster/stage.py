"""The stage: what frame n shows and sounds like — utterances back to back on frame boundaries, idle between, and
the product card on screen."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from broadcaster.lines import Line, Utterance
from common.bounded import BoundedDict
from renderer.base import FrameState, Viseme

if TYPE_CHECKING:
    from renderer.card import Card

_NO_CARD = object()


class StageEventKind(StrEnum):
    START = "start"  # the first frame of an utterance
    END = "end"  # the last frame of an utterance was emitted
    LINE_END = "line_end"  # a line is over: every utterance pushed for it played or was cut, and no more come


@dataclass(frozen=True, slots=True)
class StageEvent:
    kind: StageEventKind
    line: Line
    frame: int  # the frame index it started on / ended on
    sample: int  # the stage sample index of that frame's first sample
    utterance: Utterance | None = None  # None for LINE_END
    cut: bool = False  # LINE_END: part of the line was dropped (skipped, interrupted, shut down)
    played: int = 0  # LINE_END: how many of its utterances were heard
    held: int = 0  # START: frames the start was held by the gate (waiting for its face frames)


@dataclass(slots=True)
class _LineState:
    line: Line
    outstanding: int = 0  # pushed and not yet over (queued or playing)
    played: int = 0
    closed: bool = False  # the producer said no more utterances come (end_line), or the line was cut
    cut: bool = False


class Stage:
    """Thread-safe: the asyncio side pushes utterances, the media clock thread calls tick(n) once per frame.

    Frame n always carries exactly samples_per_frame samples, so audio sample n*spf starts with video
    frame n: A/V offset is zero by construction and cannot drift.
    """

    def __init__(self, fps: int, sample_rate: int, on_event: Callable[[StageEvent], None] | None = None):
        """on_event runs on the media clock thread, for every START, END and LINE_END, in stage order."""
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
        # The stage alone decides when a line has ended (like a playback-finished signal): nobody else
        # re-derives it from sentence flags or queue contents.
        self._lines: dict[int, _LineState] = {}
        self._ended: list[_LineState] = []  # over, to announce at the next tick (in order, on the clock thread)
        self._over: BoundedDict[int, None] = BoundedDict(1024)  # ended lines: a late push of one is refused
        # The gate (set_gate): may the next utterance start now? Asked on the clock thread, under the lock.
        self._gate: Callable[[Utterance], bool] | None = None
        self._hold_frames = 0
        self._holding: tuple[int, int] | None = None  # (utterance id, frame its hold began)
        # The product card: on screen now, the one for the next frame, and those waiting for a line's first frame.
        self._card: Card | None = None
        self._card_next: object = _NO_CARD
        self._card_at: BoundedDict[int, Card | None] = BoundedDict(16)

    def set_gate(self, gate: Callable[[Utterance], bool] | None, hold_frames: int) -> None:
        """Lets `gate(utterance)` hold an utterance's start (idle frames meanwhile) for at most `hold_frames`
        frames, e.g. until its first neural face frames are there. The gate must be quick and never block."""
        with self._lock:
            self._gate, self._hold_frames = gate, max(0, hold_frames)

    # -- asyncio side ---------------------------------------------------------------------------
    def show_card(self, card: Card | None, line: Line | None = None) -> None:
        """Puts `card` on screen (None takes it off): on the first frame of `line`'s first utterance (or the frame
        its line ends on, should nothing of it play), else on the next frame. A later card for the same line
        replaces the one waiting."""
        with self._lock:
            if line is None:
                self._card_next = card
            elif line.id in self._over:
                self._card_next = card  # that line is already over: nothing to wait for
            else:
                self._card_at[line.id] = card

    @property
    def card(self) -> Card | None:
        """The card on screen (as of the last frame ticked)."""
        return self._card

    def push(self, utterance: Utterance) -> bool:
        """Queues an utterance; False (and nothing queued) when its line was already ended or cut."""
        with self._lock:
            state = self._lines.get(utterance.line.id)
            if state is None:
                if utterance.line.id in self._over:
                    return False
                state = self._lines[utterance.line.id] = _LineState(utterance.line)
            elif state.closed:
                return False
            state.outstanding += 1
            self._queue.append(utterance)
            return True

    def end_line(self, line: Line) -> None:
        """The producer's word that no more utterances of `line` come; LINE_END follows once the rest played."""
        with self._lock:
            state = self._lines.get(line.id)
            if state is None:
                if line.id in self._over:
                    return
                state = self._lines[line.id] = _LineState(line)
            if state.closed:
                return
            state.closed = True
            if state.outstanding == 0:
                self._finish_line(state)

    def interrupt_line(self, line: Line | None = None) -> list[Utterance]:
        """Cuts a line (the current one if None) at a sentence boundary: its queued utterances are dropped and no
        more are taken. The sentence being spoken plays to its end. Returns what was dropped."""
        with self._lock:
            if line is None:
                if self._current is None:
                    return []
                line = self._current.line
            if line.id not in self._lines and line.id not in self._over:  # cut before anything was pushed
                self._lines[line.id] = _LineState(line)
            return self._cut({line.id})

    def clear(self) -> int:
        """Cuts every line that still has something queued (shutdown): returns the utterances dropped."""
        with self._lock:
            return len(self._cut({u.line.id for u in self._queue}))

    def _cut(self, line_ids: set[int]) -> list[Utterance]:  # under the lock
        dropped = [u for u in self._queue if u.line.id in line_ids]
        if dropped:
            self._queue = deque(u for u in self._queue if u.line.id not in line_ids)
        for line_id in line_ids:
            state = self._lines.get(line_id)
            if state is None or state.cut:
                continue
            state.outstanding -= sum(1 for u in dropped if u.line.id == line_id)
            state.cut = state.cut or bool(dropped) or not state.closed
            state.closed = True
            if state.outstanding == 0:
                self._finish_line(state)
        return dropped

    def _finish_line(self, state: _LineState) -> None:  # under the lock
        del self._lines[state.line.id]
        self._over[state.line.id] = None
        self._ended.append(state)

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

    @property
    def frame(self) -> int:
        """The last frame ticked (-1 before the first)."""
        return self._last_n

    def next_start(self) -> int:
        """The frame an utterance pushed now would start on, if nothing is cut, paused or held meanwhile."""
        with self._lock:
            frames = sum(-(-u.pcm.shape[0] // self.spf) for u in self._queue)
            if self._current is not None:
                frames += max(0, -(-self._current.pcm.shape[0] // self.spf) - (self._last_n - self._started_at + 1))
        return self._last_n + 1 + frames

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
            if self._card_next is not _NO_CARD:
                self._card, self._card_next = self._card_next, _NO_CARD  # type: ignore[assignment]
            if self._ended:
                for st in self._ended:
                    self._card_for_line(st.line.id)
                    events.append(self._line_end(st, n))
                self._ended.clear()
            utt = self._current
            if utt is None and self._queue and not self._paused and not self._held(n):
                utt = self._current = self._queue.popleft()
                self._started_at = n
                held = n - self._holding[1] if self._holding is not None and self._holding[0] == utt.id else 0
                self._holding = None
                self._card_for_line(utt.line.id)
                events.append(StageEvent(StageEventKind.START, utt.line, n, n * self.spf, utt, held=held))
            if utt is None:
                state, audio = FrameState(n=n, fps=self.fps, card=self._card), self._silence
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
                    card=self._card,
                )
                if lo + self.spf >= utt.pcm.shape[0]:
                    self._current = None
                    events.append(StageEvent(StageEventKind.END, utt.line, n, n * self.spf, utt))
                    ls = self._lines.get(utt.line.id)
                    if ls is not None:
                        ls.outstanding -= 1
                        ls.played += 1
                        if ls.closed and ls.outstanding == 0:
                            del self._lines[utt.line.id]
                            self._over[utt.line.id] = None
                            events.append(self._line_end(ls, n))
        if self._on_event is not None:
            for event in events:
                self._on_event(event)
        return state, audio

    def _card_for_line(self, line_id: int) -> None:  # under the lock
        card = self._card_at.pop(line_id, _NO_CARD)
        if card is not _NO_CARD:
            self._card = card  # type: ignore[assignment]

    def _held(self, n: int) -> bool:  # under the lock
        """Does the gate hold the next utterance's start at frame n? Never longer than hold_frames."""
        if self._gate is None:
            return False
        head = self._queue[0]
        if self._holding is None or self._holding[0] != head.id:
            self._holding = (head.id, n)
        return n - self._holding[1] < self._hold_frames and not self._gate(head)

    def _line_end(self, state: _LineState, n: int) -> StageEvent:
        return StageEvent(StageEventKind.LINE_END, state.line, n, n * self.spf, cut=state.cut, played=state.played)

"""The Show's narrow way to the stage: push, end or cut a line, the product card, what remains, stage events, first
audible sample."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from broadcaster.lines import Line, Utterance
from broadcaster.output.encoder import EncodedPacket
from broadcaster.output.sinks import Sink
from broadcaster.stage import Stage, StageEvent, StageEventKind
from common.bounded import BoundedDict
from renderer.base import Avatar

if TYPE_CHECKING:
    from broadcaster.services.face import FaceLink
    from renderer.card import Card

log = logging.getLogger(__name__)


class StagePort:
    """The Show's only way to the stage: push, end or cut a line, put up the product card, what remains, stage
    events, and when the first audible sample of an utterance reached the sinks. Stage events arrive on the event
    loop."""

    def __init__(self, stage: Stage, avatar: Callable[[], Avatar | None], sinks: Callable[[], list[Sink]]):
        self._stage = stage
        self._avatar = avatar
        self._sinks = sinks
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[Callable[[StageEvent], None]] = []
        self._onsets: dict[int, tuple[int, Callable[[str, float], None]]] = {}  # utterance id → (onset, callback)
        self._sample_watches: list[tuple[int, Callable[[str, float], None]]] = []  # clock thread only
        self._line_waiters: dict[int, asyncio.Future[StageEvent]] = {}
        # Lines that ended lately: a waiter that comes after the LINE_END (it awaited another room or line
        # first) still gets it instead of waiting for an event that already passed.
        self._ended: BoundedDict[int, StageEvent] = BoundedDict(256)
        self.face: FaceLink | None = None  # a neural avatar's link to the face service (set by the room)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    # -- content side (event loop) --------------------------------------------------------------------
    def push(self, utt: Utterance) -> bool:
        """Queues an utterance; False when its line was cut (stop producing it)."""
        prepare = getattr(self._avatar(), "prepare", None)
        if prepare is not None and self._loop is not None:
            # Draw its caption off the clock thread, so the frame that first shows it is not late.
            self._loop.run_in_executor(None, prepare, utt.text, utt.line.banner)
        face = self.face
        if face is not None:
            # Its audio goes to the face service now, ahead of the frames the stage will draw it on.
            face.submit(utt, self._stage.next_start())
        pushed = self._stage.push(utt)
        if not pushed and face is not None:
            face.drop(utt)
        return pushed

    def end_line(self, line: Line) -> None:
        self._stage.end_line(line)

    def show_card(self, card: Card | None, *, at_line: Line | None = None, offer_left_s: float | None = None) -> None:
        """Puts a product card on screen (None: none): with `at_line`, on the frame that line's first sentence
        starts, else on the next frame. `offer_left_s`: its offer's countdown reads zero that many seconds from
        now (set on the stage's own timeline, frame n / fps, which the countdown digits follow)."""
        if card is not None:
            ends_at = None
            if offer_left_s is not None:
                ends_at = (self._stage.frame + 1) / self._stage.fps + max(0.0, offer_left_s)
            card = dataclasses.replace(card, ends_at=ends_at)
            prepare = getattr(self._avatar(), "prepare_card", None)
            if prepare is not None and self._loop is not None:
                # Compose it off the clock thread, so the frame that first shows it is not late.
                self._loop.run_in_executor(None, prepare, card)
        self._stage.show_card(card, at_line)

    def interrupt(self, line: Line | None = None) -> int:
        """Cuts a line (the one being spoken if None) at the next sentence boundary; returns sentences cut."""
        dropped = self._stage.interrupt_line(line)
        for utt in dropped:
            self._onsets.pop(utt.id, None)
            if self.face is not None:
                self.face.drop(utt)
        return len(dropped)

    def remaining_seconds(self) -> float:
        return self._stage.remaining_seconds()

    @property
    def frame(self) -> int:
        """The last frame the media clock ticked (frame n of the stream and the recording)."""
        return self._stage.frame

    @property
    def speaking(self) -> bool:
        return self._stage.speaking

    @property
    def paused(self) -> bool:
        return self._stage.paused

    def current_line(self) -> Line | None:
        current = self._stage.current
        return current.line if current is not None else None

    def subscribe(self, fn: Callable[[StageEvent], None]) -> None:
        """fn(event) on the event loop for every START, END and LINE_END."""
        self._listeners.append(fn)

    def watch_first_audible(self, utt: Utterance, onset: int, callback: Callable[[str, float], None]) -> None:
        """callback(sink name, monotonic time) when the packet holding sample `onset` of utt is handed to
        each sink: the end of the latency trail."""
        self._onsets[utt.id] = (onset, callback)

    async def line_ended(self, line_id: int, timeout: float | None = None) -> StageEvent | None:
        """The LINE_END of a line (pushed and ended by whoever produces it), or None after timeout."""
        assert self._loop is not None
        ended = self._ended.get(line_id)
        if ended is not None:
            return ended
        fut = self._line_waiters.setdefault(line_id, self._loop.create_future())
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            return None

    # -- media clock thread ---------------------------------------------------------------------------
    def on_stage_event(self, event: StageEvent) -> None:
        if event.kind == StageEventKind.START and event.utterance is not None:
            if self.face is not None:  # before the frame is drawn: neural face or, whole, the portrait
                self.face.on_start(event.utterance, event.frame, event.held)
            watch = self._onsets.pop(event.utterance.id, None)
            if watch is not None:
                self._sample_watches.append((event.sample + watch[0], watch[1]))
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._dispatch, event)

    def on_packets(self, n: int, packets: list[EncodedPacket]) -> None:
        if not self._sample_watches or self._loop is None:
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
            # Only the sinks that take packets now: an RTMP sink still connecting (or resyncing to a keyframe)
            # drops this one, and a hand-off time for it would be a lie in the latency trail.
            taking = [sink.name for sink in self._sinks() if sink.taking]
            for _, callback in due:
                for name in taking:
                    self._loop.call_soon_threadsafe(callback, name, now)

    def _dispatch(self, event: StageEvent) -> None:
        if event.kind == StageEventKind.LINE_END:
            self._ended[event.line.id] = event
            fut = self._line_waiters.pop(event.line.id, None)
            if fut is not None and not fut.done():
                fut.set_result(event)
        for fn in self._listeners:
            try:
                fn(event)
            except Exception:
                log.exception("stage listener failed")

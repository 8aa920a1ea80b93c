"""The show: a room's content loop — chat sources → director → brain → voice → stage — with the latency trail."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from broadcaster import metrics
from broadcaster.brain import AuditLog, Brain
from broadcaster.brain.kb import faq_pairs, load_corpus
from broadcaster.brain.moderation import moderator_from_config
from broadcaster.config import RoomConfig
from broadcaster.director import Director
from broadcaster.director.talk import TalkTrack
from broadcaster.lines import Line, LineSource, Utterance
from broadcaster.stage import StageEvent, StageEventKind
from common.bounded import BoundedDict
from danmaku.event import Event

if TYPE_CHECKING:
    from broadcaster.stage_port import StagePort
    from broadcaster.voice import Voice

log = logging.getLogger(__name__)

PICK_AHEAD_S = 0.4  # about what the voice needs for a sentence that is not in the utterance cache
ONSET_LEVEL = 0.01  # |sample| above -40 dBFS counts as audible: where the latency trail ends


def speakable_texts(room_cfg: RoomConfig) -> list[str]:
    """What a room says without a live question — FAQ answers and its talk track — for `cache warm`."""
    brain, talk_cfg = room_cfg.brain, room_cfg.director.talk
    texts: list[str] = []
    if brain.kb.dir is not None:
        texts += [answer for _, answer, _ in load_corpus(brain.kb.dir, brain.kb.chunk_chars).faq]
    for path in brain.cache.faq_files:
        try:
            texts += [answer for _, answer in faq_pairs(yaml.safe_load(path.read_text(encoding="utf-8"))) or []]
        except (OSError, yaml.YAMLError) as exc:
            log.warning("cannot read FAQ %s: %s", path, exc)
    if talk_cfg.file is not None:
        talk = TalkTrack.load(talk_cfg.file, talk_cfg.variables)
        texts += [talk.fill(text) for segment in talk.segments for text in segment.lines]
    return list(dict.fromkeys(texts))


@dataclasses.dataclass
class Trail:
    """When each step of one line happened (monotonic seconds)."""

    line: Line
    chosen: float
    received: float | None = None  # the event that the line answers
    first_text: float | None = None
    first_pcm: float | None = None
    on_stage: float | None = None  # the first frame of its first utterance was ticked
    first_sample_frame: int | None = None
    handed: dict[str, float] = dataclasses.field(default_factory=dict)  # sink name → first audible packet
    sentences: list = dataclasses.field(default_factory=list)  # the brain's, in order (may outrun the stage)
    heard: set[int] = dataclasses.field(default_factory=set)  # which of them reached the stage (by part)
    boundary_wait: float = 0.0  # the stage was speaking when the comment came: time to that sentence's end
    busy_at_arrival: bool = False  # its comment came while a sentence was being spoken
    ended: bool = False  # the stage announced LINE_END

    def latencies(self) -> dict[str, float | None]:
        base = self.received if self.received is not None else self.chosen

        def rel(t: float | None) -> float | None:
            return None if t is None else round(t - base, 4)

        out = {
            "decide_s": rel(self.chosen),
            "first_text_s": rel(self.first_text),
            "first_pcm_s": rel(self.first_pcm),
            "on_stage_s": rel(self.on_stage),
            "boundary_wait_s": round(self.boundary_wait, 4),
        }
        for sink, t in self.handed.items():
            out[f"handed_{sink}_s"] = rel(t)
        return out


class Show:
    """One room's content loop: takes chat from the sources, lets the director choose, the brain answer and the
    voice speak, and pushes utterances through the StagePort. It knows nothing of the room that owns it.

    A line's end is the stage's LINE_END event: the Show finishes the trail (director, audit, metrics) there
    and nowhere else.
    """

    def __init__(self, cfg: RoomConfig, stage: StagePort, voice: Voice):
        self.cfg = cfg
        self.room_id = cfg.id
        self.stage = stage
        self.voice = voice
        moderator = moderator_from_config(cfg.moderation)
        self.director = Director(cfg.id, cfg.director, moderator)
        self.brain = Brain(cfg.id, cfg.brain, cfg.moderation, moderator=moderator,
                           redis_url=cfg.redis_url.get_secret_value() if cfg.redis_url is not None else None)
        self.audit = AuditLog.from_config(cfg.audit, cfg.id)
        self.director.on_blocked = self._audit_blocked
        self.sources: list = []
        self._tasks: list[asyncio.Task] = []
        self._live: dict[int, Trail] = {}  # line id → trail, until the stage ends the line
        self.trails: list[Trail] = []  # the last few finished lines, for tests and the console
        self.voice_input = None  # microphone / stream → Event(kind=voice), when voice.asr is enabled
        self._busy: BoundedDict[int, None] = BoundedDict(1000)  # id(event) of events that came mid-sentence
        self._ends: deque[float] = deque(maxlen=256)  # when recent utterances ended (sentence boundaries)

    async def start(self) -> None:
        from danmaku.sources import open_source

        await self.brain.start()
        self.stage.subscribe(self._on_stage)
        for scfg in self.cfg.sources:
            source = open_source(scfg, self.room_id)
            self.sources.append(source)
            self._tasks.append(asyncio.create_task(self._pump(source), name=f"source-{self.room_id}-{source.name}"))
        self._tasks.append(asyncio.create_task(self._speaker(), name=f"show-{self.room_id}"))
        asr = self.cfg.voice.asr
        if asr.enabled:
            from broadcaster.voice.asr import VoiceInput

            self.voice_input = VoiceInput(asr, room=self.room_id)
            self._tasks.append(asyncio.create_task(self.voice_input.run(self._offer_async), name=f"asr-{self.room_id}"))
        self._tasks.append(asyncio.create_task(self._warm(), name=f"warm-{self.room_id}"))

    async def _warm(self) -> None:
        """Pre-voices the FAQ answers and the talk track, so those lines start from the utterance cache."""
        try:
            texts = await asyncio.to_thread(speakable_texts, self.cfg)
            made = await self.voice.warm(texts)
            log.info("room %s: utterance cache warm (%d sentences voiced)", self.room_id, made)
        except Exception:
            log.exception("room %s: warming the utterance cache failed", self.room_id)

    async def stop(self) -> None:
        """Stops taking chat and choosing lines; what is on the stage plays on (see close())."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.gather(*(s.stop() for s in self.sources), return_exceptions=True)
        if self.voice_input is not None:
            await self.voice_input.close()

    async def close(self) -> None:
        """After the media clock stopped: audits what was heard of unfinished lines, closes brain and audit log."""
        for trail in list(self._live.values()):
            self._finish(trail)
        await self.brain.close()
        if self.audit is not None:
            self.audit.close()

    # -- chat in ----------------------------------------------------------------------------------
    async def _pump(self, source) -> None:
        async for event in source.events():
            self.offer(event)

    def offer(self, event: Event) -> None:
        if self.stage.speaking:  # its answer will wait for the end of the sentence being spoken
            self._busy[id(event)] = None
        self.director.offer(event)

    async def _offer_async(self, event: Event) -> None:
        self.offer(event)

    # -- lines out --------------------------------------------------------------------------------
    async def _speaker(self) -> None:
        while True:
            if self.stage.paused:
                await asyncio.sleep(0.1)
                continue
            line = await self.director.next_line(timeout=0.5)
            if line is None:
                continue
            trail = Trail(line=line, chosen=time.monotonic(),
                          received=line.event.received_mono if line.event is not None else None)
            if line.event is not None and id(line.event) in self._busy:
                trail.busy_at_arrival = True
                del self._busy[id(line.event)]
            self._live[line.id] = trail
            try:
                await self._produce(trail)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room %s: line %d could not be voiced", self.room_id, line.id)
            await self._until_next_may_start(trail)

    async def _produce(self, trail: Trail) -> None:
        """Brain sentences → voice → stage, as they come; the line is ended on the stage whatever happens."""
        line = trail.line

        async def texts():
            async with contextlib.aclosing(self.brain.answer(line)) as sentences:
                async for sentence in sentences:
                    if trail.first_text is None:
                        trail.first_text = time.monotonic()
                    trail.sentences.append(sentence)
                    yield sentence.text

        try:
            async with contextlib.aclosing(self.voice.speak(line, texts())) as utterances:
                async for utt in utterances:
                    if trail.first_pcm is None:
                        trail.first_pcm = time.monotonic()
                        self._watch_first_sample(trail, utt)
                    if not self.stage.push(utt):
                        return  # the line was cut (skip, a talk line giving way): stop producing it
        finally:
            self.stage.end_line(line)

    def _watch_first_sample(self, trail: Trail, utt: Utterance) -> None:
        audible = np.flatnonzero(np.abs(utt.pcm) > ONSET_LEVEL)
        onset = int(audible[0]) if audible.size else 0
        self.stage.watch_first_audible(utt, onset, lambda sink, t, tr=trail: tr.handed.setdefault(sink, t))

    async def _until_next_may_start(self, trail: Trail) -> None:
        """Returns when the next line should be chosen: as late as possible, so a super chat that arrives
        meanwhile still goes first, yet early enough (PICK_AHEAD_S before the stage runs dry) to follow back
        to back. A talk-track line gives way at the next sentence boundary when something better waits."""
        line = trail.line
        cut = False
        while not trail.ended:
            if trail.on_stage is not None and self.stage.remaining_seconds() <= PICK_AHEAD_S:
                return
            if not cut and line.source == LineSource.SCRIPT and self.director.urgent_waiting():
                self.stage.interrupt(line)
                cut = True
            await asyncio.sleep(0.02)

    def _on_stage(self, event: StageEvent) -> None:
        trail = self._live.get(event.line.id)
        if event.kind == StageEventKind.START:
            if trail is not None:
                if trail.on_stage is None:
                    trail.on_stage = time.monotonic()
                if event.utterance is not None:
                    trail.heard.add(event.utterance.part)
        elif event.kind == StageEventKind.END:
            self._ends.append(time.monotonic())
        elif trail is not None:
            trail.ended = True
            self._finish(trail)

    def _finish(self, trail: Trail) -> None:
        """The line is over (spoken, cut or shut down): tell the director, audit what was heard, keep its trail."""
        if self._live.pop(trail.line.id, None) is None:
            return
        self.director.line_done(trail.line)
        heard = [s for i, s in enumerate(trail.sentences) if i in trail.heard]
        trail.sentences = heard
        if heard:
            self.trails = [*self.trails[-49:], trail]
            self._write_audit(trail)

    def _boundary_wait(self, trail: Trail) -> float:
        if not trail.busy_at_arrival or trail.received is None or trail.on_stage is None:
            return 0.0
        ends = [t for t in self._ends if trail.received <= t <= trail.on_stage]
        return ends[0] - trail.received if ends else 0.0

    def _write_audit(self, trail: Trail) -> None:
        trail.boundary_wait = self._boundary_wait(trail)
        # An answer's source is where its content came from, not the "thanks for the super chat" preface.
        source = next((x.source for x in trail.sentences if x.source != "script"),
                      trail.sentences[0].source if trail.sentences else "none")
        if trail.received is not None and trail.handed:
            total = min(trail.handed.values()) - trail.received
            metrics.ANSWER_LATENCY.labels(self.room_id, source).observe(total - trail.boundary_wait)
            metrics.ANSWER_BOUNDARY_WAIT.labels(self.room_id).observe(trail.boundary_wait)
        latencies = trail.latencies()
        log.info("room %s spoke line %d (%s): %s", self.room_id, trail.line.id, source, latencies)
        if self.audit is not None:
            self.audit.write(self.brain.audit_record(trail.line, trail.sentences, **latencies))

    def _audit_blocked(self, event: Event, verdict: str) -> None:
        if self.audit is not None:
            self.audit.write({"room": self.room_id, "line_source": "blocked", "event": event.to_json(),
                              "asked": event.text, "text": "", "verdicts": [[verdict]], "blocked": True})

    # -- operator and console ---------------------------------------------------------------------
    def skip(self) -> int:
        """The operator cut the line being spoken: it stops after this sentence and the rest is not produced."""
        line = self.stage.current_line()
        return self.stage.interrupt(line) if line is not None else 0

    def say(self, text: str) -> dict[str, Any]:
        line = self.director.say(text)
        return {"id": line.id, "text": line.text, "source": line.source.value}

    def recent_chat(self) -> list[dict]:
        return self.director.snapshot().get("recent", [])

    def status(self) -> dict[str, Any]:
        snap = self.director.snapshot()
        snap["sources"] = [s.health().to_json() for s in self.sources]
        return snap

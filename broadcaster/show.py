"""The show: a room's content loop — chat sources → director → brain → voice → stage — with the latency trail.

Content changes of a reload apply here, live: `apply(cfg)` builds the changed pieces beside the running ones
(brain started, voice started, talk track loaded) and the speaker swaps them in between two lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import functools
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from broadcaster import metrics
from broadcaster.brain import AuditLog, Brain
from broadcaster.brain.corpus import faq_pairs, load_corpus
from broadcaster.brain.moderation import moderator_from_config
from broadcaster.config import RoomConfig
from broadcaster.director import Director
from broadcaster.director.talk import TalkTrack
from broadcaster.lines import Line, LineSource, Utterance
from broadcaster.presenter import Presenter
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
        texts += TalkTrack.load(talk_cfg.file, talk_cfg.variables).speakable()
    return list(dict.fromkeys(texts))


# Which parts of the show each room config section feeds: a change rebuilds those parts (see Show.apply).
CONTENT_KEYS = ("name", "language", "voice", "sources", "director", "brain", "moderation", "audit", "redis_url")


def content_changes(old: RoomConfig, new: RoomConfig) -> list[str]:
    """The content sections that differ (those a running show can take without a cut)."""
    return new.changed(old, CONTENT_KEYS)


@dataclasses.dataclass
class _Pieces:
    """What a reload swaps in: each None where that part stays as it is."""

    cfg: RoomConfig
    director: Director | None = None
    brain: Brain | None = None
    voice: Voice | None = None
    audit: AuditLog | None = None
    swap_audit: bool = False  # audit changed (None may mean: no audit log any more)
    sources: list | None = None
    done: asyncio.Future[list[str]] | None = None

    async def discard(self) -> None:
        """Closes what was built for a swap that will not happen."""
        if self.brain is not None:
            await self.brain.close()
        if self.voice is not None:
            await self.voice.close()
        if self.audit is not None:
            self.audit.close()
        await asyncio.gather(*(s.stop() for s in self.sources or []), return_exceptions=True)


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
    face_hold: float = 0.0  # the stage held its first sentence's start for its neural face frames
    judge_wait: float | None = None  # its first sentence, ready, waited this long for the moderation judge
    busy_at_arrival: bool = False  # its comment came while a sentence was being spoken
    on_screen: str | None = None  # the product presented when it was chosen (a products room)
    frames: list[int] = dataclasses.field(default_factory=list)  # stage frames it started and ended on
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
            "face_hold_s": round(self.face_hold, 4),
        }
        if self.judge_wait is not None:
            out["judge_wait_s"] = round(self.judge_wait, 4)
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
        moderator = moderator_from_config(cfg.moderation, cfg.language)
        self.director = self._director(cfg, moderator)
        self.brain = self._brain(cfg, moderator)
        self.audit = AuditLog.from_config(cfg.audit, cfg.id)
        self.sources: list = []
        self._source_tasks: list[asyncio.Task] = []
        self._tasks: list[asyncio.Task] = []
        self._live: dict[int, Trail] = {}  # line id → trail, until the stage ends the line
        self.trails: list[Trail] = []  # the last few finished lines, for tests and the console
        self.voice_input = None  # microphone / stream → Event(kind=voice), when voice.asr is enabled
        self._busy: BoundedDict[int, None] = BoundedDict(1000)  # id(event) of events that came mid-sentence
        self._ends: deque[float] = deque(maxlen=256)  # when recent utterances ended (sentence boundaries)
        self._pending: _Pieces | None = None  # prepared by apply(), swapped in by the speaker between lines
        self._warm_task: asyncio.Task | None = None
        self._trim_task: asyncio.Task | None = None
        self.applied = 0  # content reloads swapped in
        self.presenter = Presenter(self)  # a products room's card, offers and operator actions
        self._paraphraser: tuple[Any, Any] | None = None  # (Paraphraser, its LLM backend) when enabled

    def _director(self, cfg: RoomConfig, moderator) -> Director:
        director = Director(cfg.id, cfg.director, moderator)
        director.on_blocked = self._audit_blocked
        director.on_silent = self._audit_silent
        return director

    def _brain(self, cfg: RoomConfig, moderator) -> Brain:
        # The room's language: the brain reads chat with its lists (English: broadcaster/brain/lang_en.py).
        return Brain(cfg.id, cfg.brain, cfg.moderation, moderator=moderator, language=cfg.language,
                     redis_url=cfg.redis_url.get_secret_value() if cfg.redis_url is not None else None)

    async def prepare(self) -> None:
        """What can fail before the room goes on air: the brain (KB index, models, answer cache)."""
        await self.brain.start()
        await self.presenter.tell_brain(self.brain, self.director.products)

    async def start(self) -> None:
        if not self.brain.started:
            await self.brain.start()
        self.stage.subscribe(self._on_stage)
        self._open_sources(self.cfg.sources)
        self._tasks.append(asyncio.create_task(self._speaker(), name=f"show-{self.room_id}"))
        self._tasks.append(asyncio.create_task(self.presenter.run(), name=f"products-{self.room_id}"))
        self.presenter.restore()  # after a media handover, the product on screen is on the new stage at once
        self._attach_paraphraser()
        self._start_asr()
        self._warm_task = asyncio.create_task(self._warm(), name=f"warm-{self.room_id}")

    def _open_sources(self, configs) -> list:
        from danmaku.sources import open_source

        opened = []
        for scfg in configs:
            source = open_source(scfg, self.room_id)
            opened.append(source)
            self._source_tasks.append(
                asyncio.create_task(self._pump(source), name=f"source-{self.room_id}-{source.name}"))
        self.sources += opened
        return opened

    def _start_asr(self) -> None:
        asr = self.cfg.voice.asr
        if asr.enabled:
            from broadcaster.voice.asr import VoiceInput

            self.voice_input = VoiceInput(asr, room=self.room_id)
            self._tasks.append(asyncio.create_task(self.voice_input.run(self._offer_async), name=f"asr-{self.room_id}"))

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
        tasks = [*self._tasks, *self._source_tasks, *(t for t in (self._warm_task, self._trim_task) if t is not None)]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(s.stop() for s in self.sources), return_exceptions=True)
        await self._close_paraphraser()
        if self.voice_input is not None:
            await self.voice_input.close()
        pending, self._pending = self._pending, None
        if pending is not None:
            await pending.discard()
            if pending.done is not None and not pending.done.done():
                pending.done.cancel()  # the room stopped before the change reached a line boundary

    async def close(self) -> None:
        """After the media clock stopped: audits what was heard of unfinished lines, closes brain and audit log."""
        for trail in list(self._live.values()):
            self._finish(trail)
        await self.brain.close()
        if self.audit is not None:
            self.audit.close()

    # -- reload: content changes, live --------------------------------------------------------------
    async def apply(self, cfg: RoomConfig, *, wait_s: float = 30.0) -> list[str]:
        """Takes a new room config whose media sections are unchanged: builds the pieces its changed content
        sections feed (new moderator → director and brain; knowledge base, cache, LLM, persona → brain; talk
        track, triage → director; voice; audit log; chat sources) beside the running ones, then lets the
        speaker swap them in before it picks the next line, so nothing on air is cut. Raises (and keeps
        everything as it was) when a piece cannot be built. Returns the sections applied."""
        changed = content_changes(self.cfg, cfg)
        if not changed:
            return []
        pieces = _Pieces(cfg)
        try:
            # Word lists, talk track and audit file are read off the loop: the room keeps speaking meanwhile.
            moderator = None
            if {"moderation", "language"} & set(changed):  # a room's language changes its lists
                moderator = await asyncio.to_thread(moderator_from_config, cfg.moderation, cfg.language)
            if moderator is not None or "director" in changed:
                pieces.director = await asyncio.to_thread(self._director, cfg, moderator or self.director.moderator)
            if moderator is not None or {"brain", "redis_url", "language"} & set(changed):
                # A new brain builds its own KB index and answer cache: answers cached under another KB
                # version are never served by it (cache.answer keys entries by kb_version).
                pieces.brain = self._brain(cfg, moderator or self.brain.moderator)
                await pieces.brain.start()
            if {"voice", "redis_url"} & set(changed):
                from broadcaster.voice import voice_for_room

                pieces.voice = voice_for_room(cfg)
                await pieces.voice.start()
            if pieces.director is not None or pieces.brain is not None:
                # The brain that will answer learns the products the director will present (and their facts).
                await self.presenter.tell_brain(pieces.brain or self.brain, (pieces.director or self.director).products)
            if "audit" in changed:
                pieces.swap_audit = True
                pieces.audit = await asyncio.to_thread(AuditLog.from_config, cfg.audit, cfg.id)
        except BaseException:
            await pieces.discard()
            raise
        previous, self._pending = self._pending, pieces
        if previous is not None:  # an earlier change that never reached a line boundary: this one replaces it
            await previous.discard()
            if previous.done is not None and not previous.done.done():
                previous.done.set_result([])
        pieces.done = asyncio.get_running_loop().create_future()
        if not self._tasks:  # not on air yet (or stopped): nothing to wait for
            await self._swap()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(pieces.done), wait_s)
        return changed

    def adopt(self, old: Show) -> None:
        """Before a media handover goes live: keep the old show's chat memory (seen message ids, waiting
        operator lines and questions) so the new room neither forgets nor answers twice."""
        _carry_over(old.director, self.director)

    async def _swap(self) -> None:
        """Between two lines (the speaker's turn): puts the pending pieces in and closes the old ones."""
        pieces, self._pending = self._pending, None
        if pieces is None:
            return
        old_cfg, cfg = self.cfg, pieces.cfg
        changed = content_changes(old_cfg, cfg)
        old_brain = old_voice = old_audit = None
        if pieces.director is not None:
            _carry_over(self.director, pieces.director)  # now: the old one took chat until this very moment
            self.director = pieces.director
            self.presenter.refresh()  # its facts may say another price now
        if pieces.brain is not None:
            old_brain, self.brain = self.brain, pieces.brain
        if pieces.voice is not None:
            old_voice, self.voice = self.voice, pieces.voice
        if pieces.swap_audit:
            old_audit, self.audit = self.audit, pieces.audit
        self.cfg = cfg
        if pieces.director is not None or pieces.brain is not None:  # a new track, or another LLM
            await self._close_paraphraser()
            self._attach_paraphraser()
        if "sources" in changed:
            # New connectors first, old ones after: duplicates of the overlap are dropped by message id
            # (the director's seen ids carry over).
            old_sources, old_tasks = self.sources, self._source_tasks
            self.sources, self._source_tasks = [], []
            self._open_sources(cfg.sources)
            for task in old_tasks:
                task.cancel()
            await asyncio.gather(*old_tasks, return_exceptions=True)
            await asyncio.gather(*(s.stop() for s in old_sources), return_exceptions=True)
        if "voice" in changed and old_cfg.voice.asr != cfg.voice.asr:
            if self.voice_input is not None:
                await self.voice_input.close()
                self.voice_input = None
            self._start_asr()
        if old_brain is not None:
            await old_brain.close()
        if old_voice is not None:
            await old_voice.close()
        if old_audit is not None:
            old_audit.close()
        if self._warm_task is not None:
            self._warm_task.cancel()
        self._warm_task = asyncio.create_task(self._warm(), name=f"warm-{self.room_id}")
        self.applied += 1
        log.info("room %s: content change applied live (%s)", self.room_id, ", ".join(changed) or "nothing")
        if self._trim_task is None or self._trim_task.done():
            self._trim_task = asyncio.create_task(_give_back_freed_memory(), name=f"trim-{self.room_id}")
        if pieces.done is not None and not pieces.done.done():
            pieces.done.set_result(changed)

    def _attach_paraphraser(self) -> None:
        """With director.talk.paraphrase enabled and brain.llm set: paraphrases of the talk, written ahead in the
        background (director/paraphrase.py), pre-voiced by the room's voice; never waited for on air."""
        pcfg, talk = self.cfg.director.talk.paraphrase, self.director.talk
        if not pcfg.enabled or talk is None:
            return
        from broadcaster.brain.llm import build_backend
        from broadcaster.director.paraphrase import Paraphraser

        backend = build_backend(self.cfg.brain.llm)
        if backend is None:
            log.warning("room %s: director.talk.paraphrase is enabled but brain.llm has no backend: no paraphrases",
                        self.room_id)
            return
        paraphraser = Paraphraser(backend, self.director.moderator, pcfg, room=self.room_id,
                                  prevoice=self.voice.warm, static_values=talk.variables)
        talk.attach_paraphraser(paraphraser)
        paraphraser.start()
        self._paraphraser = (paraphraser, backend)

    async def _close_paraphraser(self) -> None:
        got, self._paraphraser = self._paraphraser, None
        if got is not None:
            paraphraser, backend = got
            await paraphraser.close()
            await backend.close()

    # -- chat in ----------------------------------------------------------------------------------
    async def _pump(self, source) -> None:
        async for event in source.events():
            self.offer(event)

    def offer(self, event: Event) -> None:
        if self.stage.speaking:  # its answer will wait for the end of the sentence being spoken
            self._busy[id(event)] = None
        self.director.offer(event)
        # The platform may have just deleted a super chat: an answer to it stops at this sentence's end.
        for trail in list(self._live.values()):  # one or two lines at most
            if self.director.is_withdrawn(trail.line):
                self.stage.interrupt(trail.line)

    async def _offer_async(self, event: Event) -> None:
        self.offer(event)

    # -- lines out --------------------------------------------------------------------------------
    async def _speaker(self) -> None:
        while True:
            if self._pending is not None:
                try:
                    await self._swap()
                except Exception:  # the new pieces are in; only closing an old one failed
                    log.exception("room %s: closing the pieces a reload replaced failed", self.room_id)
            if self.stage.paused:
                await asyncio.sleep(0.1)
                continue
            line = await self.director.next_line(timeout=0.5)
            if line is None:
                continue
            if not self.presenter.picked(line):  # it names an offer that has ended
                self.director.line_done(line)
                continue
            products = self.director.products
            trail = Trail(line=line, chosen=time.monotonic(),
                          received=line.event.received_mono if line.event is not None else None,
                          on_screen=products.on_screen if products is not None else None)
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
                        trail.judge_wait = sentence.judge_wait_s
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
            # (a product's first line — its card goes up with it — is the presentation itself: it is not cut)
            if not cut and line.source == LineSource.SCRIPT and not getattr(line, "presents", False) \
                    and self.director.urgent_waiting():
                self.stage.interrupt(line)
                cut = True
            await asyncio.sleep(0.02)

    def _on_stage(self, event: StageEvent) -> None:
        self.presenter.on_stage(event)
        trail = self._live.get(event.line.id)
        if event.kind == StageEventKind.START:
            if trail is not None:
                if trail.on_stage is None:
                    trail.on_stage = time.monotonic()
                    trail.face_hold = event.held / self.cfg.video.fps
                    trail.frames.append(event.frame)
                if event.utterance is not None:
                    trail.heard.add(event.utterance.part)
        elif event.kind == StageEventKind.END:
            self._ends.append(time.monotonic())
        elif trail is not None:
            trail.ended = True
            trail.frames.append(event.frame)
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
        elif trail.line.source == LineSource.ANSWER and trail.line.event is not None:
            # a viewer's comment the room chose to say nothing to (not understood, off-topic, unsafe reading …)
            self._audit_silent(trail.line.event, self.brain.silence_of(trail.line) or "nothing heard",
                               self.brain.judgement_of(trail.line))

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
            record = self.brain.audit_record(trail.line, trail.sentences, **latencies)
            if trail.on_screen is not None:  # a products room: what was on screen, what the line was about
                record["on_screen"] = trail.on_screen
                record["product"] = getattr(trail.line, "product", "")
                record["offer"] = getattr(trail.line, "offer", "")
                record["frames"] = trail.frames  # [first frame heard, line end]: the recording's frame numbers
            self.audit.write(record)

    def _audit_silent(self, event: Event, why: str, judged: Any = None) -> None:
        if self.audit is not None:
            self.audit.write({"room": self.room_id, "line_source": "silent", "event": event.to_json(),
                              "asked": event.text, "text": "", "silent": why,
                              **({"judge": judged.to_json()} if judged is not None else {})})

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

    def product(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """An operator's product action (see Presenter.act); ValueError for a mistake, worded for the operator."""
        return self.presenter.act(action, args)

    def cut_lines(self, doomed) -> None:
        """Cuts, at the next sentence boundary, every line being produced or played that `doomed(line)` selects."""
        for trail in list(self._live.values()):
            if doomed(trail.line):
                self.stage.interrupt(trail.line)

    def recent_chat(self) -> list[dict]:
        return self.director.snapshot().get("recent", [])

    def status(self) -> dict[str, Any]:
        snap = self.director.snapshot()
        snap["sources"] = [s.health().to_json() for s in self.sources]
        judge = self.brain.judge_state()  # moderation.judge: judging, or on rules and the posture alone
        if judge is not None:
            snap["judge"] = judge
        return snap


async def _give_back_freed_memory() -> None:
    """After a swap the old brain and director (indexes, word lists, many small objects) are freed, but glibc
    keeps their pages: measured over 60 content reloads, RSS grew 0.66 MB a reload without this and 0.18 MB
    with it. malloc_trim runs in a thread (ctypes releases the GIL), so the media clock never waits on it."""
    await asyncio.sleep(1.0)  # the old pieces' last references (locals of the swap, closing tasks) are gone
    trim = _malloc_trim()
    if trim is not None:
        await asyncio.to_thread(trim, 0)


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to give back this way
        return None


def _carry_over(old: Director, new: Director) -> None:
    """What a new director keeps of the old one, so a reload forgets no chat: the message ids it has seen (a
    replayed or reconnected feed is not answered twice), operator lines waiting, recent chat and drop counts;
    and, when triage settings are unchanged, the queued questions, gift batches and per-user rate buckets.
    The talk track's window and the products' state carry over; pacing starts afresh from the new config."""
    # TODO(director owners): a public Director.adopt(old) would keep this next to the state it moves.
    new.seen_ids = old.seen_ids
    new._operator = old._operator
    new._recent.extend(old._recent)
    new.drops = old.drops
    if new.tcfg == old.tcfg:
        new.queue, new.rates = old.queue, old.rates
        new.thanks.gifts, new.thanks.follows = old.thanks.gifts, old.thanks.follows  # it draws from the new track
    if old.talk is not None and new.talk is not None:
        new.talk.adopt(old.talk)  # what was said still counts against repeats
    if old.products is not None and new.products is not None:
        new.products.adopt(old.products)  # the product on screen, its turn, offers, stock set live

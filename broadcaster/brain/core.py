"""The Brain: turns a Line into speakable sentences from the fastest right source, every one checked.

Sources in order for an answer: the answer cache (exact, then similar) → the knowledge base (BM25 fused with
embeddings; the fact that stands out, or the FAQ entry meant) → an LLM grounded on the retrieved passages (streamed;
the first sentence is yielded while the model is still writing) → a safe fallback line. A viewer's comment gets a
line only when the room understands it (understand.py: a question it answers, friendly chit-chat, a paid event);
with moderation.judge, the comment is judged beside all that and the first sentence waits for the verdict. Every
sentence passes moderation and the guard (voicing.py); a withheld one gives way to the room's safe line. Script,
operator and thanks lines pass moderation only. Only answers voiced whole go into the answer cache, with their
passage ids and KB version. What was decided rides on each `Sentence`; `audit_record` makes it one audit record.
The pieces: scoping.py (which facts answer, products), answering.py (KB, fallback lines, the model), voicing.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import numpy as np
import yaml

from broadcaster import metrics
from broadcaster.brain.answer_state import SOURCES, AnswerState, Hold, Sentence
from broadcaster.brain.answering import Answering
from broadcaster.brain.chitchat import Friendly
from broadcaster.brain.config import BrainConfig, ModerationConfig, for_language
from broadcaster.brain.corpus import faq_pairs
from broadcaster.brain.embed import Embeddings
from broadcaster.brain.embed import build_backend as build_embed_backend
from broadcaster.brain.figure_runs import warm_guard
from broadcaster.brain.intent import FaqMatcher, is_question, same_content, slots
from broadcaster.brain.judge import Judge
from broadcaster.brain.judge_prompt import Verdict as JudgeVerdict
from broadcaster.brain.kb import KnowledgeBase
from broadcaster.brain.lexical import Hit
from broadcaster.brain.llm import Backend, build_backend
from broadcaster.brain.moderation import Moderator, moderator_from_config
from broadcaster.brain.products import Catalogue
from broadcaster.brain.risk import RiskProbe
from broadcaster.brain.scoping import Scoping
from broadcaster.brain.textnorm import question_key
from broadcaster.brain.understand import SILENT_OFF_TOPIC, Reading, Understanding
from broadcaster.lines import Line, LineSource
from cache.answer import AnswerCache
from cache.store import Store, build_store
from common.bounded import BoundedDict
from common.breaker import CircuitBreaker
from danmaku.event import EventKind

log = logging.getLogger(__name__)

__all__ = ["SOURCES", "Brain", "Sentence"]

_LINE_SOURCE = {LineSource.SCRIPT: "script", LineSource.OPERATOR: "operator", LineSource.THANKS: "thanks"}


class Brain(Answering, Scoping):
    def __init__(self, room: str, cfg: BrainConfig, moderation: ModerationConfig, *,
                 moderator: Moderator | None = None, store: Store | None = None, redis_url: str | None = None,
                 backend: Backend | None = None, clock: Callable[[], float] = time.monotonic, language: str = "zh") -> None:
        self.room = room
        self.language = language  # zh | en: the lists it reads chat with, its default lines (config.for_language)
        self.cfg = cfg = for_language(cfg, language)
        self.moderation = moderation
        self.clock = clock
        self.moderator: Moderator = moderator or moderator_from_config(moderation, language)
        self._store = store
        self._redis_url = redis_url
        self._backend_override = backend
        self.backend: Backend | None = None
        self.breaker = CircuitBreaker(cfg.llm.circuit_failures, cfg.llm.circuit_reset_s, clock=clock)
        self.embeddings = Embeddings(build_embed_backend(cfg.embed), room=room, cache_entries=cfg.embed.cache_entries)
        self.kb = KnowledgeBase(cfg.kb.dir, chunk_chars=cfg.kb.chunk_chars, top_k=cfg.kb.top_k,
                                check_interval_s=cfg.kb.check_interval_s)
        self.cache: AnswerCache | None = None
        self._history: BoundedDict[str, deque[tuple[str, str]]] = BoundedDict(2000)  # the oldest viewers are forgotten
        self._rng = random.Random()
        self._fallback_cycle = itertools.cycle(cfg.fallback_lines)
        self.started = False
        self._kb_builds = 0
        self._watch_task: asyncio.Task[None] | None = None
        # line id → every sentence withheld while answering it (also the ones after the last spoken one).
        self._withheld: BoundedDict[int, list[dict[str, str]]] = BoundedDict(256)
        self.faq = FaqMatcher([])
        self._friendly = Friendly(cfg.friendly_words, language=language)
        self.understanding = Understanding(self.embeddings, self._friendly, language=language)
        self._probe: RiskProbe | None = None
        self.products = Catalogue()  # a room's several products (set_products / present); empty otherwise
        self._kb_chars_cache: frozenset[str] = frozenset()
        self._kb_chars_of = ""
        self._readings: BoundedDict[int, Reading] = BoundedDict(256)
        self._silences: BoundedDict[int, str] = BoundedDict(256)
        # moderation.judge: a chat model asked about every comment that would get a line (None: rules and posture)
        self.judge = Judge(room, moderation.judge, cfg.llm, clock=clock) if moderation.judge.enabled else None
        self._judged: BoundedDict[int, JudgeVerdict] = BoundedDict(256)

    # -- life cycle -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Builds the KB index, loads models, warms the answer cache from the FAQ. Call once."""
        cfg = self.cfg
        await self.embeddings.load()
        self.kb.embed = self.embeddings
        self._probe = RiskProbe.load(model_id=self.embeddings.model_id) if self.embeddings.available else None
        await self.kb.build()
        if cfg.cache.enabled:
            store = self._store
            if store is None:
                store = build_store(self._redis_url, prefix="va:", retry_s=cfg.cache.store_retry_s)
                self._store = store
            embed = None
            if self.embeddings.available:
                embeddings = self.embeddings

                async def embed(texts: Sequence[str]) -> np.ndarray:
                    vecs = await embeddings.query(list(texts))
                    if vecs is None:
                        raise RuntimeError(f"embeddings unavailable: {embeddings.reason}")
                    return vecs

            self.cache = AnswerCache(self.room, store, ttl_s=cfg.cache.ttl_s, similarity=cfg.cache.similarity,
                                     max_entries=cfg.cache.max_entries, key_fn=question_key, embed=embed,
                                     embed_similarity=cfg.cache.embed_similarity, same=same_content, clock=self.clock)
            self.cache.kb_version = self.kb.version
            await self.cache.warm(self._faq())
        self.faq = FaqMatcher(self._faq(), [p.text for p in self.kb.passages])
        self._kb_builds = self.kb.builds
        self.understanding = Understanding(self.embeddings, self._friendly, probe=self._probe, product_words=self.kb.titles,
                                           language=self.language)
        await asyncio.to_thread(warm_guard, tuple(p.text for p in self.kb.passages))
        if self.kb.root is not None and cfg.kb.check_interval_s > 0:
            self._watch_task = asyncio.get_running_loop().create_task(self._watch_kb(), name=f"kb-watch-{self.room}")
        self.backend = self._backend_override or build_backend(cfg.llm)
        load = getattr(self.backend, "load", None)
        if load is not None:
            await asyncio.to_thread(load)  # heavy models load once, at start, off the loop
        self.started = True

    async def _watch_kb(self) -> None:
        """Looks for KB file changes in the background, so the answer path never waits on the disk."""
        while True:
            await asyncio.sleep(self.cfg.kb.check_interval_s)
            try:
                await self.kb.maybe_rebuild()
                await self._after_kb_rebuild()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room %s: knowledge base refresh failed", self.room)

    async def _after_kb_rebuild(self) -> None:
        """After a rebuild: forget FAQ entries and answers citing changed passages, then re-warm the FAQ."""
        if self.kb.builds == self._kb_builds:
            return
        self._kb_builds = self.kb.builds
        self.faq = FaqMatcher(self._faq(), [p.text for p in self.kb.passages])
        self.understanding = Understanding(self.embeddings, self._friendly, probe=self._probe, product_words=self.kb.titles,
                                           language=self.language)
        if self.cache is not None:
            await self._retire_cached_answers()
        # The guard's index of the KB's figures, built off the loop (seconds for a large KB), not by the first answer;
        # last, so that no answer is served from the cache of the old KB while it is built.
        await asyncio.to_thread(warm_guard, tuple(p.text for p in self.kb.passages))

    async def _retire_cached_answers(self) -> None:
        """Answers cached under the old KB are stale (its version first, before any await), those citing changed
        passages and the FAQ's are dropped, and the FAQ is warmed again."""
        assert self.cache is not None
        self.cache.kb_version = self.kb.version  # every answer cached under the old KB is stale now
        changed = set(self.kb.changed_ids)
        dropped = await self.cache.invalidate_where(
            lambda e: e.source == "faq" or any(pid in changed for pid in e.passage_ids))
        warmed = await self.cache.warm(self._faq())
        log.info("room %s: knowledge base changed; %d cached answers forgotten, %d FAQ entries warmed",
                 self.room, dropped, warmed)

    def _faq(self) -> list[tuple[str, str, str]]:
        pairs = list(self.kb.corpus.faq)
        for path in self.cfg.cache.faq_files:
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError) as exc:
                log.warning("answer cache: cannot read FAQ %s: %s", path, exc)
                continue
            for i, (q, a) in enumerate(faq_pairs(data) or []):
                pairs.append((q, a, f"{path.name}#{i}"))
        return pairs

    async def close(self) -> None:
        if self._watch_task is not None:
            self._watch_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch_task
        if self.cache is not None:
            await self.cache.close()
        if self.backend is not None:
            await self.backend.close()
        if self.judge is not None:
            await self.judge.close()
        close = getattr(self._store, "close", None)
        if close is not None:
            await close()

    # -- answering -------------------------------------------------------------------------------------

    async def answer(self, line: Line) -> AsyncIterator[Sentence]:
        """The sentences to say for a line, in order; each already moderated (and grounded, for answers). With a
        judge, a viewer's comment that would get a line is asked about beside retrieval and synthesis, and the first
        sentence ready waits for the verdict (moderation.judge.budget_ms): flagged, failed or late, the line ends
        there (a super chat keeps its thanks, said before the judge was asked)."""
        hold = Hold()
        async with contextlib.aclosing(self._answer(line, hold)) as sentences:
            async for s in sentences:
                if hold.pending is not None and hold.verdict is None:
                    assert self.judge is not None
                    t0 = time.monotonic()
                    hold.verdict = await self.judge.wait(hold.pending)
                    s.judge_wait_s = time.monotonic() - t0
                    metrics.JUDGE_WAIT.labels(self.room).observe(s.judge_wait_s)
                    self._judged[line.id] = hold.verdict
                    if hold.verdict.blocks:
                        self._withheld.pop(line.id, None)
                        self._silent(line, hold.verdict.why())
                        return
                yield s

    def _ask_judge(self, line: Line, hold: Hold) -> None:
        ev = line.event
        if self.judge is not None and ev is not None and ev.text.strip():
            hold.pending = self.judge.ask(ev.text)
            if hold.pending is None:
                self._judged[line.id] = JudgeVerdict("skipped", reason="the judge's circuit is open")

    def judgement_of(self, line: Line) -> JudgeVerdict | None:
        """The judge's verdict on a line's comment (None: not asked), for the audit log."""
        return self._judged.get(line.id)

    def judge_state(self) -> dict[str, Any] | None:
        return self.judge.state() if self.judge is not None else None

    async def _answer(self, line: Line, hold: Hold) -> AsyncIterator[Sentence]:
        if line.source != LineSource.ANSWER:
            async for s in self._scripted(line, _LINE_SOURCE.get(line.source, "script")):
                yield s
            return
        question = line.text.strip()
        await self._after_kb_rebuild()  # a search may have rebuilt the KB: never serve answers it retired
        ans = AnswerState(line, source="cache")
        scope = self._scope_for(question)
        # A viewer's question answered before in these words (its key, or a near copy of it) passed the posture then and
        # would again: its cached answer is decided without reading the comment anew (no embedding: about a millisecond).
        # Not in a product's scope, where the show's live values come first.
        ev = line.event
        looked = self.cache is not None and scope.product is None and ev is not None \
            and ev.kind in (EventKind.COMMENT, EventKind.SUPER_CHAT)
        early = await self.cache.get(question, embeddings=False) if looked and self.cache is not None else None
        reading, scope = (None, scope) if early is not None else await self._read(line, question, scope)
        ans.scope = scope
        why = ""
        if reading is not None:
            why = reading.silence(with_model=self.backend is not None)
            if why == SILENT_OFF_TOPIC and self.backend is not None and (reading.asks_goods
                                                                         or await self._has_context(question, scope)):
                why = ""  # with a model, a question whose words the KB has is the model's to answer from them
        thanks, preface = self._preface(line)
        for s in thanks:  # a super chat's thanks is said whatever the judge says
            out = self._moderated(ans, s, "script", content=False)
            if out is not None:
                yield out
        if (reading is not None or early is not None) and not why:
            self._ask_judge(line, hold)
        for s in preface:
            out = self._moderated(ans, s, "script", content=False)
            if out is not None:
                yield out
        if reading is not None:
            if why:  # a paid event keeps its thanks (the preface); its words are never answered or read out
                self._silent(line, why)
                return
            if not reading.question or reading.identity:  # a friendly remark, a problem, who the host is: a fixed line
                out = self._fallback(ans, reading)
                if out is not None:
                    yield out
                return
            live = self._live_answer(scope, reading)
            if live:  # the show's own values answer (the price now, stock): they are facts, never cached
                ans.source = "kb"
                for text in self._split(live):
                    out = self._moderated(ans, text, "kb")
                    if out is not None:
                        yield out
                return
        # 1. answer cache (a product's answers under its own key: 多少钱 for the cup is no answer for the kettle)
        cache_key = f"[{scope.product}]{question}" if scope.product else question
        if self.cache is not None:
            hit = early or await self.cache.get(cache_key, lexical=not looked)  # (a miss by words is not asked twice)
            if hit is not None:
                metrics.CACHE_HITS.labels(self.room, "answer").inc()
                ans.source, ans.passage_ids, ans.cache_hit = "cache", tuple(hit.entry.passage_ids), hit.kind
                claims = self._guard((), scope=scope)
                for text in self._split(hit.entry.answer):
                    out = self._checked(ans, text, "cache", claims)
                    if out is not None:
                        yield out
                    if ans.replaced:
                        break
                if ans.spoken or ans.replaced:
                    if ans.spoken:
                        self._remember(line, question, "".join(ans.spoken))
                    return
            else:
                metrics.CACHE_MISSES.labels(self.room, "answer").inc()
        # 2. knowledge base: passages that answer the question's slot first (KnowledgeBase.retrieve), and the fact
        # that stands out as its answer (the reading's choice).
        min_match = self.cfg.kb.min_match
        kb = scope.kb
        hits, relevant = await kb.retrieve(question, min_match) if kb.passages else ([], [])
        # A question by its form whose words the KB has, if less of them than min_match asks, goes to the model with
        # those passages. They inform the model but ground no figure (only figures said with the KB's own label).
        context = relevant or ([h for h in hits if h.match >= min_match / 2] if is_question(question, language=self.language) else [])
        grounding = list(relevant)
        if reading is not None and reading.choice is not None and reading.choice.confident:
            # the answering fact's passage is context and grounds its figures, whatever the words matched
            chosen = {h.passage.id for h in context}
            for fact, *_ in reading.choice.ranked[:3]:
                passage = kb.passage(fact.passage_id)
                if passage is not None and passage.id not in chosen:
                    chosen.add(passage.id)
                    context.append(Hit(passage, 0.0, 0.0))
            top = kb.passage(reading.choice.fact.passage_id)  # type: ignore[union-attr]
            if top is not None and all(h.passage.id != top.id for h in grounding):
                grounding.append(Hit(top, 0.0, 0.0))
        if reading is None and (getattr(line, "kind", "") == "comment" and not context and not slots(question)
                                and scope.faq.match(question) is None):
            # (no reading: a line not from a viewer's comment) nothing the shop answers: a fixed line at most
            ans.source = "fallback"
            out = self._fallback(ans, None)
            if out is not None:
                yield out
            return
        # 3. LLM grounded on the passages: for an on-topic question only (an off-topic one never reaches here)
        if self.backend is not None and (reading is None or reading.on_topic or reading.answerable or reading.asks_goods
                                         or bool(context)):
            llm_ok = False
            # aclosing: when the stage cuts the line short, the model's stream is closed at once.
            async with contextlib.aclosing(self._llm(ans, question, grounding, context)) as sentences:
                async for out in sentences:
                    llm_ok = True
                    yield out
            if llm_ok and not ans.replaced:
                if not ans.all_drops and ans.spoken and self.cache is not None:  # voiced whole only
                    await self.cache.put(cache_key, "".join(ans.spoken), source="llm", passage_ids=ans.passage_ids)
                self._remember(line, question, "".join(ans.spoken))
                return
            if ans.replaced:
                if ans.spoken:
                    self._remember(line, question, "".join(ans.spoken))
                return
        # 4. extractive answer: the FAQ entry meant or the fact that stands out, else a safe fallback
        async for out in self._without_llm(ans, question, relevant, reading):
            yield out

    # -- audit ----------------------------------------------------------------------------------------

    def audit_record(self, line: Line, sentences: Sequence[Sentence], **latencies: float | None) -> dict[str, Any]:
        """One audit-log record for a spoken line: what was said, from where, and what was withheld and why."""
        sources = list(dict.fromkeys(s.source for s in sentences))
        pids = list(dict.fromkeys(p for s in sentences for p in s.passage_ids))
        return {
            "room": self.room,
            "line_id": line.id,
            "line_source": str(line.source),
            "event": line.event.to_json() if line.event is not None else None,
            "asked": line.text if line.source == LineSource.ANSWER else None,
            "text": "".join(s.text for s in sentences),
            "sentences": [s.text for s in sentences],
            "source": sources[0] if len(sources) == 1 else sources,
            "passage_ids": pids,
            "model": next((s.model for s in sentences if s.model), ""),
            "cache_hit": next((s.cache_hit for s in sentences if s.cache_hit), ""),
            "llm_ttft_s": next((s.llm_ttft_s for s in sentences if s.llm_ttft_s is not None), None),
            "verdicts": [list(s.verdicts) for s in sentences],
            "withheld": self._withheld.pop(line.id, None) or [d for s in sentences for d in s.dropped],
            "latency_s": {k: v for k, v in latencies.items() if v is not None},
            **({"judge": judged.to_json()} if (judged := self._judged.get(line.id)) is not None else {}),
        }

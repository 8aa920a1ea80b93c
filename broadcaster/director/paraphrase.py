"""Paraphrases written ahead: talk lines said other ways, and selling lines from the product's facts, by the room's
LLM in the background, checked like answers, cached per product and facts version, pre-voiced, used in rotation.

On air only `ready()` is asked: it returns what is already checked and voiced and, when a line has fewer than
`per_line` paraphrases, queues it for the worker; it never waits. The worker (one asyncio task, started by
`start()` or on the first want inside a running loop) asks the LLM (any object with the brain's Backend shape:
`stream(messages, max_tokens=, temperature=)`), under `timeout_s`, and checks every sentence of every candidate:

- its slots: the dynamic slots of the original line and no others (it can be filled like the original);
- moderation (`Moderator.check`) and the grounding guard (`GroundingGuard.check`, against the product's facts
  and the original line: no new figure, promise, origin or absolute claim, nothing of the prompt's rules);
- not a sentence the line already has (slots masked).

Refused candidates are counted by reason (figure, promise, absolute, moderation, slots, duplicate, leak, …).
Accepted ones are pre-voiced (`prevoice(texts)`, the voice's utterance-cache warm) before they are used, and
kept in memory and, with `cache_dir`, in `<cache_dir>/<product>-<facts_version>.json`, so a restart or a
product shown again costs no LLM call; a new facts version starts empty. A slow, hanging or failing LLM only
leaves the lines as they are written (failures back off before the next call).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from broadcaster import metrics
from broadcaster.brain.guard import GroundingGuard
from broadcaster.director.config import ParaphraseConfig
from broadcaster.director.scene import POINTS
from broadcaster.director.variants import DYNAMIC, Template, TemplateError, sentence_key, split_sentences

if TYPE_CHECKING:
    from broadcaster.brain.moderation import Moderator
    from broadcaster.director.scene import Scene, TalkLine

log = logging.getLogger(__name__)

RULES = (
    "你是直播间的话术编辑，只输出改写好的句子，每行一句，不要编号和解释。",
    "只能使用给出的产品资料和原句里的事实；不要新增任何数字、价格、赠品、承诺、产地、功效。",
    "不要用最、第一、顶级、百分百、绝对、永久等绝对化用语。",
    "花括号里的占位符（例如{viewers}）必须原样保留，不能增加别的占位符。",
)
_NUMBERING = re.compile(r"^\s*(?:[-*•·]|\d+[.、)）]|[（(]\d+[)）])\s*")
_BACKOFF_S = (5.0, 15.0, 60.0, 300.0)


def refusal_reason(reason: str) -> str:
    """A guard verdict's reason as a metric label."""
    for prefix, label in (("ungrounded number", "figure"), ("ungrounded promise", "promise"),
                          ("absolute claim", "absolute"), ("ungrounded origin", "origin"),
                          ("against the facts", "contradiction"), ("prompt leak", "leak"),
                          ("echo", "echo"), ("disparaging", "disparaging")):
        if reason.startswith(prefix):
            return label
    return "guard"


@dataclass(slots=True)
class _Job:
    scene: Scene
    item: TalkLine | None  # None: selling lines from the facts
    n: int


@dataclass
class _Entry:
    """One product+facts version: accepted texts per line ident, and which of them were said."""

    texts: dict[str, list[str]] = field(default_factory=dict)
    templates: dict[str, tuple[Template, ...]] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)
    loaded: bool = False


class Paraphraser:
    def __init__(self, backend: Any, moderator: Moderator, cfg: ParaphraseConfig, *, room: str = "",
                 prevoice: Callable[[list[str]], Awaitable[Any]] | None = None,
                 static_values: dict[str, str] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.backend = backend
        self.moderator = moderator
        self.cfg = cfg
        self.room = room or "-"
        self.prevoice = prevoice
        self.static_values = static_values or {}
        self.clock = clock
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._jobs: deque[_Job] = deque()
        self._queued: set[tuple[str, str, str]] = set()
        self._attempts: dict[tuple[str, str, str], int] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failures = 0
        self._not_before = 0.0
        self.rejected: dict[str, int] = {}
        self.last_refused: dict[str, str] = {}  # per reason, the last text refused for it (the console's why)
        self.accepted = 0
        self.llm_errors = 0
        self.calls = 0

    # -- on air (never waits) -----------------------------------------------------------------------

    @staticmethod
    def _key(scene: Scene | None) -> tuple[str, str]:
        return (scene.product, scene.facts_version) if scene is not None else ("", "")

    def _entry(self, scene: Scene | None) -> _Entry:
        key = self._key(scene)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        return entry

    def ready(self, scene: Scene | None, item: TalkLine) -> tuple[Template, ...]:
        """The line's checked and voiced paraphrases; queues more when it has fewer than `per_line`."""
        if item.ident == POINTS:
            return self.points(scene)
        entry = self._entry(scene)
        got = entry.templates.get(item.ident, ())
        if len(got) < self.cfg.per_line:
            self._want(scene, item, self.cfg.per_line - len(got))
        return got

    def points(self, scene: Scene | None) -> tuple[Template, ...]:
        """Selling lines written from the product's facts (queued when there are fewer than `points`)."""
        if scene is None or not scene.facts or not self.cfg.points:
            return ()
        entry = self._entry(scene)
        got = entry.templates.get(POINTS, ())
        if len(got) < self.cfg.points:
            self._want(scene, None, self.cfg.points - len(got))
        return got

    def used(self, scene: Scene | None, item: TalkLine, template: Template, now: float) -> None:
        entry = self._entry(scene)
        if template.text not in entry.said and any(template in ts for ts in entry.templates.values()):
            entry.said.add(template.text)
            self._gauges()

    def _want(self, scene: Scene | None, item: TalkLine | None, n: int) -> None:
        if scene is None:
            from broadcaster.director.scene import Scene

            scene = Scene()
        ident = item.ident if item is not None else POINTS
        key = (*self._key(scene), ident)
        if key in self._queued or self._attempts.get(key, 0) >= 3:  # three calls that gave too little: enough
            return
        self._queued.add(key)
        self._jobs.append(_Job(scene, item, n))
        self._wake.set()
        self._ensure_task()
        self._gauges()

    # -- the worker ---------------------------------------------------------------------------------

    def _ensure_task(self) -> None:
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not on a loop (a check, a test driving the track by hand): start() runs it later
        self._task = loop.create_task(self._run(), name=f"paraphrase-{self.room}")

    def start(self) -> None:
        self._ensure_task()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            if not self._jobs:
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = self._not_before - self.clock()
            if wait > 0:
                await asyncio.sleep(min(wait, 1.0))
                continue
            job = self._jobs.popleft()
            ident = job.item.ident if job.item is not None else POINTS
            key = (*self._key(job.scene), ident)
            try:
                await self._do(job)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the LLM or the voice failed: try that line again later, back off
                self.llm_errors += 1
                self._failures += 1
                self._not_before = self.clock() + _BACKOFF_S[min(self._failures, len(_BACKOFF_S)) - 1]
                log.warning("room %s: paraphrasing %s failed (%s: %s); lines stay as written", self.room, ident,
                            type(exc).__name__, exc)
            else:
                self._failures = 0
            finally:
                self._queued.discard(key)
                self._attempts[key] = self._attempts.get(key, 0) + 1
                self._gauges()

    async def _do(self, job: _Job) -> None:
        entry = self._entry(job.scene)
        if not entry.loaded:
            await asyncio.to_thread(self._load, job.scene, entry)
        ident = job.item.ident if job.item is not None else POINTS
        have = entry.templates.get(ident, ())
        want = (self.cfg.per_line if job.item is not None else self.cfg.points) - len(have)
        if want <= 0:
            return
        messages = self._messages(job, max(want, 2))
        self.calls += 1
        async with asyncio.timeout(self.cfg.timeout_s):
            pieces = [p async for p in self.backend.stream(messages, max_tokens=64 * (want + 2), temperature=0.9)]
        candidates = [_NUMBERING.sub("", x).strip() for x in "".join(pieces).splitlines()]
        accepted = await asyncio.to_thread(self._check_all, job, [c for c in candidates if c], have)
        accepted = accepted[:want]
        if not accepted:
            return
        values = {**self.static_values, **job.scene.values, "product": job.scene.name or None}
        voiced = [t.render((), values)[0] for t in accepted if not t.slots & DYNAMIC]
        if self.prevoice is not None and voiced:
            await self.prevoice(voiced)  # a failure raises: not published, tried again later
        entry.templates[ident] = (*have, *accepted)
        entry.texts[ident] = [t.text for t in entry.templates[ident]]
        self.accepted += len(accepted)
        if self.cfg.cache_dir is not None:
            await asyncio.to_thread(self._save, job.scene, entry)

    def _messages(self, job: _Job, n: int) -> list[dict[str, str]]:
        facts = "\n".join(f"- {f}" for f in job.scene.facts[:40]) or "（无）"
        if job.item is None:
            task = f"根据产品资料写{n}句不同的直播口播话术，每句讲一个卖点，口语化，每句不超过{self.cfg.max_chars}个字。"
        else:
            lines = "\n".join(f"- {self._original(job, t)}" for t in job.item.variants)
            task = (f"把下面这句直播话术换{n}种说法，意思不变，口语化，每句不超过{self.cfg.max_chars}个字：\n{lines}")
        return [{"role": "system", "content": "\n".join(RULES)},
                {"role": "user", "content": f"产品：{job.scene.name or '（未命名）'}\n产品资料：\n{facts}\n\n{task}"}]

    def _original(self, job: _Job, t: Template) -> str:
        """The line as written, static slots filled, dynamic ones kept as {slot}, the first of each alternative."""
        first = (0,) * sum(1 for p in t.parts if not p.slot and len(p.options) > 1)
        values = {**self.static_values, **job.scene.values, "product": job.scene.name or None}
        return t.render(first, {k: v for k, v in values.items() if k not in DYNAMIC and v})[0]

    def _refuse(self, reason: str, text: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1
        self.last_refused[reason] = text
        metrics.PARAPHRASES_REJECTED.labels(self.room, reason).inc()
        log.info("room %s: paraphrase refused (%s): %s", self.room, reason, text)

    def _check_all(self, job: _Job, candidates: Sequence[str], have: Sequence[Template]) -> list[Template]:
        originals = [self._original(job, t) for t in (job.item.variants if job.item is not None else ())]
        guard = GroundingGuard([*job.scene.facts, *originals], RULES, facts=job.scene.facts)
        slots = frozenset().union(*(t.slots & DYNAMIC for t in job.item.variants)) if job.item is not None else frozenset()
        seen = {sentence_key(s) for text in [*originals, *(t.text for t in have)] for s in split_sentences(text)}
        out: list[Template] = []
        for text in candidates:
            reason = self._check(text, guard, slots, seen)
            if reason:
                self._refuse(reason, text)
                continue
            seen.update(sentence_key(s) for s in split_sentences(text))
            out.append(Template.parse(text))
        return out

    def _check(self, text: str, guard: GroundingGuard, slots: frozenset[str], seen: set[str]) -> str:
        if len(text) > self.cfg.max_chars:
            return "too_long"
        try:
            t = Template.parse(text)
        except TemplateError:
            return "slots"
        if any(len(p.options) > 1 for p in t.parts) or t.slots != slots:
            return "slots"
        before = ""
        for sentence in split_sentences(text) or [text]:
            if sentence_key(sentence) in seen:
                return "duplicate"
            if not self.moderator.check(sentence).ok:
                return "moderation"
            verdict = guard.check(sentence, before)
            if not verdict.ok:
                return refusal_reason(verdict.reason)
            before = sentence
        return ""

    # -- the cache on disk --------------------------------------------------------------------------

    def _path(self, scene: Scene) -> Path | None:
        if self.cfg.cache_dir is None:
            return None
        safe = re.sub(r"[^\w.-]", "_", f"{scene.product or 'room'}-{scene.facts_version or 'none'}")
        return self.cfg.cache_dir / f"{safe}.json"

    def _load(self, scene: Scene, entry: _Entry) -> None:
        entry.loaded = True
        path = self._path(scene)
        if path is None or not path.is_file():
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for ident, texts in data.get("lines", {}).items():
                entry.templates[ident] = tuple(Template.parse(t) for t in texts)
                entry.texts[ident] = list(texts)
        except (OSError, ValueError, TemplateError, AttributeError) as exc:
            log.warning("room %s: paraphrase cache %s unreadable (%s): written anew", self.room, path, exc)

    def _save(self, scene: Scene, entry: _Entry) -> None:
        path = self._path(scene)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"product": scene.product, "facts_version": scene.facts_version,
                                   "lines": entry.texts}, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(path)

    # -- figures ------------------------------------------------------------------------------------

    def waiting(self) -> tuple[int, int]:
        """(ready and not yet said, lines queued for the LLM)."""
        ready = sum(1 for e in self._entries.values() for ts in e.templates.values() for t in ts if t.text not in e.said)
        return ready, len(self._jobs)

    def _gauges(self) -> None:
        ready, pending = self.waiting()
        metrics.PARAPHRASES_WAITING.labels(self.room, "ready").set(ready)
        metrics.PARAPHRASES_WAITING.labels(self.room, "pending").set(pending)

    def snapshot(self) -> dict[str, Any]:
        ready, pending = self.waiting()
        return {"ready": ready, "pending": pending, "accepted": self.accepted, "rejected": dict(self.rejected),
                "last_refused": dict(self.last_refused),
                "llm_calls": self.calls, "llm_errors": self.llm_errors}

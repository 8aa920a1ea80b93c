"""The moderation judge: an OpenAI-compatible chat model asked about every comment that passed the rules and would
get a line, batched over a short window, cached by normalized text, failing closed, behind a circuit breaker.

`ask(text)` starts (or joins) a request and returns at once; the Brain asks it beside retrieval and synthesis, and
only the line's first sentence waits for the verdict (`wait`, up to moderation.judge.budget_ms once that sentence is
ready). No verdict in time, an HTTP error, a hang or an answer that is no verdict: that comment gets no line. Failed
requests in a row open the circuit: the room then runs on rules and the posture of silence alone (`ask` returns
None), says so in the log, in its status (`state()`) and in va_judge_open, and after circuit_reset_s one trial
request may close it again. A request is a success only when its answer came before every comment in it gave up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import unicodedata
from collections.abc import Callable
from typing import Any

import aiohttp

from broadcaster import metrics
from broadcaster.brain.config import JudgeConfig, LLMConfig
from broadcaster.brain.judge_prompt import (
    CATEGORIES,
    Garbage,
    Verdict,
    categories_for,
    guard_messages,
    json_messages,
    read_guard,
    read_json,
)
from common.bounded import BoundedDict
from common.breaker import CircuitBreaker

log = logging.getLogger(__name__)

MAX_TEXT = 200  # characters of a comment sent to the judge


def judge_key(text: str) -> str:
    """What two comments must share for one verdict to serve both: NFKC, lower case, spaces squeezed (emoji kept:
    🐴 may be the whole insult)."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


class _Pending:
    __slots__ = ("future", "gave_up", "text")

    def __init__(self, text: str, future: asyncio.Future[Verdict]) -> None:
        self.text = text
        self.future = future
        self.gave_up = False  # a line stopped waiting for it: the request was too slow


class Judge:
    def __init__(self, room: str, cfg: JudgeConfig, llm: LLMConfig, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.room = room
        self.cfg = cfg
        self.base_url = (cfg.base_url or llm.base_url).rstrip("/")
        self.model = cfg.model or llm.model
        key = cfg.api_key if cfg.base_url else (cfg.api_key or llm.api_key)
        self._api_key = key.get_secret_value() if key is not None else ""
        self.categories = categories_for(cfg.categories_off, cfg.categories)
        self._known = {**CATEGORIES, **cfg.categories}
        self.breaker = CircuitBreaker(cfg.circuit_failures, cfg.circuit_reset_s, clock=clock)
        self._cache: BoundedDict[str, Verdict] = BoundedDict(cfg.cache_entries)
        self._inflight: dict[str, _Pending] = {}
        self._queue: list[_Pending] = []
        self._flush_handle: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None
        self._open = False
        self.last_error = ""
        self.requests = 0
        metrics.JUDGE_OPEN.labels(room).set(0)

    # -- asking ------------------------------------------------------------------------------------------------

    def ask(self, text: str) -> _Pending | None:
        """The pending verdict on a comment (already done when cached), or None while the circuit is open."""
        key = judge_key(text)
        cached = self._cache.get(key)
        loop = asyncio.get_running_loop()
        if cached is not None:
            fut: asyncio.Future[Verdict] = loop.create_future()
            fut.set_result(cached)
            return _Pending(text, fut)
        if key in self._inflight:
            return self._inflight[key]
        if self.breaker.state == "open":
            metrics.JUDGE_VERDICTS.labels(self.room, "skipped").inc()
            return None
        pending = _Pending(text[:MAX_TEXT], loop.create_future())
        self._inflight[key] = pending
        self._queue.append(pending)
        if len(self._queue) >= self.cfg.max_batch or self.cfg.batch_window_ms <= 0:
            self._flush()
        elif self._flush_handle is None:
            self._flush_handle = loop.call_later(self.cfg.batch_window_ms / 1000, self._flush)
        return pending

    async def wait(self, pending: _Pending) -> Verdict:
        """The verdict, waiting at most budget_ms from now; 'late' (the comment fails closed) after that."""
        if not pending.future.done():
            try:
                await asyncio.wait_for(asyncio.shield(pending.future), self.cfg.budget_ms / 1000)
            except TimeoutError:
                pending.gave_up = True
                metrics.JUDGE_VERDICTS.labels(self.room, "late").inc()
                return Verdict("late", reason=f"no verdict within {self.cfg.budget_ms:.0f} ms")
        return pending.future.result()

    # -- requests ------------------------------------------------------------------------------------------------

    def _flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        batch, self._queue = self._queue, []
        if not batch:
            return
        if not self.breaker.allow():  # half-open with its one trial already out: rules and posture meanwhile
            for p in batch:
                self._settle(p, Verdict("skipped"), cache=False)
            return
        task = asyncio.get_running_loop().create_task(self._request(batch), name=f"judge-{self.room}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _request(self, batch: list[_Pending]) -> None:
        t0 = time.monotonic()
        self.requests += 1
        try:
            if self.cfg.format == "guard":
                found: list[Verdict | None] = list(await asyncio.gather(*(self._guard_one(p.text) for p in batch)))
            else:
                answer = await self._chat(json_messages([p.text for p in batch], self.categories),
                                          self.cfg.max_tokens)
                found = read_json(answer, len(batch), self._known)
        except asyncio.CancelledError:
            for p in batch:
                self._settle(p, Verdict("error", reason="closed"), cache=False)
            raise
        except (TimeoutError, aiohttp.ClientError, Garbage, ValueError, KeyError) as exc:
            kind = "timeout" if isinstance(exc, TimeoutError) else "garbage" if isinstance(exc, Garbage) else "http"
            self._failed(batch, kind, f"{type(exc).__name__}: {exc}"[:200])
            return
        finally:
            metrics.JUDGE_SECONDS.labels(self.room).observe(time.monotonic() - t0)
        missing = [p for p, v in zip(batch, found, strict=True) if v is None]
        late = any(p.gave_up for p in batch)
        for p, v in zip(batch, found, strict=True):
            if v is not None:
                self._settle(p, self._room_view(v), cache=True)
        if missing:
            self._failed(missing, "garbage", f"no verdict for {len(missing)} of {len(batch)} comments")
        elif late:
            self._failure("late", f"answered in {time.monotonic() - t0:.2f} s, after a line stopped waiting")
        else:
            self._success()

    async def _guard_one(self, text: str) -> Verdict:
        return read_guard(await self._chat(guard_messages(text), 16))

    async def _chat(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        body = {"model": self.model, "messages": messages, "stream": False, "temperature": 0,
                "max_tokens": max_tokens}
        async with asyncio.timeout(self.cfg.timeout_s):
            async with self._http().post(f"{self.base_url}/chat/completions", json=body, headers=headers) as resp:
                if resp.status != 200:
                    raise aiohttp.ClientResponseError(resp.request_info, (), status=resp.status,
                                                      message=(await resp.text())[:120])
                data: Any = await resp.json(content_type=None)
        try:
            return str(data["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise Garbage(f"no choices[0].message.content in {str(data)[:80]!r}") from exc

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        return self._session

    # -- outcomes ------------------------------------------------------------------------------------------------

    def _room_view(self, v: Verdict) -> Verdict:
        if v.outcome == "flagged" and v.category in self.cfg.categories_off:
            return Verdict("pass", v.category, "category switched off in this room")
        return v

    def _settle(self, p: _Pending, v: Verdict, *, cache: bool) -> None:
        key = judge_key(p.text)
        if self._inflight.get(key) is p:
            del self._inflight[key]
        if cache and v.outcome in ("pass", "flagged"):
            self._cache[key] = v
        if not p.future.done():
            p.future.set_result(v)
        if not p.gave_up:
            metrics.JUDGE_VERDICTS.labels(self.room, v.outcome).inc()
        if v.outcome == "flagged":
            metrics.JUDGE_FLAGS.labels(self.room, v.category).inc()

    def _failed(self, batch: list[_Pending], kind: str, detail: str) -> None:
        for p in batch:
            self._settle(p, Verdict("error", reason=kind), cache=False)
        self._failure(kind, detail)

    def _failure(self, kind: str, detail: str) -> None:
        self.last_error = f"{kind}: {detail}"
        self.breaker.failure()
        log.warning("room %s: judge %s failed: %s", self.room, self.base_url, self.last_error)
        if self.breaker.state == "open" and not self._open:
            self._open = True
            metrics.JUDGE_OPEN.labels(self.room).set(1)
            log.error("room %s: the moderation judge keeps failing (%s): the room runs on rules and the posture of "
                      "silence alone, and tries the judge again in %.0f s", self.room, self.last_error,
                      self.cfg.circuit_reset_s)

    def _success(self) -> None:
        self.breaker.success()
        if self._open:
            self._open = False
            metrics.JUDGE_OPEN.labels(self.room).set(0)
            log.warning("room %s: the moderation judge answers again: comments are judged", self.room)

    # -- status --------------------------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """For the room's status: whether comments are judged, or the room runs on rules and posture alone."""
        state = self.breaker.state
        return {"state": state, "judging": state != "open", "model": self.model, "url": self.base_url,
                "format": self.cfg.format, "requests": self.requests, "last_error": self.last_error,
                "fallback": "rules and the posture of silence" if state == "open" else ""}

    async def close(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        for p in self._queue:
            self._settle(p, Verdict("error", reason="closed"), cache=False)
        self._queue = []
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._session is not None:
            await self._session.close()
            self._session = None

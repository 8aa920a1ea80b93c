"""The TTS backend contract (async, streamed float32 chunks at a declared rate) and a thread runner for blocking engines."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


class TTSError(Exception):
    """A backend could not synthesize a text (bad model, server error, engine failure)."""


class TTSBackend(ABC):
    """One loaded voice. `start()` loads and warms it once; `synthesize()` streams float32 mono chunks
    at `sample_rate` as early as the engine allows; `voice_id` and `version` key the utterance cache."""

    name: str = "tts"
    streaming: bool = False  # True when chunks arrive before the whole sentence is synthesized
    sample_rate: int = 0

    @property
    @abstractmethod
    def voice_id(self) -> str: ...

    @property
    @abstractmethod
    def version(self) -> str: ...

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Loads the model and runs one warm-up synthesis."""

    @abstractmethod
    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]: ...

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Frees the model."""


class ThreadedBackend(TTSBackend):
    """Runs a blocking engine on its own worker thread (engines are not thread-safe) and streams its chunks.

    If a caller gives up on a synthesis that is still running (timeout, hang), the worker thread is
    abandoned and a fresh one takes its place, so one wedged call does not block every later one.
    """

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"tts-{self.name}")
        self.abandoned_threads = 0
        self.abandon_grace_s = 1.0
        self._abandoned: asyncio.Future[Any] | None = None

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def _recycle_if_stuck(self, executor: ThreadPoolExecutor, future: asyncio.Future[Any]) -> None:
        # Called a grace period after the consumer left: an engine that honoured `stop` is done by now.
        if future.done() or executor is not self._executor:
            return
        if future is self._abandoned:
            self._abandoned = None
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"tts-{self.name}")
        # Work already queued behind the stuck call still runs there (its callers are waiting on it).
        executor.shutdown(wait=False, cancel_futures=False)
        self.abandoned_threads += 1
        log.warning("%s: a synthesis did not stop after its caller left; its worker thread is abandoned", self.name)

    async def stream(self, produce: Callable[[threading.Event], Iterator[np.ndarray]]) -> AsyncIterator[np.ndarray]:
        """Runs `produce(stop)` on the worker thread and yields its chunks as they come.

        `stop` is set when the consumer goes away; engines that can abort (espeak's callback) check it.
        """
        loop = asyncio.get_running_loop()
        left = self._abandoned
        if left is not None and not left.done():
            # The previous caller gave up on a call that is still running: give it the grace period to
            # notice `stop`, then move to a fresh thread instead of queueing behind it.
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(left), self.abandon_grace_s)
            self._recycle_if_stuck(self._executor, left)
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()

        def put(kind: str, item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, item))
            except RuntimeError:  # loop closed: nobody is listening any more
                stop.set()

        def work() -> None:
            try:
                for chunk in produce(stop):
                    if stop.is_set():
                        break
                    put("chunk", chunk)
            except BaseException as exc:
                put("error", exc)
            else:
                put("end", None)

        executor = self._executor
        future = loop.run_in_executor(executor, work)
        finished = False
        try:
            while True:
                kind, item = await queue.get()
                if kind == "chunk":
                    yield item
                elif kind == "error":
                    finished = True
                    if isinstance(item, TTSError):
                        raise item
                    raise TTSError(f"{self.name}: {type(item).__name__}: {item}") from item
                else:
                    finished = True
                    return
        finally:
            stop.set()
            if not finished and not future.done():
                self._abandoned = future
                loop.call_later(self.abandon_grace_s, self._recycle_if_stuck, executor, future)

    async def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

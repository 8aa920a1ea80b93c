"""The connector contract: a Source streams Events forever, reconnecting with backoff, and reports its health."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import aiohttp

from common.retry import Backoff
from danmaku import metrics
from danmaku.event import Event
from danmaku.money import Rates

log = logging.getLogger("danmaku")

# How long one kind of decode error stays quiet in the log after it was logged (one line per burst).
BURST_QUIET_S = 60.0


class DecodeError(Exception):
    """Undecodable input of a named kind (truncated, bad_compression, too_large, utf8, json, shape, protobuf, …)."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


# Inflated bytes a frame may cost on the event loop; a frame that would inflate past this (a big burst, or a
# decompression bomb) is decoded in a worker thread, so it cannot stall the other rooms' chat.
INLINE_INFLATE_BYTES = 256 * 1024


class NeedsThread(Exception):
    """A frame inflates past INLINE_INFLATE_BYTES: decode it off the event loop instead."""


def describe_error(exc: BaseException) -> str:
    """One readable line for a network error (aiohttp's own str() of a failed connect shows the `ssl=`
    argument, e.g. an SSLContext object's repr, even for ws:// URLs)."""
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return f"TLS certificate not accepted by {exc.host}:{exc.port}: {exc.certificate_error}"
    if isinstance(exc, aiohttp.ClientConnectorSSLError):
        return f"TLS (SSL) handshake with {exc.host}:{exc.port} failed: {exc.os_error}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        os_err = exc.os_error
        why = os_err.strerror or str(os_err) or type(os_err).__name__
        return f"cannot connect to {exc.host}:{exc.port}: {why}"
    if isinstance(exc, aiohttp.WSServerHandshakeError):
        return f"websocket upgrade refused: HTTP {exc.status}"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"HTTP {exc.status}: {exc.message}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SessionError(Exception):
    """A session ended for a reason worth a warning (auth rejected, server closed, …): reconnect."""


@dataclass(frozen=True, slots=True)
class SourceHealth:
    name: str
    connected: bool
    last_message_age_s: float | None  # None: no message since the source started
    reconnects: int
    decode_errors: dict[str, int] = field(default_factory=dict)
    silent: bool = False
    last_warning: str = ""
    unknown_commands: int = 0
    dropped_events: int = 0  # the consumer fell behind and the queue overflowed
    endpoint: str = ""  # where an HTTP receiver listens (webhook, Douyin push)
    active: str = ""  # a source group: the member it delivers from now
    members: tuple[SourceHealth, ...] = ()  # a source group: each member's health, in priority order

    @property
    def healthy(self) -> bool:
        return self.connected and not self.silent

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.name,
            "connected": self.connected,
            "healthy": self.healthy,
            "last_message_age_s": None if self.last_message_age_s is None else round(self.last_message_age_s, 3),
            "reconnects": self.reconnects,
            "decode_errors": dict(self.decode_errors),
            "silent": self.silent,
            "last_warning": self.last_warning,
            "unknown_commands": self.unknown_commands,
            "dropped_events": self.dropped_events,
            **({"endpoint": self.endpoint} if self.endpoint else {}),
            **({"active": self.active, "members": [m.to_json() for m in self.members]} if self.members else {}),
        }


class DecodeErrors:
    """Counts undecodable input per kind (health + metric) and logs each kind once per burst."""

    def __init__(self, room: str, source: str):
        self.room, self.source = room, source
        self.counts: dict[str, int] = {}
        self._logged_at: dict[str, float] = {}
        self._since_log: dict[str, int] = {}

    def add(self, kind: str, detail: str = "") -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        metrics.SOURCE_DECODE_ERRORS.labels(self.room, self.source, kind).inc()
        now = time.monotonic()
        last = self._logged_at.get(kind)
        if last is None or now - last >= BURST_QUIET_S:
            suppressed = self._since_log.get(kind, 0)
            more = f" ({suppressed} more since the last report)" if suppressed else ""
            log.warning("%s/%s: undecodable input (%s)%s%s", self.room, self.source, kind,
                        f": {detail[:200]}" if detail else "", more)
            self._logged_at[kind] = now
            self._since_log[kind] = 0
        else:
            self._since_log[kind] = self._since_log.get(kind, 0) + 1


class Source(ABC):
    """Base of every connector.

    Subclasses implement `_session()`: one connection's life (bootstrap, connect, read), calling `self._emit`
    for each Event and `self._touch()` for every message (even ones that make no Event), and returning or
    raising when the connection ends. The base runs sessions forever with backoff, watches for silence and
    exposes health. Network and decode problems never escape `events()`.
    """

    platform: ClassVar[str] = "generic"
    # Sources that watch a live room default `silent_after_s` on in their config; any source honours it when set.
    watches_live_room: ClassVar[bool] = False

    def __init__(self, cfg: Any, room_id: str):
        self.cfg = cfg
        self.room = room_id
        self.name: str = cfg.name or cfg.type
        self.errors = DecodeErrors(room_id, self.name)
        self.rates = Rates(getattr(cfg, "money", None), room_id)
        # None is the end-of-stream mark put by the runner when it finishes.
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue(maxsize=cfg.queue_max + 1)
        self._backoff = Backoff(cfg.reconnect_delay_s, cfg.reconnect_max_delay_s, wait_jitter=0.5)
        self._stopping = False
        self._hurry = False  # the next session starts at once (the server asked us to reconnect)
        self._runner: asyncio.Task[None] | None = None
        self._stop_task: asyncio.Future[None] | None = None
        self._connected = False
        self._silent = False
        self._last_warning = ""
        self._warning_clears_on_recovery = True
        self._reconnects = 0
        self._unknown_commands = 0
        self._dropped = 0
        self._endpoint = ""
        self._started_mono = time.monotonic()
        self._last_msg_mono: float | None = None
        self._session_msgs = 0
        self._live: bool | None = None  # None = unknown; False = the room says it is off air
        self._listeners: list[Callable[[SourceHealth], None]] = []
        self._event_counters: dict[str, Any] = {}
        self._m_up = metrics.SOURCE_UP.labels(room_id, self.name)
        self._m_age = metrics.SOURCE_LAST_MESSAGE_AGE.labels(room_id, self.name)
        self._m_reconnects = metrics.SOURCE_RECONNECTS.labels(room_id, self.name)
        self._m_up.set(0)

    # ------------------------------------------------------------------ public API

    async def events(self) -> AsyncIterator[Event]:
        """Yields Events until `stop()`; reconnects forever behind the scenes. Iterate it once."""
        if self._runner is None:
            self._runner = asyncio.create_task(self._run_guarded(), name=f"danmaku-{self.room}-{self.name}")
        try:
            while True:
                event = await self._queue.get()
                if event is None:
                    return
                yield event
        finally:
            # The stream ended, or the consumer walked away: stop the connector with it (idempotent).
            await self.stop()

    def health(self) -> SourceHealth:
        age = None if self._last_msg_mono is None else time.monotonic() - self._last_msg_mono
        return SourceHealth(
            name=self.name,
            connected=self._connected,
            last_message_age_s=age,
            reconnects=self._reconnects,
            decode_errors=dict(self.errors.counts),
            silent=self._silent,
            last_warning=self._last_warning,
            unknown_commands=self._unknown_commands,
            dropped_events=self._dropped,
            endpoint=self._endpoint,
        )

    def add_health_listener(self, callback: Callable[[SourceHealth], None]) -> None:
        """Called (on the loop) whenever connected/silent/warning/reconnect count change."""
        self._listeners.append(callback)

    async def stop(self) -> None:
        """Stops reading and lets the platform know we are leaving (e.g. the open platform's `end` call).

        Idempotent: every caller waits for the same clean-up, which a cancelled caller does not abort."""
        if self._stop_task is None:
            self._stopping = True
            self._stop_task = asyncio.ensure_future(self._do_stop())
        await asyncio.shield(self._stop_task)

    async def _do_stop(self) -> None:
        # Events owed to the consumer (e.g. combos still open) go out before the end-of-stream mark.
        try:
            await self._drain()
            for ev in self._last_events():
                self._emit(ev)
        except Exception:
            log.exception("%s/%s: final events failed", self.room, self.name)
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        try:
            await self._on_stop()
        except Exception as exc:
            log.warning("%s/%s: error while stopping: %s", self.room, self.name, exc)
        self._set_connected(False)

    # ------------------------------------------------------------------ for subclasses

    @abstractmethod
    async def _session(self) -> None:
        """One connection's life; return or raise to reconnect."""

    async def _drain(self) -> None:  # noqa: B027 (an optional hook)
        """Runs first when stopping for good, while events can still be emitted (a group stops its members)."""

    def _last_events(self) -> list[Event]:
        """Events still owed when the source stops for good (hook; default none)."""
        return []

    async def _on_stop(self) -> None:  # noqa: B027 (an optional hook)
        """Clean-up after the last session (close HTTP clients, tell the platform we left)."""

    async def _before_reconnect(self, failures: int) -> None:  # noqa: B027 (an optional hook)
        """Hook called before each new session after a failure (e.g. to force a fresh token)."""

    def _silence_cause(self) -> str:
        return "the upstream stopped sending messages"

    def _reconnect_now(self) -> None:
        """The session ending now was asked for by the server (a reconnect notice): start the next one at once."""
        self._hurry = True

    def _emit(self, event: Event) -> None:
        if event.money is not None:
            event = self.rates.revalue(event)  # converted once, here, with the room's table
        counter = self._event_counters.get(event.kind)
        if counter is None:
            counter = self._event_counters[event.kind] = metrics.EVENTS.labels(self.room, event.platform, event.kind)
        counter.inc()
        if self._queue.qsize() < self.cfg.queue_max:
            self._queue.put_nowait(event)
        else:
            # The consumer is behind: old chat is worth less than new chat.
            self._queue.get_nowait()
            self._queue.put_nowait(event)
            self._dropped += 1
            metrics.SOURCE_DROPPED_EVENTS.labels(self.room, self.name).inc()

    async def _emit_wait(self, event: Event) -> None:
        """Like _emit, but waits for room instead of dropping (replay, Redis: the upstream can wait)."""
        while self._queue.qsize() >= self.cfg.queue_max:
            await asyncio.sleep(0.01)
        self._emit(event)

    def _touch(self) -> None:
        """A message arrived (any business message, even one we ignore): the source is not silent."""
        self._last_msg_mono = time.monotonic()
        self._session_msgs += 1
        if self._silent:
            self._silent = False
            self._notify()

    def _unknown(self, cmd: str) -> None:
        self._unknown_commands += 1

    def _set_live(self, live: bool) -> None:
        self._live = live

    def _set_connected(self, connected: bool) -> None:
        self._m_up.set(1 if connected and not self._silent else 0)
        if connected and self._last_warning and self._warning_clears_on_recovery:
            # Recovered: a warning about the failure that is now over would only mislead whoever looks.
            self._last_warning = ""
            if connected == self._connected:
                self._notify()
        if connected != self._connected:
            self._connected = connected
            self._notify()

    def _warn(self, message: str, *, until_recovery: bool = True) -> None:
        """Logs and shows a warning in health. It clears when the source (re)connects, unless
        `until_recovery` is False: then it describes a lasting condition (e.g. a rejected cookie)."""
        log.warning("%s/%s: %s", self.room, self.name, message)
        self._last_warning = message
        self._warning_clears_on_recovery = until_recovery
        self._notify()

    def _is_up(self) -> bool:
        return self._connected and not self._silent

    def _notify(self) -> None:
        self._m_up.set(1 if self._is_up() else 0)
        if not self._listeners:
            return
        snapshot = self.health()
        for cb in list(self._listeners):
            try:
                cb(snapshot)
            except Exception:
                log.exception("health listener failed")

    # ------------------------------------------------------------------ the loop

    async def _run_guarded(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("%s/%s: connector loop crashed", self.room, self.name)
        finally:
            self._set_connected(False)
            if self._queue.full():
                self._queue.get_nowait()
            self._queue.put_nowait(None)

    async def _run(self) -> None:
        while not self._stopping:
            self._session_msgs = 0
            session_start = time.monotonic()
            task = asyncio.create_task(self._session())
            reason = ""
            try:
                reason = await self._watch(task, session_start)
            except asyncio.CancelledError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                raise
            self._set_connected(False)
            if self._stopping:
                return
            if self._session_msgs:
                self._backoff.reset()
            if reason and self._last_warning and not self._warning_clears_on_recovery:
                log.warning("%s/%s: %s", self.room, self.name, reason)  # the lasting warning stays in health
            elif reason:
                self._warn(reason)
            if self._hurry:
                self._hurry = False
                self._backoff.reset()
                delay = 0.0
            else:
                delay = self._backoff.next_delay()
            self._reconnects += 1
            self._m_reconnects.inc()
            self._notify()
            await asyncio.sleep(delay)
            try:
                await self._before_reconnect(self._backoff.attempts)
            except Exception as exc:
                self._warn(f"preparing a reconnect failed: {exc}")

    async def _watch(self, task: asyncio.Task[None], session_start: float) -> str:
        """Waits for the session to end; cancels it when the live room has gone silent. Returns a warning."""
        silent_after = self.cfg.silent_after_s
        tick = 1.0 if silent_after is None else max(0.05, min(1.0, silent_after / 4))
        while True:
            done, _ = await asyncio.wait({task}, timeout=tick)
            now = time.monotonic()
            if self._last_msg_mono is not None:
                self._m_age.set(now - self._last_msg_mono)
            if done:
                exc = task.exception() if not task.cancelled() else None
                if exc is None:
                    return "" if self._stopping else "connection closed by the server"
                if isinstance(exc, DecodeError):
                    self.errors.add(exc.kind, exc.detail)
                    return f"connection dropped after undecodable input ({exc.kind})"
                if isinstance(exc, SessionError):
                    return str(exc) or type(exc).__name__
                if isinstance(exc, (OSError, asyncio.TimeoutError, aiohttp.ClientError)):
                    return describe_error(exc)
                # Anything else is still not allowed to kill the source, but it is a bug: log with traceback.
                log.error("%s/%s: session failed", self.room, self.name, exc_info=exc)
                return f"session failed: {type(exc).__name__}: {exc}"
            if silent_after is None or self._live is False or not self._connected:
                continue
            since = self._last_msg_mono if self._last_msg_mono is not None and self._last_msg_mono > session_start \
                else session_start
            if now - since >= silent_after:
                self._silent = True
                self._notify()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                return (f"connected but silent for {now - since:.0f} s; likely cause: {self._silence_cause()}; "
                        "reconnecting")

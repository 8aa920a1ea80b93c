"""The daemon's side of a room worker: spawns `python -m broadcaster.worker`, talks to it, restarts it alone.

A WorkerHandle is what the admin API, the console and the systemd watchdog see as the room (admin's `_Room`):
status and clock age come from the worker's last heartbeat (sync); commands that need the worker (say, skip,
pause, resume, snapshot, recent chat, metrics) are awaitables. A worker that exits, hangs (no clock progress
and no heartbeat for `hang_after_s`) or outgrows `memory_limit_mb` is killed and started again with the room's
running config, after a backoff, while every other room streams on; each restart is logged once and counted
in `va_worker_restarts_total{room,reason}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import os
import pickle
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcaster import metrics
from broadcaster.config import DaemonConfig, RoomConfig
from broadcaster.logs import secrets_of
from broadcaster.worker import (
    FD_ENV,
    PARENT_ENV,
    ProtocolError,
    RemoteError,
    WorkerInit,
    encode,
    read_frame,
)
from common.retry import Backoff

log = logging.getLogger(__name__)

# What systemd hands the daemon alone: a worker must never notify, ping or take over the daemon's sockets.
_DAEMON_ONLY_ENV = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES")
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
CHECK_EVERY_S = 0.5
COMMAND_TIMEOUT_S = 10.0


def worker_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DAEMON_ONLY_ENV}
    env.update(extra)
    # The worker runs the daemon's own copy of the code, however the daemon was started.
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if _PACKAGE_ROOT not in paths:
        env["PYTHONPATH"] = os.pathsep.join([_PACKAGE_ROOT, *paths])
    return env


def process_rss(pid: int) -> int | None:
    """A process's resident memory from /proc (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class _Launched:
    """A worker process started and connected, not yet told which room it runs."""

    proc: asyncio.subprocess.Process
    exit: asyncio.Future[int]
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def kill(self) -> None:
        if not self.exit.done():
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
            await self.exit
        with contextlib.suppress(Exception):
            self.writer.close()


async def launch(label: str, env: dict[str, str], *, spare: bool = False) -> _Launched:
    """Starts `python -m broadcaster.worker` with its end of a fresh socketpair."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    env = worker_env({**env, FD_ENV: str(theirs.fileno()), PARENT_ENV: str(os.getpid())})
    args = ["--spare"] if spare else ["--room", label]
    try:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "broadcaster.worker", *args,
                                                    pass_fds=(theirs.fileno(),), env=env,
                                                    stdin=asyncio.subprocess.DEVNULL)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    exit_ = asyncio.ensure_future(proc.wait())
    reader, writer = await asyncio.open_unix_connection(sock=ours)
    return _Launched(proc, exit_, reader, writer)


class SparePool:
    """One worker started ahead, its imports and one-time loads (word segmenter, moderation tables) done,
    waiting for a room: a restarted room skips most of a cold start. Refilled a while after it is taken, so
    the refill does not compete for the CPU with the room going back on air."""

    REFILL_AFTER_S = 10.0

    def __init__(self, env: Callable[[], dict[str, str]]):
        self._env = env
        self._spare: _Launched | None = None
        self._filling: asyncio.Task[None] | None = None
        self._closed = False
        self._started = False  # the daemon starts its rooms first (all at once), then the pool

    def fill(self, delay_s: float = 0.0) -> None:
        self._started = True
        if self._closed or self._spare is not None or (self._filling is not None and not self._filling.done()):
            return
        self._filling = asyncio.create_task(self._fill(delay_s), name="spare-worker")

    async def _fill(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        try:
            self._spare = await launch("", self._env(), spare=True)
        except OSError as exc:
            log.warning("could not start a spare room worker: %s", exc)

    def take(self) -> _Launched | None:
        if not self._started:
            return None
        spare, self._spare = self._spare, None
        if spare is not None and spare.exit.done():
            spare = None
        self.fill(self.REFILL_AFTER_S)
        return spare

    async def close(self) -> None:
        self._closed = True
        if self._filling is not None:
            self._filling.cancel()
            with contextlib.suppress(BaseException):
                await self._filling
        if self._spare is not None:
            await self._spare.kill()
            self._spare = None


class _Channel:
    """One worker connection: frames out, replies matched to requests by id, heartbeats into the handle."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_status: Callable[[dict[str, Any]], None]):
        self.writer = writer
        self._pending: dict[int, asyncio.Future[tuple[dict[str, Any], bytes]]] = {}
        self._ids = itertools.count(1)
        self._on_status = on_status
        self._task = asyncio.create_task(self._read(reader), name="worker-channel")

    async def _read(self, reader: asyncio.StreamReader) -> None:
        why = "the worker closed its connection"
        try:
            while True:
                msg, blob = await read_frame(reader)
                if msg.get("op") == "status":
                    self._on_status(msg)
                elif msg.get("op") == "reply":
                    fut = self._pending.pop(int(msg.get("id") or 0), None)
                    if fut is not None and not fut.done():
                        fut.set_result((msg, blob))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except (ProtocolError, ValueError) as exc:
            why = f"the worker sent a broken frame ({exc})"
            log.error("%s", why)
        finally:
            self._fail(why)

    def _fail(self, why: str) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(RemoteError(why))
        self._pending.clear()

    async def request(self, op: str, timeout: float, blob: bytes = b"", **fields: Any) -> tuple[Any, bytes]:
        rid = next(self._ids)
        fut: asyncio.Future[tuple[dict[str, Any], bytes]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            self.writer.write(encode({"op": op, "id": rid, **fields}, blob))
            await self.writer.drain()
            msg, out = await asyncio.wait_for(fut, timeout)
        except (ConnectionError, RuntimeError) as exc:
            raise RemoteError(f"the worker is gone ({type(exc).__name__})") from None
        except TimeoutError:
            raise RemoteError(f"the worker did not answer {op} within {timeout:.0f}s") from None
        finally:
            self._pending.pop(rid, None)
        if not msg.get("ok"):
            if msg.get("kind") == "ValueError":  # a refused operator line: the API answers 409 as inline
                raise ValueError(msg.get("message") or msg.get("error"))
            raise RemoteError(str(msg.get("error") or "failed"), str(msg.get("kind") or ""))
        return msg.get("result"), out

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task
        self._fail("the worker was stopped")


class WorkerHandle:
    """One room run in its own worker process (see the module docstring)."""

    def __init__(self, cfg: RoomConfig, daemon_cfg: DaemonConfig, *, paced: bool = True,
                 secrets: Callable[[], list[str]] = list, env: Callable[[], dict[str, str]] = dict,
                 stopping: Callable[[], bool] = lambda: False, spares: SparePool | None = None):
        self.id = cfg.id
        self.cfg = cfg  # the config the room runs (a restart starts it again)
        self._daemon_cfg = daemon_cfg
        self._limits = daemon_cfg.workers
        self.paced = paced
        self._secrets, self._env, self._daemon_stopping = secrets, env, stopping
        self._spares = spares
        self.state = "new"  # starting → live ⇄ restarting → stopping → stopped
        self.proc: asyncio.subprocess.Process | None = None
        self.pid: int | None = None
        self.restarts = 0
        self.restart_reasons: dict[str, int] = {}
        self.last_restart: dict[str, Any] | None = None
        self._exit: asyncio.Task[int] | None = None
        self._chan: _Channel | None = None
        self._status: dict[str, Any] = {}
        self._clock_age: float | None = None
        self._beat_at = 0.0
        self._rss = 0
        self._live_since = 0.0
        self._supervisor: asyncio.Task[None] | None = None
        self._apply_lock = asyncio.Lock()
        self._backoff = Backoff(self._limits.restart_backoff_s, self._limits.restart_backoff_max_s, factor=2.0,
                                wait_jitter=0.2)

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Starts the room in a worker (the spare when there is one) and returns once it is on air (raises,
        leaving nothing behind, if not)."""
        self.state = "starting"
        await self._spawn()
        self._supervisor = asyncio.create_task(self._supervise(), name=f"supervise-{self.id}")

    async def _spawn(self) -> None:
        started = time.monotonic()
        worker = self._spares.take() if self._spares is not None else None
        if worker is None:
            worker = await launch(self.id, self._env())
        self.proc, self._exit, self.pid = worker.proc, worker.exit, worker.proc.pid
        self._status, self._clock_age, self._beat_at = {}, None, time.monotonic()
        self._chan = _Channel(worker.reader, worker.writer, self._on_status)
        d = self._daemon_cfg
        init = WorkerInit(room=self.cfg, secrets=self._secrets(), log_level=d.log_level, log_format=d.log_format,
                          state_dir=d.state_dir, paced=self.paced, drain_s=d.shutdown_grace_s)
        try:
            # The room goes on air inside; a worker that exits first fails the request at once.
            await self._chan.request("init", self._limits.start_timeout_s, pickle.dumps(init))
        except RemoteError as exc:
            await self._kill(wait_s=1.0)
            code = self._exit.result() if self._exit.done() else None
            if code is not None and not exc.kind:  # it died rather than answered: its own log lines say why
                raise RemoteError(f"its worker exited (code {code}) before the room went on air") from None
            raise
        except BaseException:
            await self._kill()
            raise
        self.state = "live"
        self._live_since = time.monotonic()
        log.info("room %s on air in worker pid %d (%.1fs from spawn)", self.id, self.pid,
                 self._live_since - started, extra={"room": self.id, "worker_pid": self.pid})

    async def stop(self, grace_s: float) -> None:
        """Drains the room (the sentence finished, files closed) and ends its worker."""
        self.state = "stopping"
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(BaseException):
                await self._supervisor
        if self._chan is not None and self._exit is not None and not self._exit.done():
            try:
                await self._chan.request("stop", grace_s + 15.0, grace=grace_s)
            except RemoteError as exc:
                log.warning("room %s: worker did not stop cleanly: %s", self.id, exc)
        await self._kill(wait_s=5.0)
        self.state = "stopped"
        with contextlib.suppress(KeyError):
            metrics.WORKER_RSS.remove(self.id)

    async def _kill(self, wait_s: float = 0.0) -> None:
        """Waits up to wait_s for the worker to exit by itself, then SIGKILLs it; closes the channel."""
        if self._exit is not None and not self._exit.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._exit), wait_s)
            if not self._exit.done() and self.proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.send_signal(signal.SIGKILL)
                await self._exit
        if self._chan is not None:
            await self._chan.close()
            self._chan = None

    async def apply(self, cfg: RoomConfig) -> str:
        """The room's new config, applied inside its worker ("live", "cut" or "keep"); raises if it was not."""
        async with self._apply_lock:
            if self.state != "live" or self._chan is None:
                raise RemoteError(f"its worker is {self.state}, not on air; the change was not sent")
            timeout = self._limits.start_timeout_s + self._daemon_cfg.shutdown_grace_s + 30.0
            secrets = [*self._secrets(), *secrets_of(cfg)]  # the new config's keys too, before anything logs them
            result, _ = await self._chan.request("apply", timeout, pickle.dumps((cfg, secrets)))
            self.cfg = cfg
            return str(result)

    # -- supervision ----------------------------------------------------------------------------
    async def _supervise(self) -> None:
        reason, detail = await self._watch()
        while True:
            self.state = "restarting"
            self.restarts += 1
            self.restart_reasons[reason] = self.restart_reasons.get(reason, 0) + 1
            metrics.WORKER_RESTARTS.labels(self.id, reason).inc()
            delay = self._backoff.next_delay()
            failed_at = time.monotonic()
            self.last_restart = {"reason": reason, "detail": detail, "at": time.time(), "pid": self.pid}
            log.error("room %s: worker pid %s %s; restarting it in %.1fs (restart %d)", self.id, self.pid, detail,
                      delay, self.restarts, extra={"room": self.id, "reason": reason})
            await self._kill()
            await asyncio.sleep(delay)
            try:
                await self._spawn()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                reason, detail = "start", f"could not go on air ({exc})"
                continue
            log.info("room %s back on air %.1fs after its worker %s", self.id, time.monotonic() - failed_at,
                     reason if reason != "exit" else "exited", extra={"room": self.id, "reason": reason})
            reason, detail = await self._watch()

    async def _watch(self) -> tuple[str, str]:
        """Returns (reason, what happened) once the running worker must be replaced."""
        assert self._exit is not None
        while True:
            done, _ = await asyncio.wait({self._exit}, timeout=CHECK_EVERY_S)
            if done:
                code = self._exit.result()
                if self._daemon_stopping():  # a cgroup-wide SIGTERM: the daemon is draining every room
                    await asyncio.Event().wait()
                how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
                return "exit", how
            if self.state != "live" or self.pid is None:
                continue
            age = self.clock_age()
            if age > self._limits.hang_after_s:
                return "hang", (f"stopped ticking ({age:.1f}s without a frame or a heartbeat)"
                                if math.isfinite(age) else "never reported a ticking clock")
            rss = process_rss(self.pid)
            if rss is not None:
                self._rss = rss
                metrics.WORKER_RSS.labels(self.id).set(rss)
                limit = self._limits.memory_limit_mb
                if limit is not None and rss > limit * 1024 * 1024:
                    return "memory", f"uses {rss / 2**20:.0f} MiB, over the {limit} MiB limit"
            if time.monotonic() - self._live_since > self._limits.stable_after_s:
                self._backoff.reset()

    def _on_status(self, msg: dict[str, Any]) -> None:
        self._beat_at = time.monotonic()
        status = msg.get("status")
        if isinstance(status, dict):
            self._status = status
        age = msg.get("clock_age")
        self._clock_age = float(age) if isinstance(age, int | float) else None
        if isinstance(msg.get("rss"), int):
            self._rss = msg["rss"]

    # -- the admin's view of the room (admin._Room) ---------------------------------------------
    def clock_age(self) -> float:
        """The worker's clock age at its last heartbeat plus the time since: a silent worker ages too."""
        if self.state != "live" or self._clock_age is None:
            return float("inf")
        return self._clock_age + (time.monotonic() - self._beat_at)

    def rss_bytes(self) -> int:
        return self._rss if self.state in ("live", "restarting", "starting") else 0

    def worker_info(self) -> dict[str, Any]:
        return {"mode": "process", "pid": self.pid, "state": self.state, "restarts": self.restarts,
                "restart_reasons": dict(self.restart_reasons), "rss_bytes": self._rss,
                "last_restart": self.last_restart}

    def status(self) -> dict[str, Any]:
        status = dict(self._status) or {"id": self.id, "frames": 0, "late_frames": 0, "sinks": [], "queue": []}
        status["id"] = self.id
        if self.state != "live":
            status["on_air"] = False
        status["restarting"] = self.state == "restarting"
        status["worker"] = self.worker_info()
        return status

    async def _call(self, op: str, timeout: float = COMMAND_TIMEOUT_S, **fields: Any) -> tuple[Any, bytes]:
        chan = self._chan
        if self.state != "live" or chan is None:
            raise RemoteError(f"room {self.id} is {self.state}, not on air")
        return await chan.request(op, timeout, **fields)

    async def say(self, text: str) -> dict[str, Any]:
        return (await self._call("say", text=text))[0]

    async def skip(self) -> Any:
        return (await self._call("skip"))[0]

    async def product(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        return (await self._call("product", action=action, args=args))[0]

    async def pause(self) -> Any:
        return (await self._call("pause"))[0]

    async def resume(self) -> Any:
        return (await self._call("resume"))[0]

    async def snapshot_jpeg(self) -> bytes | None:
        ok, jpeg = await self._call("snapshot")
        return jpeg if ok else None

    async def recent_chat(self) -> list[dict[str, Any]]:
        return list((await self._call("recent_chat"))[0] or [])

    async def metrics_text(self, timeout: float = 3.0) -> str:
        """The worker's own Prometheus exposition (its room's series)."""
        return (await self._call("metrics", timeout))[1].decode("utf-8")

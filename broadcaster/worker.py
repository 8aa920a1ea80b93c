"""A room's worker process (`python -m broadcaster.worker`): runs one RoomSlot on its own loop, driven by the daemon.

The daemon (broadcaster/supervisor.py) spawns it with one end of a socketpair (fd in $VA_WORKER_FD) and sends
the room's config first; secrets travel only over that socket, never on a command line or in the environment.
Messages both ways are frames: 8-byte header (JSON length, blob length, big-endian) + UTF-8 JSON + raw bytes
(a JPEG snapshot, a pickled config from the daemon). The worker pushes `status` twice a second (a heartbeat) and
answers `apply`, `stop`, `say`, `skip`, `pause`, `resume`, `product`, `snapshot`, `recent_chat` and `metrics` by `id`.
It dies with the daemon: PR_SET_PDEATHSIG, and a closed socket ends it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import pickle
import signal
import struct
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FD_ENV = "VA_WORKER_FD"
PARENT_ENV = "VA_WORKER_PARENT"
HEADER = struct.Struct(">II")
MAX_JSON = 16 << 20
MAX_BLOB = 64 << 20
STATUS_EVERY_S = 0.5
EXIT_CLOCK_DIED = 70  # the media clock thread died: the supervisor restarts the room


class ProtocolError(Exception):
    """The other side sent something that is not a frame of this protocol."""


def encode(msg: dict[str, Any], blob: bytes = b"") -> bytes:
    body = json.dumps(msg, ensure_ascii=False, default=str).encode("utf-8")
    return HEADER.pack(len(body), len(blob)) + body + blob


async def read_frame(reader: asyncio.StreamReader) -> tuple[dict[str, Any], bytes]:
    """One message; asyncio.IncompleteReadError at a clean end of stream."""
    n_json, n_blob = HEADER.unpack(await reader.readexactly(HEADER.size))
    if n_json > MAX_JSON or n_blob > MAX_BLOB:
        raise ProtocolError(f"frame too large ({n_json} + {n_blob} bytes)")
    msg = json.loads(await reader.readexactly(n_json))
    if not isinstance(msg, dict):
        raise ProtocolError("a frame's JSON is not an object")
    blob = await reader.readexactly(n_blob) if n_blob else b""
    return msg, blob


@dataclass(frozen=True)
class WorkerInit:
    """What the daemon hands a new worker (pickled: it carries the config's secrets as they are)."""

    room: Any  # RoomConfig
    secrets: list[str]
    log_level: str
    log_format: str
    state_dir: Path
    paced: bool
    drain_s: float
    extra: dict[str, Any] = field(default_factory=dict)


def one_line(exc: BaseException) -> str:
    """An error as the reload result and STATUS show it: `Type: first line` (a ConfigError: its line alone)."""
    from broadcaster.config import ConfigError

    text = str(exc).strip().splitlines()
    if not text:
        return type(exc).__name__
    return text[0] if isinstance(exc, ConfigError | RemoteError) else f"{type(exc).__name__}: {text[0]}"


class _WorkerTag(logging.Filter):
    """Every line a worker logs says which room's worker wrote it (JSON field `worker_room`, and its pid)."""

    def __init__(self, room: str):
        super().__init__()
        self.room, self.pid = room, os.getpid()

    def filter(self, record: logging.LogRecord) -> bool:
        record.worker_room, record.worker_pid = self.room, self.pid
        return True


class RemoteError(Exception):
    """A command the worker could not carry out; str() is the worker's one-line account (see one_line)."""

    def __init__(self, why: str, kind: str = ""):
        super().__init__(why)
        self.kind = kind


# ------------------------------------------------------------------------------------------ the worker


def _die_with_parent() -> None:
    """SIGKILL when the daemon's thread that spawned us ends (a daemon killed -9 leaves no orphans on air)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    PR_SET_PDEATHSIG = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _rss_bytes() -> int:
    from broadcaster.watchdog import resident_memory_bytes

    return resident_memory_bytes()


class Worker:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.slot: Any = None  # RoomSlot, once the init message arrived
        self.init: WorkerInit | None = None
        self.live = False
        self._stopping: asyncio.Future[None] | None = None
        self._signalled = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self.exit_code = 0

    def send(self, msg: dict[str, Any], blob: bytes = b"") -> None:
        if not self.writer.is_closing():
            self.writer.write(encode(msg, blob))  # one write per frame: frames never interleave

    async def run(self) -> int:
        try:
            msg, blob = await read_frame(self.reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            return 0  # a spare the daemon no longer needs (or a daemon gone before it had a room for us)
        if msg.get("op") != "init":
            raise ProtocolError(f"expected init, got {msg.get('op')!r}")
        init: WorkerInit = pickle.loads(blob)  # from the daemon that spawned us, over our private socketpair
        self.init = init
        self._setup(init)
        from broadcaster.slot import RoomSlot

        self.slot = RoomSlot(init.room, paced=init.paced, state_dir=init.state_dir, drain_s=init.drain_s)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):  # systemd signals the whole cgroup; a terminal, the group
            loop.add_signal_handler(sig, self._drain_self)
        beat = asyncio.create_task(self._heartbeat(), name="worker-heartbeat")
        try:
            await self.slot.start()
        except Exception as exc:
            log.exception("room %s: could not go on air", init.room.id)
            self.send({"op": "reply", "id": msg.get("id"), "ok": False, "error": one_line(exc),
                       "kind": type(exc).__name__})
            await self.writer.drain()
            return 1
        self.live = True
        self.send(self._status())  # before the reply: the daemon never sees an on-air room without its status
        self.send({"op": "reply", "id": msg.get("id"), "ok": True, "result": {"pid": os.getpid()}})
        try:
            await self._serve()
        finally:
            beat.cancel()
        return self.exit_code

    def _setup(self, init: WorkerInit) -> None:
        from broadcaster import faults
        from broadcaster.logs import register_secrets, setup_logging

        register_secrets(init.secrets)  # before anything can log a stream key
        handler = setup_logging(init.log_level, init.log_format)
        handler.addFilter(_WorkerTag(init.room.id))
        faults.arm_from_env()  # chaos tests: VA_FAULTS is inherited from the daemon

    async def _serve(self) -> None:
        while True:
            try:
                msg, _blob = await read_frame(self.reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                log.warning("room %s: the daemon is gone; stopping", self.slot.id)
                await self._stop(0.0)
                return
            op = msg.get("op")
            if op == "stop":
                await self._stop(float(msg.get("grace", 5.0)))
                self.send({"op": "reply", "id": msg.get("id"), "ok": True, "result": None})
                await self.writer.drain()
                return
            task = asyncio.create_task(self._answer(msg, _blob))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg: dict[str, Any], blob: bytes) -> None:
        op, rid = msg.get("op"), msg.get("id")
        try:
            result, out = await self._do(str(op), msg, blob)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if op == "apply":
                log.error("room %s keeps its running config: %s", self.slot.id, one_line(exc),
                          exc_info=type(exc).__name__ != "ConfigError")
            self.send({"op": "reply", "id": rid, "ok": False, "error": one_line(exc), "message": str(exc),
                       "kind": type(exc).__name__})
            return
        if op in ("apply", "say", "skip", "pause", "resume", "product") and self.live:
            self.send(self._status())  # what the command changed is in the daemon's view when the reply lands
        self.send({"op": "reply", "id": rid, "ok": True, "result": result}, out)

    async def _do(self, op: str, msg: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        room = self.slot.room
        if op == "apply":
            from broadcaster.logs import register_secrets

            cfg, secrets = pickle.loads(blob)  # from the daemon, over our private socketpair
            register_secrets(secrets)  # a key that first appears in this reload is masked before it can be logged
            return await self.slot.apply(cfg), b""
        if op == "say":
            return room.say(str(msg.get("text", ""))), b""
        if op in ("skip", "pause", "resume"):
            return getattr(room, op)(), b""
        if op == "product":
            return room.product(str(msg.get("action", "")), dict(msg.get("args") or {})), b""
        if op == "recent_chat":
            return room.recent_chat(), b""
        if op == "snapshot":
            jpeg = await asyncio.to_thread(room.snapshot_jpeg)
            return jpeg is not None, jpeg or b""
        if op == "metrics":
            from prometheus_client import generate_latest

            from broadcaster import metrics

            return None, await asyncio.to_thread(generate_latest, metrics.REGISTRY)
        raise ValueError(f"unknown command {op!r}")

    def _status(self) -> dict[str, Any]:
        room = self.slot.room
        status = room.status() if self.live else {"id": self.slot.id, "on_air": False, "frames": 0}
        # A clock counts its age from when it was built, in prepare: a slow prepare (models, a hand-over made
        # beside the streaming room) is not a hang. Its age starts at the latest when the room went on air.
        age = min(room.clock_age(), time.monotonic() - room.started_at) if self.live else None
        return {"op": "status", "status": status, "clock_age": age,
                "rss": _rss_bytes(), "live": self.live, "at": time.time()}

    async def _heartbeat(self) -> None:
        while True:
            try:
                room = self.slot.room
                clock = room.clock
                if self.live and self._stopping is None and clock is not None and clock.error is not None:
                    log.error("room %s: the media clock died (%s); exiting so the daemon restarts the room",
                              self.slot.id, one_line(clock.error))
                    logging.shutdown()
                    os._exit(EXIT_CLOCK_DIED)
                self.send(self._status())
                await self.writer.drain()
            except (ConnectionError, RuntimeError):
                return
            except Exception:
                log.exception("room %s: status failed", self.slot.id)
            await asyncio.sleep(STATUS_EVERY_S)

    def _drain_self(self) -> None:
        """SIGTERM/SIGINT reaching the worker itself: finish the sentence, close the files, exit 0."""
        if self._signalled or self.init is None:
            return
        self._signalled = True
        log.info("room %s: signalled; finishing the sentence", self.slot.id)
        task = asyncio.ensure_future(self._stop_and_exit(self.init.drain_s))
        self._tasks.add(task)

    async def _stop_and_exit(self, grace: float) -> None:
        await self._stop(grace)
        with contextlib.suppress(Exception):
            self.writer.close()
        logging.shutdown()
        os._exit(0)

    async def _stop(self, grace: float) -> None:
        """Once, whoever asks first (the daemon, a signal, a lost daemon); a change in progress ends first."""
        if self._stopping is None:
            self.live = False
            self._stopping = asyncio.ensure_future(self.slot.stop(grace))
        await asyncio.shield(self._stopping)


def _warm() -> None:
    """What every room's start pays once per process, paid before a room is known: the media and show modules,
    and the moderation tables with the word segmenter's dictionary (seconds of a cold start)."""
    import broadcaster.slot
    import broadcaster.voice  # noqa: F401
    import renderer.factory  # noqa: F401
    from broadcaster.brain.config import ModerationConfig
    from broadcaster.brain.moderation import moderator_from_config

    moderator_from_config(ModerationConfig())


async def _amain(fd: int) -> int:
    import socket

    sock = socket.socket(fileno=fd)
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    worker = Worker(reader, writer)
    try:
        return await worker.run()
    finally:
        with contextlib.suppress(Exception):
            writer.close()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m broadcaster.worker",
                                     description="one room's worker (spawned by the daemon, not by hand)")
    parser.add_argument("--room", default="", help="the room id (shown in ps; the config comes over the socket)")
    parser.add_argument("--spare", action="store_true", help="start ahead: load what every room needs, then wait")
    args = parser.parse_args(argv)
    _die_with_parent()
    if os.environ.pop(PARENT_ENV, str(os.getppid())) != str(os.getppid()):
        return 1  # the daemon died before PR_SET_PDEATHSIG was set: nobody to work for
    fd = os.environ.pop(FD_ENV, "")
    if not fd.isdigit():
        print(f"{FD_ENV} is not set: the worker is started by the daemon", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import faulthandler

    faulthandler.enable()
    if args.spare:
        _warm()
    code = asyncio.run(_amain(int(fd)))
    logging.shutdown()
    os._exit(code)  # sink and voice threads are done or daemonic; do not wait on stragglers


if __name__ == "__main__":
    sys.exit(main())

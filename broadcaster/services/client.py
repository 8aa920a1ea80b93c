"""A room's connection to one shared service: lazy connect, shared-memory inputs/outputs, fail fast on a dead service.

`ServiceClient(path, name=room_id)` connects on first use (retrying a missing/refusing socket for
`connect_timeout_s`, since the service may be restarting) and keeps one connection. A request in
flight when the connection drops fails at once with ServiceUnavailable (the caller falls back); the
next request connects again, so requests work as soon as the restarted service listens. Inputs go
into this connection's own arena; outputs are copied out of the service's arena and freed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from broadcaster.services.protocol import (
    Arena,
    ArenaFull,
    Handshake,
    ProtocolError,
    client_handshake,
    encode,
    read_message,
)
from broadcaster.services.service import ENV_DIR, ServiceSpec, socket_path

log = logging.getLogger(__name__)


def state_path(sock: Path) -> Path:
    """The JSON file beside a service's socket in which the daemon says how the service is (manager.py)."""
    return sock.with_suffix(".state")


def failing(sock: Path) -> str | None:
    """Why the service at `sock` is failing to start (the daemon says so), or None when it is not known to be."""
    try:
        state = json.loads(state_path(sock).read_text())
    except (OSError, ValueError):
        return None
    if isinstance(state, dict) and state.get("state") == "failing":
        return f"{state.get('service')} exits before it is ready (exit code {state.get('last_exit')})"
    return None


def client_for(spec: ServiceSpec, *, name: str, dir: Path | str | None = None, **kwargs: Any) -> ServiceClient:
    """The client of the service `spec` describes, found in `dir` or $VA_SERVICES_DIR (set by the daemon's
    HostServices); ServiceUnavailable when neither is known (no shared services on this host)."""
    where = dir or os.environ.get(ENV_DIR)
    if not where:
        raise ServiceUnavailable(f"no shared services run here ({ENV_DIR} is unset): is the daemon's HostServices up?")
    return ServiceClient(socket_path(where, spec), name=name, **kwargs)


class ServiceError(Exception):
    """The service answered this request with an error (it failed alone; the service is fine)."""


class ServiceUnavailable(ServiceError):
    """No service to ask: not running, restarting, or it died while this request was in flight."""


@dataclass
class Reply:
    outputs: list[np.ndarray]
    meta: dict[str, Any]
    final: bool
    batch: dict[str, Any] = field(default_factory=dict)  # seq, size, items, clients of its batch (final reply)
    wait_ms: float = 0.0  # from arrival at the service to the final answer


class _Connection:
    def __init__(self, hs: Handshake, arena: Arena, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, path: Path) -> None:
        self.welcome = hs.peer
        self.outputs = hs.peer_arena  # the service's arena (we read, then free)
        self.inputs = arena  # ours (we write request inputs)
        self.reader, self.writer = reader, writer
        self.path = path
        self.waiting: dict[int, asyncio.Queue[Reply | BaseException]] = {}
        self.sent_inputs: dict[int, list[int]] = {}  # request id → its input blocks in our arena
        self.dead: BaseException | None = None
        self.header_bytes = 0  # bytes read from the socket: headers only, the arrays are in shared memory
        self.task: asyncio.Task[None] | None = None

    def send(self, msg: dict[str, Any]) -> None:
        if self.dead is not None:
            raise self.dead
        self.writer.write(encode(msg))

    async def pump(self) -> None:
        """Reads answers and hands them to their requests; on any loss fails every waiting request."""
        why: BaseException = ServiceUnavailable(f"connection to {self.path.name} closed")
        try:
            while True:
                msg = await read_message(self.reader)
                self.header_bytes += msg.pop("_size", 0)
                rid = int(msg.get("id", -1))
                q = self.waiting.get(rid)
                if msg.get("op") == "stats":
                    if q is not None:
                        q.put_nowait(Reply([], {k: v for k, v in msg.items() if k not in ("op", "id")}, True))
                    continue
                descs = msg.get("out") or []
                outs = [self.outputs.get(d) for d in descs]  # copies: the block is freed right away
                if descs:
                    self.send({"op": "free", "o": [d["o"] for d in descs]})
                if msg.get("final"):
                    # The service is done with this request's inputs (also one we gave up on).
                    for off in self.sent_inputs.pop(rid, ()):
                        self.inputs.free(off)
                if q is None:
                    continue  # a request we gave up on
                if msg.get("ok", False):
                    q.put_nowait(Reply(outs, msg.get("meta") or {}, bool(msg.get("final")), msg.get("batch") or {},
                                       float(msg.get("wait_ms") or 0.0)))
                else:
                    q.put_nowait(ServiceError(str(msg.get("error") or "failed")))
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
            why = ServiceUnavailable(f"service {self.welcome.get('service', self.path.name)} (pid "
                                     f"{self.welcome.get('pid')}) went away: {type(exc).__name__}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            why = ServiceUnavailable(f"broken answer from {self.path.name}: {exc}")
        finally:
            self.dead = why
            for q in self.waiting.values():
                q.put_nowait(why)
            self.writer.close()
            self.outputs.close()

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()


class ServiceClient:
    """One service as seen from a room. Safe for many concurrent requests on one event loop."""

    def __init__(self, path: Path | str, *, name: str = "", arena_bytes: int = 16 << 20,
                 connect_timeout_s: float = 1.0) -> None:
        self.path = Path(path)
        self.name = name
        self.arena_bytes = arena_bytes
        self.connect_timeout_s = connect_timeout_s
        self._conn: _Connection | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self.connects = 0  # successful connections (a reconnect after a restart adds one)
        self.welcome: dict[str, Any] | None = None  # the last service's welcome: pid, loads, info
        self._past_bytes = 0

    @property
    def socket_bytes(self) -> int:
        """Bytes received on the socket over all connections: headers only, arrays come through shared memory."""
        return self._past_bytes + (self._conn.header_bytes if self._conn is not None else 0)

    @property
    def connected(self) -> bool:
        return self._conn is not None and self._conn.dead is None

    async def connect(self, wait_s: float | None = None) -> dict[str, Any]:
        """Connects unless connected; retries a missing or refusing socket for `wait_s` (default connect_timeout_s)."""
        async with self._lock:
            if self.connected:
                assert self._conn is not None
                return self._conn.welcome
            if self._conn is not None:
                self._past_bytes += self._conn.header_bytes
                self._conn.inputs.close()
                self._conn = None
            deadline = time.monotonic() + (self.connect_timeout_s if wait_s is None else wait_s)
            last: BaseException | None = None
            arena = Arena(self.arena_bytes, name=f"va-client-{self.name}")  # our inputs; the service maps it
            while True:
                try:
                    hs = await asyncio.to_thread(client_handshake, str(self.path),
                                                 {"name": self.name, "arena_bytes": self.arena_bytes}, arena,
                                                 max(0.5, min(10.0, deadline - time.monotonic())))
                    break
                except (ConnectionError, TimeoutError, ProtocolError, OSError) as exc:  # missing, refused, …
                    last = exc
                except BaseException:
                    arena.close()
                    raise
                why = failing(self.path)
                if why is not None or time.monotonic() >= deadline:
                    arena.close()
                    raise ServiceUnavailable(f"no service at {self.path}: {why or f'{type(last).__name__}: {last}'}")
                await asyncio.sleep(0.05)
            reader, writer = await asyncio.open_unix_connection(sock=hs.sock)
            conn = _Connection(hs, arena, reader, writer, self.path)
            conn.task = asyncio.create_task(conn.pump(), name=f"service-client-{self.path.name}")
            self._conn = conn
            self.connects += 1
            self.welcome = hs.peer
            return hs.peer

    async def _put_inputs(self, conn: _Connection, inputs: Sequence[np.ndarray], deadline: float) -> list[dict]:
        while True:
            try:
                return conn.inputs.put_all(list(inputs))
            except ArenaFull as exc:
                if exc.never or time.monotonic() >= deadline:
                    raise ServiceError(str(exc)) from None
                assert conn.inputs.changed is not None
                conn.inputs.changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                        await conn.inputs.changed.wait()

    async def stream(self, params: dict[str, Any], inputs: Sequence[np.ndarray] = (), *,
                     timeout_s: float = 30.0, items: int = 1) -> AsyncIterator[Reply]:
        """Partial replies as the service sends them, ending with the final one. Raises ServiceUnavailable
        when the service is gone (at once, also mid-request), ServiceError when it failed this request,
        TimeoutError past `timeout_s` (the request is cancelled at the service). `items`: what the request
        weighs against the service's max_batch (e.g. the number of face frames it carries)."""
        deadline = time.monotonic() + timeout_s
        await self.connect()
        conn = self._conn
        assert conn is not None
        rid = next(self._ids)
        descs = await self._put_inputs(conn, inputs, deadline)
        q: asyncio.Queue[Reply | BaseException] = asyncio.Queue()
        conn.waiting[rid] = q
        conn.sent_inputs[rid] = [d["o"] for d in descs]
        done = False
        try:
            conn.send({"op": "req", "id": rid, "params": params, "inputs": descs, "items": items,
                       "timeout_ms": max(1, int(1000 * (deadline - time.monotonic())))})
            while True:
                async with asyncio.timeout_at(asyncio.get_running_loop().time() + (deadline - time.monotonic())):
                    item = await q.get()
                if isinstance(item, BaseException):
                    done = True
                    raise item
                if item.final:
                    done = True
                yield item
                if done:
                    return
        finally:
            conn.waiting.pop(rid, None)
            if not done and conn.dead is None:
                # The inputs stay allocated until the service's final answer to the cancel (a running batch
                # may still be reading them); the pump frees them then.
                with contextlib.suppress(Exception):
                    conn.send({"op": "cancel", "id": rid})

    async def call(self, params: dict[str, Any], inputs: Sequence[np.ndarray] = (), *,
                   timeout_s: float = 30.0, items: int = 1) -> Reply:
        """One request, its final reply (partial outputs, if the service streams, are joined in order)."""
        parts: list[list[np.ndarray]] = []
        last: Reply | None = None
        async for r in self.stream(params, inputs, timeout_s=timeout_s, items=items):
            parts.append(r.outputs)
            last = r
        assert last is not None
        if len(parts) > 1:
            last.outputs = [o for p in parts for o in p]
        return last

    async def stats(self, timeout_s: float = 5.0) -> dict[str, Any]:
        """The service's counters (pid, loads, requests, batches, histograms, recent batch composition)."""
        await self.connect()
        conn = self._conn
        assert conn is not None
        rid = next(self._ids)
        q: asyncio.Queue[Reply | BaseException] = asyncio.Queue()
        conn.waiting[rid] = q
        try:
            conn.send({"op": "stats", "id": rid})
            async with asyncio.timeout(timeout_s):
                item = await q.get()
        finally:
            conn.waiting.pop(rid, None)
        if isinstance(item, BaseException):
            raise item
        return item.meta

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._past_bytes += conn.header_bytes
            conn.close()
            if conn.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await conn.task
            conn.inputs.close()

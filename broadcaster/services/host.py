"""The service process: loads one Service once, serves every room's connection, batches their requests.

Run as `python -m broadcaster.services.host '<ServiceSpec JSON>'` by HostServices. It binds its
unix socket only after the model loaded (a connect succeeds only when it can answer), exits when
its stdin closes (the daemon is gone) or on SIGTERM. Requests of all clients go into one pending
set; the batcher takes up to max_batch items of them (a request says how many items it holds, e.g. face
frames), round-robin across clients (one busy room cannot
starve the others), after waiting at most max_wait_ms from the oldest one for company. Requests
already past their deadline or cancelled are answered without running. The model runs on one
worker thread (sync services) or the loop (async services); results are written into the client's
shared-memory arena and announced with a small header. Counters for the daemon's /metrics are
answered to "stats".
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from broadcaster.services.protocol import (
    Arena,
    ArenaFull,
    Handshake,
    ProtocolError,
    encode,
    read_message,
    server_handshake,
)
from broadcaster.services.service import Request, Result, Service, ServiceSpec, resolve

log = logging.getLogger(__name__)

BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
WAIT_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
DEFAULT_ARENA = 64 << 20


class Histogram:
    """Cumulative-bucket counts shipped as JSON to the daemon (which exposes them as a Prometheus histogram)."""

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)  # the last one is +Inf
        self.sum = 0.0

    def observe(self, v: float) -> None:
        for i, b in enumerate(self.buckets):
            if v <= b:
                self.counts[i] += 1
                break
        else:
            self.counts[-1] += 1
        self.sum += v

    def to_json(self) -> dict[str, Any]:
        return {"buckets": list(self.buckets), "counts": self.counts, "sum": self.sum}


class _Conn:
    """One client connection: its streams, both arenas and its requests not yet answered."""

    _ids = itertools.count(1)

    def __init__(self, hs: Handshake, arena: Arena, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.n = next(self._ids)
        self.name = str(hs.peer.get("name") or f"client{self.n}")
        self.inputs = hs.peer_arena  # the client's arena: request inputs
        self.outputs = arena  # ours: results
        self.reader, self.writer = reader, writer
        self.open: dict[int, Request] = {}
        self.closed = False

    def send(self, msg: dict[str, Any]) -> None:
        if not self.closed:
            self.writer.write(encode(msg))


class Host:
    def __init__(self, spec: ServiceSpec, path: Path, *, arena_bytes: int = DEFAULT_ARENA) -> None:
        self.spec = spec
        self.path = path
        self.arena_bytes = arena_bytes
        self.service: Service = resolve(spec.factory)(spec.params)
        self.info: Any = None
        self.loads = 0
        self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"svc-{spec.kind}")
        self._queues: dict[_Conn, deque[Request]] = {}
        self._arrived = asyncio.Event()
        self._rr = 0  # round-robin start, rotated every batch
        self._seq = 0
        self._stop = asyncio.Event()
        self.counters = {"requests": 0, "batches": 0, "failed": 0, "late": 0, "cancelled": 0, "batch_retries": 0}
        self.batch_sizes = Histogram(BATCH_BUCKETS)
        self.queue_wait = Histogram(WAIT_BUCKETS)
        self.recent: deque[dict[str, Any]] = deque(maxlen=64)  # last batches' composition (tests, status)
        self.started = time.time()
        self._tasks: set[asyncio.Task[None]] = set()  # connections being served
        # While a batch runs: when it last produced anything (a partial or a final answer). The daemon kills a
        # service that stays silent mid-batch for longer than services.hang_s.
        self._progress: float | None = None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- running service code --------------------------------------------------------------------

    async def _call(self, fn: Any, *args: Any) -> Any:
        if inspect.iscoroutinefunction(fn):
            return await fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    # --- lifecycle -------------------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        t0 = time.monotonic()
        self.info = await self._call(self.service.load)
        self.loads += 1
        log.info("service %s loaded in %.1fs (pid %d)", self.spec.name, time.monotonic() - t0, os.getpid())
        listener = self._listen()
        self._watch_parent()
        tasks = [asyncio.create_task(self._accept(listener)), asyncio.create_task(self._batcher())]
        try:
            await self._stop.wait()
        finally:
            for t in tasks:
                t.cancel()
            listener.close()
            with contextlib.suppress(OSError):
                self.path.unlink()
            with contextlib.suppress(Exception):
                await self._call(self.service.close)
            self._worker.shutdown(wait=False, cancel_futures=True)

    def _listen(self) -> socket.socket:
        # Bound under a temp name and renamed: a client never connects to a socket that is not listening yet.
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(tmp))
        os.chmod(tmp, 0o600)
        sock.listen(128)
        sock.setblocking(False)
        os.replace(tmp, self.path)
        return sock

    def _watch_parent(self) -> None:
        """The daemon holds our stdin: EOF means it is gone, and a service without its daemon exits.
        A daemon thread, so a stop for another reason never waits on this read."""
        loop = self._loop

        def read() -> None:
            # os.read on the raw fd, not sys.stdin: a buffered reader's lock held by this thread at interpreter
            # shutdown aborts the process.
            with contextlib.suppress(OSError):
                while os.read(0, 4096):
                    pass
            with contextlib.suppress(RuntimeError):  # loop already closed: we are exiting anyway
                loop.call_soon_threadsafe(self._parent_gone)

        threading.Thread(target=read, name="parent-watch", daemon=True).start()

    def _parent_gone(self) -> None:
        if not self._stop.is_set():
            log.info("service %s: the daemon went away; exiting", self.spec.name)
        self._stop.set()

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            sock, _ = await loop.sock_accept(listener)
            self._spawn(self._serve(sock))

    def _welcome(self, hello: dict[str, Any]) -> tuple[dict[str, Any], Arena]:
        # Our arena carries results, sized by the daemon's config; the client sized its own for its inputs.
        arena = Arena(self.arena_bytes, name=f"va-{self.spec.name}")
        return {"service": self.spec.name, "kind": self.spec.kind, "key": self.spec.key, "pid": os.getpid(),
                "loads": self.loads, "info": self.info}, arena

    async def _serve(self, sock: socket.socket) -> None:
        try:
            hs, arena = await asyncio.to_thread(server_handshake, sock, self._welcome, 10.0)
        except Exception as exc:
            log.warning("service %s: a client failed its handshake: %s", self.spec.name, exc)
            sock.close()
            return
        reader, writer = await asyncio.open_unix_connection(sock=hs.sock)
        conn = _Conn(hs, arena, reader, writer)
        self._queues[conn] = deque()
        try:
            while True:
                msg = await read_message(reader)
                op = msg.get("op")
                if op == "req":
                    self._enqueue(conn, msg)
                elif op == "cancel":
                    req = conn.open.get(int(msg.get("id", -1)))
                    if req is not None:
                        req._cancelled.set()
                elif op == "free":
                    for off in msg.get("o", []):
                        conn.outputs.free(int(off))
                elif op == "stats":
                    conn.send({"op": "stats", "id": msg.get("id"), **self.stats()})
                else:
                    raise ProtocolError(f"unknown op {op!r}")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except Exception as exc:
            log.warning("service %s: dropping client %s: %s", self.spec.name, conn.name, exc)
        finally:
            conn.closed = True
            for req in conn.open.values():
                req._cancelled.set()
            for req in self._queues.pop(conn, ()):
                conn.open.pop(req.id, None)  # never taken into a batch: nothing reads its inputs
            writer.close()
            # Arenas are unmapped once nothing runs on their inputs any more (a batch may be reading them).
            self._spawn(self._release(conn))

    async def _release(self, conn: _Conn) -> None:
        while conn.open:
            await asyncio.sleep(0.05)
        conn.inputs.close()
        conn.outputs.close()

    def _enqueue(self, conn: _Conn, msg: dict[str, Any]) -> None:
        now = time.monotonic()
        rid = int(msg["id"])
        try:
            inputs = [conn.inputs.get(d, copy=False) for d in msg.get("inputs", [])]
        except ProtocolError as exc:
            conn.send({"op": "res", "id": rid, "ok": False, "final": True, "error": str(exc)})
            return
        timeout = float(msg.get("timeout_ms") or 60000) / 1000.0
        req = Request(id=rid, client=conn.name, params=msg.get("params") or {}, inputs=inputs,
                      items=max(1, int(msg.get("items") or 1)),
                      deadline=now + timeout, arrived=now, _send=self._partial, _owner=conn)
        conn.open[rid] = req
        self._queues[conn].append(req)
        self.counters["requests"] += 1
        self._arrived.set()

    # --- batching --------------------------------------------------------------------------------

    def _waiting(self) -> int:
        """Items waiting (a request counts its `items`: a face request of 8 frames is 8)."""
        return sum(r.items for q in self._queues.values() for r in q)

    def _oldest(self) -> float:
        return min((q[0].arrived for q in self._queues.values() if q), default=time.monotonic())

    def _take(self) -> list[Request]:
        """Requests worth up to max_batch items, one per client in turn, from a client that rotates each batch.
        A request bigger than max_batch runs alone rather than never."""
        conns = [c for c, q in self._queues.items() if q]
        if not conns:
            return []
        start = self._rr % len(conns)
        self._rr += 1
        order = conns[start:] + conns[:start]
        batch: list[Request] = []
        items = 0
        took = True
        while took:
            took = False
            for c in order:
                q = self._queues[c]
                if q and (not batch or items + q[0].items <= self.spec.max_batch):
                    req = q.popleft()
                    batch.append(req)
                    items += req.items
                    took = True
        return batch

    async def _batcher(self) -> None:
        wait_s = self.spec.max_wait_ms / 1000.0
        while True:
            if self._waiting() == 0:
                self._arrived.clear()
                await self._arrived.wait()
            # Wait for company until the oldest request has waited max_wait_ms or the batch is full.
            while self._waiting() < self.spec.max_batch:
                left = self._oldest() + wait_s - time.monotonic()
                if left <= 0:
                    break
                self._arrived.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):
                        await self._arrived.wait()
            batch = self._take()
            try:
                await self._one_batch(batch)
            except Exception as exc:
                # Never let one batch's surprise stop the service: its requests fail, the next batch runs.
                log.exception("service %s: a batch failed outside the service code", self.spec.name)
                for req in batch:
                    with contextlib.suppress(Exception):
                        self._finish(req, Result(error=f"service host: {type(exc).__name__}: {exc}"))

    async def _one_batch(self, batch: list[Request]) -> None:
        now = time.monotonic()
        runnable: list[Request] = []
        for req in batch:
            self.queue_wait.observe(now - req.arrived)
            if req.cancelled:
                self.counters["cancelled"] += 1
                self._finish(req, Result(error="cancelled"))
            elif req.expired:
                self.counters["late"] += 1
                self._finish(req, Result(error=f"deadline passed after {1000 * (now - req.arrived):.0f} ms "
                                               "in the queue"))
            else:
                runnable.append(req)
        if runnable:
            await self._run(runnable)

    async def _run(self, batch: list[Request]) -> None:
        self._seq += 1
        seq = self._seq
        clients = sorted({r.client for r in batch})
        items = sum(r.items for r in batch)
        composition = {"seq": seq, "size": len(batch), "items": items, "clients": clients,
                       "ids": [[r.client, r.id] for r in batch]}
        self.recent.append(composition)
        self.counters["batches"] += 1
        self.batch_sizes.observe(items)
        self._progress = time.monotonic()
        try:
            results = await self._call(self.service.run_batch, batch)
            if (not isinstance(results, list) or len(results) != len(batch)
                    or not all(isinstance(r, Result) for r in results)):
                raise TypeError(f"run_batch must return one Result per request ({len(batch)}), not {results!r:.80}")
        except Exception as exc:
            if len(batch) == 1:
                results = [Result(error=f"{type(exc).__name__}: {exc}")]
            else:
                # One bad request must not fail its neighbours: run each alone to find it.
                self.counters["batch_retries"] += 1
                log.warning("service %s: a batch of %d failed (%s: %s); running its requests one by one",
                            self.spec.name, len(batch), type(exc).__name__, exc)
                results = []
                for req in batch:
                    try:
                        one = await self._call(self.service.run_batch, [req])
                        if not isinstance(one, list) or len(one) != 1 or not isinstance(one[0], Result):
                            raise TypeError(f"run_batch must return [Result], not {one!r:.80}")
                        results.append(one[0])
                    except Exception as e:
                        results.append(Result(error=f"{type(e).__name__}: {e}"))
        self._progress = None
        batch_info = {"seq": seq, "size": len(batch), "items": items, "clients": len(clients)}
        for req, res in zip(batch, results, strict=True):
            if res.error is None and req.expired:
                self.counters["late"] += 1
            self._finish(req, res, batch_info)

    # --- answering -------------------------------------------------------------------------------

    def _partial(self, req: Request, outputs: list[np.ndarray], meta: dict[str, Any]) -> None:
        # Called from the worker thread: hop onto the loop, which owns the arenas and the sockets.
        if threading.get_ident() == self._loop_thread:
            self._emit(req, outputs, meta, False)
        else:
            self._loop.call_soon_threadsafe(self._emit, req, outputs, meta, False)

    def _emit(self, req: Request, outputs: list[np.ndarray], meta: dict[str, Any], final: bool,
              error: str | None = None, batch: dict[str, Any] | None = None) -> None:
        conn: _Conn = req._owner
        if req.id not in conn.open:
            return  # already ended (an arena overflow on an earlier partial)
        if self._progress is not None:
            self._progress = time.monotonic()
        if final:
            conn.open.pop(req.id)
        if conn.closed:
            return
        msg: dict[str, Any] = {"op": "res", "id": req.id, "final": final, "ok": error is None, "meta": meta}
        if error is None and outputs:
            try:
                msg["out"] = conn.outputs.put_all(outputs)
            except (ArenaFull, TypeError, ValueError) as exc:  # too big, or not an array that can cross
                # This request ends here, failed; the service is told to stop working on it.
                msg.update(ok=False, error=str(exc), final=True)
                conn.open.pop(req.id, None)
                req._cancelled.set()
                self.counters["failed"] += 1
                final = True
        elif error is not None:
            msg["error"] = error
        if final:
            msg["wait_ms"] = round(1000 * (time.monotonic() - req.arrived), 3)
            if batch is not None:
                msg["batch"] = batch
        conn.send(msg)

    def _finish(self, req: Request, res: Result, batch: dict[str, Any] | None = None) -> None:
        if res.error is not None and res.error != "cancelled" and req.id in req._owner.open:
            self.counters["failed"] += 1
        self._emit(req, res.outputs, res.meta, True, res.error, batch)

    def stats(self) -> dict[str, Any]:
        return {"service": self.spec.name, "pid": os.getpid(), "loads": self.loads, "uptime_s": time.time() - self.started,
                "clients": len(self._queues), "waiting": self._waiting(), **self.counters,
                "silent_s": time.monotonic() - self._progress if self._progress is not None else 0.0,
                "batch_size": self.batch_sizes.to_json(), "queue_wait": self.queue_wait.to_json(),
                "recent": list(self.recent), "gauges": self._gauges()}

    def _gauges(self) -> dict[str, float]:
        try:
            return {str(k): float(v) for k, v in (self.service.gauges() or {}).items()}
        except Exception as exc:  # a gauge must never break the stats the daemon relies on
            log.debug("service %s: gauges failed: %s", self.spec.name, exc)
            return {}

    async def main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        await self.run()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        print("usage: python -m broadcaster.services.host SPEC_JSON SOCKET_PATH [ARENA_BYTES]", file=sys.stderr)
        return 2
    spec = ServiceSpec.model_validate_json(argv[0])
    from broadcaster.logs import setup_logging

    setup_logging(spec.log_level, spec.log_format)
    host = Host(spec, Path(argv[1]), arena_bytes=int(argv[2]) if len(argv) == 3 else DEFAULT_ARENA)
    try:
        asyncio.run(host.main())
    except Exception:
        log.exception("service %s failed", spec.name)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

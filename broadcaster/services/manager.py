"""HostServices: starts the per-host service processes a daemon config needs, restarts them, exports their metrics.

`services = HostServices(config)`; `await services.start()`; every room process gets `services.env()`
(VA_SERVICES_DIR=<socket dir>); `await services.update(new_config)` on reload starts services new
rooms need and stops unused ones; `await services.stop()`. start() also puts env() into os.environ,
so rooms running inside the daemon's own process find the services the same way workers do.

Each service runs in its own process (python -m broadcaster.services.host). One that exits
unexpectedly is logged once and restarted after an exponential backoff (reset once it stayed up
`stable_s`); one whose batch stays silent for `hang_s` is killed first. Beside each socket the
daemon keeps `<name>.state` (starting, up, restarting, failing): a service whose processes exit
before they ever answer is "failing", and rooms stop waiting for it (their fallback speaks). The daemon polls each service's counters every `stats_interval_s` and exposes them on
its /metrics (va_service_*), counts surviving restarts (a restarted process starts from zero).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from broadcaster import metrics
from broadcaster.services.client import ServiceClient, ServiceError, ServiceUnavailable, state_path
from broadcaster.services.config import ServicesConfig
from broadcaster.services.host import BATCH_BUCKETS, WAIT_BUCKETS
from broadcaster.services.service import ENV_DIR, PROVIDERS, ServiceSpec, resolve, socket_path
from common.retry import Backoff

if TYPE_CHECKING:
    from broadcaster.config import Config

log = logging.getLogger(__name__)

_COUNTERS = ("requests", "batches", "failed", "late", "cancelled", "batch_retries")


def services_config(config: Config) -> ServicesConfig:
    """daemon.services, or the defaults while the daemon config has no such section."""
    found = getattr(config.daemon, "services", None)
    return found if isinstance(found, ServicesConfig) else ServicesConfig()


def wanted_specs(config: Config, providers: Iterable[str] = PROVIDERS,
                 cfg: ServicesConfig | None = None) -> dict[str, ServiceSpec]:
    """Every service the config's rooms need, by key, with the batch settings of `cfg` (default daemon.services)."""
    cfg = cfg or services_config(config)
    out: dict[str, ServiceSpec] = {}
    for provider in providers:
        try:
            specs = resolve(provider)
        except ImportError as exc:
            # An optional kind whose extra is not installed (the face without torch): its rooms use their
            # fallbacks; every other service still runs.
            log.warning("services: %s is unavailable (%s); its services are not started", provider, exc)
            continue
        for spec in specs(config):
            tuning = cfg.batching(spec.kind)
            spec = spec.model_copy(update={"max_batch": tuning.max_batch, "max_wait_ms": tuning.max_wait_ms,
                                           "log_level": config.daemon.log_level,
                                           "log_format": config.daemon.log_format})
            out.setdefault(spec.key, spec)
    return out


class SupervisedService:
    """One service process and its restarts."""

    def __init__(self, spec: ServiceSpec, dir: Path, cfg: ServicesConfig) -> None:
        self.spec = spec
        self.path = socket_path(dir, spec)
        self.cfg = cfg
        self.proc: asyncio.subprocess.Process | None = None
        self.restarts = 0
        self.hangs = 0  # kills of a hung service (each followed by a restart)
        self.up_since: float | None = None
        self.last_exit: int | None = None
        self.stats: dict[str, Any] = {}
        self._carried: dict[str, Any] = {}  # counters of earlier processes of this service
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._poll: asyncio.Task[None] | None = None
        self._client = ServiceClient(self.path, name="daemon", arena_bytes=1 << 16)
        self._backoff = Backoff(cfg.restart_backoff_s, cfg.restart_backoff_max_s, wait_jitter=0.2)
        self._ready = asyncio.Event()
        # True from a process that exited before it ever answered (a model that cannot load) until one answers:
        # rooms stop waiting for it and speak with their fallback meanwhile (see state_path).
        self.failing = False
        self.state_path = state_path(self.path)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.returncode is None else None

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name=f"service-{self.spec.name}")
        self._poll = asyncio.create_task(self._poll_stats(), name=f"service-stats-{self.spec.name}")

    async def _spawn(self) -> asyncio.subprocess.Process:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket left by a killed process would accept nothing
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "broadcaster.services.host", self.spec.model_dump_json(), str(self.path),
            str(self.cfg.arena_mb << 20), stdin=asyncio.subprocess.PIPE, env=env)

    async def _supervise(self) -> None:
        while not self._stopping:
            try:
                self.proc = await self._spawn()
            except OSError as exc:
                log.error("service %s: cannot start a process: %s", self.spec.name, exc)
                await asyncio.sleep(self._backoff.next_delay())
                continue
            started = time.monotonic()
            self.up_since = time.time()
            self._write_state()
            log.info("service %s started (pid %d, socket %s)", self.spec.name, self.proc.pid, self.path)
            code = await self.proc.wait()
            self.up_since = None
            if not self._ready.is_set():
                self.failing = True
            self._ready.clear()
            self.last_exit = code
            if self._stopping:
                return
            self._write_state()
            self._carry()
            self.restarts += 1
            if time.monotonic() - started >= self.cfg.stable_s:
                self._backoff.reset()
            delay = self._backoff.next_delay()
            log.warning("service %s (pid %d) exited with %s; restarting in %.1fs (restart %d)", self.spec.name,
                        self.proc.pid, code, delay, self.restarts)
            await asyncio.sleep(delay)

    def _write_state(self) -> None:
        """What rooms read next to the socket: up, starting, restarting, or failing (exits before it answers)."""
        if self.failing:
            state = "failing"
        elif self._ready.is_set():
            state = "up"
        else:
            state = "starting" if self.pid is not None else "restarting"
        data = {"service": self.spec.name, "state": state, "pid": self.pid, "restarts": self.restarts,
                "last_exit": self.last_exit, "ts": time.time()}
        tmp = self.state_path.with_name(f".{self.state_path.name}.tmp")
        try:
            tmp.write_text(json.dumps(data))
            os.replace(tmp, self.state_path)
        except OSError as exc:
            log.debug("service %s: cannot write %s: %s", self.spec.name, self.state_path, exc)

    def _carry(self) -> None:
        """A dead process's counters join the carried totals (its successor counts from zero)."""
        s, self.stats = self.stats, {}
        if not s:
            return
        for k in _COUNTERS:
            self._carried[k] = self._carried.get(k, 0) + int(s.get(k, 0))
        for h in ("batch_size", "queue_wait"):
            old = self._carried.get(h)
            new = s.get(h)
            if new is None:
                continue
            if old is None:
                self._carried[h] = {"counts": list(new["counts"]), "sum": new["sum"]}
            else:
                old["counts"] = [a + b for a, b in zip(old["counts"], new["counts"], strict=True)]
                old["sum"] += new["sum"]

    def totals(self) -> dict[str, Any]:
        """Counters over every process this service had (what /metrics shows)."""
        out: dict[str, Any] = {k: self._carried.get(k, 0) + int(self.stats.get(k, 0)) for k in _COUNTERS}
        for h, buckets in (("batch_size", BATCH_BUCKETS), ("queue_wait", WAIT_BUCKETS)):
            counts = [0] * (len(buckets) + 1)
            total = 0.0
            for part in (self._carried.get(h), self.stats.get(h)):
                if part:
                    counts = [a + b for a, b in zip(counts, part["counts"], strict=True)]
                    total += part["sum"]
            out[h] = {"buckets": buckets, "counts": counts, "sum": total}
        return out

    async def _poll_stats(self) -> None:
        while not self._stopping:
            try:
                stats = await self._client.stats()
                if stats.get("pid") == self.pid:
                    self.stats = stats
                    if not self._ready.is_set():
                        self._ready.set()
                        self.failing = False
                        self._write_state()
                    if stats.get("silent_s", 0.0) > self.cfg.hang_s:
                        self._kill_hung(stats)
            except (ServiceError, TimeoutError, OSError):
                pass  # down or loading: the supervisor logs deaths, not every missed poll
            await asyncio.sleep(self.cfg.stats_interval_s if self._ready.is_set() else 0.1)

    def _kill_hung(self, stats: dict[str, Any]) -> None:
        """A batch silent for hang_s: the model is stuck. Its requests fail now, the restart brings it back."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        self.hangs += 1
        log.warning("service %s (pid %d) produced nothing for %.0fs in a batch; killing it to restart it",
                    self.spec.name, proc.pid, stats.get("silent_s", 0.0))
        with contextlib.suppress(ProcessLookupError):
            proc.kill()

    async def wait_ready(self, timeout_s: float) -> dict[str, Any]:
        """Waits until this service answers (model loaded); returns its stats. Raises ServiceUnavailable at once
        when it is failing (its processes exit before they answer), TimeoutError past `timeout_s`."""
        async with asyncio.timeout(timeout_s):
            while not self._ready.is_set():
                if self.failing:
                    raise ServiceUnavailable(f"service {self.spec.name} exits before it is ready (exit code "
                                             f"{self.last_exit}; its log says why)")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.1):
                        await self._ready.wait()
        return self.stats

    async def stop(self) -> None:
        self._stopping = True
        for t in (self._poll,):
            if t is not None:
                t.cancel()
        await self._client.close()
        proc = self.proc
        if proc is not None and proc.returncode is None:
            if proc.stdin is not None:
                proc.stdin.close()  # the service exits on EOF
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(self.cfg.stop_grace_s):
                    await proc.wait()
            except TimeoutError:
                log.warning("service %s did not stop in %.0fs; killing it", self.spec.name, self.cfg.stop_grace_s)
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for p in (self.path, self.state_path):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()

    def status(self) -> dict[str, Any]:
        return {"service": self.spec.name, "kind": self.spec.kind, "key": self.spec.key, "pid": self.pid,
                "up": self._ready.is_set(), "failing": self.failing, "restarts": self.restarts, "hangs": self.hangs, "last_exit": self.last_exit,
                "socket": str(self.path), **{k: v for k, v in self.totals().items() if k in _COUNTERS}}


class HostServices:
    def __init__(self, config: Config, *, providers: Iterable[str] | None = None,
                 cfg: ServicesConfig | None = None) -> None:
        """`providers` and `cfg` default to PROVIDERS and config.daemon.services (tests and benches pass their own)."""
        self.config = config
        self.cfg = cfg or services_config(config)
        self.providers = list(PROVIDERS if providers is None else providers)
        self.services: dict[str, SupervisedService] = {}
        self.dir: Path | None = None
        self._made_dir = False
        self._exported: str | None = None

    def env(self) -> dict[str, str]:
        """What every room process needs to find the services."""
        if self.dir is None:
            raise RuntimeError("HostServices.env() before start()")
        return {ENV_DIR: str(self.dir)}

    async def start(self) -> None:
        if self.cfg.socket_dir is not None:
            self.dir = Path(self.cfg.socket_dir)
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            self.dir = Path(tempfile.mkdtemp(prefix="va-services-"))
            self._made_dir = True
        self._exported = str(self.dir)
        os.environ[ENV_DIR] = self._exported
        _COLLECTOR.hosts.add(self)
        await self.update(self.config)

    async def update(self, config: Config) -> None:
        """Brings the running services in line with `config` (a reload): starts new ones, stops unused ones."""
        assert self.dir is not None, "update() before start()"
        self.config = config
        want = wanted_specs(config, self.providers, self.cfg)
        gone = [k for k in self.services if k not in want]
        await asyncio.gather(*(self.services.pop(k).stop() for k in gone))
        for key, spec in want.items():
            if key not in self.services:
                svc = SupervisedService(spec, self.dir, self.cfg)
                self.services[key] = svc
                svc.start()

    async def wait_ready(self, timeout_s: float = 120.0) -> None:
        """Until every service answers (tests, benches, a daemon that wants its voices loaded before air)."""
        await asyncio.gather(*(s.wait_ready(timeout_s) for s in self.services.values()))

    def status(self) -> list[dict[str, Any]]:
        return [s.status() for s in self.services.values()]

    async def stop(self) -> None:
        await asyncio.gather(*(s.stop() for s in self.services.values()), return_exceptions=True)
        self.services.clear()
        _COLLECTOR.hosts.discard(self)
        if self._exported is not None and os.environ.get(ENV_DIR) == self._exported:
            del os.environ[ENV_DIR]
        if self._made_dir and self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


class _Collector:
    """va_service_* from every running HostServices' latest counters (read at scrape time, no I/O)."""

    def __init__(self) -> None:
        self.hosts: set[HostServices] = set()

    def collect(self) -> Iterable[Any]:
        up = GaugeMetricFamily("va_service_up", "1 while the shared service answers", labels=["service", "kind"])
        restarts = CounterMetricFamily("va_service_restarts", "Service process restarts", labels=["service"])
        hangs = CounterMetricFamily("va_service_hangs", "Services killed for producing nothing mid-batch (hung)",
                                    labels=["service"])
        counters = {k: CounterMetricFamily(f"va_service_{k}", f"Service requests: {k}", labels=["service"])
                    for k in _COUNTERS}
        gauges = GaugeMetricFamily("va_service_gauge", "Figures a service reports (e.g. GPU memory of its model)",
                                   labels=["service", "name"])
        batch = HistogramMetricFamily("va_service_batch_size", "Requests per model call", labels=["service"])
        wait = HistogramMetricFamily("va_service_queue_wait_seconds", "Time a request waited for its batch",
                                     labels=["service"])
        for host in list(self.hosts):
            for s in host.services.values():
                name = s.spec.name
                up.add_metric([name, s.spec.kind], 1.0 if s._ready.is_set() else 0.0)
                restarts.add_metric([name], s.restarts)
                hangs.add_metric([name], s.hangs)
                for g, v in (s.stats.get("gauges") or {}).items():
                    gauges.add_metric([name, g], v)
                t = s.totals()
                for k in _COUNTERS:
                    counters[k].add_metric([name], t[k])
                for fam, h in ((batch, t["batch_size"]), (wait, t["queue_wait"])):
                    cum, acc = [], 0
                    for b, c in zip([*h["buckets"], float("inf")], h["counts"], strict=True):
                        acc += c
                        cum.append((str(b) if b != float("inf") else "+Inf", acc))
                    fam.add_metric([name], cum, h["sum"])
        yield up
        yield restarts
        yield hangs
        yield gauges
        yield from counters.values()
        yield batch
        yield wait


_COLLECTOR = _Collector()


def running_services(kind: str) -> list[SupervisedService]:
    """The services of one kind every started HostServices in this process runs (for a kind's own metrics)."""
    return [s for host in list(_COLLECTOR.hosts) for s in host.services.values() if s.spec.kind == kind]
metrics.REGISTRY.register(_COLLECTOR)

"""The shared neural face service (one loaded model per host, every room's frames batched) and a room's link to it.

Service side (`FaceService`, run by broadcaster.services.host, or standalone with
`python -m broadcaster.services.face` as the Kubernetes DaemonSet does, configured by VA_SERVICES_DIR,
VA_FACE_MODEL_DIR, VA_FACE_DEVICE, VA_FACE_DTYPE, VA_FACE_MAX_BATCH, VA_FACE_MAX_WAIT_MS, and VA_FACE_METRICS_PORT
for the node's va_gpu_* on HTTP; the rooms' daemons then get VA_FACE_SERVICES_DIR, so they start none and connect
there): loads the MuseTalk-layout
model once on `avatar.device` (auto|cuda:N|cpu; auto without a usable GPU runs on the CPU, logged, and
the rooms count the fallback; a GPU load that fails exits, so the supervisor retries it after a backoff). Three kinds of request, all batched by
the host across rooms:
  source {key}            → {known}; with inputs [crops (N, 256, 256, 3) uint8] it encodes and registers them
  utt {utt, sr, fps}      inputs [pcm]: whisper features of one utterance, kept until its frames are served
  frame {utt, k, source, index} → [crop (256, 256, 3) uint8]: one video frame of the utterance
One frame is one request, so the host's max_batch (daemon.services.kinds.face, default 16 frames /
15 ms) is the number of frames in one UNet pass, taken round-robin from every room. Out of memory or a
driver failure in a pass answers its frames with DEVICE_FAILURE (the rooms fall back and retry later).

Room side (`FaceLink`): when an utterance's PCM exists, before it is staged (StagePort.push), its
audio goes to the service and one request per frame follows (every frame of it, its pauses too: a pause drawn
from the raw source would pop; an utterance that is all silence is a pause of its own, left to the idle loop),
each with a deadline at the frame's predicted time on air. The stage holds the utterance's start up to `avatar.face_hold_ms`
(counted in the latency trail) until its first face frames are there; if they are not, or the
service failed, the WHOLE utterance is drawn by the CPU portrait of the same source. A failure while
an utterance plays switches its remaining frames to the portrait from the next frame. After a failure
the link stays on the portrait (no hold) for a backoff, then tries the service again. The media clock
never waits on any of this: it only reads what has arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from broadcaster import faults, metrics
from broadcaster.services.client import ServiceClient, ServiceError, ServiceUnavailable, client_for
from broadcaster.services.host import BATCH_BUCKETS, Histogram, Host
from broadcaster.services.manager import running_services
from broadcaster.services.service import ENV_DIR, Request, Result, Service, ServiceSpec, socket_path
from common.bounded import BoundedDict
from common.retry import Backoff

if TYPE_CHECKING:
    from broadcaster.config import Config
    from broadcaster.lines import Utterance
    from broadcaster.stage import Stage
    from renderer.config import AvatarConfig
    from renderer.neural.avatar import NeuralAvatar
    from renderer.neural.infer import FaceModel

log = logging.getLogger(__name__)

FACTORY = "broadcaster.services.face:FaceService"
DEVICE_FAILURE = "face device failure"  # prefix of the error a pass that ran out of memory (or lost its GPU) answers
MODEL_BATCH = 64  # frames per UNet pass inside the model: above any sensible host max_batch, so a host batch is one pass
FIRST_FRAMES = 3  # frames that must be there before an utterance may start with the neural face
# The folder of a face service run outside the daemon (a Kubernetes node's DaemonSet): when set, the daemon starts
# none and rooms connect there. Its own variable, not VA_SERVICES_DIR: the pod's other services (a shared voice)
# stay private to the pod, where two pods on one node would otherwise bind the same socket.
EXTERNAL_DIR_ENV = "VA_FACE_SERVICES_DIR"
SLACK_S = 0.2  # a frame request lives this long past its predicted air time (start shifts, a slow batch)


# --- which service a room needs ------------------------------------------------------------------


def spec_for_avatar(cfg: AvatarConfig) -> ServiceSpec:
    """The face service of a neural avatar: rooms with the same model folder, device and dtype share one."""
    if cfg.kind != "neural" or cfg.model_dir is None:
        raise ValueError("only a neural avatar (avatar.kind: neural, model_dir set) has a face service")
    return _spec(str(cfg.model_dir.expanduser()), cfg.device, cfg.dtype)


def _spec(model_dir: str, device: str, dtype: str) -> ServiceSpec:
    return ServiceSpec(kind="face", factory=FACTORY, params={"model_dir": model_dir, "device": device, "dtype": dtype})


def specs(config: Config) -> list[ServiceSpec]:
    """Provider (PROVIDERS): one face service per distinct model among the rooms whose avatar is neural; none when
    VA_FACE_SERVICES_DIR names an outside one (a node's DaemonSet serves the face; the daemon must not bind too)."""
    if os.environ.get(EXTERNAL_DIR_ENV):
        return []
    return [spec_for_avatar(room.avatar) for room in config.rooms if room.avatar.kind == "neural"]


# --- the service ---------------------------------------------------------------------------------


@dataclass
class _Features:
    windows: np.ndarray  # (frames, tokens, d_model) float32
    left: int  # frame requests still expected (freed at 0)


def _device_error(exc: BaseException) -> bool:
    """Out of memory, a CUDA/driver failure, or the injected face.oom: the device failed, not the request."""
    if isinstance(exc, faults.FaultInjected) or type(exc).__name__ == "OutOfMemoryError":
        return True
    return isinstance(exc, RuntimeError) and any(w in str(exc) for w in ("CUDA", "cuDNN", "CUBLAS", "out of memory"))


class FaceService(Service):
    """params: model_dir, device (auto|cpu|cuda[:N]), dtype. See the module docstring for the requests."""

    kind = "face"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.model: FaceModel | None = None
        self.fallback = False  # asked for a GPU (auto) and runs on the CPU
        # Features of utterances whose frames are still coming (a frame the host dropped as late never comes:
        # those entries go when newer ones push them out).
        self._utts: BoundedDict[tuple[str, int], _Features] = BoundedDict(96)
        self.pass_frames = Histogram(BATCH_BUCKETS)  # frames per UNet pass
        self.device_failures = 0
        self._failing = False  # in a run of failed passes: logged once

    def load(self) -> dict[str, Any]:
        from renderer.neural.loader import load_face_model

        faults.arm_from_env()  # VA_FAULTS reaches the service through the daemon's environment
        model_dir, device, dtype = Path(self.params["model_dir"]), str(self.params["device"]), self.params["dtype"]
        # Out of memory or a driver failure while loading onto a GPU raises: the process exits, its rooms draw the
        # CPU portrait, and the daemon (or the DaemonSet) starts it again after a backoff: the GPU is retried.
        # A full-size model on the CPU would only take the rooms' cores for frames that come too late. Without
        # any usable GPU, `auto` loads on the CPU (resolve_device logs it; the rooms count the fallback).
        self.model = load_face_model(model_dir, device, dtype, max_batch=MODEL_BATCH)
        self.fallback = device != "cpu" and self.model.device == "cpu"
        return {"device": self.model.device, "dtype": str(self.model.dtype).removeprefix("torch."),
                "model": model_dir.name, "fallback": self.fallback, "tokens": self.model.tokens}

    def run_batch(self, requests: list[Request]) -> list[Result]:
        results: list[Result | None] = [None] * len(requests)
        frames: list[int] = []
        for i, req in enumerate(requests):
            op = req.params.get("op")
            if op == "frame":
                frames.append(i)
                continue
            try:
                if op == "source":
                    results[i] = self._source(req)
                elif op == "utt":
                    results[i] = self._utterance(req)
                else:
                    results[i] = Result(error=f"unknown face op {op!r}")
            except Exception as exc:
                if not _device_error(exc):
                    raise
                results[i] = self._failed(exc)
        if frames:
            self._frames(requests, frames, results)
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]

    def _source(self, req: Request) -> Result:
        assert self.model is not None
        key = str(req.params["key"])
        if not self.model.has_source(key):
            if not req.inputs:
                return Result(meta={"known": False})
            crops = np.ascontiguousarray(req.inputs[0])  # copied: the inputs live only during this call
            self.model.register(key, self.model.encode_reference(crops))
            log.info("face: source %s registered for %s (%d frames)", key, req.client, len(crops))
        return Result(meta={"known": True})

    def _utterance(self, req: Request) -> Result:
        assert self.model is not None
        feats = self.model.audio_features(np.array(req.inputs[0]), int(req.params["sr"]), int(req.params["fps"]))
        self._utts[(req.client, int(req.params["utt"]))] = _Features(feats.windows, int(req.params.get("frames", 0)))
        return Result(meta={"frames": len(feats)})

    def _frames(self, requests: list[Request], idx: list[int], results: list[Result | None]) -> None:
        from renderer.neural.infer import FaceItem

        assert self.model is not None
        items: list[FaceItem] = []
        owners: list[int] = []
        for i in idx:
            p = requests[i].params
            feats = self._utts.get((requests[i].client, int(p["utt"])))
            k, source = int(p["k"]), str(p["source"])
            if feats is None or not 0 <= k < len(feats.windows):
                results[i] = Result(error=f"face: no features for utterance {p['utt']} frame {k}")
            elif not self.model.has_source(source):
                results[i] = Result(error=f"face: source {source} is not registered")
            else:
                items.append(FaceItem(source, int(p["index"]), feats.windows[k]))
                owners.append(i)
        if not items:
            return
        clients = sorted({requests[i].client for i in owners})
        try:
            if faults.armed and any(faults.fires(faults.FACE_OOM, c) for c in clients):
                raise faults.FaultInjected(f"{faults.FACE_OOM}: CUDA out of memory (injected)")
            before = self.model.forward_passes
            crops = self.model.run_batch(items)
        except Exception as exc:
            if not _device_error(exc):
                raise
            failed = self._failed(exc)
            for i in owners:
                results[i] = failed
            return
        if self._failing:
            log.info("face: the device works again")
            self._failing = False
        passes = self.model.forward_passes - before
        for lo in range(0, len(items), self.model.max_batch):
            self.pass_frames.observe(min(self.model.max_batch, len(items) - lo))
        meta = {"pass": self.model.forward_passes, "passes": passes, "pass_frames": len(items), "pass_clients": clients}
        for i, crop in zip(owners, crops, strict=True):
            req = requests[i]
            key = (req.client, int(req.params["utt"]))
            feats = self._utts.get(key)
            if feats is not None:
                feats.left -= 1
                if feats.left <= 0:
                    del self._utts[key]
            results[i] = Result([crop], {**meta, "k": int(req.params["k"])})

    def _failed(self, exc: BaseException) -> Result:
        self.device_failures += 1
        if not self._failing:
            log.warning("face: %s: %s; rooms draw the CPU avatar until it works again", type(exc).__name__, exc)
            self._failing = True
        with contextlib.suppress(Exception):
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        return Result(error=f"{DEVICE_FAILURE}: {type(exc).__name__}: {exc}")

    def gauges(self) -> dict[str, float]:
        m = self.model
        if m is None:
            return {}
        out = {"model_bytes": float(m.memory_bytes()), "forward_passes": float(m.forward_passes),
               "device_failures": float(self.device_failures), "on_gpu": float(m.device != "cpu"),
               "pass_frames_sum": self.pass_frames.sum}
        acc = 0
        for b, c in zip([*self.pass_frames.buckets, math.inf], self.pass_frames.counts, strict=True):
            acc += c
            out[f"pass_frames_le_{b}"] = float(acc)
        if m.device != "cpu":
            with contextlib.suppress(Exception):
                import torch

                out["device_allocated_bytes"] = float(torch.cuda.memory_allocated(m.device))
        return out


# --- standalone (the DaemonSet) ------------------------------------------------------------------


class _StandaloneHost(Host):
    """No daemon holds our stdin (a container's is empty): the process lives until SIGTERM."""

    def _watch_parent(self) -> None:
        pass


def standalone_spec(env: dict[str, str] | None = None) -> ServiceSpec:
    """The spec a DaemonSet's environment describes; equal to the rooms' when their avatar.model_dir, device and
    dtype are the same (VA_FACE_MODEL_DIR, VA_FACE_DEVICE=auto, VA_FACE_DTYPE=auto)."""
    env = dict(os.environ if env is None else env)
    model_dir = env.get("VA_FACE_MODEL_DIR")
    if not model_dir:
        raise ValueError("VA_FACE_MODEL_DIR is not set: the folder holding musetalkV15/, sd-vae/ and whisper/")
    spec = _spec(model_dir, env.get("VA_FACE_DEVICE", "auto"), env.get("VA_FACE_DTYPE", "auto"))
    return spec.model_copy(update={"max_batch": int(env.get("VA_FACE_MAX_BATCH", "16")),
                                   "max_wait_ms": float(env.get("VA_FACE_MAX_WAIT_MS", "15")),
                                   "log_level": env.get("VA_LOG_LEVEL", "info")})


def main() -> int:
    """`python -m broadcaster.services.face`: serves the face on $VA_SERVICES_DIR/face-<key>.sock until SIGTERM."""
    from broadcaster.logs import setup_logging

    try:
        spec = standalone_spec()
        where = os.environ.get(ENV_DIR) or ""
        if not where:
            raise ValueError(f"{ENV_DIR} is not set: the folder the rooms look for services in")
    except ValueError as exc:
        print(f"face service: {exc}", file=sys.stderr)
        return 2
    setup_logging(spec.log_level, spec.log_format)
    path = socket_path(where, spec)
    log.info("face service: %s on %s", spec.params, path)
    port = os.environ.get("VA_FACE_METRICS_PORT")
    if port:  # the node's one GPU exporter (the room pods' daemons leave the node's GPUs to it)
        from prometheus_client import CollectorRegistry, start_http_server

        from broadcaster.gpu_metrics import GpuCollector

        registry = CollectorRegistry(auto_describe=False)
        registry.register(GpuCollector())
        start_http_server(int(port), registry=registry)
        log.info("face service: GPU metrics on :%s/metrics", port)
    host = _StandaloneHost(spec, path, arena_bytes=int(os.environ.get("VA_FACE_ARENA_MB", "64")) << 20)
    try:
        asyncio.run(host.main())
    except Exception:
        log.exception("face service failed")
        return 1
    return 0


# --- metrics: the daemon's view of every face service it runs -----------------------------------


class _FaceCollector:
    """va_face_* from the face services' latest stats (polled by HostServices; no I/O at scrape time)."""

    def collect(self) -> Any:
        batch = HistogramMetricFamily("va_face_batch_frames", "Frames in one UNet pass of the face service",
                                      labels=["service"])
        wait = HistogramMetricFamily("va_face_queue_wait_seconds",
                                     "Time a face request waited for its batch", labels=["service"])
        memory = GaugeMetricFamily("va_face_model_memory_bytes",
                                   "Device memory of the face model's weights and sources (GPU or CPU)",
                                   labels=["service", "model", "device"])
        allocated = GaugeMetricFamily("va_face_gpu_allocated_bytes", "GPU memory torch holds in the face service",
                                      labels=["service", "model"])
        passes = CounterMetricFamily("va_face_forward_passes", "UNet passes of the face service", labels=["service"])
        failures = CounterMetricFamily("va_face_device_failures",
                                       "Face passes that failed on the device (out of memory, driver)",
                                       labels=["service"])
        for svc in running_services("face"):
            name, g = svc.spec.name, svc.stats.get("gauges") or {}
            model = Path(str(svc.spec.params.get("model_dir", ""))).name
            if "model_bytes" in g:
                device = "gpu" if g.get("on_gpu") else "cpu"
                memory.add_metric([name, model, device], g["model_bytes"])
            if "device_allocated_bytes" in g:
                allocated.add_metric([name, model], g["device_allocated_bytes"])
            passes.add_metric([name], g.get("forward_passes", 0.0))
            failures.add_metric([name], g.get("device_failures", 0.0))
            cum = [(str(b) if b != math.inf else "+Inf", g.get(f"pass_frames_le_{b}", 0.0))
                   for b in [*BATCH_BUCKETS, math.inf]]
            batch.add_metric([name], cum, g.get("pass_frames_sum", 0.0))
            h = svc.totals()["queue_wait"]
            acc, wcum = 0, []
            for b, c in zip([*h["buckets"], math.inf], h["counts"], strict=True):
                acc += c
                wcum.append((str(b) if b != math.inf else "+Inf", acc))
            wait.add_metric([name], wcum, h["sum"])
        yield from (batch, wait, memory, allocated, passes, failures)


# Idempotent: `python -m broadcaster.services.face` runs this file as __main__ and the host imports it again.
with contextlib.suppress(ValueError):
    metrics.REGISTRY.register(_FaceCollector())


# --- the room side -------------------------------------------------------------------------------


@dataclass(eq=False)
class _Utt:
    """One utterance's way through the face service, as the room sees it."""

    utt: Utterance
    frames: int  # frames the model draws: all of the utterance's, 0 for a pause (the idle loop's)
    guess: int  # the stage frame it was predicted to start on (source frames are chosen for it)
    first: list[int]  # the frames that must be there before it may start with the neural face
    crops: dict[int, np.ndarray] = field(default_factory=dict)  # k → crop, until it starts
    got: set[int] = field(default_factory=set)  # frames handed to the avatar (once it started neural)
    start: int | None = None
    mode: str = "pending"  # → "neural" or "fallback" at its START
    failed: str | None = None  # why the service cannot draw it ("service", "device", "down")
    lost: int = 0  # frames given up before it started (past their deadline: e.g. a long pause): the portrait's
    task: asyncio.Task[None] | None = None


class FaceLink:
    """A room's connection to the face service: asks ahead, hands crops to the NeuralAvatar, falls back whole.

    Threads: submit/drop/close and the answers run on the room's event loop; ready() (the stage's gate, under
    the stage's lock) and on_start() run on the media clock thread. Neither ever waits on the other or on I/O.
    """

    def __init__(self, room: str, figure: NeuralAvatar, cfg: AvatarConfig, stage: Stage, *,
                 services_dir: Path | str | None = None, retry_s: float = 2.0, retry_max_s: float = 30.0) -> None:
        self.room = room
        self.figure = figure
        self.stage = stage
        self.spec = spec_for_avatar(cfg)
        self.fps, self.sample_rate = stage.fps, stage.sample_rate
        self.hold_frames = math.ceil(cfg.face_hold_ms * self.fps / 1000 - 1e-9)
        self._dir = services_dir or os.environ.get(EXTERNAL_DIR_ENV) or None  # None: $VA_SERVICES_DIR
        self._client: ServiceClient | None = None
        self._registered: int | None = None  # pid of the service process our source is registered with
        self._register_lock = asyncio.Lock()
        self._connecting: asyncio.Task[ServiceClient] | None = None
        self._lock = threading.Lock()
        self._utts: BoundedDict[int, _Utt] = BoundedDict(64)  # pushed, not started yet (by utterance id)
        self._tasks: set[asyncio.Task[None]] = set()  # requests of utterances still on their way
        self._backoff = Backoff(retry_s, retry_max_s, wait_jitter=0.2)
        self._down_until = 0.0  # monotonic: no requests (no hold) until then
        self._down: str | None = None  # why, while a failure episode lasts (logged once)
        self._fell_back_at_load: int | None = None  # service pid whose CPU fallback was counted
        self._loop: asyncio.AbstractEventLoop | None = None
        # Counters (also in metrics): utterances drawn by the model / by the portrait, frames late.
        self.neural = 0
        self.fallbacks = 0
        self.late = 0
        self.delivered = 0
        self._m_late = metrics.FACE_FRAMES_LATE.labels(room)
        self._m_frames = metrics.FACE_FRAMES.labels(room)
        self._m_hold = metrics.FACE_HOLD.labels(room)

    # -- connection ----------------------------------------------------------------------------------

    async def start(self, wait_s: float = 5.0) -> None:
        """Connects and registers the source (bounded by wait_s). A service not there is not fatal: the room
        goes on air with the portrait drawing its utterances, and the link tries again later."""
        self._loop = asyncio.get_running_loop()
        with contextlib.suppress(ServiceError, OSError):
            await self._connected(wait_s)

    def _connected(self, wait_s: float | None = None) -> asyncio.Future[ServiceClient]:
        """The connection attempt under way, shared by every utterance that needs it. Its failure is recorded
        by the attempt itself: an utterance that stops waiting (the portrait took it after its hold) must not
        hide a dead service."""
        if self._connecting is None or self._connecting.done():
            task = asyncio.get_running_loop().create_task(self._connect(wait_s), name=f"face-connect-{self.room}")
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: nobody may await it
            self._connecting = task
        return asyncio.shield(self._connecting)

    async def _connect(self, wait_s: float | None) -> ServiceClient:
        try:
            return await self._ensure(wait_s)
        except (ServiceError, OSError) as exc:
            self._link_failed("service", exc)
            raise

    async def _ensure(self, wait_s: float | None = None) -> ServiceClient:
        if self._client is None:
            crops_bytes = len(self.figure.source.frames) * 256 * 256 * 3
            self._client = client_for(self.spec, name=self.room, dir=self._dir, connect_timeout_s=0.3,
                                      arena_bytes=max(16 << 20, crops_bytes + (8 << 20)))
        client = self._client
        welcome = await client.connect(wait_s)
        pid = int(welcome.get("pid") or 0)
        if self._registered == pid:
            return client
        async with self._register_lock:
            if self._registered != pid:
                key = self.figure.key
                reply = await client.call({"op": "source", "key": key}, timeout_s=10)
                if not reply.meta.get("known"):
                    crops = await asyncio.to_thread(self.figure.geometry.crops, self.figure.source.frames)
                    await client.call({"op": "source", "key": key}, [crops], timeout_s=120)
                self._registered = pid
                info = welcome.get("info") or {}
                if info.get("fallback") and self._fell_back_at_load != pid:
                    self._fell_back_at_load = pid
                    metrics.DEVICE_FALLBACKS.labels(self.room, "face").inc()
                    log.warning("face[%s]: the face service runs on the CPU (no usable GPU)", self.room)
        return client

    async def close(self) -> None:
        with self._lock:
            self._utts.clear()
        tasks = [*self._tasks, *([self._connecting] if self._connecting is not None else [])]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.close()

    # -- event loop: utterances go out ---------------------------------------------------------------

    def submit(self, utt: Utterance, guess: int) -> None:
        """An utterance about to be pushed to the stage, predicted to start at stage frame `guess`."""
        from renderer.neural.audio import frame_count, is_pause

        # ~1 ms for a 4 s sentence (a resample to 16 kHz and an RMS a frame): fine on the loop.
        frames = frame_count(len(utt.pcm), self.sample_rate, self.fps)
        speaks = not is_pause(utt.pcm, self.sample_rate, self.fps)
        rec = _Utt(utt, frames if speaks else 0, guess, list(range(min(FIRST_FRAMES, frames))) if speaks else [])
        if speaks and time.monotonic() < self._down_until:
            rec.failed = "down"  # known broken: no hold, the portrait draws it
        elif speaks:
            rec.task = asyncio.get_running_loop().create_task(self._serve(rec), name=f"face-{self.room}-{utt.id}")
            self._tasks.add(rec.task)
            rec.task.add_done_callback(self._tasks.discard)
        with self._lock:
            self._utts[utt.id] = rec

    def drop(self, utt: Utterance) -> None:
        """The utterance will not be played (its line was cut): stop asking for it."""
        with self._lock:
            rec = self._utts.pop(utt.id, None)
        if rec is not None and rec.task is not None:
            rec.task.cancel()

    async def _serve(self, rec: _Utt) -> None:
        try:
            client = await self._connected()
        except (ServiceError, OSError):
            with self._lock:
                rec.failed = "service"  # the attempt counted and logged it
            return
        try:
            ks = list(range(rec.frames))
            # Tasks start in creation order, and a request is written before its task first yields: the
            # utterance's audio reaches the service ahead of its frames.
            calls = [asyncio.create_task(self._audio(client, rec, len(ks)))]
            calls += [asyncio.create_task(self._frame(client, rec, k)) for k in ks]
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
        except (ServiceError, OSError) as exc:
            outcomes = [exc]
        failure = next((o for o in outcomes if isinstance(o, (ServiceError, OSError))), None)
        if failure is not None:
            self._utterance_failed(rec, failure)
        elif not isinstance(outcomes[0], BaseException) and self._down is not None:
            log.info("face[%s]: the face service answers again", self.room)
            self._down = None
            self._backoff.reset()

    async def _audio(self, client: ServiceClient, rec: _Utt, frames: int) -> None:
        params = {"op": "utt", "utt": rec.utt.id, "sr": self.sample_rate, "fps": self.fps, "frames": frames}
        with contextlib.suppress(TimeoutError):  # its frames then come late (or not): counted there
            await client.call(params, [np.ascontiguousarray(rec.utt.pcm, np.float32)],
                              timeout_s=self._until(rec.guess + rec.frames))

    async def _frame(self, client: ServiceClient, rec: _Utt, k: int) -> None:
        index = self.figure.source.loop_index(rec.guess + k, self.fps)
        params = {"op": "frame", "utt": rec.utt.id, "k": k, "source": self.figure.key, "index": index}
        try:
            reply = await client.call(params, timeout_s=self._until(rec.guess + k))
        except TimeoutError:
            self._lost(rec)
            return
        except ServiceError as exc:
            if isinstance(exc, ServiceUnavailable) or DEVICE_FAILURE in str(exc):
                raise  # the service or its GPU failed: the utterance falls back
            # Dropped unrun past its deadline, or its audio came too late: this frame is late, nothing broke.
            self._lost(rec)
            return
        self._deliver(rec, k, reply.outputs[0])

    def _until(self, n: int) -> float:
        """Seconds until stage frame n is drawn (as predicted now), plus the hold and some slack."""
        return max(0.05, (n - self.stage.frame) / self.fps) + self.hold_frames / self.fps + SLACK_S

    def _deliver(self, rec: _Utt, k: int, crop: np.ndarray) -> None:
        with self._lock:
            if rec.mode == "pending":
                rec.crops[k] = crop
                return
            if rec.mode != "neural" or rec.start is None:
                return  # drawn by the portrait: not needed any more
            n = rec.start + k
            if n <= self.stage.frame:
                late = True
            else:
                late = False
                self.figure.deliver(n, crop)
                rec.got.add(k)
        if late:
            self._late(1)
        else:
            self.delivered += 1
            self._m_frames.inc()

    def _lost(self, rec: _Utt) -> None:
        """A frame that will never come. Before its utterance started, the portrait will draw all of it (a mouth
        frozen over part of a sentence would be worse than the other style for the whole of it)."""
        with self._lock:
            if rec.mode == "pending":
                rec.lost += 1
        self._late(1)

    def _late(self, frames: int) -> None:
        self.late += frames
        self._m_late.inc(frames)

    def _utterance_failed(self, rec: _Utt, exc: BaseException) -> None:
        reason = "device" if DEVICE_FAILURE in str(exc) else "service"
        with self._lock:
            rec.failed = reason
            if rec.mode == "neural" and rec.start is not None:
                # Playing: from its first frame still missing on (the next frame at the earliest), the portrait
                # draws the rest. A failure is the one case a style changes inside an utterance: a frozen mouth
                # would be worse. Frames already here play out: often all of them, and nothing changes.
                nxt = self.stage.frame + 1
                missing = [rec.start + k for k in range(rec.frames)
                           if k not in rec.got and rec.start + k >= nxt]
                end = rec.start + rec.frames
                if missing:
                    self.figure.use_fallback(missing[0], end - missing[0])
        self._link_failed(reason, exc)

    def _link_failed(self, reason: str, exc: BaseException) -> None:
        """The service or its device failed: count it, log once per episode, stay on the portrait for a while."""
        delay = self._backoff.next_delay()
        self._down_until = time.monotonic() + delay
        if self._down is None:
            self._down = reason
            metrics.DEVICE_FALLBACKS.labels(self.room, "face").inc()
            log.warning("face[%s]: %s; the CPU portrait draws this room's utterances, retrying in %.1fs",
                        self.room, exc, delay)

    # -- media clock thread --------------------------------------------------------------------------

    def ready(self, utt: Utterance) -> bool:
        """The stage's gate: may this utterance start now? Yes when its first face frames are here, or when it
        is known that they will not all come (then the portrait draws it); no while they are on their way."""
        with self._lock:
            rec = self._utts.get(utt.id)
            return rec is None or rec.failed is not None or rec.lost > 0 or all(k in rec.crops for k in rec.first)

    def on_start(self, utt: Utterance, n: int, held: int) -> None:
        """The utterance starts at stage frame n (before that frame is drawn): the neural face or, whole, the
        portrait."""
        self._m_hold.observe(held / self.fps)
        with self._lock:
            # From here the record lives on in its requests' task only (answers reach it directly).
            rec = self._utts.pop(utt.id, None)
            if rec is not None and rec.failed is None and rec.lost == 0 and all(k in rec.crops for k in rec.first):
                rec.mode, rec.start = "neural", n
                self.figure.expect(n, rec.frames)
                for k, crop in rec.crops.items():
                    self.figure.deliver(n + k, crop)
                rec.got.update(rec.crops)
                self.delivered += len(rec.crops)
                self._m_frames.inc(len(rec.crops))
                rec.crops.clear()
                self.neural += 1
                return
            frames = rec.frames if rec is not None else math.ceil(len(utt.pcm) / self.stage.spf)
            reason = (rec.failed or "late") if rec is not None else "unknown"
            self.figure.use_fallback(n, frames)
            if rec is not None:
                rec.mode, rec.start = "fallback", n
                task = rec.task
                if task is not None and not task.done() and self._loop is not None:
                    self._loop.call_soon_threadsafe(task.cancel)
            self.fallbacks += 1
        metrics.FACE_FALLBACKS.labels(self.room, reason).inc()


if __name__ == "__main__":
    sys.exit(main())

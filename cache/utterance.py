"""Utterance cache: (voice, normalized text, backend version, stage rate, fps) → PCM + mouth track, over any Store.

A hit is ready to play without touching the TTS backend: one store read and a few array views.
Entries are a small binary record (magic, JSON header, float32 PCM, float32 openness, uint8
visemes) so the same bytes work in memory and in Redis shared between rooms and hosts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import struct
from dataclasses import dataclass

import numpy as np

from cache.store import Store

log = logging.getLogger(__name__)

_MAGIC = b"VAU1"
_HEAD = struct.Struct("<4sI")


@dataclass(frozen=True, slots=True)
class CachedUtterance:
    pcm: np.ndarray  # float32 mono at sample_rate
    openness: np.ndarray  # float32, one per video frame
    viseme: np.ndarray  # uint8, one per video frame
    sample_rate: int
    fps: int


def utterance_key(voice_id: str, text: str, backend_version: str, sample_rate: int, fps: int) -> str:
    """A stable key: the same voice saying the same normalized text at the same stage format."""
    raw = json.dumps([voice_id, text, backend_version, sample_rate, fps], ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()


def encode(u: CachedUtterance) -> bytes:
    pcm = np.ascontiguousarray(u.pcm, dtype="<f4")
    op = np.ascontiguousarray(u.openness, dtype="<f4")
    vi = np.ascontiguousarray(u.viseme, dtype=np.uint8)
    if op.shape != vi.shape:
        raise ValueError("openness and viseme tracks differ in length")
    header = json.dumps({"sr": u.sample_rate, "fps": u.fps, "n": int(pcm.size), "frames": int(op.size)}).encode()
    return b"".join([_HEAD.pack(_MAGIC, len(header)), header, pcm.tobytes(), op.tobytes(), vi.tobytes()])


def decode(data: bytes) -> CachedUtterance:
    magic, hlen = _HEAD.unpack_from(data, 0)
    if magic != _MAGIC:
        raise ValueError("not an utterance record")
    off = _HEAD.size
    h = json.loads(data[off : off + hlen])
    off += hlen
    n, frames = int(h["n"]), int(h["frames"])
    if len(data) != off + 4 * n + 5 * frames:
        raise ValueError("truncated utterance record")
    pcm = np.frombuffer(data, "<f4", n, off)
    off += 4 * n
    op = np.frombuffer(data, "<f4", frames, off)
    off += 4 * frames
    vi = np.frombuffer(data, np.uint8, frames, off)
    return CachedUtterance(pcm, op, vi, int(h["sr"]), int(h["fps"]))


class UtteranceCache:
    """Typed wrapper over a Store; a corrupt entry reads as a miss and is deleted."""

    def __init__(self, store: Store, *, ttl_s: float | None = None, prefix: str = "utt:") -> None:
        self.store = store
        self.prefix = prefix  # the store may be shared with other caches
        self.ttl_s = ttl_s
        self.hits = 0
        self.misses = 0

    async def get(self, key: str) -> CachedUtterance | None:
        try:
            data = await self.store.get(self.prefix + key)
        except Exception as exc:  # a cache never breaks speech
            log.warning("utterance cache read failed: %s", exc)
            data = None
        if data is None:
            self.misses += 1
            return None
        try:
            u = decode(data)
        except (ValueError, KeyError, struct.error, json.JSONDecodeError) as exc:
            log.warning("dropping a corrupt utterance cache entry: %s", exc)
            await self.delete(key)
            self.misses += 1
            return None
        self.hits += 1
        return u

    async def put(self, key: str, u: CachedUtterance) -> None:
        try:
            await self.store.set(self.prefix + key, encode(u), self.ttl_s)
        except Exception as exc:
            log.warning("utterance cache write failed: %s", exc)

    async def delete(self, key: str) -> None:
        try:
            await self.store.delete(self.prefix + key)
        except Exception as exc:
            log.warning("utterance cache delete failed: %s", exc)

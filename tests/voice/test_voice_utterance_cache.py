"""cache.utterance: record round trip, key stability, corrupt entries read as misses, a failing store never raises."""

from __future__ import annotations

import numpy as np

from cache.store import MemoryStore
from cache.utterance import CachedUtterance, UtteranceCache, decode, encode, utterance_key


def _utt(n: int = 4800, frames: int = 3) -> CachedUtterance:
    rng = np.random.default_rng(1)
    return CachedUtterance(rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(0, 1, frames).astype(np.float32),
                           np.array([0, 1, 2], np.uint8)[:frames], 48000, 25)


def test_record_roundtrip_is_exact() -> None:
    u = _utt()
    back = decode(encode(u))
    assert np.array_equal(back.pcm, u.pcm) and np.array_equal(back.openness, u.openness)
    assert np.array_equal(back.viseme, u.viseme) and (back.sample_rate, back.fps) == (48000, 25)


def test_key_depends_on_every_part() -> None:
    base = utterance_key("espeak:cmn:175", "你好", "espeak-ng 1.52", 48000, 25)
    assert base == utterance_key("espeak:cmn:175", "你好", "espeak-ng 1.52", 48000, 25)
    others = {utterance_key("espeak:en:175", "你好", "espeak-ng 1.52", 48000, 25),
              utterance_key("espeak:cmn:175", "您好", "espeak-ng 1.52", 48000, 25),
              utterance_key("espeak:cmn:175", "你好", "espeak-ng 1.53", 48000, 25),
              utterance_key("espeak:cmn:175", "你好", "espeak-ng 1.52", 44100, 25),
              utterance_key("espeak:cmn:175", "你好", "espeak-ng 1.52", 48000, 30)}
    assert base not in others and len(others) == 5


async def test_corrupt_entry_is_a_miss_and_removed() -> None:
    store = MemoryStore(1 << 20)
    cache = UtteranceCache(store)
    await cache.put("k", _utt())
    assert await cache.get("k") is not None
    data = await store.get("utt:k")
    await store.set("utt:k", data[:-7])  # truncated
    assert await cache.get("k") is None
    assert await store.get("utt:k") is None
    assert cache.hits == 1 and cache.misses == 1


async def test_failing_store_never_raises() -> None:
    class Down:
        async def get(self, key: str) -> bytes | None:
            raise ConnectionError("down")

        async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
            raise ConnectionError("down")

        async def delete(self, key: str) -> None:
            raise ConnectionError("down")

    cache = UtteranceCache(Down())
    await cache.put("k", _utt())
    assert await cache.get("k") is None

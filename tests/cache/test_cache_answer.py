"""Answer cache: exact then similar, numbers guard, TTL, FAQ warm-up, fleet sharing over a real Redis, Redis death."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import numpy as np

from broadcaster.brain.textnorm import question_key
from cache.answer import AnswerCache
from cache.store import FallbackStore, MemoryStore, RedisStore
from tests.support.redis import start_redis


def _cache(store=None, **kw) -> AnswerCache:
    return AnswerCache("room1", store or MemoryStore(1 << 20), key_fn=question_key, **kw)


async def test_exact_then_similar_and_misses() -> None:
    c = _cache(similarity=0.8)
    await c.put("这个杯子多少钱？", "169元。", source="llm", passage_ids=["faq.yaml#0"])
    hit = await c.get("请问主播這個杯子多少錢呀")  # filler words, traditional, punctuation
    assert hit is not None and hit.kind == "exact" and hit.entry.answer == "169元。"
    assert hit.entry.passage_ids == ["faq.yaml#0"]
    hit = await c.get("这个保温杯子多少钱")
    assert hit is not None and hit.kind == "similar" and 0.8 <= hit.score < 1.0
    assert await c.get("发什么快递") is None
    assert await c.get("") is None


async def test_similar_match_never_crosses_different_numbers() -> None:
    c = _cache(similarity=0.7)
    await c.put("买2个多少钱", "两个318元。")
    assert await c.get("买3个多少钱") is None
    assert (await c.get("买2个要多少钱")) is not None


async def test_ttl_expiry_uses_the_clock_and_faq_entries_are_pinned() -> None:
    now = [0.0]
    c = _cache(ttl_s=60, clock=lambda: now[0])
    await c.warm([("包邮吗", "全国包邮。", "faq.yaml#1")])
    await c.put("发什么快递", "中通。")
    now[0] = 30
    assert await c.get("发什么快递") is not None
    now[0] = 61
    assert c.lookup_local("发什么快递") is None
    hit = c.lookup_local("包邮吗")
    assert hit is not None and hit.entry.source == "faq" and hit.entry.pinned


async def test_bounded_entries_evict_oldest_but_keep_pinned() -> None:
    c = _cache(max_entries=10)
    await c.warm([("包邮吗", "全国包邮。", "f#1")])
    for i in range(50):
        await c.put(f"问题编号{i}是什么", f"答案{i}")
    assert len(c) == 10
    assert c.lookup_local("包邮吗") is not None
    assert c.lookup_local("问题编号49是什么") is not None
    assert c.lookup_local("问题编号0是什么") is None


async def test_embedding_match_when_configured() -> None:
    # A toy embedding: a bag of characters (stands in for a sentence-transformers model).
    vocab: dict[str, int] = {}

    async def embed(texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t:
                out[i, vocab.setdefault(ch, len(vocab) % 64)] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)

    c = _cache(similarity=0.99, embed=embed, embed_similarity=0.8)
    await c.put("杯子保温效果怎么样", "热水保温12小时。")
    hit = await c.get("保温效果杯子怎么样")  # same characters, different order: low Indel ratio, same bag
    assert hit is not None and hit.kind == "embedding" and hit.score >= 0.8


async def test_fleet_shares_answers_through_redis_and_survives_its_death(tmp_path: Path) -> None:
    server, url = start_redis(tmp_path / "r.db")

    def store() -> FallbackStore:
        return FallbackStore(RedisStore(url, "va:", timeout_s=0.5), MemoryStore(1 << 20), retry_s=0.3)

    a, b = _cache(store(), refresh_s=0.0), _cache(store(), refresh_s=0.0)
    try:
        await a.put("发什么快递", "默认中通快递。", passage_ids=["policy.md#0"])
        # Daemon B never answered it: exact lookup goes to Redis.
        hit = await b.get("发什么快递呀")
        assert hit is not None and hit.kind == "exact" and hit.entry.passage_ids == ["policy.md#0"]
        await a.put("可以开发票吗", "可以开电子发票。")
        assert await b.refresh() >= 1  # the shared index brings A's question into B's similarity index
        hit = b.lookup_local("可以开个发票吗")
        assert hit is not None and hit.kind == "similar"
        assert server.get("va:answer:room1:index") is not None

        os.kill(server.pid, signal.SIGKILL)  # Redis dies mid-run
        await asyncio.sleep(0.05)
        # The room keeps answering from memory; new answers are still cached locally.
        assert (await a.get("发什么快递")) is not None
        await a.put("能刻字吗", "暂不支持刻字。")
        assert (await a.get("能刻字吗")).entry.answer == "暂不支持刻字。"
        assert (await b.get("可以开发票吗")) is not None
        assert await b.get("从来没问过的问题") is None
        assert not a.store.primary_up
    finally:
        await a.close()
        await b.close()
        await a.store.close()
        await b.store.close()
        server.shutdown()


async def test_answers_of_another_kb_version_are_never_served() -> None:
    store = MemoryStore(1 << 20)
    old = _cache(store)
    old.kb_version = "v1"
    await old.put("保修多久", "一年。", passage_ids=["policy.md#2"])
    assert (await old.get("保修多久")) is not None
    old.kb_version = "v2"  # the KB changed: the local entry is stale
    assert await old.get("保修多久") is None
    fleet = _cache(store)  # another daemon whose KB is already v2 reads the shared store
    fleet.kb_version = "v2"
    assert await fleet.get("保修多久") is None
    assert await fleet.refresh() == 0

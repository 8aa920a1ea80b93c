"""A small async key-value store contract with TTL, and its memory, Redis and fallback implementations.

Every cache in the project (answers, utterances, dedup windows, speaker embeddings) talks to a
`Store`: bytes in, bytes out, optional time to live. `MemoryStore` is a byte-bounded LRU,
`RedisStore` shares entries between room processes and hosts, and `FallbackStore` keeps a room
running when Redis dies mid-broadcast (it logs once, counts, serves from memory and tries Redis
again after a back-off).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger(__name__)


@runtime_checkable
class Store(Protocol):
    """Async bytes store. `ttl_s=None` means no expiry; a missing or expired key reads as None."""

    async def get(self, key: str) -> bytes | None: ...

    async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None: ...

    async def delete(self, key: str) -> None: ...


class MemoryStore:
    """In-process LRU bounded by the total size of keys and values in bytes.

    Expired entries are removed when read and when space is needed. A single value larger than
    `max_bytes` is not stored at all (it would evict everything and still not fit).
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self.max_bytes = max_bytes
        self._data: OrderedDict[str, tuple[bytes, float]] = OrderedDict()  # key -> (value, expires_mono)
        self._bytes = 0
        self.evictions = 0

    @staticmethod
    def _size(key: str, value: bytes) -> int:
        return len(key.encode()) + len(value)

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._data)

    def _drop(self, key: str) -> None:
        value, _ = self._data.pop(key)
        self._bytes -= self._size(key, value)

    def get_nowait(self, key: str) -> bytes | None:
        item = self._data.get(key)
        if item is None:
            return None
        value, expires = item
        if expires <= time.monotonic():
            self._drop(key)
            return None
        self._data.move_to_end(key)
        return value

    def set_nowait(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
        value = bytes(value)
        if key in self._data:
            self._drop(key)
        size = self._size(key, value)
        if size > self.max_bytes:
            return
        if ttl_s is not None and ttl_s <= 0:
            return
        expires = time.monotonic() + ttl_s if ttl_s is not None else float("inf")
        self._purge_expired_if_full(size)
        while self._bytes + size > self.max_bytes and self._data:
            oldest = next(iter(self._data))
            self._drop(oldest)
            self.evictions += 1
        self._data[key] = (value, expires)
        self._bytes += size

    def _purge_expired_if_full(self, incoming: int) -> None:
        # Expired entries are dead weight; drop them before evicting live ones.
        if self._bytes + incoming <= self.max_bytes:
            return
        now = time.monotonic()
        for k in [k for k, (_, exp) in self._data.items() if exp <= now]:
            self._drop(k)

    def delete_nowait(self, key: str) -> None:
        if key in self._data:
            self._drop(key)

    async def get(self, key: str) -> bytes | None:
        return self.get_nowait(key)

    async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
        self.set_nowait(key, value, ttl_s)

    async def delete(self, key: str) -> None:
        self.delete_nowait(key)

    async def close(self) -> None:
        self._data.clear()
        self._bytes = 0


class RedisStore:
    """Redis-backed store (redis.asyncio). Keys are namespaced with `prefix`; TTLs use PX (milliseconds)."""

    def __init__(self, url_or_client: str | Any, prefix: str = "va:", *, timeout_s: float = 1.0) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError

        if isinstance(url_or_client, str):
            # Short timeouts: a cache that answers late is worse than a miss. One immediate retry on a
            # connection error, so a pooled connection left stale by a Redis restart is replaced
            # instead of failing the first call after the restart.
            self._client = aioredis.Redis.from_url(
                url_or_client, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                retry=Retry(NoBackoff(), 1), retry_on_error=[RedisConnectionError],
            )
            self._owns_client = True
        else:
            self._client = url_or_client
            self._owns_client = False
        self.prefix = prefix

    @property
    def client(self) -> Any:
        return self._client

    def _k(self, key: str) -> str:
        return self.prefix + key

    async def get(self, key: str) -> bytes | None:
        value = await self._client.get(self._k(key))
        if value is None:
            return None
        return value if isinstance(value, bytes) else str(value).encode()

    async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
        if ttl_s is not None:
            ms = int(ttl_s * 1000)
            if ms <= 0:
                await self._client.delete(self._k(key))
                return
            await self._client.set(self._k(key), value, px=ms)
        else:
            await self._client.set(self._k(key), value)

    async def delete(self, key: str) -> None:
        await self._client.delete(self._k(key))

    async def get_with_ttl(self, key: str) -> tuple[bytes | None, float | None]:
        """The value and its remaining TTL in seconds (None: no expiry), in one round trip."""
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.get(self._k(key))
            pipe.pttl(self._k(key))
            value, pttl = await pipe.execute()
        if value is None:
            return None, None
        value = value if isinstance(value, bytes) else str(value).encode()
        return value, (pttl / 1000.0 if pttl is not None and pttl > 0 else None)

    async def ping(self) -> bool:
        return bool(await self._client.ping())

    async def close(self) -> None:
        if self._owns_client:
            await self._client.aclose()


class FallbackStore:
    """Reads and writes go to `primary` (Redis) while it is healthy, and always to `fallback` (memory).

    When the primary raises, the error is logged once per outage, counted in `errors`, the
    primary is marked down and everything is served from the fallback. After `retry_s` the next
    call probes the primary again; when it answers, the store is back on it (logged once).
    Writes during an outage are kept in memory only; they are not replayed into Redis later
    (a cache may forget; it must never block the room).
    """

    def __init__(
        self,
        primary: Store,
        fallback: Store,
        *,
        retry_s: float = 5.0,
        op_timeout_s: float = 1.0,
        local_ttl_s: float | None = 300.0,
        on_error: Any = None,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.retry_s = retry_s
        self.op_timeout_s = op_timeout_s
        # A value read from the primary is copied to memory for at most this long (and never past
        # its primary TTL), so deletes/updates made by other processes are seen again after it.
        self.local_ttl_s = local_ttl_s
        self.errors = 0
        self.outages = 0
        self._down_until: float | None = None
        self._on_error = on_error  # optional callable(exc), e.g. a metric increment

    @property
    def primary_up(self) -> bool:
        return self._down_until is None

    def _use_primary(self) -> bool:
        return self._down_until is None or time.monotonic() >= self._down_until

    def _failed(self, op: str, exc: BaseException) -> None:
        self.errors += 1
        if self._down_until is None:
            self.outages += 1
            log.warning("cache store primary failed on %s (%s: %s); serving from memory, retrying every %.1fs",
                        op, type(exc).__name__, exc, self.retry_s)
        self._down_until = time.monotonic() + self.retry_s
        if self._on_error is not None:
            try:
                self._on_error(exc)
            except Exception:  # a broken metric hook must not break the cache
                log.exception("cache store on_error hook failed")

    def _ok(self) -> None:
        if self._down_until is not None:
            log.warning("cache store primary is back")
            self._down_until = None

    async def _primary(self, op: str, coro: Any) -> tuple[bool, Any]:
        try:
            result = await asyncio.wait_for(coro, self.op_timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(op, exc)
            return False, None
        self._ok()
        return True, result

    async def get(self, key: str) -> bytes | None:
        value = await self.fallback.get(key)
        if value is not None:
            return value
        if not self._use_primary():
            return None
        get_with_ttl = getattr(self.primary, "get_with_ttl", None)
        if get_with_ttl is not None:
            ok, got = await self._primary("get", get_with_ttl(key))
            value, remaining = got if ok else (None, None)
        else:
            ok, value = await self._primary("get", self.primary.get(key))
            remaining = None
        if ok and value is not None:
            # Keep a local copy so the next read is memory-fast and survives a later outage.
            ttls = [t for t in (remaining, self.local_ttl_s) if t is not None]
            await self.fallback.set(key, value, min(ttls) if ttls else None)
        return value if ok else None

    async def set(self, key: str, value: bytes, ttl_s: float | None = None) -> None:
        await self.fallback.set(key, value, ttl_s)
        if self._use_primary():
            await self._primary("set", self.primary.set(key, value, ttl_s))

    async def delete(self, key: str) -> None:
        await self.fallback.delete(key)
        if self._use_primary():
            await self._primary("delete", self.primary.delete(key))

    async def close(self) -> None:
        for s in (self.primary, self.fallback):
            close = getattr(s, "close", None)
            if close is not None:
                try:
                    await close()
                except Exception:
                    log.debug("closing store failed", exc_info=True)


def build_store(redis_url: str | None, *, memory_bytes: int = 64 * 1024 * 1024, prefix: str = "va:",
                retry_s: float = 5.0) -> Store:
    """Memory only without a Redis URL; memory in front of Redis (surviving its outages) with one."""
    memory = MemoryStore(memory_bytes)
    if not redis_url:
        return memory
    return FallbackStore(RedisStore(redis_url, prefix), memory, retry_s=retry_s)

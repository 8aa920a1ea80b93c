"""The answer cache: question → answer text, per room, exact then similar match, TTL, shared through a Store.

Lookups never leave the process on the hot path for a similar match: every room keeps an in-process
index (keys, entries, optional embeddings) and the similarity search runs on it. Entries are written
through to the `Store` (Redis for a fleet, memory alone otherwise) so other daemons of the fleet find
them: an exact miss locally asks the store, and the room's index key (a bounded list of known
questions) is re-read every `refresh_s` so similar matches see the fleet's answers too.

Similarity by default is character-level (rapidfuzz's normalized Indel ratio over the question
key); with an `embed` function (e.g. a local sentence-transformers model) cosine similarity of
embeddings is tried as well. Questions whose numbers differ ("2个多少钱" vs "3个多少钱") never
match by similarity. The cache does not know what answers mean; `key_fn` decides what counts as the
same question.

Every entry carries the `kb_version` it was answered under; once the room's knowledge base changes
(`kb_version` set to the new one) older entries are never served, also ones another daemon of the
fleet wrote before its KB changed. Callers store only answers voiced whole (see Brain.answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from cache.store import Store

log = logging.getLogger(__name__)

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def default_key(text: str) -> str:
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


@dataclass(slots=True)
class CachedAnswer:
    question: str
    answer: str
    source: str = "llm"  # where the answer first came from: faq | kb | llm | operator
    passage_ids: list[str] = field(default_factory=list)
    created_wall: float = field(default_factory=time.time)
    pinned: bool = False  # FAQ entries: never expire locally, re-warmed at every start
    kb_version: str = ""  # the knowledge base it was answered from: stale once the KB changes


@dataclass(frozen=True, slots=True)
class CacheHit:
    entry: CachedAnswer
    kind: str  # "exact" | "similar" | "embedding"
    score: float  # 1.0 for exact
    key: str


class AnswerCache:
    def __init__(
        self,
        room: str,
        store: Store,
        *,
        ttl_s: float = 6 * 3600.0,
        similarity: float = 0.86,
        max_entries: int = 5000,
        key_fn: Callable[[str], str] = default_key,
        embed: Callable[[Sequence[str]], Awaitable[np.ndarray]] | None = None,
        embed_similarity: float = 0.9,
        same: Callable[[str, str], bool] | None = None,
        refresh_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.room = room
        self.store = store
        self.ttl_s = ttl_s
        self.similarity = similarity
        self.max_entries = max_entries
        self.key_fn = key_fn
        self.embed = embed
        self.embed_similarity = embed_similarity
        # For an embedding match: whether two keys ask the same thing (the caller's meaning; an embedding scores
        # "新疆包邮吗" and "西藏包邮吗" as near-twins, and only the caller knows a place changes the answer).
        self.same = same
        self.refresh_s = refresh_s
        self.clock = clock
        # key → (entry, expires_mono); insertion order = age, for eviction.
        self._entries: dict[str, tuple[CachedAnswer, float]] = {}
        self._keys: list[str] = []  # similarity choices, rebuilt lazily
        self._keys_dirty = False
        self._vectors: dict[str, np.ndarray] = {}
        self._last_refresh = -float("inf")
        self._refresh_task: asyncio.Task[None] | None = None
        self.kb_version = ""  # entries of another version are stale (see module doc)

    # -- store layout ---------------------------------------------------------------------------------

    def _entry_key(self, key: str) -> str:
        return f"answer:{self.room}:e:{hashlib.sha1(key.encode()).hexdigest()[:20]}"

    @property
    def _index_key(self) -> str:
        return f"answer:{self.room}:index"

    # -- lookups --------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def _local(self, key: str) -> CachedAnswer | None:
        item = self._entries.get(key)
        if item is None:
            return None
        entry, expires = item
        if expires <= self.clock() or entry.kb_version != self.kb_version:
            self._forget(key)
            return None
        return entry

    def _forget(self, key: str) -> None:
        if self._entries.pop(key, None) is not None:
            self._vectors.pop(key, None)
            self._keys_dirty = True

    def lookup_local(self, question: str) -> CacheHit | None:
        """Exact then character-similar match on the in-process index only (no I/O; microseconds)."""
        key = self.key_fn(question)
        if not key:
            return None
        entry = self._local(key)
        if entry is not None:
            return CacheHit(entry, "exact", 1.0, key)
        return self._similar(key)

    def _similar(self, key: str) -> CacheHit | None:
        if self._keys_dirty:
            self._keys = list(self._entries)
            self._keys_dirty = False
        if not self._keys:
            return None
        digits = _DIGITS.findall(key)
        cutoff = self.similarity * 100.0
        # A few best candidates, so one whose numbers differ does not hide a valid one behind it.
        for cand, score, _ in process.extract(key, self._keys, scorer=fuzz.ratio, score_cutoff=cutoff, limit=3):
            if _DIGITS.findall(cand) != digits:
                continue
            entry = self._local(cand)
            if entry is not None:
                return CacheHit(entry, "similar", score / 100.0, cand)
        return None

    async def get(self, question: str, *, lexical: bool = True, embeddings: bool = True) -> CacheHit | None:
        """Exact (local, then the shared store), then similar (local index, then embeddings); `embeddings` False: a
        lookup that never waits on a model; `lexical` False: the embeddings alone (the words were looked up already)."""
        self._maybe_refresh()
        key = self.key_fn(question)
        if not key:
            return None
        if not lexical:
            return await self._embedding_match(key) if embeddings and self.embed is not None and self._vectors else None
        entry = self._local(key)
        if entry is not None:
            return CacheHit(entry, "exact", 1.0, key)
        shared = await self._load(key)
        if shared is not None:
            return CacheHit(shared, "exact", 1.0, key)
        hit = self._similar(key)
        if hit is None and embeddings and self.embed is not None and self._vectors:
            hit = await self._embedding_match(key)
        return hit

    async def _embedding_match(self, key: str) -> CacheHit | None:
        assert self.embed is not None
        keys = [k for k in self._vectors if k in self._entries]
        if not keys:
            return None
        q = (await self.embed([key]))[0]
        mat = np.stack([self._vectors[k] for k in keys])
        sims = mat @ q
        digits = _DIGITS.findall(key)
        for i in np.argsort(-sims)[:3]:
            if sims[i] < self.embed_similarity:
                break
            if _DIGITS.findall(keys[i]) != digits or (self.same is not None and not self.same(key, keys[i])):
                continue
            entry = self._local(keys[i])
            if entry is not None:
                return CacheHit(entry, "embedding", float(sims[i]), keys[i])
        return None

    async def _load(self, key: str) -> CachedAnswer | None:
        try:
            raw = await self.store.get(self._entry_key(key))
        except Exception:  # the store's own fallback logs; a cache miss is always acceptable
            log.debug("answer cache store get failed", exc_info=True)
            return None
        if raw is None:
            return None
        try:
            entry = CachedAnswer(**json.loads(raw))
        except (ValueError, TypeError):
            return None
        if entry.kb_version != self.kb_version:
            return None  # answered from another version of the knowledge base
        self._remember(key, entry, self.ttl_s)
        return entry

    # -- writes ---------------------------------------------------------------------------------------

    def _remember(self, key: str, entry: CachedAnswer, ttl_s: float | None) -> None:
        if key in self._entries:
            del self._entries[key]
        elif len(self._entries) >= self.max_entries:
            # Evict the oldest unpinned entry (pinned FAQ entries stay).
            victim = next((k for k, (e, _) in self._entries.items() if not e.pinned), None)
            if victim is None:
                return
            self._forget(victim)
        expires = float("inf") if entry.pinned or ttl_s is None else self.clock() + ttl_s
        self._entries[key] = (entry, expires)
        self._keys_dirty = True

    async def put(self, question: str, answer: str, *, source: str = "llm", passage_ids: Sequence[str] = (),
                  ttl_s: float | None = None, pinned: bool = False, share: bool = True) -> str | None:
        key = self.key_fn(question)
        if not key or not answer.strip():
            return None
        entry = CachedAnswer(question, answer, source, list(passage_ids), pinned=pinned, kb_version=self.kb_version)
        ttl = self.ttl_s if ttl_s is None else ttl_s
        self._remember(key, entry, ttl)
        if self.embed is not None:
            try:
                self._vectors[key] = (await self.embed([key]))[0]
            except Exception:
                log.warning("answer cache: embedding failed; similar matches use characters only", exc_info=True)
        if share:
            try:
                await self.store.set(self._entry_key(key), json.dumps(asdict(entry), ensure_ascii=False).encode(), ttl)
                await self._index_add(key, ttl)
            except Exception:
                log.debug("answer cache store set failed", exc_info=True)
        return key

    async def warm(self, pairs: Sequence[tuple[str, str, str]]) -> int:
        """Loads FAQ entries (question, answer, passage id) as pinned entries, embedding them in one batch."""
        keys: list[str] = []
        for question, answer, pid in pairs:
            key = await self.put(question, answer, source="faq", passage_ids=[pid] if pid else [], pinned=True,
                                 share=False)
            if key:
                keys.append(key)
        await self.refresh()
        return len(keys)

    async def invalidate(self, question: str) -> None:
        key = self.key_fn(question)
        self._forget(key)
        try:
            await self.store.delete(self._entry_key(key))
        except Exception:
            log.debug("answer cache store delete failed", exc_info=True)

    async def invalidate_where(self, predicate: Callable[[CachedAnswer], bool]) -> int:
        """Forgets every local entry the predicate selects (and deletes it from the shared store)."""
        doomed = [k for k, (e, _) in self._entries.items() if predicate(e)]
        for key in doomed:
            self._forget(key)
            try:
                await self.store.delete(self._entry_key(key))
            except Exception:
                log.debug("answer cache store delete failed", exc_info=True)
        return len(doomed)

    # -- fleet sharing --------------------------------------------------------------------------------

    async def _index_add(self, key: str, ttl_s: float) -> None:
        # Read-modify-write of a bounded list: racy between daemons, but the worst case is a
        # question missing from another daemon's similarity index until its next put.
        index = await self._read_index()
        now = time.time()
        index = [item for item in index if item[0] != key and item[1] > now]
        index.append([key, now + ttl_s])
        index = index[-self.max_entries :]
        await self.store.set(self._index_key, json.dumps(index, ensure_ascii=False).encode(), ttl_s)

    async def _read_index(self) -> list[list[Any]]:
        # The index changes with every daemon's put: read it from the shared primary when there is
        # one (a memory copy in front of Redis would hide other daemons' questions until it expires).
        raw = None
        primary = getattr(self.store, "primary", None)
        if primary is not None and getattr(self.store, "primary_up", False):
            try:
                raw = await asyncio.wait_for(primary.get(self._index_key), 1.0)
            except Exception:
                raw = await self.store.get(self._index_key)
        else:
            raw = await self.store.get(self._index_key)
        if not raw:
            return []
        try:
            data = json.loads(raw)
        except ValueError:
            return []
        return [item for item in data if isinstance(item, list) and len(item) == 2]

    def _maybe_refresh(self) -> None:
        if self.clock() - self._last_refresh < self.refresh_s:
            return
        if self._refresh_task is not None and not self._refresh_task.done():
            return
        self._last_refresh = self.clock()
        with contextlib.suppress(RuntimeError):
            self._refresh_task = asyncio.get_running_loop().create_task(self.refresh())

    async def refresh(self) -> int:
        """Pulls entries other daemons added to the shared index into the local one; returns how many."""
        self._last_refresh = self.clock()
        try:
            index = await self._read_index()
        except Exception:
            log.debug("answer cache index read failed", exc_info=True)
            return 0
        added = 0
        now = time.time()
        for key, expires_wall in index:
            if key in self._entries or expires_wall <= now:
                continue
            if await self._load(key) is not None:
                added += 1
        return added

    async def close(self) -> None:
        if self._refresh_task is not None:
            self._refresh_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refresh_task

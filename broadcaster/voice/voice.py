"""The room's voice: Line → sentences → normalized text → TTS (or cache) → stage-rate PCM + mouth track → Utterances.

Sentences are synthesized ahead (prefetch) while earlier ones play; each is yielded as soon as it
is ready. A backend that fails or hangs on a sentence never raises into the caller: that sentence
is re-voiced by the fallback espeak voice, or dropped and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from broadcaster import metrics

# The brain's splitter (CJK-aware, keeps decimals together): voice and brain cut sentences the same way.
from broadcaster.brain.sentences import split_sentences as _split
from broadcaster.lines import Line, Utterance
from broadcaster.voice.audio import StreamResampler, apply_fades, normalize_loudness
from broadcaster.voice.backends.base import TTSBackend, TTSError
from broadcaster.voice.config import VoiceConfig
from broadcaster.voice.sentences_en import split_sentences_en
from broadcaster.voice.textnorm import normalize
from cache.store import Store, build_store
from cache.utterance import CachedUtterance, UtteranceCache, utterance_key
from renderer.base import MouthTrack
from renderer.lipsync import mouth_track

if TYPE_CHECKING:
    from broadcaster.config import RoomConfig

log = logging.getLogger(__name__)



async def _one(text: str) -> AsyncIterator[str]:
    yield text


async def _numbered(texts: AsyncIterable[str]) -> AsyncIterator[tuple[int, str]]:
    part = 0
    async for text in texts:
        yield part, text
        part += 1


class VoiceError(Exception):
    """The voice cannot start at all (no backend and no fallback)."""


@dataclass(slots=True)
class _Spoken:
    pcm: np.ndarray
    mouth: MouthTrack
    text: str


class Voice:
    def __init__(
        self,
        cfg: VoiceConfig,
        backend: TTSBackend,
        *,
        sample_rate: int,
        fps: int,
        room: str,
        store: Store | None = None,
        fallback: TTSBackend | None = None,
        split: Callable[[str], list[str]] | None = None,
        owns_store: bool = False,
        lead_frames: float = 0.5,
    ) -> None:
        self.cfg = cfg
        self.backend = backend
        self.fallback = fallback
        self.sample_rate = sample_rate
        self.fps = fps
        self.lead_frames = lead_frames  # how early the mouth may move (renderer.lipsync); part of the cache key
        self.room = room
        self.store = store
        self._owns_store = owns_store  # a store passed in by the caller may be shared: not ours to close
        self.cache = UtteranceCache(store, ttl_s=cfg.cache.ttl_s) if store is not None else None
        # English has its own splitter (abbreviations, initials, longer sentences); others the brain's.
        self._split = split or (split_sentences_en if cfg.language.lower().startswith("en") else _split)
        self._started = False
        self._primary_ok = True
        # After several failures in a row the primary is skipped for a while, so a dead voice server
        # does not cost a full timeout on every sentence.
        self._fail_streak = 0
        self._skip_primary_until = 0.0
        self.breaker_failures = 3
        self.breaker_cooldown_s = 30.0
        # Counters a test or the admin API can read without scraping Prometheus.
        self.fallbacks = 0
        self.dropped = 0
        self.synthesized = 0

    # --- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Loads and warms the backend (and the fallback voice) once."""
        if self._started:
            return
        if self.fallback is not None:
            try:
                await self.fallback.start()
            except Exception:
                log.exception("voice[%s]: the fallback voice failed to start; failures will drop sentences", self.room)
                self.fallback = None
        try:
            await self.backend.start()
        except Exception as exc:
            if self.fallback is None:
                raise VoiceError(f"voice backend {self.backend.name} failed to start: {exc}") from exc
            # A 24/7 room keeps talking: every sentence goes to the fallback voice, loudly.
            log.exception("voice[%s]: backend %s failed to start; speaking with the fallback voice",
                          self.room, self.backend.name)
            self._primary_ok = False
        self._started = True

    async def close(self) -> None:
        for b in (self.backend, self.fallback):
            if b is not None:
                with contextlib.suppress(Exception):
                    await b.close()
        close = getattr(self.store, "close", None) if self._owns_store else None
        if close is not None:
            with contextlib.suppress(Exception):
                await close()

    # --- speaking ------------------------------------------------------------------------------

    def sentences(self, text: str) -> list[tuple[str, str]]:
        """(subtitle, spoken) pairs: the written sentence for the screen, the normalized one for the voice."""
        out = []
        for s in self._split(text):
            spoken = normalize(s, self.cfg.language)
            if spoken.strip(" ，。！？,.!?、…~-"):
                out.append((s.strip(), spoken))
        return out

    async def speak(self, line: Line, texts: AsyncIterable[str] | None = None) -> AsyncIterator[Utterance]:
        """One Utterance per sentence, in order, each as soon as it is ready.

        `texts` streams what to say (the brain's sentences, as it writes them); without it the line's own
        text is said. Synthesis runs up to `prefetch_sentences` sentences ahead of what the caller has
        taken, across text boundaries, so the next sentence is ready when the stage needs it. A sentence
        no voice could say is left out; the caller ends the line on the stage when this generator ends.
        """
        if not self._started:
            await self.start()
        queue: asyncio.Queue[Utterance | None] = asyncio.Queue(maxsize=max(1, self.cfg.prefetch_sentences))

        async def produce() -> None:
            index = 0
            try:
                async for part, text in _numbered(texts if texts is not None else _one(line.text)):
                    for subtitle, spoken in self.sentences(text):
                        s = await self._speak_one(subtitle, spoken)
                        if s is not None:
                            await queue.put(Utterance(pcm=s.pcm, mouth=s.mouth, text=s.text, line=line,
                                                      index=index, part=part))
                            index += 1
            except Exception:  # what was voiced still plays; the line ends there
                log.exception("voice[%s]: the text of line %d failed midway", self.room, line.id)
            await queue.put(None)

        producer = asyncio.create_task(produce(), name=f"voice-{self.room}-{line.id}")
        try:
            while (utt := await queue.get()) is not None:
                yield utt
        finally:
            if not producer.done():
                producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await producer

    async def warm(self, texts: list[str]) -> int:
        """Pre-synthesizes every sentence of `texts` into the cache; returns how many were synthesized (not hits)."""
        if not self._started:
            await self.start()
        if self.cache is None:
            return 0
        made = 0
        for text in texts:
            for subtitle, spoken in self.sentences(text):
                before = self.synthesized
                await self._speak_one(subtitle, spoken)
                made += self.synthesized - before
        return made

    # --- one sentence --------------------------------------------------------------------------

    def cache_key(self, spoken: str) -> str:
        version = f"{self.backend.version}|lead{self.lead_frames:g}"
        return utterance_key(self.backend.voice_id, spoken, version, self.sample_rate, self.fps)

    async def _speak_one(self, subtitle: str, spoken: str) -> _Spoken | None:
        key = self.cache_key(spoken) if self.cache is not None else ""
        if self.cache is not None and self._primary_ok:
            hit = await self.cache.get(key)
            if hit is not None and hit.sample_rate == self.sample_rate and hit.fps == self.fps:
                metrics.CACHE_HITS.labels(self.room, "utterance").inc()
                # Copies: the decoded arrays view the store's immutable bytes, and the stage owns what it gets.
                return _Spoken(hit.pcm.copy(), MouthTrack(hit.openness.copy(), hit.viseme.copy()), subtitle)
            metrics.CACHE_MISSES.labels(self.room, "utterance").inc()

        pcm: np.ndarray | None = None
        if self._primary_ok and time.monotonic() >= self._skip_primary_until:
            try:
                pcm = await self._synthesize(self.backend, spoken)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                why = "timeout" if isinstance(exc, TimeoutError) else "error"
                log.warning("voice[%s]: %s failed on %r (%s: %s)", self.room, self.backend.name, spoken[:40],
                            why, exc)
                pcm = None
                self._fail_streak += 1
                if self._fail_streak >= self.breaker_failures:
                    log.warning("voice[%s]: %s failed %d times in a row; using the fallback voice for %.0fs",
                                self.room, self.backend.name, self._fail_streak, self.breaker_cooldown_s)
                    self._skip_primary_until = time.monotonic() + self.breaker_cooldown_s
                    self._fail_streak = 0
            if pcm is not None:
                self._fail_streak = 0
                spoken_utt = self._finish(pcm, subtitle)
                self.synthesized += 1
                if self.cache is not None:
                    await self.cache.put(key, CachedUtterance(spoken_utt.pcm, spoken_utt.mouth.openness,
                                                              spoken_utt.mouth.viseme, self.sample_rate, self.fps))
                return spoken_utt

        # The primary failed (or never started): the fallback voice says it, never cached under the primary's key.
        self.fallbacks += 1
        if self.fallback is not None:
            try:
                pcm = await self._synthesize(self.fallback, spoken)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("voice[%s]: the fallback voice failed too on %r: %s", self.room, spoken[:40], exc)
                pcm = None
            if pcm is not None:
                metrics.TTS_FALLBACKS.labels(self.room, self.backend.name, "revoiced").inc()
                return self._finish(pcm, subtitle)
        self.dropped += 1
        metrics.TTS_FALLBACKS.labels(self.room, self.backend.name, "dropped").inc()
        metrics.DROPS.labels(self.room, "tts_failed").inc()
        return None

    async def _synthesize(self, backend: TTSBackend, text: str) -> np.ndarray | None:
        """Streams one sentence from `backend`, resampling as chunks arrive; None when it produced no audio.

        Raises TimeoutError past the first-chunk or whole-sentence timeout, TTSError/others on failure.
        """
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        deadline = t0 + self.cfg.sentence_timeout_s
        rs = StreamResampler(backend.sample_rate, self.sample_rate)
        parts: list[np.ndarray] = []
        agen = backend.synthesize(text)
        first = True
        try:
            while True:
                limit = deadline if not first else min(deadline, loop.time() + self.cfg.first_chunk_timeout_s)
                try:
                    async with asyncio.timeout_at(limit):
                        chunk = await anext(agen)
                except StopAsyncIteration:
                    break
                if first:
                    metrics.TTS_FIRST_CHUNK.labels(self.room, backend.name).observe(loop.time() - t0)
                    first = False
                if chunk.size:
                    parts.append(rs.feed(chunk))
        finally:
            with contextlib.suppress(Exception):
                await agen.aclose()
        parts.append(rs.feed(np.zeros(0, np.float32), last=True))
        pcm = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        if pcm.size == 0 or not np.any(pcm):
            raise TTSError(f"{backend.name} produced no audio")
        elapsed = loop.time() - t0
        metrics.TTS_RTF.labels(self.room, backend.name).observe(elapsed / (pcm.size / self.sample_rate))
        return pcm

    def _finish(self, pcm: np.ndarray, subtitle: str) -> _Spoken:
        pcm = normalize_loudness(pcm, self.sample_rate, self.cfg.loudness_dbfs)
        pcm = apply_fades(pcm, self.sample_rate, self.cfg.fade_ms)
        return _Spoken(pcm, mouth_track(pcm, self.sample_rate, self.fps, self.lead_frames), subtitle)


def make_backend(cfg: VoiceConfig, *, room: str = "", store: Store | None = None) -> TTSBackend:
    """The backend named by `cfg.backend`, not yet started."""
    if cfg.host_service:
        from broadcaster.voice.backends.service import ServiceBackend

        return ServiceBackend(cfg, room=room)
    if cfg.backend == "espeak":
        from broadcaster.voice.backends.espeak import EspeakBackend

        return EspeakBackend(cfg.voice, cfg.rate_wpm)
    if cfg.backend == "piper":
        from broadcaster.voice.backends.piper import PiperBackend

        assert cfg.piper is not None
        return PiperBackend(cfg.piper, device=cfg.device, room=room)
    if cfg.backend == "coqui":
        from broadcaster.voice.backends.coqui import CoquiBackend

        assert cfg.coqui is not None
        return CoquiBackend(cfg.coqui, device=cfg.device, room=room, profile=cfg.profile,
                            embeddings_dir=cfg.embeddings_dir, store=store)
    if cfg.backend == "http":
        from broadcaster.voice.backends.http import HttpBackend

        assert cfg.http is not None
        return HttpBackend(cfg.http, language=cfg.language)
    raise ValueError(f"unknown voice backend {cfg.backend!r}")


def voice_for_room(room: RoomConfig, *, store: Store | None = None) -> Voice:
    """The one way a room's voice is built (the room, `cache warm`, benches): the room's sample rate, fps,
    mouth lead and Redis, so every builder fills the utterance cache keys the room reads."""
    url = room.redis_url.get_secret_value() if room.redis_url is not None else None
    return build_voice(room.voice, sample_rate=room.audio.sample_rate, fps=room.video.fps, room=room.id,
                       store=store, redis_url=url, lead_frames=room.avatar.lead_frames)


def build_voice(cfg: VoiceConfig, *, sample_rate: int, fps: int, room: str, store: Store | None = None,
                redis_url: str | None = None, lead_frames: float = 0.5) -> Voice:
    """A Voice: backend from config, espeak fallback voice, utterance cache on `store` (or one built from
    cfg.cache: memory LRU, in front of Redis when redis_url is set)."""
    owns = False
    if store is None and cfg.cache.enabled:
        store = build_store(redis_url, memory_bytes=cfg.cache.memory_mb * 1024 * 1024, prefix=cfg.cache.prefix)
        owns = True
    backend = make_backend(cfg, room=room, store=store)
    fallback: TTSBackend | None = None
    if cfg.fallback_voice and not (cfg.backend == "espeak" and cfg.fallback_voice == cfg.voice):
        from broadcaster.voice.backends.espeak import EspeakBackend

        fallback = EspeakBackend(cfg.fallback_voice, cfg.rate_wpm)
    return Voice(cfg, backend, sample_rate=sample_rate, fps=fps, room=room,
                 store=store if cfg.cache.enabled else None, fallback=fallback, owns_store=owns,
                 lead_frames=lead_frames)


__all__ = ["Voice", "VoiceError", "build_voice", "make_backend", "voice_for_room"]

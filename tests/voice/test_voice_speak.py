"""Voice end to end on the real espeak-ng engine: Chinese and English synthesis, utterances, cache hits, failing backends."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator

import numpy as np
import pytest

from broadcaster import metrics
from broadcaster.lines import Line, LineSource
from broadcaster.voice import build_voice
from broadcaster.voice.audio import speech_level_dbfs
from broadcaster.voice.backends.base import ThreadedBackend, TTSError
from broadcaster.voice.backends.espeak import EspeakBackend
from broadcaster.voice.config import VoiceConfig
from broadcaster.voice.voice import Voice
from cache.store import MemoryStore

SR, FPS = 48000, 25
SPF = SR // FPS


class CountingEspeak(EspeakBackend):
    """The real espeak backend, counting how often it is asked to synthesize."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.calls: list[str] = []

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        self.calls.append(text)
        return super().synthesize(text)


class Broken(ThreadedBackend):
    """A backend that streams some audio and then crashes or hangs on sentences containing a trigger word."""

    name = "broken"
    sample_rate = 16000
    streaming = True

    def __init__(self, mode: str, trigger: str = "坏") -> None:
        super().__init__()
        self.mode = mode
        self.trigger = trigger
        self.release = threading.Event()

    @property
    def voice_id(self) -> str:
        return "broken:1"

    @property
    def version(self) -> str:
        return "1"

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        def produce(stop: threading.Event) -> Iterator[np.ndarray]:
            t = np.arange(1600) / self.sample_rate
            yield (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
            if self.trigger in text:
                if self.mode == "crash":
                    raise RuntimeError("engine crashed")
                self.release.wait(30)  # hangs until the test ends
            yield (0.3 * np.sin(2 * np.pi * 330 * t)).astype(np.float32)

        return self.stream(produce)


def _line(text: str) -> Line:
    return Line(text, LineSource.ANSWER)


async def _collect(voice: Voice, text: str) -> list:
    return [u async for u in voice.speak(_line(text))]


def _cfg(**kw) -> VoiceConfig:
    return VoiceConfig(**kw)


async def test_espeak_speaks_chinese_sentence_by_sentence() -> None:
    voice = build_voice(_cfg(), sample_rate=SR, fps=FPS, room="t")
    await voice.start()
    try:
        utts = await _collect(voice, "欢迎来到直播间！今天只要¥199.9。")
    finally:
        await voice.close()
    assert [u.index for u in utts] == [0, 1] and [u.part for u in utts] == [0, 0]
    assert utts[0].id != utts[1].id
    assert utts[1].text == "今天只要¥199.9。"  # the subtitle keeps the written form
    for u in utts:
        assert u.pcm.dtype == np.float32 and u.pcm.ndim == 1
        assert np.max(np.abs(u.pcm)) <= 1.0
        assert len(u.mouth) == -(-u.pcm.size // SPF)
        assert 0.5 < u.pcm.size / SR < 10  # seconds of speech, not silence or garbage
        assert u.mouth.openness.max() > 0.3  # the mouth moves while speaking
        assert abs(speech_level_dbfs(u.pcm, SR) - (-20.0)) < 1.5  # loudness-normalized
        assert abs(u.pcm[0]) < 1e-3 and abs(u.pcm[-1]) < 1e-3  # faded: no click


async def test_espeak_english_voice() -> None:
    voice = build_voice(_cfg(voice="en-us", language="en"), sample_rate=SR, fps=FPS, room="t")
    try:
        utts = await _collect(voice, "Hello everyone. Thanks for the gift!")
    finally:
        await voice.close()
    assert len(utts) == 2
    assert all(u.pcm.size / SR > 0.4 for u in utts)


async def test_longer_text_takes_longer_to_say() -> None:
    voice = build_voice(_cfg(), sample_rate=SR, fps=FPS, room="t")
    try:
        short = (await _collect(voice, "好。"))[0]
        long = (await _collect(voice, "这款产品今天在直播间有非常大的优惠，大家千万不要错过。"))[0]
    finally:
        await voice.close()
    assert long.pcm.size > 3 * short.pcm.size


async def test_cache_hit_is_identical_and_skips_backend() -> None:
    store = MemoryStore(32 << 20)
    cfg = _cfg()
    backend = CountingEspeak("cmn")
    voice = Voice(cfg, backend, sample_rate=SR, fps=FPS, room="cache-t", store=store)
    hits = metrics.CACHE_HITS.labels("cache-t", "utterance")
    before = hits._value.get()
    try:
        await voice.start()
        backend.calls.clear()  # start() warms up with one synthesis
        first = await _collect(voice, "第一句话。第二句话。")
        assert len(backend.calls) == 2
        again = await _collect(voice, "第一句话。第二句话。")
        assert len(backend.calls) == 2  # nothing re-synthesized
        for a, b in zip(first, again, strict=True):
            assert np.array_equal(a.pcm, b.pcm)
            assert np.array_equal(a.mouth.openness, b.mouth.openness)
            assert np.array_equal(a.mouth.viseme, b.mouth.viseme)
            assert a.text == b.text
        assert hits._value.get() - before == 2
        again[0].pcm *= 0.5  # the stage may scale what it was given: a hit is its own writable copy
        # Another Voice on the same store (a restart, another room process) hits without synthesizing.
        backend2 = CountingEspeak("cmn")
        voice2 = Voice(cfg, backend2, sample_rate=SR, fps=FPS, room="cache-t", store=store)
        await voice2.start()
        backend2.calls.clear()  # start() warms up with one synthesis
        third = await _collect(voice2, "第二句话。")
        assert backend2.calls == [] and np.array_equal(third[0].pcm, first[1].pcm)
        # A different stage format is a different entry.
        voice3 = Voice(cfg, CountingEspeak("cmn"), sample_rate=44100, fps=FPS, room="cache-t", store=store)
        other = await _collect(voice3, "第二句话。")
        assert other[0].pcm.size != first[1].pcm.size
    finally:
        await voice.close()


async def test_warm_fills_the_cache() -> None:
    store = MemoryStore(32 << 20)
    backend = CountingEspeak("cmn")
    voice = Voice(_cfg(), backend, sample_rate=SR, fps=FPS, room="t", store=store)
    await voice.start()
    backend.calls.clear()
    made = await voice.warm(["欢迎新朋友！点点关注。", "欢迎新朋友！"])
    assert made == 2 and len(backend.calls) == 2
    await _collect(voice, "欢迎新朋友！点点关注。")
    assert len(backend.calls) == 2


@pytest.mark.parametrize("mode", ["crash", "hang"])
async def test_failing_backend_sentence_is_revoiced_by_fallback(mode: str) -> None:
    cfg = _cfg(first_chunk_timeout_s=2.0, sentence_timeout_s=1.0)
    broken = Broken(mode)
    broken.abandon_grace_s = 0.1
    fallback = EspeakBackend("cmn")
    voice = Voice(cfg, broken, sample_rate=SR, fps=FPS, room="fb-t", store=MemoryStore(8 << 20), fallback=fallback)
    revoiced = metrics.TTS_FALLBACKS.labels("fb-t", "broken", "revoiced")
    before = revoiced._value.get()
    try:
        utts = await _collect(voice, "第一句好的。这句坏了。第三句也好。")
    finally:
        broken.release.set()
        await voice.close()
    assert [u.text for u in utts] == ["第一句好的。", "这句坏了。", "第三句也好。"]
    assert voice.fallbacks == 1 and voice.dropped == 0
    assert revoiced._value.get() - before == 1
    # The fallback sentence is espeak speech, much longer than the broken backend's two 0.1 s beeps.
    assert utts[1].pcm.size > utts[0].pcm.size
    # A re-voiced sentence is never cached under the primary voice.
    assert await voice.cache.get(voice.cache_key("这句坏了。")) is None


async def test_failing_backend_without_fallback_drops_and_keeps_going() -> None:
    cfg = _cfg(fallback_voice="")
    broken = Broken("crash")
    voice = Voice(cfg, broken, sample_rate=SR, fps=FPS, room="drop-t", store=None, fallback=None)
    utts = await _collect(voice, "好的开始。这句坏了。")
    assert [u.text for u in utts] == ["好的开始。"]  # the dropped sentence is left out, no marker needed
    assert voice.dropped == 1
    utts = await _collect(voice, "这句坏了。又一个好句子。")
    assert [u.text for u in utts] == ["又一个好句子。"] and utts[0].index == 0


async def test_a_streamed_answer_is_voiced_ahead_across_texts() -> None:
    """The brain's sentences arrive one by one: the voice synthesizes the next while the caller holds one,
    numbering which streamed text each utterance voices."""
    voice = build_voice(_cfg(prefetch_sentences=2), sample_rate=SR, fps=FPS, room="t")
    asked: list[str] = []

    async def texts():
        for t in ["第一句。第二句！", "第三句。"]:
            asked.append(t)
            yield t

    try:
        agen = voice.speak(_line("ignored"), texts())
        first = await anext(agen)
        for _ in range(100):  # the producer runs ahead while the first utterance is held
            if len(asked) == 2:
                break
            await asyncio.sleep(0.02)
        assert len(asked) == 2, "the next text was pulled while the first utterance was still held"
        rest = [u async for u in agen]
    finally:
        await voice.close()
    utts = [first, *rest]
    assert [u.text for u in utts] == ["第一句。", "第二句！", "第三句。"]
    assert [u.part for u in utts] == [0, 0, 1] and [u.index for u in utts] == [0, 1, 2]


async def test_repeated_failures_open_the_breaker() -> None:
    broken = Broken("crash", trigger="")  # every sentence crashes
    fallback = EspeakBackend("cmn")
    voice = Voice(_cfg(), broken, sample_rate=SR, fps=FPS, room="br-t", store=None, fallback=fallback)
    calls = []
    orig = broken.synthesize
    broken.synthesize = lambda text: (calls.append(text), orig(text))[1]  # type: ignore[method-assign]
    utts = await _collect(voice, "一。二。三。四。五。")
    assert len(utts) == 5 and voice.fallbacks == 5
    assert len(calls) == voice.breaker_failures  # after three failures the primary is no longer tried
    await voice.close()


async def test_interrupting_a_line_stops_synthesis() -> None:
    backend = CountingEspeak("cmn")
    voice = Voice(_cfg(prefetch_sentences=1), backend, sample_rate=SR, fps=FPS, room="t", store=None)
    await voice.start()
    backend.calls.clear()
    gen = voice.speak(_line("一句。" * 10))
    first = await anext(gen)
    assert first.index == 0
    await gen.aclose()  # the stage interrupts at a sentence boundary
    await asyncio.sleep(0.2)
    assert len(backend.calls) <= 3  # not all ten sentences were synthesized
    await voice.close()


async def test_emoji_only_line_says_nothing() -> None:
    voice = build_voice(_cfg(), sample_rate=SR, fps=FPS, room="t")
    assert await _collect(voice, "😀😀[doge] https://example.com") == []
    await voice.close()


def test_voice_config_validation() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"voice\.piper section is missing"):
        VoiceConfig(backend="piper")
    with pytest.raises(ValidationError, match="no consent record"):
        VoiceConfig(backend="coqui", coqui={"model_dir": "/m"}, profile={"id": "p", "reference": ["/a.wav"]})
    with pytest.raises(ValidationError):
        VoiceConfig(device="gpu")
    VoiceConfig(backend="coqui", coqui={"model_dir": "/m"},
                profile={"id": "p", "reference": ["/a.wav"], "consent": {"who": "Li Lei", "when": "2026-11-01"}})


async def test_backend_error_type() -> None:
    b = Broken("crash", trigger="")
    with pytest.raises(TTSError, match="engine crashed"):
        async for _ in b.synthesize("x"):
            pass


async def test_unknown_espeak_voice_is_a_tts_error() -> None:
    b = EspeakBackend("no-such-voice")
    with pytest.raises(TTSError, match="no voice"):
        await b.start()


async def test_two_espeak_voices_synthesize_concurrently() -> None:
    zh, en = EspeakBackend("cmn"), EspeakBackend("en-us")
    await zh.start()
    await en.start()

    async def say(b: EspeakBackend, text: str) -> np.ndarray:
        return np.concatenate([c async for c in b.synthesize(text)])

    results = await asyncio.gather(*[say(zh, "你好，欢迎。"), say(en, "Hello and welcome."),
                                     say(zh, "你好，欢迎。"), say(en, "Hello and welcome.")])
    # espeak is not sample-exact between runs (a few samples of jitter), so compare lengths loosely.
    assert abs(results[0].size - results[2].size) < 100 and abs(results[1].size - results[3].size) < 100
    assert abs(results[0].size - results[1].size) > 1000  # each kept its own voice

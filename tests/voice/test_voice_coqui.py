"""Coqui TTS: a tiny VITS and a tiny XTTS built from configs, loaded through coqui-tts's own Synthesizer; cloned
voice profiles need consent; XTTS speaker latents are computed once and reloaded from disk or Redis after a restart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tinymodels import build_tiny_vits, build_tiny_xtts, require

from broadcaster.lines import Line, LineSource
from broadcaster.voice import build_voice
from broadcaster.voice.audio import wav_bytes
from broadcaster.voice.backends.base import TTSError
from broadcaster.voice.backends.coqui import CoquiBackend
from broadcaster.voice.config import CoquiVoiceConfig, VoiceConfig, VoiceProfileConfig
from broadcaster.voice.profiles import ConsentError
from cache.store import RedisStore
from tests.support.redis import start_redis

require("TTS")


@pytest.fixture(scope="module")
def vits_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_vits(tmp_path_factory.mktemp("vits"))


@pytest.fixture(scope="module")
def xtts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_xtts(tmp_path_factory.mktemp("xtts"))


def _reference(path: Path, freq: float = 180.0, seconds: float = 3.0, rate: int = 16000) -> Path:
    t = np.arange(int(rate * seconds)) / rate
    voice = 0.3 * np.sin(2 * np.pi * freq * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    path.write_bytes(wav_bytes(voice.astype(np.float32), rate))
    return path


def _profile(ref: Path, consent: bool = True) -> VoiceProfileConfig:
    return VoiceProfileConfig(id="host", reference=[ref], language="zh-cn",
                              consent={"who": "Wang Fang", "when": "2026-11-01", "document": "consent/wang.pdf"}
                              if consent else None)


async def test_vits_synthesizes_and_longer_text_is_longer(vits_dir: Path) -> None:
    b = CoquiBackend(CoquiVoiceConfig(model_dir=vits_dir), device="auto")
    await b.start()
    assert b.model_type == "vits" and b.sample_rate == 16000 and b.device == "cpu"
    short = np.concatenate([c async for c in b.synthesize("hello there.")])
    long = np.concatenate([c async for c in b.synthesize("welcome to the live room, thanks for the gift.")])
    assert long.size > 1.5 * short.size and np.isfinite(long).all()
    await b.close()


async def test_multi_speaker_vits_speaker_changes_the_voice(tmp_path: Path) -> None:
    d = build_tiny_vits(tmp_path / "ms", speakers=["anna", "bob"])
    outs = []
    for speaker in ("anna", "bob"):
        b = CoquiBackend(CoquiVoiceConfig(model_dir=d, speaker=speaker), device="cpu")
        await b.start()
        outs.append(np.concatenate([c async for c in b.synthesize("hello there.")]))
        assert speaker in b.voice_id
    assert outs[0].shape != outs[1].shape or not np.allclose(outs[0], outs[1])


async def test_vits_voice_end_to_end(vits_dir: Path) -> None:
    cfg = VoiceConfig(backend="coqui", coqui={"model_dir": str(vits_dir)}, language="en", voice="en-us",
                      fallback_voice="en-us")
    voice = build_voice(cfg, sample_rate=48000, fps=25, room="coqui-t")
    try:
        utts = [u async for u in voice.speak(Line("Hello there. Thanks for the gift!", LineSource.THANKS))]
    finally:
        await voice.close()
    assert [u.index for u in utts] == [0, 1] and voice.fallbacks == 0


async def test_missing_model_dir_is_a_clear_error(tmp_path: Path) -> None:
    b = CoquiBackend(CoquiVoiceConfig(model_dir=tmp_path), device="cpu")
    with pytest.raises(TTSError, match=r"no config\.json"):
        await b.start()


def test_clone_refused_without_consent(tmp_path: Path, xtts_dir: Path) -> None:
    ref = _reference(tmp_path / "ref.wav")
    with pytest.raises(ConsentError, match="consent"):
        CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir), profile=_profile(ref, consent=False))


async def test_clone_needs_an_xtts_model(tmp_path: Path, vits_dir: Path) -> None:
    b = CoquiBackend(CoquiVoiceConfig(model_dir=vits_dir), device="cpu", profile=_profile(_reference(tmp_path / "r.wav")),
                     embeddings_dir=tmp_path / "emb")
    with pytest.raises(TTSError, match="needs an XTTS model"):
        await b.start()


async def test_xtts_speaker_latents_persist_on_disk_and_redis(tmp_path: Path, xtts_dir: Path) -> None:
    server, url = start_redis(tmp_path / "r.db")
    store = RedisStore(url, prefix="t:")
    ref = _reference(tmp_path / "ref.wav")
    try:
        first = CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir), device="cpu", profile=_profile(ref),
                             embeddings_dir=tmp_path / "a", store=store)
        await first.load()
        assert first.embeddings.loaded_from == "computed" and first.embeddings.computed == 1
        assert list((tmp_path / "a").glob("*.npz"))
        gpt = first._latents["gpt_cond_latent"].numpy()
        assert gpt.shape[0] == 1 and first._latents["speaker_embedding"].shape[1] == 512

        # Restart on the same host: read from disk, nothing recomputed.
        again = CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir), device="cpu", profile=_profile(ref),
                             embeddings_dir=tmp_path / "a", store=store)
        await again.load()
        assert again.embeddings.loaded_from == "disk" and again.embeddings.computed == 0
        assert np.array_equal(again._latents["gpt_cond_latent"].numpy(), gpt)

        # Another host (empty disk) sharing Redis: read from Redis, then kept on its disk.
        other = CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir), device="cpu", profile=_profile(ref),
                             embeddings_dir=tmp_path / "b", store=store)
        await other.load()
        assert other.embeddings.loaded_from == "store" and other.embeddings.computed == 0
        assert np.array_equal(other._latents["speaker_embedding"].numpy(), first._latents["speaker_embedding"].numpy())
        assert list((tmp_path / "b").glob("*.npz"))

        # New reference audio: a new key, computed again.
        ref2 = _reference(tmp_path / "ref2.wav", freq=260.0)
        changed = CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir), device="cpu", profile=_profile(ref2),
                               embeddings_dir=tmp_path / "a", store=store)
        await changed.load()
        assert changed.embeddings.loaded_from == "computed"
        assert changed.voice_id != first.voice_id  # cached utterances of the old voice are not reused
    finally:
        await store.close()
        server.shutdown()


async def test_xtts_cloned_voice_streams(tmp_path: Path, xtts_dir: Path) -> None:
    b = CoquiBackend(CoquiVoiceConfig(model_dir=xtts_dir, language="zh-cn"), device="cpu",
                     profile=_profile(_reference(tmp_path / "ref.wav")), embeddings_dir=tmp_path / "e")
    await b.start()  # includes a warm-up synthesis
    assert b.streaming and b.sample_rate == 24000
    chunks = [c async for c in b.synthesize("你好，欢迎来到直播间")]
    assert chunks and sum(c.size for c in chunks) > 0 and all(np.isfinite(c).all() for c in chunks)


async def test_xtts_voice_end_to_end_with_clone(tmp_path: Path, xtts_dir: Path) -> None:
    ref = _reference(tmp_path / "ref.wav")
    cfg = VoiceConfig(backend="coqui", coqui={"model_dir": str(xtts_dir), "language": "zh-cn"}, device="auto",
                      profile={"id": "host", "reference": [str(ref)],
                               "consent": {"who": "Wang Fang", "when": "2026-11-01"}},
                      embeddings_dir=tmp_path / "emb")
    voice = build_voice(cfg, sample_rate=48000, fps=25, room="xtts-t")
    try:
        utts = [u async for u in voice.speak(Line("欢迎来到直播间！", LineSource.SCRIPT))]
    finally:
        await voice.close()
    assert len(utts) == 1 and voice.fallbacks == 0
    assert voice.backend.voice_id.startswith("coqui:") and "clone:host:" in voice.backend.voice_id

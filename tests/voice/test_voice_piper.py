"""Piper backend through the real `piper` package loading a tiny ONNX voice with Piper's inputs and outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tinymodels import (  # tests/voice is on sys.path (pytest rootdir-less test dir)
    build_tiny_piper_voice,
    require,
)

from broadcaster.lines import Line, LineSource
from broadcaster.voice import build_voice
from broadcaster.voice.backends.base import TTSError
from broadcaster.voice.backends.piper import PiperBackend
from broadcaster.voice.config import PiperVoiceConfig, VoiceConfig

require("piper")
require("onnx")

@pytest.fixture(scope="module")
def tiny_voice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_piper_voice(tmp_path_factory.mktemp("piper"))


async def test_piper_backend_synthesizes_phoneme_length_audio(tiny_voice: Path) -> None:
    b = PiperBackend(PiperVoiceConfig(model=tiny_voice), device="cpu")
    await b.start()
    assert b.sample_rate == 22050 and b.device == "cpu"
    short = np.concatenate([c async for c in b.synthesize("你好")])
    long = np.concatenate([c async for c in b.synthesize("你好，欢迎来到直播间，今天的优惠非常大")])
    # Our tiny voice plays 256 samples per phoneme id: more phonemes, more audio.
    assert short.size % 256 == 0 and long.size > 3 * short.size
    assert np.abs(long).max() > 0.1
    await b.close()


async def test_piper_version_tracks_the_model_file(tiny_voice: Path, tmp_path: Path) -> None:
    other = build_tiny_piper_voice(tmp_path / "other", sample_rate=16000)
    a = PiperBackend(PiperVoiceConfig(model=tiny_voice), device="cpu")
    b = PiperBackend(PiperVoiceConfig(model=other), device="cpu")
    await a.start()
    await b.start()
    assert a.version != b.version and b.sample_rate == 16000


async def test_piper_voice_end_to_end(tiny_voice: Path) -> None:
    cfg = VoiceConfig(backend="piper", piper={"model": str(tiny_voice)}, device="auto")
    voice = build_voice(cfg, sample_rate=48000, fps=25, room="piper-t")
    try:
        utts = [u async for u in voice.speak(Line("欢迎！价格¥199.9。", LineSource.SCRIPT))]
    finally:
        await voice.close()
    assert [u.index for u in utts] == [0, 1]
    assert voice.fallbacks == 0
    for u in utts:
        assert len(u.mouth) == -(-u.pcm.size // (48000 // 25))
        assert u.mouth.openness.max() > 0


async def test_missing_piper_model_fails_start_and_falls_back(tmp_path: Path) -> None:
    b = PiperBackend(PiperVoiceConfig(model=tmp_path / "nope.onnx"), device="cpu")
    with pytest.raises(TTSError, match="not found"):
        await b.start()
    cfg = VoiceConfig(backend="piper", piper={"model": str(tmp_path / "nope.onnx")})
    voice = build_voice(cfg, sample_rate=48000, fps=25, room="piper-t")
    utts = [u async for u in voice.speak(Line("还在说话。", LineSource.SCRIPT))]
    assert len(utts) == 1 and voice.fallbacks == 1  # the espeak fallback voice keeps the room talking
    await voice.close()


async def test_pinyin_voice_without_g2pw_is_refused_not_downloaded(tmp_path: Path) -> None:
    import json

    model = build_tiny_piper_voice(tmp_path / "zh")
    cfg_path = tmp_path / "zh" / "voice.onnx.json"
    data = json.loads(cfg_path.read_text())
    data["phoneme_type"] = "pinyin"
    cfg_path.write_text(json.dumps(data))
    b = PiperBackend(PiperVoiceConfig(model=model), device="cpu")
    with pytest.raises(TTSError, match="g2pW"):
        await b.start()
    assert not (tmp_path / "zh" / "g2pW").exists()

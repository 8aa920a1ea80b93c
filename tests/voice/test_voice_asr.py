"""Voice input: energy VAD segmentation, and faster-whisper with a tiny random Whisper converted by ctranslate2,
reading espeak speech from a file and from a loopback HTTP URL through PyAV, producing Events of kind voice."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from aiohttp import web
from tinymodels import build_tiny_whisper, require

from broadcaster.voice.asr import ASR_RATE, EnergyVAD, Transcriber, VoiceInput
from broadcaster.voice.audio import resample, wav_bytes
from broadcaster.voice.backends.espeak import EspeakBackend
from broadcaster.voice.config import AsrConfig
from danmaku.event import EventKind

require("faster_whisper")
require("ctranslate2")
require("transformers")

def _tone(seconds: float, amp: float = 0.3, freq: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * ASR_RATE)) / ASR_RATE
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * ASR_RATE), np.float32)


def test_vad_finds_two_utterances_and_drops_a_blip() -> None:
    audio = np.concatenate([_silence(0.5), _tone(1.0), _silence(1.0), _tone(0.09), _silence(1.0), _tone(0.8),
                            _silence(0.3)])
    vad = EnergyVAD(threshold_db=-40, min_speech_s=0.3, silence_s=0.6, pad_s=0.15)
    segs = []
    for i in range(0, audio.size, 1234):  # arbitrary chunking, as a decoder delivers it
        segs += vad.feed(audio[i : i + 1234])
    segs += vad.flush()
    assert len(segs) == 2
    assert segs[0].start_s == pytest.approx(0.5, abs=0.2) and segs[0].end_s == pytest.approx(1.5, abs=0.25)
    assert segs[1].start_s == pytest.approx(3.59, abs=0.2) and segs[1].end_s <= audio.size / ASR_RATE + 0.01
    assert all(s.pcm.size == pytest.approx((s.end_s - s.start_s) * ASR_RATE, abs=ASR_RATE * 0.03) for s in segs)


def test_vad_cuts_long_speech_and_ignores_quiet_noise() -> None:
    vad = EnergyVAD(threshold_db=-40, max_speech_s=2.0)
    segs = vad.feed(_tone(5.0)) + vad.flush()
    assert len(segs) == 3 and all(s.end_s - s.start_s <= 2.05 for s in segs)
    quiet = np.random.default_rng(0).normal(0, 0.001, ASR_RATE * 3).astype(np.float32)  # about -60 dBFS
    vad = EnergyVAD(threshold_db=-40)
    assert vad.feed(quiet) + vad.flush() == []


@pytest.fixture(scope="module")
def whisper_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_whisper(tmp_path_factory.mktemp("whisper"))


async def _espeak_dialogue() -> tuple[list[np.ndarray], int]:
    b = EspeakBackend("cmn")
    await b.start()
    parts = []
    for text in ("主播你好，这个多少钱？", "有没有优惠？"):
        parts.append(np.concatenate([c async for c in b.synthesize(text)]))
        parts.append(np.zeros(b.sample_rate, np.float32))
    await b.close()
    return parts, b.sample_rate


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two espeak sentences separated by a second of silence, as a 22.05 kHz WAV file."""
    parts, rate = asyncio.run(_espeak_dialogue())
    audio = np.concatenate([np.zeros(rate // 2, np.float32), *parts])
    path = tmp_path_factory.mktemp("audio") / "speech.wav"
    path.write_bytes(wav_bytes(audio, rate))
    return path


def _cfg(model_dir: Path, source: str = "") -> AsrConfig:
    return AsrConfig(enabled=True, model_dir=model_dir, device="auto", source=source, max_new_tokens=24,
                     user_name="co-host", silence_s=0.5)


async def test_file_source_gives_one_voice_event_per_utterance(whisper_dir: Path, speech_wav: Path) -> None:
    vi = VoiceInput(_cfg(whisper_dir, str(speech_wav)), room="asr-t")
    events = [ev async for ev in vi.events()]
    await vi.close()
    assert len(events) == 2
    assert vi.transcriber.device == "cpu"
    for ev in events:
        assert ev.kind is EventKind.VOICE and ev.room == "asr-t" and ev.platform == "voice"
        assert ev.user is not None and ev.user.name == "co-host"
        assert ev.text and ev.msg_id
        assert ev.extra["end_s"] > ev.extra["start_s"]
    assert events[0].extra["start_s"] == pytest.approx(0.5, abs=0.25)
    assert events[1].extra["start_s"] > events[0].extra["end_s"]
    assert events[0].msg_id != events[1].msg_id


async def test_url_source_over_loopback_http(whisper_dir: Path, speech_wav: Path) -> None:
    async def serve(_request: web.Request) -> web.FileResponse:
        return web.FileResponse(speech_wav)

    app = web.Application()
    app.router.add_get("/live.wav", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        vi = VoiceInput(_cfg(whisper_dir), room="asr-t")
        events = [ev async for ev in vi.events(f"http://127.0.0.1:{port}/live.wav")]
        await vi.close()
    finally:
        await runner.cleanup()
    assert len(events) == 2 and all(ev.kind is EventKind.VOICE for ev in events)


async def test_transcriber_is_deterministic_and_resampled_audio_works(whisper_dir: Path) -> None:
    t = Transcriber(_cfg(whisper_dir))
    await t.start()
    audio = resample(_tone(1.5, freq=300), ASR_RATE, ASR_RATE)
    a = await t.transcribe(audio)
    b = await t.transcribe(audio)
    assert a == b and isinstance(a[0], str)
    await t.close()


async def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    t = Transcriber(_cfg(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"model\.bin"):
        await t.start()


async def test_unreadable_source_raises(whisper_dir: Path, tmp_path: Path) -> None:
    vi = VoiceInput(_cfg(whisper_dir, str(tmp_path / "missing.wav")), room="asr-t")
    with pytest.raises(Exception, match=r"missing\.wav|No such file"):
        async for _ in vi.events():
            pass


async def test_run_reopens_a_failing_source_with_backoff(whisper_dir: Path, speech_wav: Path, tmp_path: Path) -> None:
    late = tmp_path / "late.wav"  # the source is not there yet (a stream not started)
    vi = VoiceInput(_cfg(whisper_dir, str(late)), room="asr-t")
    got = []

    async def on_event(ev) -> None:
        got.append(ev)

    task = asyncio.create_task(vi.run(on_event, backoff_s=0.05, max_backoff_s=0.1))
    await asyncio.sleep(0.3)
    assert not got and not task.done()  # failing, retrying, alive
    late.write_bytes(speech_wav.read_bytes())
    for _ in range(200):
        if len(got) >= 2:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await vi.close()
    assert len(got) >= 2 and all(ev.kind is EventKind.VOICE for ev in got)

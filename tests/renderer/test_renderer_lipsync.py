"""The mouth track: frame alignment with the stage, and agreement with real speech (espeak-ng)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from renderer_speech import FPS, STAGE_RATE, resample, synth

from renderer.base import Viseme
from renderer.lipsync import _frame_rms, mouth_track


@pytest.mark.parametrize(("rate", "fps"), [(44100, 25), (48000, 25), (48000, 30), (44100, 30), (16000, 25)])
@pytest.mark.parametrize("n", [0, 1, 1763, 1764, 1765, 44100, 100_001])
def test_frame_count_is_exactly_ceil(rate: int, fps: int, n: int) -> None:
    m = mouth_track(np.zeros(n, np.float32), rate, fps)
    spf = rate // fps
    assert len(m) == math.ceil(n / spf)
    assert m.openness.dtype == np.float32 and m.viseme.dtype == np.uint8
    assert len(m.viseme) == len(m)


def test_burst_opens_the_frame_it_sounds_in_never_later() -> None:
    spf = STAGE_RATE // FPS
    pcm = np.zeros(spf * 20, np.float32)
    t = np.arange(spf * 3) / STAGE_RATE
    pcm[spf * 8 : spf * 11] = 0.5 * np.sin(2 * np.pi * 220 * t)
    for lead in (0.0, 0.5, 1.0):
        m = mouth_track(pcm, STAGE_RATE, FPS, lead_frames=lead)
        opened = np.nonzero(m.openness > 0.3)[0]
        assert opened[0] in (7, 8), (lead, opened)  # with a lead it may open one frame early
        assert opened[0] == 8 or lead > 0
        assert m.openness[8] > 0.8  # fully open in the first frame that carries the sound
        assert np.all(m.openness[:7] == 0)
        assert np.all(m.openness[14:] == 0)  # closes within a few frames after the sound stops
        assert m.viseme[8] != Viseme.CLOSED


def test_lead_is_bounded() -> None:
    with pytest.raises(ValueError, match="lead_frames"):
        mouth_track(np.zeros(100, np.float32), STAGE_RATE, FPS, lead_frames=1.5)


def test_silence_is_closed() -> None:
    m = mouth_track(np.zeros(STAGE_RATE, np.float32), STAGE_RATE, FPS)
    assert not m.openness.any() and not m.viseme.any()
    noise = np.random.default_rng(0).normal(0, 1e-4, STAGE_RATE).astype(np.float32)  # ~-80 dBFS hiss
    assert not mouth_track(noise, STAGE_RATE, FPS).openness.any()


def _lagged_r(openness: np.ndarray, rms: np.ndarray, lag: int) -> float:
    """Pearson r of openness shifted by `lag` frames against the audio (lag > 0: mouth later than sound)."""
    if lag >= 0:
        a, b = openness[lag:], rms[: len(rms) - lag]
    else:
        a, b = openness[:lag], rms[-lag:]
    return float(np.corrcoef(a, b)[0, 1])


@pytest.mark.parametrize("which", ["speech_en", "speech_zh"])
def test_openness_follows_speech_envelope(which: str, request: pytest.FixtureRequest) -> None:
    pcm = request.getfixturevalue(which)
    m = mouth_track(pcm, STAGE_RATE, FPS)
    spf = STAGE_RATE // FPS
    rms = _frame_rms(pcm, spf, len(m), 0)
    r0 = _lagged_r(m.openness.astype(float), rms, 0)
    assert r0 >= 0.8, r0
    scores = {lag: _lagged_r(m.openness.astype(float), rms, lag) for lag in range(-4, 5)}
    best = max(scores, key=lambda k: scores[k])
    assert best in (0, -1), scores  # in sync, or the mouth one frame first; never late
    assert scores[-1] >= scores[1], scores  # any asymmetry leans mouth-first


def test_visemes_follow_vowels() -> None:
    def dominant(text: str) -> int:
        pcm, rate = synth(text, "en", 110)
        m = mouth_track(resample(pcm, rate, STAGE_RATE), STAGE_RATE, FPS)
        open_v = m.viseme[m.viseme != Viseme.CLOSED]
        return int(np.bincount(open_v, minlength=6).argmax())

    assert dominant("aaaah") == Viseme.A
    assert dominant("eeeee") == Viseme.I


def test_visemes_vary_in_real_speech(speech_zh: np.ndarray) -> None:
    m = mouth_track(speech_zh, STAGE_RATE, FPS)
    used = set(np.unique(m.viseme[m.openness > 0.3]).tolist())
    assert len(used) >= 3, used
    assert (m.viseme == Viseme.CLOSED).sum() > 0  # pauses between phrases close the mouth

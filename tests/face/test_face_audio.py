"""Audio for the neural face: resampling, MuseTalk's per-frame whisper windows, and which frames are silent."""

from __future__ import annotations

import numpy as np

from renderer.neural.audio import frame_count, frame_windows, to_whisper_rate

FPS = 25


def test_windows_follow_musetalk_indexing() -> None:
    # Step t of layer l holds the value t + 1 (0 marks padding), so each token says which step it came from.
    steps, layers, d = 150, 3, 4
    hidden = np.broadcast_to(
        (np.arange(steps, dtype=np.float32) + 1)[:, None, None], (steps, layers, d)
    ).copy()
    seconds = 2.5  # 125 audio steps: the rest of the encoder's output (its padded 30 s) is dropped
    w = frame_windows(hidden, seconds, FPS)
    assert w.shape == (63, 10 * layers, d)
    got = w[:, ::layers, 0] - 1  # one token per step: the step index, -1 for padding
    for k in (0, 1, 30, 62):
        want = np.arange(2 * k - 4, 2 * k + 6, dtype=np.float32)
        want[(want < 0) | (want >= 125)] = -1
        np.testing.assert_array_equal(got[k], want, err_msg=f"frame {k}")
    # Layers are interleaved per step, as MuseTalk's rearrange "b c h w -> b (c h) w" gives.
    hidden[:, 1] *= 10
    w2 = frame_windows(hidden, seconds, FPS)
    assert w2[30, 1, 0] == 10 * w2[30, 0, 0]


def test_pcm_to_16k() -> None:
    t = np.arange(44100) / 44100
    sine = 0.5 * np.sin(2 * np.pi * 440 * t)
    a = to_whisper_rate((sine * 32767).astype(np.int16), 44100)
    b = to_whisper_rate(sine.astype(np.float32), 44100)
    stereo = to_whisper_rate(np.stack([sine, sine], axis=1).astype(np.float32), 44100)
    assert a.dtype == np.float32 and abs(len(a) - 16000) <= 1
    assert abs(float(np.abs(a[100:-100]).max()) - 0.5) < 0.01
    np.testing.assert_allclose(a, b, atol=1e-3)
    np.testing.assert_allclose(stereo, b, atol=1e-6)
    assert frame_count(44100, 44100, FPS) == 25 and frame_count(44101, 44100, FPS) == 26


def test_features_of_real_speech(face_model, speech: np.ndarray) -> None:
    f = face_model.audio_features(speech, 44100, FPS)
    assert len(f) == frame_count(len(speech), 44100, FPS)
    assert f.windows.shape == (len(f), face_model.tokens, face_model.d_model)
    assert f.windows.dtype == np.float32 and np.isfinite(f.windows).all()
    # 0.4 s of silence before the speech: its 10 frames are never sent to the model; the speech is.
    assert not f.voiced[:9].any()
    assert f.voiced[12:].mean() > 0.6
    # The same PCM as float gives the same features (the stage may hand either).
    g = face_model.audio_features(speech.astype(np.float32) / 32768.0, 44100, FPS)
    np.testing.assert_allclose(f.windows, g.windows, atol=1e-4)

"""Audio for the neural face: resampling, MuseTalk's per-frame whisper windows (padding from the fps), and pauses."""

from __future__ import annotations

import numpy as np

from renderer.neural.audio import frame_count, frame_windows, is_pause, padding_steps, to_whisper_rate

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
    # At 30 fps (ceil(50/30) = 2 steps of padding a frame of context) and 20 fps (3): MuseTalk's zeros on the left,
    # then each frame's 10 steps from floor(k * 50 / fps).
    for fps, pad in ((30, 2), (20, 3), (60, 1)):
        assert padding_steps(fps) == pad
        w = frame_windows(hidden, seconds, fps)
        got = w[:, ::layers, 0] - 1
        for k in (0, 1, 7, len(w) - 1):
            want = np.arange(10, dtype=np.float32) + np.floor(k * 50 / fps) - 2 * pad
            want[(want < 0) | (want >= 125)] = -1
            np.testing.assert_array_equal(got[k], want, err_msg=f"{fps} fps, frame {k}")
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
    # The same PCM as float gives the same features (the stage may hand either).
    g = face_model.audio_features(speech.astype(np.float32) / 32768.0, 44100, FPS)
    np.testing.assert_allclose(f.windows, g.windows, atol=1e-4)


def test_only_an_utterance_with_no_sound_at_all_is_a_pause(speech: np.ndarray) -> None:
    """Every frame of a sentence is the model's (its 0.4 s lead-in too); only all-silence is left to the idle loop."""
    assert not is_pause(speech, 44100, FPS)
    assert not is_pause(speech[: int(0.5 * 44100)], 44100, FPS)  # mostly the lead-in, a little speech
    assert is_pause(speech[: int(0.35 * 44100)], 44100, FPS)  # the lead-in alone
    assert is_pause(np.zeros(44100, np.int16), 44100, FPS)
    quiet = (0.002 * np.sin(np.arange(44100) * 0.1)).astype(np.float32)  # below the threshold: room noise
    assert is_pause(quiet, 44100, FPS) and not is_pause(quiet * 10, 44100, FPS)

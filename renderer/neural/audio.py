"""Audio for the neural face: the stage's PCM to 16 kHz, and whisper hidden states to one feature window per video frame.

MuseTalk conditions each video frame on a window of whisper-encoder features: all encoder layers
(plus the embedding layer) stacked, 10 steps at 50 Hz from 2 frames before the frame to 2 after it,
flattened to (10 * layers, d_model) tokens. Frame k of an utterance covers the stage's samples
[k * spf, (k + 1) * spf), as in renderer.lipsync, so a face frame lines up with the audio it is played with.
Every frame of an utterance is drawn by the model (a pause inside a sentence too: the redrawn lower face
differs from the raw source, so switching would pop); only an utterance with no sound at all (a pause
pushed on its own) is left to the source's idle loop.
"""

from __future__ import annotations

import math

import numpy as np

from renderer.neural.model import AUDIO_FPS, PAD_LEFT, PAD_RIGHT, WHISPER_RATE, WINDOW_STEPS

SILENCE_RMS = 0.004  # a frame quieter than this (full scale 1.0) has no sound


def to_whisper_rate(pcm: np.ndarray, sample_rate: int) -> np.ndarray:
    """Mono float32 in -1..1 at 16 kHz from int16 or float PCM (mono, or (samples, channels) which is averaged)."""
    a = _mono_float(pcm)
    if sample_rate == WHISPER_RATE:
        return np.ascontiguousarray(a)
    import soxr

    return soxr.resample(a, sample_rate, WHISPER_RATE, quality="HQ").astype(np.float32, copy=False)


def _mono_float(pcm: np.ndarray) -> np.ndarray:
    a = np.asarray(pcm)
    a = a.astype(np.float32) / 32768.0 if a.dtype == np.int16 else a.astype(np.float32, copy=False)
    return a.mean(axis=1) if a.ndim == 2 else a


def frame_count(samples: int, sample_rate: int, fps: int) -> int:
    """Video frames an utterance of `samples` covers (the last, partial frame included)."""
    return math.ceil(samples * fps / sample_rate)


def is_pause(pcm: np.ndarray, sample_rate: int, fps: int) -> bool:
    """No frame of this utterance has sound (RMS < SILENCE_RMS): a pause, drawn by the idle loop, never by the model."""
    a = _mono_float(pcm)
    spf = sample_rate / fps
    for k in range(frame_count(len(a), sample_rate, fps)):
        seg = a[int(k * spf) : int((k + 1) * spf)].astype(np.float64)
        if seg.size and float(np.sqrt(np.mean(seg * seg))) >= SILENCE_RMS:
            return False
    return True


def padding_steps(fps: int) -> int:
    """Whisper steps of zeros per frame of context, as MuseTalk pads: ceil(50 Hz / fps)."""
    return math.ceil(AUDIO_FPS / fps)


def frame_windows(hidden: np.ndarray, seconds: float, fps: int, frames: int | None = None) -> np.ndarray:
    """Whisper hidden states (steps, layers, d_model) at 50 Hz -> per-frame windows (frames, 10 * layers, d_model).

    Steps past the audio's end are dropped and zeros pad both sides (ceil(50/fps) steps per frame of context on the
    left, three times that on the right, as MuseTalk does), so the first and last frames see silence as context
    rather than another utterance. Frame k's window starts at padded step floor(k * 50 / fps).
    """
    steps, layers, d = hidden.shape
    actual = min(steps, math.floor(seconds * AUDIO_FPS))
    n = frames if frames is not None else math.ceil(seconds * fps)
    per_frame = AUDIO_FPS / fps
    pad = padding_steps(fps)
    left = pad * PAD_LEFT
    # MuseTalk's right padding, or more when the last (partial) frame's window needs it.
    right = max(pad * 3 * PAD_RIGHT, math.floor((n - 1) * per_frame) + WINDOW_STEPS - actual - left)
    padded = np.concatenate(
        [
            np.zeros((left, layers, d), hidden.dtype),
            hidden[:actual],
            np.zeros((max(0, right), layers, d), hidden.dtype),
        ]
    )
    idx = np.floor(np.arange(n) * per_frame).astype(np.int64)[:, None] + np.arange(WINDOW_STEPS)[None, :]
    return padded[idx].reshape(n, WINDOW_STEPS * layers, d)

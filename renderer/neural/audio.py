"""Audio for the neural face: the stage's PCM to 16 kHz, and whisper hidden states to one feature window per video frame.

MuseTalk conditions each video frame on a window of whisper-encoder features: all encoder layers
(plus the embedding layer) stacked, 10 steps at 50 Hz centred on the frame (2 frames of context each
side), flattened to (10 * layers, d_model) tokens. Frame k of an utterance covers the stage's samples
[k * spf, (k + 1) * spf), as in renderer.lipsync, so a face frame lines up with the audio it is played with.
"""

from __future__ import annotations

import math

import numpy as np

from renderer.neural.model import AUDIO_FPS, PAD_LEFT, PAD_RIGHT, STEPS_PER_FRAME, WHISPER_RATE, WINDOW_STEPS


def to_whisper_rate(pcm: np.ndarray, sample_rate: int) -> np.ndarray:
    """Mono float32 in -1..1 at 16 kHz from int16 or float PCM (mono, or (samples, channels) which is averaged)."""
    a = np.asarray(pcm)
    a = a.astype(np.float32) / 32768.0 if a.dtype == np.int16 else a.astype(np.float32, copy=False)
    if a.ndim == 2:
        a = a.mean(axis=1)
    if sample_rate == WHISPER_RATE:
        return np.ascontiguousarray(a)
    import soxr

    return soxr.resample(a, sample_rate, WHISPER_RATE, quality="HQ").astype(np.float32, copy=False)


def frame_count(samples: int, sample_rate: int, fps: int) -> int:
    """Video frames an utterance of `samples` covers (the last, partial frame included)."""
    return math.ceil(samples * fps / sample_rate)


def frame_windows(hidden: np.ndarray, seconds: float, fps: int, frames: int | None = None) -> np.ndarray:
    """Whisper hidden states (steps, layers, d_model) at 50 Hz -> per-frame windows (frames, 10 * layers, d_model).

    Steps past the audio's end are dropped and zeros pad both sides, as MuseTalk does, so the first
    and last frames see silence as context rather than another utterance.
    """
    steps, layers, d = hidden.shape
    actual = min(steps, math.floor(seconds * AUDIO_FPS))
    n = frames if frames is not None else math.ceil(seconds * fps)
    per_frame = AUDIO_FPS / fps
    left = STEPS_PER_FRAME * PAD_LEFT
    # Enough zeros on the right for the last frame's window (MuseTalk pads 3x the right context).
    right = max(
        STEPS_PER_FRAME * 3 * PAD_RIGHT, math.floor((n - 1) * per_frame) + WINDOW_STEPS - actual - left
    )
    padded = np.concatenate(
        [
            np.zeros((left, layers, d), hidden.dtype),
            hidden[:actual],
            np.zeros((max(0, right), layers, d), hidden.dtype),
        ]
    )
    idx = np.floor(np.arange(n) * per_frame).astype(np.int64)[:, None] + np.arange(WINDOW_STEPS)[None, :]
    return padded[idx].reshape(n, WINDOW_STEPS * layers, d)


def voiced_frames(pcm16k: np.ndarray, frames: int, fps: int, threshold: float = 0.004) -> np.ndarray:
    """Per video frame: is there sound (RMS above `threshold`)? Silent frames never go to the model."""
    spf = WHISPER_RATE / fps
    out = np.zeros(frames, bool)
    for k in range(frames):
        seg = pcm16k[int(k * spf) : int((k + 1) * spf)]
        out[k] = seg.size > 0 and float(np.sqrt(np.mean(seg.astype(np.float64) ** 2))) > threshold
    return out


def voiced_mask(pcm: np.ndarray, sample_rate: int, fps: int) -> np.ndarray:
    """Which video frames of an utterance have sound (the ones the model draws): the room computes it without torch."""
    return voiced_frames(to_whisper_rate(pcm, sample_rate), frame_count(len(pcm), sample_rate, fps), fps)

"""The lip-sync track: PCM of one utterance -> one mouth openness + viseme per video frame."""

from __future__ import annotations

import math

import numpy as np

from renderer.base import MouthTrack, Viseme

# Below this RMS (about -50 dBFS) a frame is silence: the mouth stays shut.
_GATE_RMS = 10 ** (-50 / 20)
# Openness is RMS relative to the utterance's loud level, softly compressed so quiet syllables still show.
_GAMMA = 0.7
_CLOSED_BELOW = 0.08


def samples_per_frame(sample_rate: int, fps: int) -> int:
    if fps <= 0 or sample_rate < fps:
        raise ValueError(f"bad sample_rate/fps: {sample_rate}/{fps}")
    return sample_rate // fps


def frame_count(n_samples: int, sample_rate: int, fps: int) -> int:
    return math.ceil(n_samples / samples_per_frame(sample_rate, fps))


def _frame_rms(pcm: np.ndarray, spf: int, frames: int, shift: int) -> np.ndarray:
    """RMS of [k*spf + shift, (k+1)*spf + shift) for each frame k, zero beyond the ends."""
    total = frames * spf
    padded = np.zeros(total + spf, np.float64)
    src = pcm[max(shift, 0) :]
    dst0 = max(-shift, 0)
    n = min(len(src), len(padded) - dst0)
    padded[dst0 : dst0 + n] = src[:n]
    blocks = padded[:total].reshape(frames, spf)
    return np.sqrt(np.mean(blocks * blocks, axis=1))


def mouth_track(pcm: np.ndarray, sample_rate: int, fps: int, lead_frames: float = 0.5) -> MouthTrack:
    """One entry per video frame; frame k covers samples [k*spf, (k+1)*spf) with spf = sample_rate // fps.

    `lead_frames` (0..1) lets the mouth anticipate the sound by that fraction of a frame: each frame
    also looks that far ahead, so the mouth is never late and at most one frame early.
    """
    if not 0.0 <= lead_frames <= 1.0:
        raise ValueError(f"lead_frames must be within 0..1, got {lead_frames}")
    pcm = np.asarray(pcm, dtype=np.float32).reshape(-1)
    spf = samples_per_frame(sample_rate, fps)
    frames = math.ceil(len(pcm) / spf)
    if frames == 0:
        return MouthTrack.silent(0)
    rms = _frame_rms(pcm, spf, frames, 0)
    if lead_frames > 0:
        ahead = _frame_rms(pcm, spf, frames, round(lead_frames * spf))
        rms = np.maximum(rms, ahead)
    voiced = rms[rms > _GATE_RMS]
    ref = float(np.percentile(voiced, 90)) if voiced.size else 1.0
    openness = np.clip(rms / max(ref, 1e-6), 0.0, 1.0) ** _GAMMA
    openness[rms <= _GATE_RMS] = 0.0
    openness = openness.astype(np.float32)
    viseme = np.where(openness < _CLOSED_BELOW, Viseme.CLOSED, Viseme.A).astype(np.uint8)
    return MouthTrack(openness, viseme)

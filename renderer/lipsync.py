"""The lip-sync track: PCM of one utterance -> one mouth openness + viseme per video frame.

Frame k covers samples [k*spf, (k+1)*spf) with spf = sample_rate // fps, exactly the audio the stage
plays with video frame k (utterances start on a frame boundary). Openness follows the loudness of
that frame, anticipating the sound by up to `lead_frames` (never following it late), with a fast
attack and a short release. The viseme comes from the first two formants (LPC) of the frame.
"""

from __future__ import annotations

import math

import numpy as np

from renderer.base import MouthTrack, Viseme

# Below this RMS (about -50 dBFS) a frame is silence: the mouth stays shut.
_GATE_RMS = 10 ** (-50 / 20)
# Openness is RMS relative to the utterance's loud level, softly compressed so quiet syllables still show.
_GAMMA = 0.7
_CLOSED_BELOW = 0.08
# One-pole smoothing per frame: opening follows almost at once, closing eases over ~2 frames. A slower
# release would read as "mouth late"; a faster one makes the jaw chatter on every consonant.
_ATTACK = 0.9
_RELEASE = 0.65

_LPC_RATE = 11025
_LPC_ORDER = 10
_LPC_WIN = 256  # ~23 ms at 11 kHz

# (F1, F2) prototypes in Hz for the mouth shapes, between typical adult male and female values.
_VOWELS = {
    Viseme.A: (780.0, 1350.0),
    Viseme.E: (520.0, 1950.0),
    Viseme.I: (330.0, 2350.0),
    Viseme.O: (540.0, 950.0),
    Viseme.U: (360.0, 850.0),
}
_PROTO = np.log(np.array(list(_VOWELS.values())))
_PROTO_V = np.array([int(v) for v in _VOWELS], np.uint8)


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


def _smooth(target: np.ndarray) -> np.ndarray:
    out = np.empty_like(target)
    y = 0.0
    for i, x in enumerate(target):
        y += (_ATTACK if x > y else _RELEASE) * (x - y)
        out[i] = y
    return out


def _levinson(r: np.ndarray, order: int) -> np.ndarray | None:
    a = np.zeros(order + 1)
    a[0] = 1.0
    err = r[0]
    if err <= 0:
        return None
    for i in range(1, order + 1):
        acc = r[i] + np.dot(a[1:i], r[i - 1 : 0 : -1])
        k = -acc / err
        a[1 : i + 1] = a[1 : i + 1] + k * a[i - 1 :: -1][:i]
        err *= 1 - k * k
        if err <= 0:
            return None
    return a


def formants(frame: np.ndarray, rate: int = _LPC_RATE) -> tuple[float, float] | None:
    """(F1, F2) in Hz of a short voiced frame by LPC root finding, or None when there is no clear pair."""
    x = np.append(frame[0], frame[1:] - 0.9 * frame[:-1]) * np.hamming(len(frame))
    r = np.correlate(x, x, "full")[len(x) - 1 : len(x) + _LPC_ORDER]
    if r[0] <= 1e-9:
        return None
    r[0] *= 1.0001  # a touch of white noise keeps the recursion stable
    a = _levinson(r, _LPC_ORDER)
    if a is None:
        return None
    roots = np.roots(a)
    roots = roots[np.imag(roots) > 0]
    freq = np.angle(roots) * rate / (2 * np.pi)
    bw = -np.log(np.abs(roots) + 1e-12) * rate / np.pi
    keep = (freq > 200) & (freq < 3500) & (bw < 500)
    f = np.sort(freq[keep])
    if len(f) < 2:
        return None
    return float(f[0]), float(f[1])


def _resample(pcm: np.ndarray, rate: int, to: int) -> np.ndarray:
    if rate == to:
        return pcm
    import soxr

    return soxr.resample(pcm, rate, to).astype(np.float32)


def _visemes(
    pcm: np.ndarray, sample_rate: int, spf: int, frames: int, shift: int, openness: np.ndarray
) -> np.ndarray:
    out = np.zeros(frames, np.uint8)
    open_idx = np.nonzero(openness >= _CLOSED_BELOW)[0]
    if open_idx.size == 0:
        return out
    low = _resample(pcm, sample_rate, _LPC_RATE)
    ratio = _LPC_RATE / sample_rate
    half = _LPC_WIN // 2
    padded = np.concatenate([np.zeros(half, np.float32), low, np.zeros(_LPC_WIN, np.float32)])
    prev = int(Viseme.E)
    for k in open_idx:
        centre = int(((k + 0.5) * spf + shift) * ratio)
        seg = padded[centre : centre + _LPC_WIN].astype(np.float64)
        fm = formants(seg) if len(seg) == _LPC_WIN else None
        if fm is None:
            # Unvoiced (s, f, t...) or unclear: keep the previous shape, which avoids flicker.
            out[k] = prev
            continue
        d = np.sum((_PROTO - np.log(np.array(fm))) ** 2 * np.array([1.0, 1.6]), axis=1)
        prev = int(_PROTO_V[int(np.argmin(d))])
        out[k] = prev
    # A viseme must hold for 2 frames: a lone frame takes its neighbours' shape when they agree.
    for k in range(1, frames - 1):
        if out[k - 1] == out[k + 1] and out[k] != out[k - 1] and out[k - 1] != Viseme.CLOSED:
            out[k] = out[k - 1]
    return out


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
    shift = round(lead_frames * spf)
    rms = _frame_rms(pcm, spf, frames, 0)
    if shift:
        rms = np.maximum(rms, _frame_rms(pcm, spf, frames, shift))
    voiced = rms[rms > _GATE_RMS]
    ref = float(np.percentile(voiced, 90)) if voiced.size else 1.0
    target = np.clip(rms / max(ref, 1e-6), 0.0, 1.0) ** _GAMMA
    target[rms <= _GATE_RMS] = 0.0
    openness = _smooth(target).astype(np.float32)
    openness[openness < 0.02] = 0.0
    viseme = _visemes(pcm, sample_rate, spf, frames, shift // 2, openness)
    viseme[openness < _CLOSED_BELOW] = Viseme.CLOSED
    return MouthTrack(openness, viseme)

"""PCM post-processing for speech: streaming resampling to the stage rate, loudness normalization, fades, WAV I/O."""

from __future__ import annotations

import io
import wave

import numpy as np
import soxr


class StreamResampler:
    """Resamples a chunked float32 mono stream from the backend's rate to the stage rate, chunk by chunk."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        self.in_rate = in_rate
        self.out_rate = out_rate
        self._rs = soxr.ResampleStream(in_rate, out_rate, 1, dtype="float32", quality="HQ") if in_rate != out_rate else None

    def feed(self, chunk: np.ndarray, last: bool = False) -> np.ndarray:
        chunk = np.ascontiguousarray(chunk, dtype=np.float32).reshape(-1)
        if self._rs is None:
            return chunk
        return self._rs.resample_chunk(chunk, last=last)


def resample(pcm: np.ndarray, in_rate: int, out_rate: int) -> np.ndarray:
    pcm = np.ascontiguousarray(pcm, dtype=np.float32).reshape(-1)
    if in_rate == out_rate or pcm.size == 0:
        return pcm
    return soxr.resample(pcm, in_rate, out_rate, quality="HQ").astype(np.float32, copy=False)


def speech_level_dbfs(pcm: np.ndarray, sample_rate: int) -> float:
    """RMS level of the voiced part in dBFS: 20 ms blocks, blocks 40 dB under the loudest are ignored (a simple gate)."""
    block = max(1, sample_rate // 50)
    n = pcm.size // block
    if n == 0:
        rms = float(np.sqrt(np.mean(np.square(pcm, dtype=np.float64)))) if pcm.size else 0.0
        return 20 * np.log10(max(rms, 1e-10))
    energies = np.mean(np.square(pcm[: n * block].reshape(n, block), dtype=np.float64), axis=1)
    peak = float(energies.max())
    if peak <= 1e-20:
        return -200.0
    voiced = energies[energies >= peak * 1e-4]
    return 10 * np.log10(float(voiced.mean()))


def normalize_loudness(pcm: np.ndarray, sample_rate: int, target_dbfs: float, peak_dbfs: float = -1.0,
                       max_gain_db: float = 30.0) -> np.ndarray:
    """Scales speech to `target_dbfs` gated RMS, never past `peak_dbfs` sample peak; silence stays silence."""
    if pcm.size == 0:
        return pcm.astype(np.float32)
    level = speech_level_dbfs(pcm, sample_rate)
    if level <= -100:
        return np.zeros_like(pcm, dtype=np.float32)
    gain_db = min(target_dbfs - level, max_gain_db)
    peak = float(np.max(np.abs(pcm)))
    peak_limit_db = peak_dbfs - 20 * np.log10(max(peak, 1e-10))
    gain = 10 ** (min(gain_db, peak_limit_db) / 20)
    return np.clip(pcm * gain, -1.0, 1.0).astype(np.float32)


def apply_fades(pcm: np.ndarray, sample_rate: int, fade_ms: float) -> np.ndarray:
    """Short raised-cosine fade in and out so a sentence never starts or stops with a click."""
    n = min(int(sample_rate * fade_ms / 1000), pcm.size // 2)
    if n <= 0:
        return pcm
    out = pcm.astype(np.float32, copy=True)
    ramp = (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, n, dtype=np.float64))).astype(np.float32)
    out[:n] *= ramp
    out[-n:] *= ramp[::-1]
    return out


def int16_to_float(data: bytes) -> np.ndarray:
    return (np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0)


def read_wav_bytes(data: bytes) -> tuple[np.ndarray, int]:
    """Decodes a PCM WAV (8/16/24/32-bit int, mono or interleaved channels averaged) to float32 mono."""
    with wave.open(io.BytesIO(data), "rb") as w:
        rate, ch, width, frames = w.getframerate(), w.getnchannels(), w.getsampwidth(), w.readframes(w.getnframes())
    if width == 2:
        x = np.frombuffer(frames, "<i2").astype(np.float32) / 32768.0
    elif width == 1:
        x = (np.frombuffer(frames, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 3:
        b = np.frombuffer(frames, np.uint8).reshape(-1, 3)
        v = (b[:, 0].astype(np.int32) | (b[:, 1].astype(np.int32) << 8) | (b[:, 2].astype(np.int32) << 16))
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v.astype(np.float32) / float(1 << 23)
    elif width == 4:
        x = np.frombuffer(frames, "<i4").astype(np.float32) / float(1 << 31)
    else:
        raise ValueError(f"unsupported WAV sample width {width}")
    if ch > 1:
        x = x.reshape(-1, ch).mean(axis=1)
    return x.astype(np.float32), rate


def wav_bytes(pcm: np.ndarray, sample_rate: int) -> bytes:
    """float32 mono → 16-bit PCM WAV bytes."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes((np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes())
    return buf.getvalue()


def load_audio_file(path: str, sample_rate: int, max_seconds: float | None = None) -> np.ndarray:
    """Decodes any audio file PyAV can read to float32 mono at `sample_rate` (reference clips, test audio)."""
    import av

    out: list[np.ndarray] = []
    total = 0
    limit = int(max_seconds * sample_rate) if max_seconds else None
    with av.open(str(path)) as c:
        stream = c.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=sample_rate)
        for frame in c.decode(stream):
            for f in resampler.resample(frame):
                a = f.to_ndarray().reshape(-1)
                out.append(a)
                total += a.size
            if limit is not None and total >= limit:
                break
        else:
            for f in resampler.resample(None):
                out.append(f.to_ndarray().reshape(-1))
    pcm = np.concatenate(out).astype(np.float32) if out else np.zeros(0, np.float32)
    return pcm[:limit] if limit is not None else pcm

"""Voice input: audio from a file, a URL (rtmp/srt/http) or a capture device via PyAV → VAD segments → faster-whisper → Events.

Each spoken utterance of an operator or co-host becomes one Event of kind `voice` for the director.
The model loads once from a local CTranslate2 Whisper dir (never downloaded) on the configured
device. Segmentation is an energy VAD with hysteresis (threshold, minimum speech, ending silence,
maximum length) so long monologues are cut into answerable pieces.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from broadcaster import metrics
from broadcaster.voice.config import AsrConfig
from common.devices import resolve_device
from danmaku.event import Event, EventKind, User

log = logging.getLogger(__name__)

ASR_RATE = 16000
_CAPTURE_FORMATS = ("alsa", "pulse", "oss", "jack", "avfoundation", "dshow", "lavfi")


@dataclass(frozen=True, slots=True)
class SpeechSegment:
    pcm: np.ndarray  # float32 mono at 16 kHz
    start_s: float  # position in the source stream
    end_s: float


class EnergyVAD:
    """Streaming speech segmentation on 30 ms frames: speech starts on a loud frame, ends after `silence_s`
    of quiet frames (or at `max_speech_s`); segments shorter than `min_speech_s` of speech are dropped."""

    def __init__(self, *, threshold_db: float = -40.0, min_speech_s: float = 0.3, max_speech_s: float = 15.0,
                 silence_s: float = 0.6, pad_s: float = 0.15, rate: int = ASR_RATE, frame_ms: int = 30) -> None:
        self.rate = rate
        self.frame = rate * frame_ms // 1000
        self.threshold = 10 ** (threshold_db / 20)
        self.min_speech_frames = max(1, round(min_speech_s * 1000 / frame_ms))
        self.max_frames = max(1, round(max_speech_s * 1000 / frame_ms))
        self.silence_frames = max(1, round(silence_s * 1000 / frame_ms))
        self.pad_frames = round(pad_s * 1000 / frame_ms)
        self._rest = np.zeros(0, np.float32)
        self._pos = 0  # frames consumed
        self._history: list[np.ndarray] = []  # recent quiet frames, prepended as pre-roll
        self._seg: list[np.ndarray] = []
        self._seg_start = 0
        self._voiced = 0
        self._quiet = 0

    def feed(self, pcm: np.ndarray) -> list[SpeechSegment]:
        data = np.concatenate([self._rest, np.asarray(pcm, np.float32).reshape(-1)])
        n = data.size // self.frame
        self._rest = data[n * self.frame :]
        out: list[SpeechSegment] = []
        for i in range(n):
            f = data[i * self.frame : (i + 1) * self.frame]
            loud = float(np.sqrt(np.mean(f * f))) >= self.threshold
            seg = self._step(f, loud)
            if seg is not None:
                out.append(seg)
            self._pos += 1
        return out

    def _step(self, f: np.ndarray, loud: bool) -> SpeechSegment | None:
        if not self._seg:
            if loud:
                self._seg = [*self._history, f]
                self._seg_start = self._pos - len(self._history)
                self._voiced, self._quiet = 1, 0
                self._history = []
            else:
                self._history = [*self._history, f][-self.pad_frames :] if self.pad_frames else []
            return None
        self._seg.append(f)
        if loud:
            self._voiced += 1
            self._quiet = 0
        else:
            self._quiet += 1
        if self._quiet >= self.silence_frames or len(self._seg) >= self.max_frames:
            return self._close(trim=self._quiet - self.pad_frames if self._quiet > self.pad_frames else 0)
        return None

    def _close(self, trim: int = 0) -> SpeechSegment | None:
        frames = self._seg[: len(self._seg) - trim] if trim > 0 else self._seg
        voiced, start = self._voiced, self._seg_start
        self._seg, self._voiced, self._quiet = [], 0, 0
        if voiced < self.min_speech_frames or not frames:
            return None
        pcm = np.concatenate(frames)
        return SpeechSegment(pcm, start * self.frame / self.rate, (start + len(frames)) * self.frame / self.rate)

    def flush(self) -> list[SpeechSegment]:
        seg = self._close(trim=max(0, self._quiet - self.pad_frames)) if self._seg else None
        return [seg] if seg is not None else []


def _open(source: str) -> Any:
    import av

    head, sep, rest = source.partition(":")
    if sep and head in _CAPTURE_FORMATS:
        return av.open(rest or "default", format=head)
    options = {}
    if "://" in source:
        # Network sources: fail instead of hanging forever when the peer goes silent (microseconds).
        options = {"rw_timeout": "10000000", "timeout": "10000000"}
    return av.open(source, options=options)


def read_audio(source: str, stop: threading.Event, *, rate: int = ASR_RATE) -> Iterator[np.ndarray]:
    """Blocking: decodes the first audio stream of `source` to float32 mono chunks at `rate`."""
    import av

    with _open(source) as container:
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
        for frame in container.decode(stream):
            if stop.is_set():
                return
            for f in resampler.resample(frame):
                yield f.to_ndarray().reshape(-1).astype(np.float32, copy=False)
        for f in resampler.resample(None):
            yield f.to_ndarray().reshape(-1).astype(np.float32, copy=False)


class Transcriber:
    """faster-whisper on a local CTranslate2 model dir, loaded once; one call at a time on its own thread."""

    def __init__(self, cfg: AsrConfig, room: str = "") -> None:
        if cfg.model_dir is None:
            raise ValueError("asr.model_dir is not set")
        self.cfg = cfg
        self.room = room
        self.device = "cpu"
        self._model: Any = None
        self._lock = asyncio.Lock()

    def _load(self) -> None:
        import ctranslate2
        from faster_whisper import WhisperModel

        assert self.cfg.model_dir is not None
        if not (self.cfg.model_dir / "model.bin").is_file():
            raise FileNotFoundError(f"no CTranslate2 Whisper model (model.bin) in {self.cfg.model_dir}")
        self.device = resolve_device(self.cfg.device, ctranslate2.get_cuda_device_count, what="asr")
        if self.cfg.device != "cpu" and self.device == "cpu":
            metrics.DEVICE_FALLBACKS.labels(self.room, "asr").inc()
        dev, _, index = self.device.partition(":")
        self._model = WhisperModel(str(self.cfg.model_dir), device=dev, device_index=int(index or 0),
                                   compute_type=self.cfg.compute_type, local_files_only=True)

    async def start(self) -> None:
        if self._model is None:
            await asyncio.to_thread(self._load)
            await self.transcribe(np.zeros(ASR_RATE // 2, np.float32))  # warm-up

    def _run(self, pcm: np.ndarray) -> tuple[str, str]:
        segments, info = self._model.transcribe(
            pcm, language=self.cfg.language, beam_size=1, vad_filter=False, condition_on_previous_text=False,
            without_timestamps=True, max_new_tokens=self.cfg.max_new_tokens,
        )
        text = "".join(s.text for s in segments).strip()
        return text, info.language

    async def transcribe(self, pcm: np.ndarray) -> tuple[str, str]:
        if self._model is None:
            raise RuntimeError("transcriber used before start()")
        async with self._lock:
            return await asyncio.to_thread(self._run, pcm)

    async def close(self) -> None:
        self._model = None


class VoiceInput:
    """Reads a source, segments speech and yields one Event(kind=VOICE) per transcribed utterance."""

    def __init__(self, cfg: AsrConfig, *, room: str, platform: str = "voice") -> None:
        self.cfg = cfg
        self.room = room
        self.platform = platform
        self.transcriber = Transcriber(cfg, room)
        self.utterances = 0
        self._seq = 0

    async def start(self) -> None:
        await self.transcriber.start()

    def _vad(self) -> EnergyVAD:
        c = self.cfg
        return EnergyVAD(threshold_db=c.vad_threshold_db, min_speech_s=c.min_speech_s, max_speech_s=c.max_speech_s,
                         silence_s=c.silence_s)

    async def segments(self, source: str) -> AsyncIterator[SpeechSegment]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=256)
        stop = threading.Event()

        def put(item: tuple[str, Any]) -> None:
            # Blocks the reader thread when the consumer lags (bounded memory), never the loop.
            fut = asyncio.run_coroutine_threadsafe(queue.put(item), loop)
            while not stop.is_set():
                try:
                    fut.result(timeout=0.5)
                    return
                except TimeoutError:
                    continue
            fut.cancel()

        def work() -> None:
            try:
                for chunk in read_audio(source, stop):
                    put(("pcm", chunk))
                    if stop.is_set():
                        return
            except Exception as exc:
                put(("error", exc))
            else:
                put(("end", None))

        reader = loop.run_in_executor(None, work)
        vad = self._vad()
        try:
            while True:
                kind, item = await queue.get()
                if kind == "pcm":
                    for seg in vad.feed(item):
                        yield seg
                elif kind == "error":
                    raise item
                else:
                    for seg in vad.flush():
                        yield seg
                    return
        finally:
            stop.set()
            while not queue.empty():
                queue.get_nowait()
            await asyncio.wait([reader], timeout=2)

    async def events(self, source: str | None = None) -> AsyncIterator[Event]:
        """One pass over `source` (default: cfg.source). Errors of the source propagate (see `run`)."""
        src = source or (self.cfg.source.get_secret_value() if self.cfg.source is not None else "")
        if not src:
            raise ValueError("asr.source is empty")
        await self.start()
        async for seg in self.segments(src):
            t0 = time.perf_counter()
            text, language = await self.transcriber.transcribe(seg.pcm)
            elapsed = time.perf_counter() - t0
            duration = seg.pcm.size / ASR_RATE
            metrics.ASR_RTF.labels(self.room).observe(elapsed / max(duration, 1e-3))
            if not text:
                continue
            self._seq += 1
            self.utterances += 1
            metrics.ASR_UTTERANCES.labels(self.room).inc()
            yield Event(
                platform=self.platform, room=self.room, kind=EventKind.VOICE,
                user=User(id=f"voice:{self.cfg.user_name}", name=self.cfg.user_name), text=text,
                msg_id=f"voice-{self.room}-{int(time.time() * 1000)}-{self._seq}",
                extra={"start_s": round(seg.start_s, 3), "end_s": round(seg.end_s, 3), "language": language,
                       "asr_seconds": round(elapsed, 3)},
            )

    async def run(self, on_event: Any, *, backoff_s: float = 2.0, max_backoff_s: float = 30.0) -> None:
        """Forever: live sources (URL, capture) are reopened with backoff when they end or fail."""
        delay = backoff_s
        while True:
            try:
                async for ev in self.events():
                    delay = backoff_s
                    await on_event(ev)
                log.info("voice input ended; reopening in %.1fs", delay)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("voice input failed: %s; reopening in %.1fs", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, max_backoff_s)

    async def close(self) -> None:
        await self.transcriber.close()

"""Piper voice: a local .onnx VITS voice and its .json, through the `piper` package (onnxruntime, CPU or CUDA)."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from importlib import metadata
from pathlib import Path

import numpy as np

from broadcaster import metrics
from broadcaster.voice.backends.base import ThreadedBackend, TTSError
from broadcaster.voice.config import PiperVoiceConfig
from common.devices import resolve_device

log = logging.getLogger(__name__)


def file_digest(path: Path, limit: int | None = None) -> str:
    """sha256 of a model file (the cache must change when the model does)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        read = 0
        while chunk := f.read(1 << 20):
            h.update(chunk)
            read += len(chunk)
            if limit is not None and read >= limit:
                break
    return h.hexdigest()[:16]


class PiperBackend(ThreadedBackend):
    name = "piper"
    streaming = True  # one chunk per sentence piper finds in the text

    def __init__(self, cfg: PiperVoiceConfig, *, device: str = "auto", room: str = "") -> None:
        super().__init__()
        self.cfg = cfg
        self.device_requested = device
        self.room = room
        self.device = "cpu"
        self._voice = None
        self._digest = ""

    @property
    def voice_id(self) -> str:
        name = self.cfg.model.name if self.cfg.model is not None else self.cfg.package
        return f"piper:{name}:{self.cfg.speaker_id}:{self.cfg.length_scale}"

    @property
    def version(self) -> str:
        return f"piper-tts {metadata.version('piper-tts')} model {self._digest}"

    def _load(self) -> None:
        import onnxruntime
        from piper import PiperVoice

        model, config = self.cfg.files()
        if not model.is_file():
            raise TTSError(f"piper model not found: {model}")
        if not config.is_file():
            raise TTSError(f"piper voice config not found: {config}")
        self.device = resolve_device(
            self.device_requested, # onnxruntime names no count; its CUDA provider runs on the first card
            lambda: int("CUDAExecutionProvider" in onnxruntime.get_available_providers()),
            what="piper",
        )
        if self.device_requested != "cpu" and self.device == "cpu":
            metrics.DEVICE_FALLBACKS.labels(self.room, "tts").inc()
        resources = self.cfg.resources_dir or model.parent
        voice = PiperVoice.load(model, config_path=config, use_cuda=self.device.startswith("cuda"),
                                download_dir=resources)
        if voice.config.phoneme_type.value == "pinyin" and not (resources / "g2pW" / "g2pw.onnx").is_file():
            # piper would fetch g2pW from the internet on first use; a daemon never downloads models.
            raise TTSError(f"piper voice {model.name} needs the g2pW model at {resources / 'g2pW' / 'g2pw.onnx'} "
                           "(set voice.piper.resources_dir)")
        self._voice = voice
        self.sample_rate = int(self._voice.config.sample_rate)
        self._digest = file_digest(model)

    async def start(self) -> None:
        if self._voice is not None:
            return
        await self.run(self._load)
        async for _ in self.synthesize("你好" if self._voice.config.espeak_voice.startswith(("cmn", "zh")) else "hello"):
            pass

    def _produce(self, text: str, stop: threading.Event) -> Iterator[np.ndarray]:
        from piper import SynthesisConfig

        assert self._voice is not None
        # normalize_audio=False: Piper would peak-normalize each piper-sentence separately; the Voice
        # normalizes loudness over the whole sentence instead.
        syn = SynthesisConfig(speaker_id=self.cfg.speaker_id, length_scale=self.cfg.length_scale,
                              normalize_audio=False)
        for chunk in self._voice.synthesize(text, syn_config=syn):
            if stop.is_set():
                return
            yield np.asarray(chunk.audio_float_array, dtype=np.float32).reshape(-1)

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        if self._voice is None:
            raise TTSError("piper backend used before start()")
        return self.stream(lambda stop: self._produce(text, stop))

    async def close(self) -> None:
        self._voice = None
        await super().close()

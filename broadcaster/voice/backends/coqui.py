"""Coqui TTS voices (coqui-tts package): VITS and other single-file models, and XTTS v2 with cloned voices.

Models load from a local dir through the package's own Synthesizer (config.json + checkpoint; an
XTTS dir holds model.pth + vocab.json), on the configured device. A cloned XTTS voice needs a
profile with consent; its conditioning latents and speaker embedding are computed once from the
reference audio (decoded with PyAV, not torchaudio) and persisted by SpeakerEmbeddingStore.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from broadcaster import metrics
from broadcaster.voice.audio import load_audio_file
from broadcaster.voice.backends.base import ThreadedBackend, TTSError
from broadcaster.voice.backends.piper import file_digest
from broadcaster.voice.config import CoquiVoiceConfig, VoiceProfileConfig
from broadcaster.voice.profiles import SpeakerEmbeddingStore, check_consent, reference_digest
from cache.store import Store
from common.devices import resolve_device, torch_gpu_count

log = logging.getLogger(__name__)

_CHECKPOINT_NAMES = ("model_file.pth", "model.pth", "best_model.pth", "checkpoint.pth", "model_file.pth.tar")


def find_checkpoint(model_dir: Path) -> Path:
    for name in _CHECKPOINT_NAMES:
        if (model_dir / name).is_file():
            return model_dir / name
    found = sorted(model_dir.glob("*.pth"))
    if found:
        return found[0]
    raise TTSError(f"no checkpoint (.pth) in {model_dir}")


def bridge_transformers_cache(model: Any) -> bool:
    """Lets coqui-tts 0.28's XTTS GPT run under transformers 5.x. Recent transformers hand the KV cache to
    forward() as `cache=`; XTTS's GPT2InferenceModel reads only `past_key_values`, gets None and fails on the
    second token. Maps one onto the other on this model instance only (nothing global is patched); a
    no-op once coqui-tts accepts `cache` itself. Greedy output matches transformers 4.57 sample for sample."""
    inference = getattr(getattr(model, "gpt", None), "gpt_inference", None)
    if inference is None or "cache" in inspect.signature(inference.forward).parameters:
        return False
    original = inference.forward

    @functools.wraps(original)
    def forward(*args: Any, cache: Any = None, **kwargs: Any) -> Any:
        if cache is not None and kwargs.get("past_key_values") is None:
            kwargs["past_key_values"] = cache
        return original(*args, **kwargs)

    inference.forward = forward
    return True


def start_torch_threads() -> None:
    """Runs one parallel torch op on this (the process's main) thread before the model runs on its worker thread.

    Measured with the tiny VITS on this 2-core machine: when the first parallel op of a process runs on a
    non-main thread (the backend's worker), every later synthesis took 100–2900 ms instead of 17–60 ms;
    one op here first makes the OpenMP pool the main thread's, and the worker's calls reuse it.
    """
    if threading.current_thread() is not threading.main_thread():
        return  # too late to matter, or another thread's pool: nothing to gain
    import torch

    torch.ones(1 << 20).sum()


class CoquiBackend(ThreadedBackend):
    name = "coqui"

    def __init__(self, cfg: CoquiVoiceConfig, *, device: str = "auto", room: str = "",
                 profile: VoiceProfileConfig | None = None, embeddings_dir: Path | None = None,
                 store: Store | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.device_requested = device
        self.device = "cpu"
        self.room = room
        self.profile = profile
        self.embeddings = SpeakerEmbeddingStore(embeddings_dir, store)
        self.model_type = ""
        self._synth: Any = None
        self._digest = ""
        self._latents: dict[str, Any] | None = None
        self._ref_digest = ""
        if profile is not None:
            check_consent(profile)  # refused before anything loads

    @property
    def voice_id(self) -> str:
        who = f"clone:{self.profile.id}:{self._ref_digest}" if self.profile else (self.cfg.speaker or "default")
        return f"coqui:{self.cfg.model_dir.name}:{who}:{self.cfg.language or ''}"

    @property
    def version(self) -> str:
        return f"coqui-tts {metadata.version('coqui-tts')} {self.model_type} {self._digest}"

    # --- loading (worker thread) -----------------------------------------------------------------

    def _load(self) -> None:
        from TTS.config import load_config
        from TTS.utils.synthesizer import Synthesizer

        d = self.cfg.model_dir
        config_path = d / "config.json"
        if not config_path.is_file():
            raise TTSError(f"coqui model dir {d} has no config.json")
        model_type = str(load_config(str(config_path)).model).lower()
        self.device = resolve_device(self.device_requested, torch_gpu_count, what="coqui")
        if self.device_requested != "cpu" and self.device == "cpu":
            metrics.DEVICE_FALLBACKS.labels(self.room, "tts").inc()
        if model_type == "xtts":
            ckpt = d / "model.pth"
            if not ckpt.is_file():
                raise TTSError(f"xtts model dir {d} has no model.pth")
            synth = Synthesizer(tts_checkpoint=str(d), tts_config_path=str(config_path))
            bridge_transformers_cache(synth.tts_model)
        else:
            ckpt = find_checkpoint(d)
            synth = Synthesizer(tts_checkpoint=str(ckpt), tts_config_path=str(config_path))
        if self.device != "cpu":
            synth.tts_model.to(self.device)
        # Large checkpoints: the first 64 MiB and the size identify a model well enough for cache keys.
        self._digest = f"{file_digest(ckpt, limit=64 << 20)}-{ckpt.stat().st_size}"
        self.sample_rate = int(synth.output_sample_rate)
        self.model_type = model_type
        self._synth = synth
        if self.profile is not None and model_type != "xtts":
            raise TTSError(f"voice profile {self.profile.id!r} needs an XTTS model; {d} is {model_type}")

    def _compute_latents(self) -> dict[str, np.ndarray]:
        """XTTS conditioning: what Xtts.get_conditioning_latents does, with the audio decoded by PyAV."""
        import torch

        assert self.profile is not None
        model = self._synth.tts_model
        load_sr = 22050  # the rate XTTS computes its conditioning at
        clips, embeddings = [], []
        with torch.inference_mode():
            for path in self.profile.reference:
                pcm = load_audio_file(str(path), load_sr, max_seconds=30)
                if pcm.size < load_sr // 2:
                    raise TTSError(f"reference clip {path} is shorter than half a second")
                audio = torch.from_numpy(pcm)[None].to(model.device)
                embeddings.append(model.get_speaker_embedding(audio, load_sr))
                clips.append(audio)
            gpt = model.get_gpt_cond_latents(torch.cat(clips, dim=-1), load_sr, length=6, chunk_length=6)
            spk = torch.stack(embeddings).mean(dim=0)
        return {"gpt_cond_latent": gpt.float().cpu().numpy(), "speaker_embedding": spk.float().cpu().numpy()}

    async def load(self) -> None:
        """Loads the model (and the cloned voice's latents) without the warm-up synthesis."""
        if self._synth is None:
            await self.run(self._load)
        if self.profile is not None and self._latents is None:
            await self.prepare_profile()

    async def prepare_profile(self) -> None:
        """Speaker latents of the cloned voice: from disk, else the shared store, else computed once and saved."""
        assert self.profile is not None
        profile = self.profile
        self._ref_digest = await self.run(reference_digest, list(profile.reference))
        key = SpeakerEmbeddingStore.key(f"coqui-{self.model_type}", self._digest, self._ref_digest)

        async def compute() -> dict[str, np.ndarray]:
            log.info("voice profile %s: computing speaker latents (once)", profile.id)
            return await self.run(self._compute_latents)

        arrays = await self.embeddings.get_or_compute(key, compute)
        self._latents = await self.run(self._to_device, arrays)
        log.info("voice profile %s: speaker latents from %s", profile.id, self.embeddings.loaded_from)

    async def start(self) -> None:
        if self._synth is not None and (self.profile is None or self._latents is not None):
            return
        start_torch_threads()
        await self.load()
        async for _ in self.synthesize("你好" if (self._language() or "").startswith("zh") else "hello"):
            pass

    def _to_device(self, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
        import torch

        dev = self._synth.tts_model.device
        return {k: torch.from_numpy(np.asarray(v)).to(dev) for k, v in arrays.items()}

    def _language(self) -> str | None:
        if self.cfg.language:
            return self.cfg.language
        if self.profile is not None:
            return self.profile.language
        return None

    # --- synthesis (worker thread) -------------------------------------------------------------

    def _produce(self, text: str, stop: threading.Event) -> Iterator[np.ndarray]:
        import torch

        synth = self._synth
        if self.model_type == "xtts":
            model = synth.tts_model
            lang = self._language() or "zh-cn"
            if self._latents is None:
                speaker = self.cfg.speaker
                if not speaker or not hasattr(model, "speaker_manager") or model.speaker_manager is None:
                    raise TTSError("an XTTS voice needs a cloned profile or a built-in speaker name")
                gpt, spk = model.speaker_manager.speakers[speaker].values()
            else:
                gpt, spk = self._latents["gpt_cond_latent"], self._latents["speaker_embedding"]
            with torch.inference_mode():
                # Streaming: XTTS yields audio while the GPT is still generating.
                for chunk in model.inference_stream(text, lang, gpt, spk, enable_text_splitting=False):
                    if stop.is_set():
                        return
                    yield chunk.float().cpu().numpy().reshape(-1)
            return
        with torch.inference_mode():
            wav = synth.tts(text, speaker_name=self.cfg.speaker or None, language_name=self.cfg.language or None,
                            split_sentences=False)
        yield np.asarray(wav, dtype=np.float32).reshape(-1)

    @property
    def streaming(self) -> bool:  # type: ignore[override]
        return self.model_type == "xtts"

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        if self._synth is None:
            raise TTSError("coqui backend used before start()")
        return self.stream(lambda stop: self._produce(text, stop))

    async def close(self) -> None:
        self._synth = None
        self._latents = None
        await super().close()

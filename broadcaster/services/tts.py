"""The shared TTS service: one loaded Piper/Coqui voice per host, serving every room that speaks with it.

Rooms with `voice.host_service: true` and the same model settings (backend, its section, device,
cloned-voice profile) compute the same ServiceSpec and so share one process. The service runs the
very backend class a room would run in process (so voice_id and version, hence the utterance cache
keys, are identical) and streams each sentence's PCM chunks back through shared memory.

Batching: the host gathers sentences of several rooms into one batch, but Piper and Coqui synthesize
one text per call, so this service runs the items of a batch one after the other; what is shared
is the loaded model (memory, load time), not a wider forward pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from broadcaster.services.service import Request, Result, Service, ServiceSpec
from broadcaster.voice.backends.base import TTSBackend

if TYPE_CHECKING:
    from broadcaster.config import Config
    from broadcaster.voice.config import VoiceConfig

FACTORY = "broadcaster.services.tts:TTSService"


def spec_for_voice(cfg: VoiceConfig) -> ServiceSpec:
    """The service a voice config speaks through (rooms with equal model settings get equal specs)."""
    section = cfg.piper if cfg.backend == "piper" else cfg.coqui
    if cfg.backend not in ("piper", "coqui") or section is None:
        raise ValueError(f"voice backend {cfg.backend!r} has no model to share in a service")
    params: dict[str, Any] = {
        "backend": cfg.backend,
        "section": section.model_dump(mode="json"),
        "device": cfg.device,
        "profile": cfg.profile.model_dump(mode="json") if cfg.profile is not None else None,
        "embeddings_dir": str(cfg.embeddings_dir) if cfg.embeddings_dir is not None else None,
    }
    return ServiceSpec(kind="tts", factory=FACTORY, params=params)


def specs(config: Config) -> list[ServiceSpec]:
    """Provider: one TTS service per distinct model among the rooms that ask for host_service."""
    return [spec_for_voice(room.voice) for room in config.rooms if room.voice.host_service]


def build_backend(params: dict[str, Any], *, room: str = "service") -> TTSBackend:
    """The in-process backend a spec's params describe (loaded inside the service; unloaded in rooms for voice_id)."""
    from broadcaster.voice.config import CoquiVoiceConfig, PiperVoiceConfig, VoiceProfileConfig

    if params["backend"] == "piper":
        from broadcaster.voice.backends.piper import PiperBackend

        return PiperBackend(PiperVoiceConfig.model_validate(params["section"]), device=params["device"], room=room)
    from pathlib import Path

    from broadcaster.voice.backends.coqui import CoquiBackend

    profile = VoiceProfileConfig.model_validate(params["profile"]) if params.get("profile") else None
    emb = params.get("embeddings_dir")
    return CoquiBackend(CoquiVoiceConfig.model_validate(params["section"]), device=params["device"], room=room,
                        profile=profile, embeddings_dir=Path(emb) if emb else None)


class TTSService(Service):
    """params: see spec_for_voice. Request params: {"text": str}; partial answers: one float32 PCM chunk each."""

    kind = "tts"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        if params["backend"] == "coqui":
            from broadcaster.voice.backends.coqui import start_torch_threads

            start_torch_threads()
        self.backend = build_backend(params)

    async def load(self) -> dict[str, Any]:
        b = self.backend
        await b.start()  # loads and warms, on the backend's own worker thread
        return {"name": b.name, "voice_id": b.voice_id, "version": b.version, "sample_rate": b.sample_rate,
                "streaming": b.streaming, "device": getattr(b, "device", "cpu")}

    async def run_batch(self, requests: list[Request]) -> list[Result]:
        # One sentence at a time: the engines take one text per call (see the module docstring).
        results: list[Result] = []
        for req in requests:
            if req.cancelled or req.expired:
                results.append(Result(error="cancelled" if req.cancelled else "deadline passed before synthesis"))
                continue
            text = req.params.get("text")
            if not isinstance(text, str) or not text.strip():
                results.append(Result(error="a TTS request needs a non-empty 'text'"))
                continue
            samples = 0
            try:
                agen = self.backend.synthesize(text)
                try:
                    async for chunk in agen:
                        if req.cancelled:
                            break
                        req.send([chunk])
                        samples += int(chunk.size)
                finally:
                    await agen.aclose()
            except Exception as exc:
                results.append(Result(error=f"{self.backend.name}: {type(exc).__name__}: {exc}"))
                continue
            results.append(Result(meta={"samples": samples}))
        return results

    async def close(self) -> None:
        await self.backend.close()

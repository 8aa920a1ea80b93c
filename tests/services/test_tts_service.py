"""The shared TTS service with tiny real voices (tests/voice/tinymodels.py, loaded by the real Piper/Coqui loaders):
rooms share one loaded copy, their sentences meet in one batch, the voice and cache keys are the in-process ones,
and a room speaking through the service stays on air, with no timestamp gap, across a kill -9 of the service."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from broadcaster.config import Config, RoomConfig
from broadcaster.lines import Line, LineSource
from broadcaster.services import HostServices, ServiceUnavailable
from broadcaster.services.config import ServicesConfig
from broadcaster.voice import build_voice
from broadcaster.voice.backends.piper import PiperBackend
from broadcaster.voice.backends.service import ServiceBackend
from broadcaster.voice.config import PiperVoiceConfig, VoiceConfig
from tests.chaos.chaos_support import assert_no_gap
from tests.services.support import until
from tests.voice.tinymodels import build_tiny_piper_voice, build_tiny_vits, require

require("piper")
require("onnx")


@pytest.fixture(scope="module")
def tiny_voice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_piper_voice(tmp_path_factory.mktemp("piper"))


def _voice(model: Path, **extra: Any) -> dict[str, Any]:
    return {"backend": "piper", "piper": {"model": str(model)}, "device": "cpu", "host_service": True, **extra}


async def _services(cfg: Config, **tuning: Any) -> HostServices:
    # Sentences wait up to 100 ms for company, so rooms speaking together certainly share batches.
    hs = HostServices(cfg, cfg=ServicesConfig(kinds={"tts": {"max_batch": 8, "max_wait_ms": 100}},
                                              stats_interval_s=0.2, **tuning))
    await hs.start()
    await hs.wait_ready(120)
    return hs


@pytest.fixture
async def three_rooms(tiny_voice: Path) -> AsyncIterator[HostServices]:
    cfg = Config.model_validate({"rooms": [{"id": r, "voice": _voice(tiny_voice, fallback_voice="")}
                                           for r in ("a", "b", "c")]})
    hs = await _services(cfg)
    try:
        yield hs
    finally:
        await hs.stop()


async def test_three_rooms_share_one_loaded_voice(three_rooms: HostServices, tiny_voice: Path) -> None:
    assert len(three_rooms.services) == 1, "equal model settings: one service"
    voices = [build_voice(r.voice, sample_rate=48000, fps=25, room=r.id) for r in three_rooms.config.rooms]
    for v in voices:
        await v.start()
    try:
        lines = ["欢迎来到直播间。今天的杯子很便宜。", "谢谢你的礼物。", "这个杯子可以保温十二个小时。"]
        spoken = await asyncio.gather(*(_say(v, text) for v, text in zip(voices, lines, strict=True)))
        assert [len(s) for s in spoken] == [2, 1, 1] and all(v.fallbacks == 0 for v in voices)
        backends = [v.backend for v in voices]
        assert all(isinstance(b, ServiceBackend) for b in backends)
        welcomes = [b.client().welcome for b in backends]  # type: ignore[attr-defined]
        assert len({w["pid"] for w in welcomes}) == 1 and {w["loads"] for w in welcomes} == {1}
        stats = await backends[0].client().stats()  # type: ignore[attr-defined]
        assert stats["loads"] == 1 and stats["requests"] >= 4
        assert any(len(b["clients"]) > 1 for b in stats["recent"]), f"no batch held two rooms: {stats['recent']}"

        # Same voice as in process: identical voice_id, version, cache key and samples.
        local = PiperBackend(PiperVoiceConfig(model=tiny_voice), device="cpu")
        await local.start()
        remote = backends[0]
        assert (remote.voice_id, remote.version, remote.sample_rate) == (local.voice_id, local.version,
                                                                          local.sample_rate)
        plain = build_voice(VoiceConfig(**{**_voice(tiny_voice), "host_service": False}), sample_rate=48000,
                            fps=25, room="x")
        await plain.start()
        assert plain.cache_key("你好") == voices[0].cache_key("你好")
        text = "今天的杯子很便宜"
        a = np.concatenate([c async for c in local.synthesize(text)])
        b = np.concatenate([c async for c in remote.synthesize(text)])
        assert np.array_equal(a, b)
        await local.close()
        await plain.close()
    finally:
        for v in voices:
            await v.close()


async def _say(voice: Any, text: str) -> list[Any]:
    return [u async for u in voice.speak(Line(text, LineSource.SCRIPT))]


async def test_no_services_running_falls_back_and_keeps_the_room_talking(tiny_voice: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VA_SERVICES_DIR", raising=False)
    voice = build_voice(VoiceConfig(**_voice(tiny_voice, service_start_timeout_s=0.2)), sample_rate=48000, fps=25,
                        room="lonely")
    try:
        utts = await _say(voice, "还在说话。")
        assert len(utts) == 1 and voice.fallbacks == 1, "the espeak fallback said it"
    finally:
        await voice.close()


async def test_a_voice_that_cannot_load_is_failing_and_rooms_do_not_wait_for_it(tmp_path: Path) -> None:
    cfg = Config.model_validate({"rooms": [{"id": "a", "voice": _voice(tmp_path / "missing.onnx",
                                                                        service_start_timeout_s=600)}]})
    hs = HostServices(cfg, cfg=ServicesConfig(restart_backoff_s=0.2))
    await hs.start()
    voice = build_voice(cfg.rooms[0].voice, sample_rate=48000, fps=25, room="a")
    try:
        with pytest.raises(ServiceUnavailable, match="exits before it is ready"):
            await hs.wait_ready(300)  # the daemon does not wait out its timeout for a model that cannot load
        async with asyncio.timeout(60):  # nor does the room wait its 600 s for the service
            await voice.start()
            utts = await _say(voice, "还在说话。")
        assert len(utts) == 1 and voice.fallbacks == 1, "the fallback voice speaks meanwhile"
    finally:
        await voice.close()
        await hs.stop()


def test_host_service_needs_a_model_backend() -> None:
    with pytest.raises(ValueError, match="host_service"):
        VoiceConfig(backend="espeak", host_service=True)


@pytest.mark.slow
async def test_coqui_vits_through_the_service_is_the_same_voice(tmp_path: Path) -> None:
    require("TTS")
    from broadcaster.voice.backends.coqui import CoquiBackend
    from broadcaster.voice.config import CoquiVoiceConfig

    model_dir = build_tiny_vits(tmp_path / "vits")
    voice_cfg = {"backend": "coqui", "coqui": {"model_dir": str(model_dir)}, "device": "cpu", "host_service": True,
                 "language": "en", "voice": "en-us", "fallback_voice": ""}
    cfg = Config.model_validate({"rooms": [{"id": "a", "voice": voice_cfg}, {"id": "b", "voice": voice_cfg}]})
    hs = await _services(cfg)
    voices = [build_voice(r.voice, sample_rate=48000, fps=25, room=r.id) for r in cfg.rooms]
    try:
        assert len(hs.services) == 1
        for v in voices:
            await v.start()
        spoken = await asyncio.gather(*(_say(v, "Hello there. Thanks for the gift!") for v in voices))
        assert [len(s) for s in spoken] == [2, 2] and all(v.fallbacks == 0 for v in voices)
        local = CoquiBackend(CoquiVoiceConfig(model_dir=model_dir), device="cpu")
        await local.start()
        assert (voices[0].backend.voice_id, voices[0].backend.version) == (local.voice_id, local.version)
        await local.close()
    finally:
        for v in voices:
            await v.close()
        await hs.stop()


@pytest.mark.slow
async def test_a_room_stays_on_air_across_a_service_kill(tiny_voice: Path, tmp_path: Path) -> None:
    from broadcaster.room import Room
    from tests.support.media import CardAvatar

    room_cfg = {"id": "r", "video": {"width": 160, "height": 96, "fps": 25, "bitrate_kbps": 200},
                "outputs": [{"type": "record", "path": str(tmp_path / "r.flv"), "name": "rec"}],
                "voice": _voice(tiny_voice), "audit": {"path": str(tmp_path / "audit.jsonl")}}
    cfg = Config.model_validate({"rooms": [room_cfg]})
    # Restarts wait 2 s: the line said right after the kill certainly finds no service.
    hs = await _services(cfg, restart_backoff_s=2.0)
    room = Room(RoomConfig.model_validate(room_cfg), avatar=CardAvatar(160, 96))
    try:
        await room.start()
        voice = room.voice
        voice.breaker_cooldown_s = 0.5  # the room's breaker: retry the service soon after it failed
        (svc,) = hs.services.values()
        room.say("欢迎来到直播间。")
        await until(lambda: room.spoken_lines >= 1, 60, "the first line")
        assert voice.synthesized == 1 and voice.fallbacks == 0, "the first line came from the service"
        old_pid = svc.pid
        assert old_pid is not None
        os.kill(old_pid, signal.SIGKILL)
        room.say("服务重启的时候我们还在播。")  # while the service is down: the fallback voice says it
        await until(lambda: room.spoken_lines >= 2, 60, "the line said while the service is down")
        assert voice.fallbacks >= 1 and voice.dropped == 0
        await until(lambda: svc.restarts == 1 and svc.pid not in (None, old_pid), 60, "the restart")
        await svc.wait_ready(120)
        before = voice.synthesized
        room.say("服务回来了。")
        await until(lambda: room.spoken_lines >= 3, 60, "the line after the restart")
        assert voice.synthesized == before + 1, "the restarted service said it"
        await asyncio.sleep(0.5)
    finally:
        await room.stop(0.5)
        await hs.stop()
    assert assert_no_gap(tmp_path / "r.flv", min_seconds=2.0) > 2.0

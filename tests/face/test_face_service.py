"""The face service over the tiny MuseTalk-layout model (real loader, real service process, shared memory): three
rooms' frames in one UNet pass; real rooms speaking through it stay on air, with no timestamp gap, when its passes
run out of memory (face.oom) and when it is killed -9, each utterance then drawn whole by the CPU portrait."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from broadcaster import metrics
from broadcaster.config import Config, RoomConfig
from broadcaster.lines import Line, LineSource, Utterance
from broadcaster.services import HostServices
from broadcaster.services.client import ServiceClient
from broadcaster.services.config import ServicesConfig
from broadcaster.services.face import DEVICE_FAILURE, FaceService, spec_for_avatar, specs, standalone_spec
from broadcaster.services.service import socket_path
from broadcaster.stage import Stage, StageEvent, StageEventKind
from renderer.base import MouthTrack
from renderer.config import AvatarConfig
from renderer.neural.audio import frame_count
from renderer.neural.prepare import prepare
from tests.chaos.chaos_support import assert_no_gap
from tests.services.support import until
from tests.support.media import tone_utterance

FPS = 25
RATE = 44100


def _avatar(model: Path, photo: Path, **extra: Any) -> dict[str, Any]:
    return {"kind": "neural", "model_dir": str(model), "source": str(photo), "device": "cpu", **extra}


async def _services(cfg: Config, wait_ms: float = 15.0, **tuning: Any) -> HostServices:
    hs = HostServices(cfg, cfg=ServicesConfig(kinds={"face": {"max_batch": 16, "max_wait_ms": wait_ms}},
                                              stats_interval_s=0.2, arena_mb=16, **tuning))
    await hs.start()
    await hs.wait_ready(120)
    return hs


def test_rooms_and_the_daemonset_name_the_same_socket(tiny_model_dir: Path, photos: dict[str, Path]) -> None:
    room = spec_for_avatar(AvatarConfig.model_validate(_avatar(tiny_model_dir, photos["astronaut"])))
    pod = standalone_spec({"VA_FACE_MODEL_DIR": str(tiny_model_dir), "VA_FACE_DEVICE": "cpu"})
    assert socket_path("/run/va", room) == socket_path("/run/va", pod) and pod.max_batch == 16
    other = standalone_spec({"VA_FACE_MODEL_DIR": str(tiny_model_dir)})  # auto ≠ cpu: another service
    assert socket_path("/run/va", other) != socket_path("/run/va", room)


def test_a_daemon_served_by_a_daemonset_starts_no_face_service(tiny_model_dir: Path, photos: dict[str, Path],
                                                                monkeypatch) -> None:
    cfg = Config.model_validate({"rooms": [{"id": "a", "avatar": _avatar(tiny_model_dir, photos["hopper"])}]})
    assert len(specs(cfg)) == 1
    monkeypatch.setenv("VA_FACE_SERVICES_DIR", "/run/virtual-anchor/services")
    assert specs(cfg) == []


def test_the_service_and_the_room_side_import_no_torch() -> None:
    """The default install has no torch: the daemon imports the face provider, a room the link, neither loads it."""
    code = ("import sys, broadcaster.services.face, broadcaster.room, broadcaster.daemon; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_the_stage_holds_a_start_no_longer_than_the_hold() -> None:
    events: list[StageEvent] = []
    stage = Stage(FPS, RATE, on_event=lambda ev: events.append(ev) if ev.kind == StageEventKind.START else None)
    ready = {"now": False}
    stage.set_gate(lambda utt: ready["now"], 2)
    n = 0

    def tick_until_start() -> StageEvent:
        """Ticks until the pushed utterance starts (held frames are idle: no speech), then until it ended."""
        nonlocal n
        count = len(events)
        while len(events) == count:
            assert n < 1000
            state, _ = stage.tick(n)
            assert state.speaking == (len(events) > count)
            n += 1
        while stage.busy():
            stage.tick(n)
            n += 1
        return events[-1]

    stage.push(tone_utterance(0.2, RATE, FPS))  # its face frames never come: held 2 frames, then it starts
    pushed = n
    ev = tick_until_start()
    assert (ev.held, ev.frame - pushed) == (2, 2)
    ready["now"] = True  # they are there: no hold
    stage.push(tone_utterance(0.2, RATE, FPS))
    pushed = n
    ev = tick_until_start()
    assert ev.held == 0
    ready["now"] = False
    stage.push(tone_utterance(0.2, RATE, FPS))
    stage.tick(n)  # held one frame; then they arrive
    n += 1
    ready["now"] = True
    ev = tick_until_start()
    assert ev.held == 1


async def test_three_rooms_frames_go_through_one_forward_pass(
    tiny_model_dir: Path, photos: dict[str, Path], speech: np.ndarray, tmp_path: Path
) -> None:
    rooms = ("a", "b", "c")
    cfg = Config.model_validate({"rooms": [{"id": r, "avatar": _avatar(tiny_model_dir, photos["astronaut"])}
                                           for r in rooms]})
    hs = await _services(cfg, wait_ms=200.0)  # frames wait up to 200 ms for company: the three rooms meet
    clients = [ServiceClient(svc.path, name=r) for r in rooms for svc in hs.services.values()]
    try:
        assert len(hs.services) == 1, "one service for three rooms with the same model"
        prepared = prepare(photos["astronaut"], tmp_path)
        crops = prepared.geometry.crops(prepared.source.frames)
        for c in clients:
            reply = await c.call({"op": "source", "key": prepared.key})
            if not reply.meta["known"]:
                await c.call({"op": "source", "key": prepared.key}, [crops])
        pcm = speech[int(0.3 * RATE) : int(0.7 * RATE)].astype(np.float32) / 32768
        ks = [0, 1, 2, 3]

        async def room(c: ServiceClient) -> list[Any]:
            audio = await c.call({"op": "utt", "utt": 1, "sr": RATE, "fps": FPS, "frames": len(ks)}, [pcm])
            assert audio.meta["frames"] == frame_count(len(pcm), RATE, FPS)
            return await asyncio.gather(*(c.call({"op": "frame", "utt": 1, "k": k, "source": prepared.key,
                                                  "index": 0}) for k in ks))

        replies = [r for rs in await asyncio.gather(*(room(c) for c in clients)) for r in rs]
        assert all(r.outputs[0].shape == (256, 256, 3) and r.outputs[0].dtype == np.uint8 for r in replies)
        shared = [r for r in replies if r.meta["pass_clients"] == list(rooms)]
        assert shared, f"no pass held all three rooms: {[r.meta for r in replies]}"
        assert all(r.meta["passes"] == 1 and r.meta["pass_frames"] == 3 * len(ks) for r in shared)
        assert len({r.meta["pass"] for r in shared}) == 1
        # The host's own record of that batch names the three rooms too, and the model was loaded once.
        stats = await clients[0].stats()
        assert any(b["clients"] == list(rooms) for b in stats["recent"]) and stats["loads"] == 1
        assert stats["gauges"]["model_bytes"] > 0 and stats["gauges"]["pass_frames_le_16"] >= 1
        scrape = metrics.exposition([]).decode()
        assert "va_face_batch_frames_bucket" in scrape and "va_face_model_memory_bytes{" in scrape
    finally:
        for c in clients:
            await c.close()
        await hs.stop()


def test_an_out_of_memory_pass_answers_a_device_failure(tiny_model_dir: Path, monkeypatch) -> None:
    """In process (no socket): the injected face.oom fails the pass as CUDA's OOM would, and the service says so."""
    from broadcaster import faults
    from broadcaster.services.service import Request

    svc = FaceService({"model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "auto"})
    info = svc.load()
    assert info["device"] == "cpu" and info["fallback"] is False
    svc.model.register("s", np.zeros((1, 8, 32, 32), np.float32))
    pcm = np.sin(np.arange(RATE // 2) * 0.05).astype(np.float32) * 0.3

    def req(i: int, **params: Any) -> Request:
        return Request(i, "r1", params, [pcm] if params["op"] == "utt" else [], float("inf"), 0.0)

    svc.run_batch([req(1, op="utt", utt=7, sr=RATE, fps=FPS, frames=2)])
    faults.arm(faults.FACE_OOM, "r1")
    try:
        failed = svc.run_batch([req(2, op="frame", utt=7, k=0, source="s", index=0)])
    finally:
        faults.disarm(faults.FACE_OOM)
    assert failed[0].error is not None and failed[0].error.startswith(DEVICE_FAILURE)
    ok = svc.run_batch([req(3, op="frame", utt=7, k=1, source="s", index=0)])
    assert ok[0].error is None and ok[0].outputs[0].shape == (256, 256, 3)
    assert svc.device_failures == 1 and svc.gauges()["device_failures"] == 1


# --- real rooms on air ---------------------------------------------------------------------------------------
# The tiny model takes 50-300 ms a frame on this shared CPU, so a room here asks ahead the way a talking room does:
# a sentence is pushed while the one before it (an utterance of silence: a pause, which the model never sees) still
# plays.


def _utterance(pcm16: np.ndarray, line: Line, index: int) -> Utterance:
    pcm = pcm16.astype(np.float32) / 32768
    frames = -(-len(pcm) // (RATE // FPS))
    return Utterance(pcm=pcm, mouth=MouthTrack(np.full(frames, 0.5, np.float32), np.ones(frames, np.uint8)),
                     text=line.text, line=line, index=index)


def _room_cfg(rid: str, model: Path, photo: Path, tmp: Path) -> dict[str, Any]:
    return {"id": rid, "video": {"width": 320, "height": 180, "fps": FPS, "bitrate_kbps": 300},
            "avatar": _avatar(model, photo),
            "outputs": [{"type": "record", "path": str(tmp / f"{rid}.flv"), "name": "rec"}]}


async def _on_air(cfgs: list[dict[str, Any]], state: Path) -> tuple[list[Any], list[list[StageEvent]]]:
    from broadcaster.room import Room

    rooms = [Room(RoomConfig.model_validate(c), with_voice=False, state_dir=state) for c in cfgs]
    starts: list[list[StageEvent]] = [[] for _ in rooms]
    for room, seen in zip(rooms, starts, strict=True):
        room.port.subscribe(lambda ev, seen=seen: seen.append(ev) if ev.kind == StageEventKind.START else None)
        await room.start()
    return rooms, starts


async def _say(rooms: list[Any], pcms: list[np.ndarray], text: str) -> None:
    """Every room says one line of these sentences (pushed the way the Show pushes them); returns when all ended."""
    lines = []
    for room in rooms:
        line = Line(text, LineSource.OPERATOR)
        for i, pcm in enumerate(pcms):
            assert room.port.push(_utterance(pcm, line, i))
        room.port.end_line(line)
        lines.append(line)
    for room, line in zip(rooms, lines, strict=True):
        assert await room.port.line_ended(line.id, 60) is not None


async def _say_until_drawn(rooms: list[Any], pcms: list[np.ndarray], text: str, tries: int = 4) -> None:
    """Says it until the model drew the sentence in every room. On this shared CPU the tiny model may miss even a
    5 s lead now and then (a first pass after a load is slow): that sentence is then drawn by the portrait,
    which is right, and the line is said again."""
    for _ in range(tries):
        before = [room.face.neural for room in rooms]
        await _say(rooms, pcms, text)
        if all(room.face.neural - b == len(pcms) for room, b in zip(rooms, before, strict=True)):
            return
    reasons = {r: _fallbacks(room.id, r) for room in rooms for r in ("late", "service", "device", "down")}
    raise AssertionError(f"the model drew no sentence in {tries} tries: {reasons}")


def _pause(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), np.int16)


def _fallbacks(room: str, reason: str) -> float:
    return metrics.FACE_FALLBACKS.labels(room, reason)._value.get()


def _device_fallbacks(room: str) -> float:
    return metrics.DEVICE_FALLBACKS.labels(room, "face")._value.get()


@pytest.fixture
def sentence(speech: np.ndarray) -> np.ndarray:
    """1.2 s of real speech."""
    return speech[int(0.45 * RATE) : int(1.65 * RATE)]


@pytest.mark.slow
async def test_rooms_stay_on_air_through_an_out_of_memory_service(
    tiny_model_dir: Path, photos: dict[str, Path], sentence: np.ndarray, tmp_path: Path, monkeypatch
) -> None:
    cfgs = [_room_cfg(r, tiny_model_dir, photos["hopper"], tmp_path) for r in ("m1", "m2")]
    # Every UNet pass runs out of memory from the service's start on (the service reads VA_FAULTS at load).
    monkeypatch.setenv("VA_FAULTS", "face.oom@*")
    hs = await _services(Config.model_validate({"rooms": cfgs}))
    device0 = [_device_fallbacks(r) for r in ("m1", "m2")]
    rooms, starts = await _on_air(cfgs, tmp_path / "state")
    try:
        await _say(rooms, [_pause(3.0), sentence], "内存不够的时候我们还在播。")
        for room, before in zip(rooms, device0, strict=True):
            link = room.face
            # The pause needs no model; the sentence is drawn whole by the portrait because the device failed.
            assert (link.neural, link.fallbacks, link.delivered) == (1, 1, 0)
            assert _fallbacks(room.id, "device") == 1
            assert _device_fallbacks(room.id) == before + 1  # counted once for the episode, logged once
        svc = next(iter(hs.services.values()))
        await until(lambda: (svc.stats.get("gauges") or {}).get("device_failures", 0) >= 1, 10, "the OOM counted")
        # Still failing: the next sentence is the portrait's too, its start held no longer than the hold.
        await _say(rooms, [sentence], "再说一句。")
        for room, seen in zip(rooms, starts, strict=True):
            assert (room.face.neural, room.face.fallbacks) == (1, 2) and seen[-1].held <= room.face.hold_frames
    finally:
        for room in rooms:
            await room.stop(0.5)
        await hs.stop()
    for r in ("m1", "m2"):
        assert assert_no_gap(tmp_path / f"{r}.flv", min_seconds=2.0) > 2.0


@pytest.mark.slow
async def test_a_room_speaks_with_the_service_and_stays_on_air_when_it_is_killed(
    tiny_model_dir: Path, photos: dict[str, Path], sentence: np.ndarray, tmp_path: Path
) -> None:
    cfgs = [_room_cfg("k1", tiny_model_dir, photos["hopper"], tmp_path)]
    # 4 frames a pass: the sentence's first frames come back after one small pass.
    hs = HostServices(Config.model_validate({"rooms": cfgs}),
                      cfg=ServicesConfig(kinds={"face": {"max_batch": 4, "max_wait_ms": 15}}, stats_interval_s=0.2,
                                         arena_mb=16, restart_backoff_s=3.0))
    await hs.start()
    await hs.wait_ready(120)
    device0 = _device_fallbacks("k1")
    rooms, starts = await _on_air(cfgs, tmp_path / "state")
    (room,) = rooms
    link = room.face
    try:
        # Up: the model draws the sentence (its first frames were there when it started).
        await _say_until_drawn(rooms, [_pause(5.0), sentence], "欢迎来到直播间。")
        assert link.delivered >= 3
        neural, fallbacks = link.neural, link.fallbacks
        (svc,) = hs.services.values()
        old_pid = svc.pid
        assert old_pid is not None
        os.kill(old_pid, signal.SIGKILL)
        await until(lambda: svc.pid != old_pid, 10, "the supervisor saw the kill")
        # Down: the portrait draws the whole sentence; its start is held at most the hold (+1 for the tick).
        before = room.stage.frame
        await _say(rooms, [sentence], "服务重启的时候我们还在播。")
        ev = starts[0][-1]
        assert (link.neural, link.fallbacks) == (neural, fallbacks + 1)
        assert ev.held <= link.hold_frames and ev.frame - before <= link.hold_frames + 1
        await until(lambda: _device_fallbacks("k1") == device0 + 1, 10, "the outage counted once")
        # Back: once the restarted service answers and the link's retry wait (≤ 2 s) is over, the model draws again.
        await until(lambda: svc.pid not in (None, old_pid), 60, "the restart")
        await svc.wait_ready(120)
        await asyncio.sleep(2.0)
        await _say_until_drawn(rooms, [_pause(5.0), sentence], "服务回来了。")
    finally:
        await room.stop(0.5)
        await hs.stop()
    assert assert_no_gap(tmp_path / "k1.flv", min_seconds=2.0) > 2.0


@pytest.mark.slow
async def test_a_recorded_sentence_drawn_by_the_model_never_shows_the_raw_source(
    tiny_model_dir: Path, photos: dict[str, Path], sentence: np.ndarray, tmp_path: Path
) -> None:
    """The recording of a neural room: every frame of a sentence the model drew differs from the idle source, the
    pause in its middle too (MuseTalk draws every frame of the audio); before and after it, the idle loop."""
    import av

    cfgs = [_room_cfg("v1", tiny_model_dir, photos["hopper"], tmp_path)]
    hs = await _services(Config.model_validate({"rooms": cfgs}))
    rooms, _ = await _on_air(cfgs, tmp_path / "state")
    half = len(sentence) // 2
    words = np.concatenate([sentence[:half], _pause(0.4), sentence[half:]])
    try:
        await _say_until_drawn(rooms, [_pause(5.0), words], "我们中间停一下，再接着说。")
        await asyncio.sleep(1.0)  # some idle after it
    finally:
        await rooms[0].stop(0.5)
        await hs.stop()
    with av.open(str(tmp_path / "v1.flv")) as f:
        frames = [fr.to_ndarray(format="bgr24").astype(np.int16) for fr in f.decode(video=0)]
    idle = frames[5]
    changed = [int((np.abs(fr - idle).max(axis=2) > 30).sum()) for fr in frames]
    drawn = [c > 100 for c in changed]
    runs, i = [], 0
    while i < len(drawn):  # runs of frames that are not the idle source: the sentences said
        if drawn[i]:
            j = i
            while j < len(drawn) and drawn[j]:
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    assert runs, f"no frame of the sentence in the recording: {changed[:50]}"
    start, end = runs[-1]  # the last time the line was said: the model drew it
    want = frame_count(len(words), RATE, FPS)
    assert end - start >= want - 1, (
        f"the model's sentence ({want} frames) shows the raw source inside it: runs {runs}, changed px {changed}")
    assert not any(drawn[end + 2 :]), "after the sentence: the idle loop"


@pytest.mark.slow
def test_a_daemon_room_in_its_worker_process_reaches_the_face_service(
    tiny_model_dir: Path, photos: dict[str, Path], tmp_path: Path
) -> None:
    """The real daemon: it starts the face service for its neural room, the room's worker process finds it through
    VA_SERVICES_DIR, a line said over the admin API goes through it, the scrape shows it, the recording has no gap."""
    import json
    import time

    from tests.ops.ops_support import ADMIN_TOKEN, DaemonThread, request, small_room, write_config

    avatar = _avatar(tiny_model_dir, photos["hopper"], face_hold_ms=1000)
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room(
        "w1", [{"type": "record", "path": str(tmp_path / "w1.flv")}], avatar=avatar)])
    d = DaemonThread(cfg).start()
    try:
        status, _, _ = request("POST", d.url + "/api/rooms/w1/say", token=ADMIN_TOKEN,
                               body=json.dumps({"text": "大家好，欢迎来到直播间。"}).encode())
        assert status == 200

        def figures() -> dict[str, float]:
            body = request("GET", d.url + "/metrics")[2].decode()
            found = {}
            for name in ("va_face_forward_passes_total", "va_face_frames_total", "va_face_fallback_utterances_total",
                         "va_face_hold_seconds_count"):
                found[name] = sum(float(v) for v in re.findall(rf"^{name}{{[^}}]*}} (\S+)$", body, re.M))
            found["up"] = float(bool(re.search(r'^va_service_up{kind="face",[^}]*} 1\.0$', body, re.M)))
            return found

        end = time.monotonic() + 90
        seen = figures()
        while time.monotonic() < end and not (seen["va_face_forward_passes_total"] >= 1
                                              and seen["va_face_hold_seconds_count"] >= 1):
            time.sleep(0.5)
            seen = figures()
        # The service ran the worker's frames; the sentence started (drawn by the model or, whole, the portrait).
        assert seen["up"] == 1 and seen["va_face_forward_passes_total"] >= 1, seen
        assert seen["va_face_hold_seconds_count"] >= 1, seen
        time.sleep(1.0)
    finally:
        d.stop()
    assert assert_no_gap(tmp_path / "w1.flv", min_seconds=2.0) > 2.0


@pytest.mark.slow
async def test_a_kill_while_a_sentence_plays_hands_its_missing_rest_to_the_portrait(
    tiny_model_dir: Path, photos: dict[str, Path], speech: np.ndarray, tmp_path: Path
) -> None:
    """The link with a real stage and avatar, ticked by hand: a sentence starts with the model's frames, the service
    is killed -9 while most of its frames are still to come. The frames that came play out; from the first missing
    one the portrait draws the rest of the sentence: no frame waits, none holds a stale mouth, no switch back."""
    from broadcaster.services.face import FaceLink
    from renderer.factory import build_avatar
    from renderer.idle import Pose

    cfg = AvatarConfig.model_validate(_avatar(tiny_model_dir, photos["hopper"]))
    rcfg = RoomConfig.model_validate({"id": "x1", "avatar": _avatar(tiny_model_dir, photos["hopper"])})
    hs = HostServices(Config.model_validate({"rooms": [rcfg.model_dump(mode="json")]}),
                      cfg=ServicesConfig(kinds={"face": {"max_batch": 2, "max_wait_ms": 0}}, arena_mb=16,
                                         restart_backoff_s=30.0))
    await hs.start()
    await hs.wait_ready(120)
    fig = (await asyncio.to_thread(build_avatar, cfg, 320, 180, FPS, cache_dir=tmp_path)).figure
    links: list[FaceLink] = []
    stage = Stage(FPS, RATE, on_event=lambda ev: links[0].on_start(ev.utterance, ev.frame, ev.held)
                  if ev.kind == StageEventKind.START else None)
    link = FaceLink("x1", fig, cfg, stage)
    links.append(link)
    stage.set_gate(link.ready, link.hold_frames)
    await link.start()
    try:
        line = Line("long", LineSource.OPERATOR)
        utt = _utterance(speech[int(0.45 * RATE) : int(2.4 * RATE)], line, 0)  # ~2 s
        # As if queued 10 s ahead (this CPU draws a few frames a second): no frame expires before the kill.
        link.submit(utt, stage.next_start() + 10 * FPS)
        assert stage.push(utt)
        await until(lambda: link.ready(utt), 60, "the first frames")
        n = 0
        while not stage.speaking:
            stage.tick(n)
            n += 1
        assert link.neural == 1
        (svc,) = hs.services.values()
        os.kill(svc.pid, signal.SIGKILL)
        await until(lambda: link._down is not None, 10, "the link saw the kill")
        assert link.delivered < frame_count(len(utt.pcm), RATE, FPS), "frames were still to come"
        pose = Pose(0, 0, 0, 0, 0, 0, 0)
        drawn_by = []
        held = fig.late_frames
        while stage.speaking:
            state, _ = stage.tick(n)
            n += 1
            got, want = np.zeros((180, 320, 3), np.uint8), np.zeros((180, 320, 3), np.uint8)
            fig.render_into(got, state, pose)
            fig.fallback.render_into(want, state, pose)
            drawn_by.append("portrait" if np.array_equal(got, want) else "model")
        first = drawn_by.index("portrait")
        assert set(drawn_by[first:]) == {"portrait"}, drawn_by
        assert fig.late_frames == held, "a frame waited for a crop that was never coming"
    finally:
        await link.close()
        await hs.stop()

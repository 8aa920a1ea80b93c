"""The media path against real RTMP servers: what arrives is a clean H.264/AAC stream with speech where scheduled."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from broadcaster.config import RoomConfig
from broadcaster.room import Room
from tests.media.streamcheck import assert_valid_stream
from tests.support.media import CardAvatar, probe, tone_utterance
from tests.support.servers import free_port, wait_until

W, H = 640, 360


def room_config(outputs: list[dict], fps: int = 25, sample_rate: int = 44100) -> RoomConfig:
    return RoomConfig.model_validate(
        {
            "id": "t",
            "video": {"width": W, "height": H, "fps": fps, "bitrate_kbps": 800},
            "audio": {"sample_rate": sample_rate},
            "outputs": outputs,
        }
    )


async def _speak_tone(room: Room, seconds: float) -> tuple[int, int]:
    """Queues a tone line; returns the frames it started and ended on (from the stage's own events)."""
    frames: dict[str, int] = {}
    room.port.subscribe(lambda ev: frames.setdefault(ev.kind, ev.frame))
    utt = tone_utterance(seconds, room.cfg.audio.sample_rate, room.cfg.video.fps)
    assert room.port.push(utt)
    room.port.end_line(utt.line)
    assert await room.port.line_ended(utt.line.id, timeout=seconds + 5)
    return frames["start"], frames["end"]


@pytest.mark.parametrize("fps,rate", [(25, 44100), (30, 48000)])
async def test_stream_to_ffmpeg_listener(ffmpeg_ingest, tmp_path, fps, rate):
    ingest = ffmpeg_ingest()
    cfg = room_config([{"type": "rtmp", "url": ingest.url}], fps, rate)
    room = Room(cfg, avatar=CardAvatar(W, H), with_voice=False)
    await room.start()
    try:
        assert await asyncio.to_thread(ingest.wait_publisher, 15)
        await asyncio.sleep(1.0)
        start, end = await _speak_tone(room, 1.5)
        await asyncio.sleep(1.5)
    finally:
        await room.stop()
    await asyncio.to_thread(ingest.finish)
    p = probe(ingest.out)
    assert_valid_stream(p, width=W, height=H, fps=fps, sample_rate=rate)

    base = room.sinks[0].base_time
    t0, t1 = start / fps - base, (end + 1) / fps - base
    assert p.rms(t0 + 0.05, t1 - 0.05) > 0.2, "the line is audible in its window"
    assert p.rms(0.1, t0 - 0.1) < 1e-3, "silence before the line"
    assert p.rms(t1 + 0.1, t1 + 1.2) < 1e-3, "silence after the line"
    assert p.frames_decoded == len(p.video.packets)


async def test_stream_to_nginx(nginx_rtmp):
    url = f"{nginx_rtmp.url_base}/stream-key-123"
    room = Room(room_config([{"type": "rtmp", "url": url}]), avatar=CardAvatar(W, H), with_voice=False)
    await room.start()
    try:
        assert await asyncio.to_thread(wait_until, lambda: room.sinks[0].packets_written > 0, 15)
        await asyncio.sleep(0.5)
        start, end = await _speak_tone(room, 1.0)
        await asyncio.sleep(2.5)
    finally:
        await room.stop()
    nginx_rtmp.stop()
    files = nginx_rtmp.recordings()
    assert len(files) == 1
    p = probe(files[0])
    assert_valid_stream(p, width=W, height=H, fps=25, sample_rate=44100)
    base = room.sinks[0].base_time
    assert p.rms(start / 25 - base + 0.05, (end + 1) / 25 - base - 0.05) > 0.2


async def test_dead_sink_does_not_hurt_the_live_one(ffmpeg_ingest):
    ingest = ffmpeg_ingest()
    dead = f"rtmp://127.0.0.1:{free_port()}/live/nobody-home"
    cfg = room_config([
        {"type": "rtmp", "url": dead, "name": "dead", "reconnect_delay_s": 0.2},
        {"type": "rtmp", "url": ingest.url, "name": "live"},
    ])
    room = Room(cfg, avatar=CardAvatar(W, H), with_voice=False)
    await room.start()
    try:
        assert await asyncio.to_thread(ingest.wait_publisher, 15)
        await asyncio.sleep(4.5)
        status = room.status()
    finally:
        await room.stop()
    await asyncio.to_thread(ingest.finish)
    dead_status = next(s for s in status["sinks"] if s["name"] == "dead")
    assert not dead_status["connected"] and dead_status["last_error"]
    assert "nobody-home" not in str(status), "stream keys never appear in status"
    p = probe(ingest.out)
    assert_valid_stream(p, width=W, height=H, fps=25, sample_rate=44100, min_seconds=3.5)


@pytest.mark.slow
async def test_ingest_restart_recovers_and_recording_has_no_gap(ffmpeg_ingest, tmp_path):
    first = ffmpeg_ingest(name="first.flv")
    port = first.port
    cfg = room_config([
        {"type": "rtmp", "url": first.url, "name": "ingest"},
        {"type": "record", "path": str(tmp_path / "rec.flv")},
    ])
    room = Room(cfg, avatar=CardAvatar(W, H), with_voice=False)
    await room.start()
    try:
        assert await asyncio.to_thread(first.wait_publisher, 15)
        await asyncio.sleep(2.0)
        first.kill()
        await asyncio.sleep(5.0)
        assert room.clock.running
        second = ffmpeg_ingest(port=port, name="second.flv")
        returned = second.started_at
        assert await asyncio.to_thread(second.wait_publisher, 10)
        back_after = second.connected_at - returned
        await asyncio.sleep(3.0)
        reconnects = room.sinks[0].reconnects
    finally:
        await room.stop()
    await asyncio.to_thread(second.finish)
    assert back_after <= 3.0, f"stream back {back_after:.2f}s after the server returned"
    assert reconnects >= 1
    assert_valid_stream(probe(second.out), width=W, height=H, fps=25, sample_rate=44100, min_seconds=2.0)
    rec = probe(tmp_path / "rec.flv")
    assert_valid_stream(rec, width=W, height=H, fps=25, sample_rate=44100, min_seconds=9.0)
    assert abs(rec.video.duration - room.clock.frames / 25) <= 0.1


async def test_recording_rotates_at_keyframes(tmp_path):
    cfg = room_config([{"type": "record", "path": str(tmp_path / "seg-{n}.flv"), "rotate_seconds": 2.5}])
    room = Room(cfg, avatar=CardAvatar(W, H), with_voice=False, paced=False)
    await room.start()
    await asyncio.to_thread(wait_until, lambda: room.clock.frames >= 25 * 7, 60)
    t = time.monotonic()
    while room.clock.frames < 25 * 7 and time.monotonic() - t < 30:
        await asyncio.sleep(0.05)
    await room.stop()
    files = room.sinks[0].files
    assert len(files) >= 2
    total = 0.0
    for i, f in enumerate(files):
        p = probe(f)
        # The last file is as long as the run happened to be past its last rotation (an unpaced clock races on
        # between the check above and the stop); every other one spans at least one whole GOP.
        last = i == len(files) - 1
        assert_valid_stream(p, width=W, height=H, fps=25, sample_rate=44100, min_seconds=0.04 if last else 1.9)
        total += p.video.duration
    assert abs(total - room.clock.frames / 25) <= 0.05 * len(files)


class SilentServer:
    """Accepts TCP and never says a word: FFmpeg's RTMP client would wait for the handshake forever."""

    def __init__(self, port: int):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


async def test_ingest_that_stops_answering_is_given_up(ffmpeg_ingest):
    port = free_port()
    silent = SilentServer(port)
    cfg = room_config([{"type": "rtmp", "url": f"rtmp://127.0.0.1:{port}/live/k", "timeout_s": 1.0,
                        "reconnect_delay_s": 0.3}])
    room = Room(cfg, avatar=CardAvatar(W, H), with_voice=False)
    await room.start()
    try:
        await asyncio.sleep(3.5)
        sink = room.sinks[0]
        assert "timed out" in sink.last_error
        assert sink.failed_attempts >= 2 and not sink.connected
        assert room.clock.running and room.clock.age() < 0.5
        silent.close()
        ingest = ffmpeg_ingest(port=port)
        assert await asyncio.to_thread(ingest.wait_publisher, 10)
        await asyncio.sleep(2.5)
    finally:
        silent.close()
        await room.stop()
    await asyncio.to_thread(ingest.finish)
    assert_valid_stream(probe(ingest.out), width=W, height=H, fps=25, sample_rate=44100, min_seconds=1.9)


class FlakyAvatar(CardAvatar):
    def render(self, state):
        if state.n % 7 == 3:
            raise RuntimeError("a bug in a renderer")
        return super().render(state)


async def test_a_failing_render_repeats_the_last_frame(tmp_path):
    cfg = room_config([{"type": "record", "path": str(tmp_path / "r.flv")}])
    room = Room(cfg, avatar=FlakyAvatar(W, H), with_voice=False, paced=False)
    await room.start()
    await asyncio.to_thread(wait_until, lambda: room.clock.frames >= 100, 30)
    await room.stop()
    assert room.clock.render_errors >= 10 and room.clock.error is None
    assert_valid_stream(probe(tmp_path / "r.flv"), width=W, height=H, fps=25, sample_rate=44100, min_seconds=3.5)

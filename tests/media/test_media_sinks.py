"""Sink queue policy and the RTMP URL rules, without a network."""

from __future__ import annotations

from fractions import Fraction

import pytest

from broadcaster.config import AudioConfig, RtmpOutput, VideoConfig
from broadcaster.output import amf0, flv, rtmp
from broadcaster.output.encoder import EncodedPacket, Encoder
from broadcaster.output.sinks import RtmpSink
from tests.support.servers import wait_until


def packets(start: float, seconds: float, fps: int = 25) -> list[EncodedPacket]:
    out = []
    for n in range(round(start * fps), round((start + seconds) * fps)):
        out.append(EncodedPacket(True, b"v", n, n, Fraction(1, fps), n % 50 == 0, 1))
        out.append(EncodedPacket(False, b"a", n * 1764, n * 1764, Fraction(1, 44100), True, 1024))
    return out


def test_a_sink_that_falls_behind_drops_to_the_next_keyframe():
    enc = Encoder(VideoConfig(width=64, height=64), AudioConfig())
    sink = RtmpSink("r", RtmpOutput(type="rtmp", url="rtmp://127.0.0.1:9/live/k"), enc, 0)  # never started
    sink.put(packets(0.0, 0.5))
    assert len(sink._queue) == 24 and sink.dropped == 0
    sink.put(packets(0.5, 0.1))
    assert sink.dropped == 0
    sink.put(packets(0.6, 0.4))  # more than 0.7 s would wait: the queue is emptied and counted
    assert sink.dropped == 50 and sink._need_key and not sink._queue


@pytest.mark.parametrize("url,app,stream,tc", [
    ("rtmp://live-push.bilivideo.com/live-bvc/?streamname=live_1_2&key=abc&schedule=rtmp",
     "live-bvc", "?streamname=live_1_2&key=abc&schedule=rtmp", "rtmp://live-push.bilivideo.com/live-bvc"),
    ("rtmp://127.0.0.1:1936/live/stream-key", "live", "stream-key", "rtmp://127.0.0.1:1936/live"),
    ("rtmps://ingest.example.com/app/key?x=1", "app", "key?x=1", "rtmps://ingest.example.com/app"),
])
def test_rtmp_url_split(url, app, stream, tc):
    t = rtmp.parse_url(url)
    assert (t.app, t.stream, t.tc_url) == (app, stream, tc)
    assert t.tls == url.startswith("rtmps")


def test_flv_payloads():
    extradata = b"\x00\x00\x00\x01\x67\x64\x00\x1f\xac" + b"\x00\x00\x00\x01\x68\xeb\xe3"
    record = flv.avc_decoder_config(extradata)
    assert record[:6] == bytes([1, 0x64, 0x00, 0x1F, 0xFF, 0xE1])
    assert flv.video_sequence_header(extradata)[:5] == b"\x17\x00\x00\x00\x00"
    tag = flv.video_tag(b"\x00\x00\x00\x01\x65\x88" + b"\x00\x00\x01\x06\x05", True, 0)
    assert tag == b"\x17\x01\x00\x00\x00" + b"\x00\x00\x00\x02\x65\x88" + b"\x00\x00\x00\x02\x06\x05"
    assert flv.audio_sequence_header(b"\x12\x10") == b"\xaf\x00\x12\x10"
    meta = amf0.decode_all(flv.metadata(width=1280, height=720, fps=25, video_kbps=2500, sample_rate=44100,
                                        audio_kbps=128, encoder="virtual-anchor"))
    assert meta[:2] == ["@setDataFrame", "onMetaData"]
    assert meta[2]["videocodecid"] == 7.0 and meta[2]["audiocodecid"] == 10.0 and meta[2]["stereo"] is True


def test_amf0_round_trip_and_garbage():
    values = ["connect", 1.0, {"app": "live", "n": None, "ok": True}, [1.0, "x"], amf0.ECMAArray(a=1.0)]
    assert amf0.decode_all(amf0.encode_all(*values)) == values
    for junk in (b"\x02\x00\x10ab", b"\x0a\xff\xff\xff\xff", b"\x03\x00\x01a", b"\x42"):
        with pytest.raises(amf0.AMFError):
            amf0.decode_all(junk)


@pytest.mark.parametrize("ts", [0, 40, 0xFFFFFE, 0xFFFFFF, 5 * 3600 * 1000, 2**32 - 1])
def test_rtmp_chunking_round_trips_extended_timestamps(ts):
    """Past 4h39m a stream's timestamps need the extended field, repeated on every continuation chunk."""
    pub = rtmp.Publisher("rtmp://127.0.0.1/live/k")
    payload = bytes(range(256)) * 40  # 10 KiB: three chunks at 4096
    wire = pub._message(rtmp.CSID_VIDEO, rtmp.VIDEO, ts, 1, payload)
    pos = 0

    def recv(n: int) -> bytes:
        nonlocal pos
        pos += n
        return wire[pos - n : pos]

    reader = rtmp._ChunkReader(recv)
    reader.chunk_size = rtmp.OUT_CHUNK_SIZE
    assert reader.read_message() == (rtmp.VIDEO, ts, 1, payload)
    assert pos == len(wire)


def test_a_recording_that_cannot_be_opened_retries_on_its_own_schedule(tmp_path, caplog):
    """Every frame wakes the sink (put notifies); the retry must still wait its backoff, not retry per frame."""
    import logging
    import time

    from broadcaster import faults
    from broadcaster.config import RecordOutput
    from broadcaster.output.sinks import RecordSink

    enc = Encoder(VideoConfig(width=64, height=64), AudioConfig())
    sink = RecordSink("rr", RecordOutput(type="record", path=tmp_path / "x.flv"), enc, 0)
    faults.arm(faults.RECORD_OPEN_ERROR, "rr")
    caplog.set_level(logging.ERROR, "broadcaster.output.sinks")
    sink.start()
    try:
        end = time.monotonic() + 3.5
        n = 0
        while time.monotonic() < end:  # 25 frames a second, as the clock would
            sink.put(packets(n / 25, 0.04))
            n += 1
            time.sleep(0.04)
        tries = sink.failed_attempts
        assert 2 <= tries <= 4, f"{tries} attempts in 3.5 s (1 s, then 2 s…)"
        # One line for the fault, not one a try (issue 24): the tries are counted in failed_attempts and the metric.
        assert len([r for r in caplog.records if "cannot open recording" in r.getMessage()]) == 1
        faults.disarm()
        end = time.monotonic() + 6
        while not sink.connected and time.monotonic() < end:
            sink.put(packets(n / 25, 0.04))
            n += 1
            time.sleep(0.04)
        assert sink.connected, "it records once the file can be opened"
        for k in range(n, n + 60):  # past the next keyframe (every 50 frames), where the file starts
            sink.put(packets(k / 25, 0.04))
        assert wait_until(lambda: sink.packets_written > 0, 5)
    finally:
        faults.disarm()
        sink.close(2.0)
    assert sink.files and sink.files[-1].exists()


def test_a_recording_is_on_disk_while_it_runs(tmp_path):
    """flush_packets: what was muxed is in the file before the sink closes it (a SIGKILL loses at most a GOP)."""
    import asyncio

    from broadcaster.config import RoomConfig
    from broadcaster.room import Room
    from tests.support.media import CardAvatar, probe

    async def run() -> float:
        cfg = RoomConfig.model_validate({"id": "f", "video": {"width": 160, "height": 96, "fps": 25},
                                         "outputs": [{"type": "record", "path": str(tmp_path / "f.flv")}]})
        room = Room(cfg, avatar=CardAvatar(160, 96), with_voice=False)
        await room.start()
        try:
            await asyncio.sleep(4.0)
            seconds = room.clock.frames / 25
            p = probe(tmp_path / "f.flv", decode_video=False)  # read while the sink still has it open
            assert p.video.duration >= seconds - 2.0 - 0.5, (p.video.duration, seconds)
            return p.video.duration
        finally:
            await room.stop()

    assert asyncio.run(run()) > 1.0


def test_the_latency_trail_names_only_sinks_that_took_the_packet():
    from broadcaster.lines import Line, LineSource
    from broadcaster.stage import Stage, StageEvent, StageEventKind
    from broadcaster.stage_port import StagePort
    from tests.support.media import tone_utterance

    class _Sink:
        def __init__(self, name: str, taking: bool):
            self.name, self.taking = name, taking

    import asyncio

    async def run() -> list[str]:
        stage = Stage(25, 44100)
        sinks = [_Sink("record0", True), _Sink("ingest", False)]  # the RTMP sink never connected
        port = StagePort(stage, lambda: None, lambda: sinks)
        port.bind(asyncio.get_running_loop())
        handed: list[str] = []
        utt = tone_utterance(0.2, 44100, 25, line=Line("x", LineSource.OPERATOR))
        port.watch_first_audible(utt, 0, lambda sink, t: handed.append(sink))
        port.on_stage_event(StageEvent(StageEventKind.START, utt.line, 0, 0, utt))
        port.on_packets(0, [EncodedPacket(False, b"a", 0, 0, Fraction(1, 44100), True, 1024)])
        await asyncio.sleep(0.05)
        return handed

    assert asyncio.run(run()) == ["record0"]

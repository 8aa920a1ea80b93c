"""Sink queue policy and the RTMP URL rules, without a network."""

from __future__ import annotations

from fractions import Fraction

import pytest

from broadcaster.config import AudioConfig, RtmpOutput, VideoConfig
from broadcaster.output import amf0, flv, rtmp
from broadcaster.output.encoder import EncodedPacket, Encoder
from broadcaster.output.sinks import RtmpSink


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

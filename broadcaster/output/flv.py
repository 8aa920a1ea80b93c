"""FLV payloads for RTMP: AVC/AAC sequence headers, media tags and onMetaData, built from encoder output."""

from __future__ import annotations

import struct

from broadcaster.output import amf0

AUDIO, VIDEO, SCRIPT = 8, 9, 18


def annexb_nalus(data: bytes) -> list[bytes]:
    """Splits an Annex-B byte stream (00 00 01 / 00 00 00 01 start codes) into NAL units."""
    nalus: list[bytes] = []
    i, n = 0, len(data)
    start = -1
    while i + 2 < n:
        if data[i] == 0 and data[i + 1] == 0 and data[i + 2] == 1:
            if start >= 0:
                end = i - 1 if i > 0 and data[i - 1] == 0 else i
                nalus.append(data[start:end])
            i += 3
            start = i
        else:
            i += 1
    if start >= 0:
        nalus.append(data[start:])
    elif data:
        nalus.append(data)  # already a bare NAL (no start code)
    return [nal for nal in nalus if nal]


def avcc(data: bytes) -> bytes:
    """Annex-B → AVCC (each NAL prefixed by its 4-byte big-endian length), as FLV carries H.264."""
    if len(data) >= 4 and data[:4] != b"\x00\x00\x00\x01" and data[:3] != b"\x00\x00\x01":
        return data  # the encoder already produced length-prefixed NALs
    return b"".join(struct.pack(">I", len(nal)) + nal for nal in annexb_nalus(data))


def avc_decoder_config(extradata: bytes) -> bytes:
    """AVCDecoderConfigurationRecord from the encoder's SPS/PPS (Annex-B extradata, or already avcC)."""
    if extradata[:1] == b"\x01":
        return extradata
    nalus = annexb_nalus(extradata)
    sps = [n for n in nalus if n[0] & 0x1F == 7]
    pps = [n for n in nalus if n[0] & 0x1F == 8]
    if not sps or not pps:
        raise ValueError("H.264 extradata holds no SPS/PPS")
    s = sps[0]
    record = bytes([1, s[1], s[2], s[3], 0xFF, 0xE0 | len(sps)])
    for unit in sps:
        record += struct.pack(">H", len(unit)) + unit
    record += bytes([len(pps)])
    for unit in pps:
        record += struct.pack(">H", len(unit)) + unit
    return record


def video_sequence_header(extradata: bytes) -> bytes:
    return b"\x17\x00\x00\x00\x00" + avc_decoder_config(extradata)


def video_tag(data: bytes, keyframe: bool, cts_ms: int) -> bytes:
    head = (0x17 if keyframe else 0x27).to_bytes(1, "big") + b"\x01" + (cts_ms & 0xFFFFFF).to_bytes(3, "big")
    return head + avcc(data)


def audio_sequence_header(audio_specific_config: bytes) -> bytes:
    return b"\xaf\x00" + audio_specific_config


def audio_tag(raw_aac: bytes) -> bytes:
    return b"\xaf\x01" + raw_aac


def metadata(*, width: int, height: int, fps: int, video_kbps: int, sample_rate: int, audio_kbps: int,
             encoder: str) -> bytes:
    """`@setDataFrame onMetaData {…}` with the keys OBS sends."""
    return amf0.encode_all(
        "@setDataFrame",
        "onMetaData",
        amf0.ECMAArray(
            duration=0.0,
            fileSize=0.0,
            width=float(width),
            height=float(height),
            videocodecid=7.0,
            videodatarate=float(video_kbps),
            framerate=float(fps),
            audiocodecid=10.0,
            audiodatarate=float(audio_kbps),
            audiosamplerate=float(sample_rate),
            audiosamplesize=16.0,
            audiochannels=2.0,
            stereo=True,
            encoder=encoder,
        ),
    )

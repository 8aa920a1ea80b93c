"""Encodes frames and audio once (libx264 + AAC through PyAV) into packets every sink can mux."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from fractions import Fraction

import av
import cv2
import numpy as np

from broadcaster.config import AudioConfig, VideoConfig

AAC_FRAME = 1024


@dataclass(frozen=True, slots=True)
class EncodedPacket:
    """A packet copied out of the encoder (PyAV packets are consumed by muxing, so each sink gets bytes)."""

    video: bool
    data: bytes
    pts: int
    dts: int
    time_base: Fraction
    keyframe: bool
    duration: int

    @property
    def time(self) -> float:
        # Integer true division is correctly rounded, as float(Fraction) is, without building a Fraction
        # (read several times per packet by the interleaver and every sink).
        return self.dts * self.time_base.numerator / self.time_base.denominator


def x264_params(video: VideoConfig) -> str:
    gop = video.keyframe_seconds * video.fps
    maxrate = video.maxrate_kbps or video.bitrate_kbps
    bufsize = video.bufsize_kbps or 2 * video.bitrate_kbps
    return ":".join(
        [
            f"keyint={gop}",
            f"min-keyint={gop}",
            "scenecut=0",
            "open-gop=0",
            f"bframes={video.bframes}",
            f"rc-lookahead={video.lookahead_frames}",
            f"vbv-maxrate={maxrate}",
            f"vbv-bufsize={bufsize}",
            "repeat-headers=0",
            # Frames are converted with BT.601 limited-range coefficients; say so, or players assume BT.709 for HD.
            "colorprim=smpte170m",
            "transfer=smpte170m",
            "colormatrix=smpte170m",
            "range=tv",
        ]
    )


class Encoder:
    """Not thread-safe: used by the media clock thread only.

    The codec contexts live on streams of a throw-away FLV container so that sinks can copy their
    parameters (extradata: SPS/PPS and AudioSpecificConfig) with add_stream_from_template.
    """

    def __init__(self, video: VideoConfig, audio: AudioConfig):
        self.video_cfg, self.audio_cfg = video, audio
        self.fps = video.fps
        self.sample_rate = audio.sample_rate
        self.spf = audio.sample_rate // video.fps
        self._template = av.open(io.BytesIO(), "w", format="flv")
        vs = self._template.add_stream("libx264", rate=video.fps)
        vs.width, vs.height, vs.pix_fmt = video.width, video.height, "yuv420p"
        ctx = vs.codec_context
        ctx.bit_rate = video.bitrate_kbps * 1000
        options = {
            "preset": video.preset,
            "profile": "high",
            "x264-params": x264_params(video),
            "threads": str(video.threads),
        }
        if video.zerolatency:
            options["tune"] = "zerolatency"
        ctx.options = options
        aus = self._template.add_stream("aac", rate=audio.sample_rate, layout="stereo")
        aus.codec_context.bit_rate = audio.bitrate_kbps * 1000
        self._template.start_encoding()  # opens both encoders, fills codecpar (extradata) for the sinks
        self.video_stream, self.audio_stream = vs, aus
        self._vctx, self._actx = vs.codec_context, aus.codec_context
        self._video_tb = Fraction(1, video.fps)
        self._audio_tb = Fraction(1, audio.sample_rate)
        self._fifo = av.AudioFifo()
        self._held_audio: list[EncodedPacket] = []
        self._video_time = float("-inf")
        self._stereo = np.empty((2, self.spf), np.float32)
        self.frames = 0
        self.audio_samples = 0
        self.audio_packets_out = 0

    def _copy(self, packets: list[av.Packet], video: bool) -> list[EncodedPacket]:
        out = []
        for p in packets:
            out.append(
                EncodedPacket(
                    video=video,
                    data=bytes(p),
                    pts=p.pts,
                    dts=p.dts if p.dts is not None else p.pts,
                    time_base=self._video_tb if video else self._audio_tb,
                    keyframe=bool(p.is_keyframe),
                    duration=p.duration or (1 if video else AAC_FRAME),
                )
            )
        if not video:
            self.audio_packets_out += len(out)
        return out

    def encode(self, n: int, image_bgr: np.ndarray, pcm: np.ndarray) -> list[EncodedPacket]:
        """Frame n's picture (BGR uint8) and its spf mono float32 samples → the packets that came out."""
        # OpenCV's SIMD conversion costs about a quarter of swscale's here, with the same BT.601 result.
        frame = av.VideoFrame.from_ndarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
        frame.pts = n
        frame.time_base = self._video_tb
        video = self._copy(self._vctx.encode(frame), True)
        self.frames = n + 1

        self._stereo[0] = pcm
        self._stereo[1] = pcm
        aframe = av.AudioFrame.from_ndarray(self._stereo, format="fltp", layout="stereo")
        aframe.sample_rate = self.sample_rate
        aframe.pts = n * self.spf
        aframe.time_base = self._audio_tb
        self._fifo.write(aframe)
        self.audio_samples = (n + 1) * self.spf
        while self._fifo.samples >= AAC_FRAME:
            self._held_audio += self._copy(self._actx.encode(self._fifo.read(AAC_FRAME)), False)
        return self._interleave(video)

    def _interleave(self, video: list[EncodedPacket], final: bool = False) -> list[EncodedPacket]:
        """Releases packets in time order: x264 holds frames back (lookahead), so audio that is newer than
        the newest video packet waits here. Sinks then see one ordered timeline and can cut it at a keyframe."""
        if video:
            self._video_time = video[-1].time
        if final:
            ready, self._held_audio = self._held_audio, []
        else:
            ready = [p for p in self._held_audio if p.time <= self._video_time]
            self._held_audio = self._held_audio[len(ready) :]
        return sorted(video + ready, key=lambda p: (p.time, not p.video))

    def flush(self) -> list[EncodedPacket]:
        """Drains both encoders (end of stream); pads the last partial AAC frame with silence."""
        video = self._copy(self._vctx.encode(None), True)
        rest = self._fifo.samples
        if rest:
            tail = self._fifo.read(rest)
            pad = np.zeros((2, AAC_FRAME), np.float32)
            pad[:, :rest] = tail.to_ndarray()
            last = av.AudioFrame.from_ndarray(pad, format="fltp", layout="stereo")
            last.sample_rate = self.sample_rate
            last.pts = tail.pts
            last.time_base = self._audio_tb
            self._held_audio += self._copy(self._actx.encode(last), False)
        self._held_audio += self._copy(self._actx.encode(None), False)
        return self._interleave(video, final=True)

    def close(self) -> None:
        with contextlib.suppress(av.FFmpegError, OSError):
            self._template.close()

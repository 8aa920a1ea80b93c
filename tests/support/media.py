"""Test media: a simple test-card avatar, tone utterances, and a probe that reads a stream file back."""

from __future__ import annotations

from dataclasses import dataclass, field

import av
import numpy as np

from broadcaster.lines import Line, LineSource, Utterance
from renderer.base import FrameState, MouthTrack


class CardAvatar:
    """A collaborator for media-path tests: cheap frames whose content changes every frame."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self._base = np.zeros((height, width, 3), np.uint8)
        self._base[:, :, 0] = np.linspace(0, 255, width, dtype=np.uint8)[None, :]

    def render(self, state: FrameState) -> np.ndarray:
        frame = self._base.copy()
        x = (state.n * 8) % max(1, self.width - 32)
        frame[:32, x : x + 32] = 255
        if state.speaking:
            frame[-40:, :, 2] = int(255 * state.openness)
        return frame


def tone(seconds: float, sample_rate: int, freq: float = 440.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def tone_utterance(seconds: float, sample_rate: int, fps: int, text: str = "tone", line: Line | None = None,
                   freq: float = 440.0, index: int = 0) -> Utterance:
    pcm = tone(seconds, sample_rate, freq)
    frames = -(-pcm.shape[0] // (sample_rate // fps))
    track = MouthTrack(np.full(frames, 0.6, np.float32), np.ones(frames, np.uint8))
    return Utterance(pcm=pcm, mouth=track, text=text, line=line or Line(text, LineSource.OPERATOR),
                     index=index)


@dataclass
class Track:
    codec: str = ""
    profile: str | None = None
    packets: list[tuple[float, float, bool, float]] = field(default_factory=list)  # pts_s, dts_s, key, dur_s

    @property
    def duration(self) -> float:
        if not self.packets:
            return 0.0
        return self.packets[-1][0] + self.packets[-1][3] - self.packets[0][0]


@dataclass
class Probe:
    video: Track
    audio: Track
    width: int
    height: int
    fps: float
    sample_rate: int
    channels: int
    pcm: np.ndarray  # decoded audio, mono mix, float32
    audio_start: float  # pts of the first decoded audio sample (s)
    frames_decoded: int

    def keyframe_times(self) -> list[float]:
        return [p[0] for p in self.video.packets if p[2]]

    def rms(self, start: float, end: float) -> float:
        a = int(max(0.0, start - self.audio_start) * self.sample_rate)
        b = int(max(0.0, end - self.audio_start) * self.sample_rate)
        seg = self.pcm[a:b]
        return float(np.sqrt(np.mean(seg**2))) if seg.size else 0.0


def probe(path: str, decode_video: bool = True) -> Probe:
    """Demuxes every packet and decodes the audio (and optionally the video) of a recorded stream."""
    container = av.open(str(path))
    vs = container.streams.video[0]
    aus = container.streams.audio[0]
    video, audio = Track(vs.codec_context.name, vs.codec_context.profile), Track(aus.codec_context.name,
                                                                               aus.codec_context.profile)
    chunks: list[np.ndarray] = []
    audio_start = None
    frames = 0
    for packet in container.demux():
        if packet.dts is None:
            continue
        tb = packet.time_base
        entry = (float(packet.pts * tb), float(packet.dts * tb), bool(packet.is_keyframe),
                 float((packet.duration or 0) * tb))
        if packet.stream.type == "video":
            video.packets.append(entry)
            if decode_video:
                frames += len(packet.decode())
        else:
            audio.packets.append(entry)
            for frame in packet.decode():
                if audio_start is None:
                    audio_start = float(frame.pts * frame.time_base)
                chunks.append(frame.to_ndarray().astype(np.float32).mean(axis=0))
    rate = vs.guessed_rate or vs.average_rate
    result = Probe(
        video=video, audio=audio, width=vs.codec_context.width, height=vs.codec_context.height,
        fps=float(rate) if rate else 0.0, sample_rate=aus.codec_context.sample_rate,
        channels=aus.codec_context.channels, pcm=np.concatenate(chunks) if chunks else np.zeros(0, np.float32),
        audio_start=audio_start or 0.0, frames_decoded=frames,
    )
    container.close()
    return result

"""Assertions on a stream read back from a server or a file: codecs, GOP, timestamps, continuity."""

from __future__ import annotations

import itertools

from tests.support.media import Probe

MS = 0.0015  # FLV timestamps are whole milliseconds


def assert_valid_stream(p: Probe, *, width: int, height: int, fps: int, sample_rate: int, gop_s: float = 2.0,
                        min_seconds: float = 2.0) -> None:
    assert p.video.codec == "h264" and p.video.profile == "High", (p.video.codec, p.video.profile)
    assert p.audio.codec == "aac" and p.audio.profile == "LC", (p.audio.codec, p.audio.profile)
    assert (p.width, p.height) == (width, height)
    assert abs(p.fps - fps) < 0.01, p.fps
    assert p.sample_rate == sample_rate and p.channels == 2
    assert p.video.duration >= min_seconds, p.video.duration
    assert p.video.packets[0][2], "the stream must start with a keyframe"

    keys = p.keyframe_times()
    assert len(keys) >= 1
    for a, b in itertools.pairwise(keys):
        assert abs((b - a) - gop_s) <= MS, f"keyframe interval {b - a:.3f}s at {a:.3f}s"

    for track in (p.video, p.audio):
        dts = [pk[1] for pk in track.packets]
        assert all(b >= a for a, b in itertools.pairwise(dts)), "DTS must be monotonic per track"
    vdts = [pk[1] for pk in p.video.packets]
    worst = max((b - a for a, b in itertools.pairwise(vdts)), default=0.0)
    assert worst <= 1.0 / fps + MS, f"video gap of {worst:.3f}s"
    apts = [pk[0] for pk in p.audio.packets]
    agap = max((b - a for a, b in itertools.pairwise(apts)), default=0.0)
    assert agap <= 1024 / sample_rate + MS, f"audio gap of {agap:.3f}s"
    assert abs(p.audio.duration - p.video.duration) <= 1.0 / fps + MS, (p.audio.duration, p.video.duration)

"""Idle life without a beat: the breath's pace drifts inside its bounds, and a neural source's forward-backward
loop turns at drawn frames and rests drawn whiles — both still pure functions of the frame number."""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

import numpy as np

from renderer.config import IdleConfig
from renderer.idle import IdleMotion, PingPong
from renderer.neural.prepare import SourceFrames

FPS = 25


def _breath_periods(motion: IdleMotion, seconds: float) -> list[float]:
    """Seconds between the starts of consecutive breaths, read off the rendered breath values (troughs)."""
    b = np.array([motion.pose(n, FPS).breath for n in range(int(seconds * FPS))])
    troughs = [i for i in range(1, len(b) - 1) if b[i] < b[i - 1] and b[i] <= b[i + 1]]
    return [(j - i) / FPS for i, j in itertools.pairwise(troughs)]


def test_breathing_has_no_single_period_and_stays_in_its_bounds() -> None:
    cfg = IdleConfig(breath_period_s=4.5, breath_jitter=0.2)
    periods = _breath_periods(IdleMotion(cfg, seed=7), 900)
    assert len(periods) > 150
    lo, hi = 4.5 / 1.2, 4.5 / 0.8
    assert min(periods) >= lo - 0.1 and max(periods) <= hi + 0.1
    assert statistics.pstdev(periods) > 0.2  # spread, not a beat
    assert max(periods) - min(periods) > 1.0
    # the knob: without jitter, one period
    still = _breath_periods(IdleMotion(IdleConfig(breath_period_s=4.5, breath_jitter=0.0), seed=7), 120)
    assert max(still) - min(still) <= 2 / FPS
    # still a pure function of the frame number
    m = IdleMotion(cfg, seed=7)
    forward = [m.pose(n, FPS).breath for n in range(0, 3000, 7)]
    backward = [m.pose(n, FPS).breath for n in reversed(range(0, 3000, 7))][::-1]
    assert forward == backward


def test_the_neural_loop_never_jumps_turns_at_drawn_frames_and_is_pure() -> None:
    loop = PingPong(150, 25, FPS, seed=99)
    seq = [loop.index(n) for n in range(25 * 600)]
    assert max(abs(a - b) for a, b in itertools.pairwise(seq)) == 1 and min(seq) >= 0 and max(seq) <= 149
    assert seq[:150] == list(range(150))  # the first leg plays the clip through
    moving = [i for i in range(1, len(seq)) if seq[i] != seq[i - 1]]
    turns = [seq[i] for i, j in itertools.pairwise(moving) if (seq[i] - seq[i - 1]) * (seq[j] - seq[j - 1]) < 0]
    assert len(set(turns)) > 10  # not always the clip's ends
    span = int(0.4 * 149 / 2)
    assert all(t <= span or t >= 149 - span for t in turns)  # each leg covers at least 60 % of the clip
    starts = [0, *[i for i, j in itertools.pairwise(moving) if (seq[i] - seq[i - 1]) * (seq[j] - seq[j - 1]) < 0]]
    legs = [b - a for a, b in itertools.pairwise(starts)]
    assert statistics.pstdev(legs) > 5 and len(set(legs)) > 10  # leg lengths differ: no period
    # pure: asked in any order (the renderer and the face planner ask seconds apart), the same frames
    other = PingPong(150, 25, FPS, seed=99)
    assert [other.index(n) for n in range(len(seq) - 1, -1, -13)] == seq[::-1][::13]
    # the legacy loop is the bounds' limit: whole legs, no rest
    legacy = PingPong(8, 25, FPS, seed=1, min_leg=1.0, hold_max_s=0.0)
    assert [legacy.index(n) for n in range(16)] == [0, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1, 0, 1]


def test_a_source_clip_loops_within_its_configured_bounds() -> None:
    frames = [np.zeros((4, 4, 3), np.uint8)] * 40
    src = SourceFrames(Path("a.mp4"), frames, 25.0, "ab" * 32, IdleConfig(loop_min_leg=0.9, loop_hold_max_s=0.0))
    seq = [src.loop_index(n, FPS) for n in range(5000)]
    span = int(0.1 * 39 / 2)
    turns = {seq[i] for i in range(1, len(seq) - 1) if (seq[i] - seq[i - 1]) * (seq[i + 1] - seq[i]) < 0}
    assert turns and all(t <= span or t >= 39 - span for t in turns)
    assert all(a != b for a, b in itertools.pairwise(seq))  # no rest configured: it never stands still
    photo = SourceFrames(Path("a.jpg"), frames[:1], 0.0, "cd" * 32)
    assert {photo.loop_index(n, FPS) for n in range(100)} == {0}

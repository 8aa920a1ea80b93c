"""Idle life is seeded and stateless: blink spacing 2-6 s with some doubles, smooth sway, same seed same motion."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from renderer_faces import draw_face_photo

from renderer.config import IdleConfig
from renderer.idle import IdleMotion
from renderer.landmarks import cascade_faces

FPS = 25


def _blink_starts(motion: IdleMotion, seconds: float) -> list[float]:
    """Frame times where the lid starts closing, found by sampling the pose like the renderer does."""
    closure = np.array([motion.pose(n, FPS).blink for n in range(int(seconds * FPS))])
    shut = closure > 0.5
    return [i / FPS for i in np.nonzero(shut[1:] & ~shut[:-1])[0] + 1]


def test_blinks_every_two_to_six_seconds_some_double() -> None:
    motion = IdleMotion(IdleConfig(), seed=11)
    starts = _blink_starts(motion, 600)
    gaps = np.diff(starts)
    doubles = gaps[gaps < 1.0]
    singles = gaps[gaps >= 1.0]
    assert doubles.min() >= 0.25 and doubles.max() <= 0.5  # a double blink: a quick second one
    assert len(doubles) >= 0.1 * len(starts)  # "sometimes"
    # Between blink groups: 2..6 s (the second of a double counts from its group's first blink).
    assert singles.min() >= 2.0 - 0.5 - 1 / FPS and singles.max() <= 6.0 + 1 / FPS
    assert singles.std() > 0.5  # random, not a metronome


def test_same_seed_same_motion_other_seed_other_motion() -> None:
    a, b, c = IdleMotion(IdleConfig(), 5), IdleMotion(IdleConfig(), 5), IdleMotion(IdleConfig(), 6)
    frames = [0, 1, 999, 123_456, 10**8]
    assert [a.pose(n, FPS) for n in frames] == [b.pose(n, FPS) for n in reversed(frames)][::-1]
    assert _blink_starts(a, 60) != _blink_starts(c, 60)


def test_sway_is_smooth_and_bounded() -> None:
    cfg = IdleConfig(sway_px=3, sway_deg=0.6)
    m = IdleMotion(cfg, 1)
    poses = [m.pose(n, FPS) for n in range(FPS * 120)]
    dx = np.array([p.dx for p in poses])
    roll = np.array([p.head_deg for p in poses])
    assert np.abs(dx).max() <= cfg.sway_px + 1e-9 and np.abs(roll).max() <= cfg.sway_deg + 1e-9
    assert np.abs(np.diff(dx)).max() < 0.2  # px per frame: no jumps
    assert np.abs(np.diff(roll)).max() < 0.05
    assert dx.std() > 0.5  # it does move
    breath = np.array([p.breath for p in poses])
    assert breath.min() >= 0 and breath.max() <= cfg.breath + 1e-12 and breath.std() > 0


@pytest.mark.parametrize(("w", "h"), [(1280, 720), (720, 1280), (854, 480)])
def test_test_photo_face_is_found_by_the_cascade(w: int, h: int) -> None:
    img, regions = draw_face_photo(w, h)
    found = cascade_faces(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert found
    fx, fy, fw, fh = regions["face"]
    x, y, bw, bh = max(found, key=lambda f: f[2] * f[3])
    assert abs((x + bw / 2) - (fx + fw / 2)) < fw * 0.2
    assert abs((y + bh / 2) - (fy + fh / 2)) < fh * 0.2

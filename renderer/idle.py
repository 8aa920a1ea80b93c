"""Idle life as a pure function of (frame number, seed): blinks, breathing, sway and speaking nods.

Nothing here keeps state between frames, so the media clock may repeat or skip renders and the
picture for frame n is always the same. Blinks come one per slot of (min+max)/2 seconds, jittered
inside the slot so consecutive blinks are blink_min_s..blink_max_s apart; some are doubled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from renderer.config import IdleConfig

_MASK = (1 << 64) - 1
# Blink shape in seconds: lid closes fast, holds, opens a little slower (as people blink).
_CLOSE_S, _HOLD_S, _OPEN_S = 0.07, 0.05, 0.13
_BLINK_S = _CLOSE_S + _HOLD_S + _OPEN_S
_DOUBLE_GAP_S = 0.32


def _mix(x: int) -> int:
    """splitmix64 finaliser: a well-spread 64-bit hash."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def unit(seed: int, *keys: int) -> float:
    """A deterministic number in [0, 1) for (seed, keys)."""
    h = _mix(seed & _MASK)
    for k in keys:
        h = _mix(h ^ (k & _MASK))
    return (h >> 11) / float(1 << 53)


def _lid(dt: float) -> float:
    """Closure 0..1 of one blink, dt seconds after it starts."""
    if dt < 0 or dt >= _BLINK_S:
        return 0.0
    if dt < _CLOSE_S:
        s = dt / _CLOSE_S
    elif dt < _CLOSE_S + _HOLD_S:
        return 1.0
    else:
        s = 1.0 - (dt - _CLOSE_S - _HOLD_S) / _OPEN_S
    return s * s * (3 - 2 * s)


@dataclass(frozen=True, slots=True)
class Pose:
    blink: float  # eyelid closure 0..1
    breath: float  # vertical scale - 1 of the upper body (e.g. +0.004)
    dx: float  # body sway in px at 720p (scaled by the avatar)
    dy: float
    head_deg: float  # head roll in degrees
    head_dx: float  # head offset relative to the body, px at 720p
    head_dy: float


class IdleMotion:
    def __init__(self, cfg: IdleConfig, seed: int):
        self.cfg = cfg
        self.seed = seed
        self.slot_s = (cfg.blink_min_s + cfg.blink_max_s) / 2
        self.jitter_s = (cfg.blink_max_s - cfg.blink_min_s) / 4
        # Incommensurate sway frequencies with seeded phases: smooth, never visibly periodic.
        self._phases = [unit(seed, 100 + i) * 2 * math.pi for i in range(8)]

    def blink_starts(self, slot: int) -> list[float]:
        """Start times (s) of the blink(s) in a slot; deterministic in (seed, slot)."""
        if slot < 0:
            return []
        centre = (slot + 0.5) * self.slot_s
        t0 = centre + (2 * unit(self.seed, 1, slot) - 1) * self.jitter_s
        starts = [max(t0, 0.0)]
        if unit(self.seed, 2, slot) < self.cfg.double_blink:
            starts.append(starts[0] + _DOUBLE_GAP_S)
        return starts

    def blink(self, t: float) -> float:
        slot = int(t // self.slot_s)
        c = 0.0
        for s in (slot - 1, slot):
            for start in self.blink_starts(s):
                c = max(c, _lid(t - start))
        return c

    def pose(self, n: int, fps: int, openness: float = 0.0) -> Pose:
        cfg, p = self.cfg, self._phases
        t = n / fps
        w = 2 * math.pi
        breath_phase = w * t / cfg.breath_period_s + p[0] + 0.3 * math.sin(w * t / 17.0 + p[1])
        breath = cfg.breath * 0.5 * (1 + math.sin(breath_phase))
        dx = cfg.sway_px * (0.6 * math.sin(w * 0.071 * t + p[2]) + 0.4 * math.sin(w * 0.163 * t + p[3]))
        dy = cfg.sway_px * 0.25 * math.sin(w * 0.097 * t + p[4])
        roll = cfg.sway_deg * (0.7 * math.sin(w * 0.053 * t + p[5]) + 0.3 * math.sin(w * 0.211 * t + p[6]))
        # While speaking the head moves a little with the voice; openness is already smoothed, so
        # speech starting or stopping never makes the head jump.
        nod = cfg.speak_nod * openness
        head_dy = nod * (0.8 + 0.2 * math.sin(w * 0.9 * t + p[7]))
        head_dx = 0.3 * dx
        return Pose(self.blink(t), breath, dx, dy, roll, head_dx, head_dy)

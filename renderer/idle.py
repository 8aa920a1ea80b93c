"""Idle life as a pure function of (frame number, seed): blinks, breathing, sway and speaking nods.

Nothing here keeps state between frames, so the media clock may repeat or skip renders and the
picture for frame n is always the same. Blinks come one per slot of (min+max)/2 seconds, jittered
inside the slot so consecutive blinks are blink_min_s..blink_max_s apart; some are doubled.

Breathing has no single period: its pace drifts (frequency modulation by three incommensurate, seeded
waves, integrated in closed form, so the phase is still a pure function of t), each breath lasting
between breath_period_s / (1 + breath_jitter) and breath_period_s / (1 - breath_jitter).
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
        # The breath's pace: f(t) = f0 (1 + jitter · Σ a_i sin(2π t / T_i + φ_i)), Σ a_i = 1, T_i a few breaths long.
        self._breath_waves = [(a, cfg.breath_period_s * k * (1 + 0.2 * unit(seed, 200 + i)), unit(seed, 300 + i) * 2 * math.pi)
                              for i, (a, k) in enumerate(((0.5, 2.3), (0.3, 3.7), (0.2, 6.1)))]

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

    def breath_phase(self, t: float) -> float:
        """2π times the breaths taken by time t (the integral of the drifting pace)."""
        cfg = self.cfg
        drift = sum(a * period / (2 * math.pi) * (math.cos(phi) - math.cos(2 * math.pi * t / period + phi))
                    for a, period, phi in self._breath_waves)
        return 2 * math.pi * (t + cfg.breath_jitter * drift) / cfg.breath_period_s + self._phases[0]

    def pose(self, n: int, fps: int, openness: float = 0.0) -> Pose:
        cfg, p = self.cfg, self._phases
        t = n / fps
        w = 2 * math.pi
        breath = cfg.breath * 0.5 * (1 + math.sin(self.breath_phase(t)))
        dx = cfg.sway_px * (0.6 * math.sin(w * 0.071 * t + p[2]) + 0.4 * math.sin(w * 0.163 * t + p[3]))
        dy = cfg.sway_px * 0.25 * math.sin(w * 0.097 * t + p[4])
        roll = cfg.sway_deg * (0.7 * math.sin(w * 0.053 * t + p[5]) + 0.3 * math.sin(w * 0.211 * t + p[6]))
        # While speaking the head moves a little with the voice; openness is already smoothed, so
        # speech starting or stopping never makes the head jump.
        nod = cfg.speak_nod * openness
        head_dy = nod * (0.8 + 0.2 * math.sin(w * 0.9 * t + p[7]))
        head_dx = 0.3 * dx
        return Pose(self.blink(t), breath, dx, dy, roll, head_dx, head_dy)


class PingPong:
    """Which frame of a source clip (`count` frames at `src_fps`) shows at stage frame n: forward, then back, then
    forward again, never a jump — but each leg turns at a drawn frame (leaving at least `min_leg` of the clip) and
    may rest there up to `hold_max_s`, so the loop has no period. Leg j's turn and rest depend on (seed, j) alone,
    so the answer is a pure function of n; a cursor on the last leg asked makes nearby frames O(1) to find (the
    renderer and the face planner ask a few seconds apart; going back steps back leg by leg)."""

    def __init__(self, count: int, src_fps: float, stage_fps: float, seed: int, *, min_leg: float = 0.6,
                 hold_max_s: float = 0.4) -> None:
        self.count = count
        self.ratio = src_fps / stage_fps if stage_fps > 0 else 0.0
        self.seed = seed
        self.span = int((1.0 - min_leg) * (count - 1) / 2)
        self.hold_max = round(hold_max_s * src_fps)
        self._cursor = (0, 1)  # (leg, its first tick): tick 0 shows frame 0, leg 0 starts at tick 1

    def _end(self, j: int) -> int:
        if j < 0:
            return 0
        r = int(unit(self.seed, 7, j) * (self.span + 1)) if j > 0 else 0
        return r if j % 2 else self.count - 1 - r

    def _length(self, j: int) -> int:
        """Ticks of leg j: its moves, then its rest at the turn."""
        hold = int(unit(self.seed, 8, j) * (self.hold_max + 1))
        return abs(self._end(j) - self._end(j - 1)) + hold

    def index(self, n: int) -> int:
        if self.count <= 1 or self.ratio <= 0:
            return 0
        k = math.floor(n * self.ratio)
        if k <= 0:
            return 0
        j, start = self._cursor
        while k < start:
            j -= 1
            start -= self._length(j)
        while k >= start + self._length(j):
            start += self._length(j)
            j += 1
        self._cursor = (j, start)
        s, e = self._end(j - 1), self._end(j)
        moved = min(k - start + 1, abs(e - s))
        return s + moved if e > s else s - moved

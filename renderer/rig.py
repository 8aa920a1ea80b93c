"""A layered 2-D rig (body, optional rotating head, eye and mouth patches) and its per-frame drawing.

The sprite avatar and the built-in avatar both become a Rig at load time, already scaled to the
canvas; per frame the rig only copies rows, blends small patches and (for a head layer) warps one
head-sized patch, which keeps a 720p frame within a few milliseconds on one core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from renderer.base import FrameState, Viseme
from renderer.idle import Pose
from renderer.layers import Layer, blend, row_runs

# Below this openness the mouth shows its closed shape; between it and _OPEN_FULL it crossfades.
_CLOSED_BELOW = 0.06
_OPEN_FULL = 0.16
_BAND = 32  # rows per band when blending the body

Rect = tuple[int, int, int, int]  # x, y, w, h in canvas px


def premul_layer(bgra_premul: np.ndarray, x: int = 0, y: int = 0, channels: int = 3) -> Layer:
    """A Layer from premultiplied BGRA; channels=4 keeps alpha (to blend into another premultiplied layer)."""
    a = bgra_premul[..., 3:4]
    inv = np.repeat(255 - a, channels, axis=2)
    premul = bgra_premul if channels == 4 else bgra_premul[..., :3]
    return Layer(np.ascontiguousarray(premul), np.ascontiguousarray(inv), x, y)


def common_box(images: list[np.ndarray]) -> tuple[int, int, int, int]:
    """The union bounding box (x0, y0, x1, y1) of the non-transparent pixels of same-size BGRA images."""
    acc = np.zeros(images[0].shape[:2], bool)
    for im in images:
        acc |= im[..., 3] > 0
    if not acc.any():
        return 0, 0, 1, 1
    ys, xs = np.nonzero(acc)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def crop_layers(images: list[np.ndarray], channels: int, origin: tuple[int, int] = (0, 0)) -> list[Layer]:
    """Same-size premultiplied BGRA images -> Layers cropped to one shared box (so any two can be mixed)."""
    x0, y0, x1, y1 = common_box(images)
    return [premul_layer(im[y0:y1, x0:x1], x0 - origin[0], y0 - origin[1], channels) for im in images]


@dataclass
class Rig:
    base: Layer  # BGR premultiplied body (everything that does not rotate), at (0, 0) of the rig box
    eyes: list[Layer]  # blink levels, open -> closed, sharing one box
    mouth_closed: Layer
    mouths: dict[int, list[Layer]]  # per Viseme: openness levels (small -> wide), sharing the mouth box
    head: np.ndarray | None = None  # premultiplied BGRA of the head (eyes/mouth are blended into it)
    head_xy: tuple[int, int] = (0, 0)
    pivot: tuple[float, float] = (0.0, 0.0)  # rotation centre, in head coordinates
    bounce_px: float = 0.0  # sprite bounce while speaking (px of the rig)
    scale: float = 1.0  # rig px per 720p px, for idle amplitudes
    size: tuple[int, int] = field(default=(0, 0))  # (w, h)

    def __post_init__(self) -> None:
        self.size = (self.base.w, self.base.h)
        missing = [v.name for v in Viseme if v != Viseme.CLOSED and v not in self.mouths]
        if missing:
            raise ValueError(f"rig lacks mouths for visemes {missing}")


class _Mixer:
    """Crossfades two same-box layers into reusable buffers (no allocation per frame)."""

    def __init__(self, like: Layer):
        self.premul = np.empty_like(like.premul)
        self.inv = np.empty_like(like.inv)

    def mix(self, a: Layer, b: Layer, f: float) -> Layer:
        if f <= 0.02:
            return a
        if f >= 0.98:
            return b
        cv2.addWeighted(a.premul, 1 - f, b.premul, f, 0, dst=self.premul)
        cv2.addWeighted(a.inv, 1 - f, b.inv, f, 0, dst=self.inv)
        return Layer(self.premul, self.inv, a.x, a.y)


def _pick(levels: list[Layer], pos: float, mixer: _Mixer) -> Layer:
    pos = min(max(pos, 0.0), len(levels) - 1.0)
    i = int(pos)
    if i >= len(levels) - 1:
        return levels[-1]
    return mixer.mix(levels[i], levels[i + 1], pos - i)


class RigRenderer:
    """Draws a Rig into a canvas region at (x, y) for a frame state and an idle pose."""

    def __init__(self, rig: Rig, x: int, y: int, max_breath: float = 0.05):
        self.rig, self.x, self.y = rig, x, y
        _, h = rig.size
        # Per band of rows, the columns that hold anything: the body is blended only there. Bands are
        # widened by the most rows breathing can shift.
        margin = math.ceil(max_breath * h) + 2
        covered = rig.base.inv[..., 0] < 255
        self._bands: list[tuple[int, int] | None] = []
        for b in range(0, h, _BAND):
            cols = np.nonzero(covered[max(0, b - margin) : b + _BAND + margin].any(axis=0))[0]
            self._bands.append((int(cols[0]), int(cols[-1]) + 1) if cols.size else None)
        self._eye_mix = _Mixer(rig.eyes[0])
        self._mouth_mix = _Mixer(rig.mouth_closed)
        self._mouth_mix2 = _Mixer(rig.mouth_closed)
        if rig.head is not None:
            self._head_work = np.empty_like(rig.head)
            self._head_warp = np.empty_like(rig.head)
            hh, hw = rig.head.shape[:2]
            self._head_inv1 = np.empty((hh, hw), np.uint8)
            self._head_p3 = np.empty((hh, hw, 3), np.uint8)
            self._head_i3 = np.empty((hh, hw, 3), np.uint8)
        self._runs_cache: dict[int, tuple[tuple[int, int, int], ...]] = {}

    def mouth(self, openness: float, viseme: int) -> Layer:
        rig = self.rig
        shape = rig.mouths.get(viseme if viseme != Viseme.CLOSED else Viseme.E) or rig.mouths[Viseme.E]
        if openness <= _CLOSED_BELOW:
            return rig.mouth_closed
        pos = (openness - _CLOSED_BELOW) / (1 - _CLOSED_BELOW) * (len(shape) - 1)
        open_layer = _pick(shape, pos, self._mouth_mix)
        if openness >= _OPEN_FULL:
            return open_layer
        f = (openness - _CLOSED_BELOW) / (_OPEN_FULL - _CLOSED_BELOW)
        return self._mouth_mix2.mix(rig.mouth_closed, open_layer, f)

    def eyes(self, blink: float) -> Layer:
        return _pick(self.rig.eyes, blink * (len(self.rig.eyes) - 1), self._eye_mix)

    def _runs(self, breath: float) -> tuple[tuple[int, int, int], ...]:
        # Quantised to whole pixels of lift at the top: nearest-row copies move in whole pixels anyway,
        # and an unchanged row map lets the compositor reuse the drawn body for many frames.
        h = self.rig.size[1]
        q = round(breath * h)
        runs = self._runs_cache.get(q)
        if runs is None:
            runs = tuple(row_runs(h, h, 1 + q / h, h - 1))
            if len(self._runs_cache) > 256:
                self._runs_cache.clear()
            self._runs_cache[q] = runs
        return runs

    def body_key(self, state: FrameState, pose: Pose) -> tuple[int, int, tuple[tuple[int, int, int], ...]]:
        """What the body's pixels depend on: its integer place and its breathing row map."""
        rig = self.rig
        bounce = 0.0
        if rig.bounce_px:
            bounce = rig.bounce_px * min(1.0, state.openness * 1.5) * abs(math.sin(math.pi * 2.2 * state.t))
        ox = self.x + round(pose.dx * rig.scale)
        oy = self.y + round(pose.dy * rig.scale - bounce)
        return ox, oy, self._runs(pose.breath)

    def draw_body(self, canvas: np.ndarray, key: tuple[int, int, tuple[tuple[int, int, int], ...]]) -> None:
        """The body, row run by row run (breathing = a vertical scale about the bottom row), each run
        cut into bands and blended only across the band's covered columns."""
        ox, oy, runs = key
        premul, inv = self.rig.base.premul, self.rig.base.inv
        for out0, src0, n in runs:
            r, end = out0, out0 + n
            while r < end:
                b = r // _BAND
                r_end = min(end, (b + 1) * _BAND)
                cols = self._bands[b]
                if cols is not None:
                    c0, c1 = cols
                    s0 = src0 + r - out0
                    s1 = s0 + r_end - r
                    blend(canvas, premul[s0:s1, c0:c1], inv[s0:s1, c0:c1], ox + c0, oy + r)
                r = r_end

    def render_into(self, canvas: np.ndarray, state: FrameState, pose: Pose) -> None:
        key = self.body_key(state, pose)
        self.draw_body(canvas, key)
        self.draw_features(canvas, state, pose, key)

    def draw_features(
        self,
        canvas: np.ndarray,
        state: FrameState,
        pose: Pose,
        key: tuple[int, int, tuple[tuple[int, int, int], ...]],
    ) -> list[Rect]:
        """Eyes, mouth and (if the rig has one) the rotating head, over an already drawn body; returns the
        canvas rectangles drawn into (unclipped), so a compositor can restore just those."""
        rig = self.rig
        s = rig.scale
        h = rig.size[1]
        ox, oy, _ = key
        breath = pose.breath
        eyes = self.eyes(pose.blink)
        mouth = self.mouth(state.openness, int(state.viseme))
        if rig.head is None:
            # No separate head: the features ride on the body, lifted as breathing lifts their rows.
            drawn = []
            for lay in (eyes, mouth):
                lift = round(breath * (h - 1 - lay.y))
                blend(canvas, lay.premul, lay.inv, ox + lay.x, oy + lay.y - lift)
                drawn.append((ox + lay.x, oy + lay.y - lift, lay.w, lay.h))
            return drawn
        hw = self._head_work
        np.copyto(hw, rig.head)
        blend(hw, eyes.premul, eyes.inv, eyes.x, eyes.y)
        blend(hw, mouth.premul, mouth.inv, mouth.x, mouth.y)
        hx, hy = rig.head_xy
        px, py = rig.pivot
        lift = breath * (h - 1 - (hy + py))
        # Integer part of the head's place goes into the blend position; the fraction, the roll and the
        # nod go into one small warp of the head patch.
        fx = pose.head_dx * s
        fy = pose.head_dy * s - lift
        ix, iy = math.floor(fx), math.floor(fy)
        m = cv2.getRotationMatrix2D((px, py), pose.head_deg, 1.0)
        m[0, 2] += fx - ix
        m[1, 2] += fy - iy
        cv2.warpAffine(hw, m, (hw.shape[1], hw.shape[0]), dst=self._head_warp, flags=cv2.INTER_LINEAR)
        cv2.bitwise_not(self._head_warp[..., 3], dst=self._head_inv1)
        cv2.cvtColor(self._head_warp, cv2.COLOR_BGRA2BGR, dst=self._head_p3)
        cv2.cvtColor(self._head_inv1, cv2.COLOR_GRAY2BGR, dst=self._head_i3)
        blend(canvas, self._head_p3, self._head_i3, ox + hx + ix, oy + hy + iy)
        return [(ox + hx + ix, oy + hy + iy, hw.shape[1], hw.shape[0])]

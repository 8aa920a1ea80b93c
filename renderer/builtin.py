"""The built-in avatar: a stylised anchor (head, hair, upper body) drawn by our own code into a Rig.

Everything is drawn with OpenCV primitives at 2x and reduced with area filtering, once at load:
body, head, five blink levels and, per viseme, several mouth openings. Drawing onto a transparent
BGRA canvas with anti-aliasing yields premultiplied colour, which is what the Rig expects.
"""

from __future__ import annotations

import cv2
import numpy as np

from renderer.base import Viseme
from renderer.config import BuiltinStyle, parse_colour
from renderer.rig import Rig, common_box, crop_layers

SS = 2  # supersampling factor for drawing
_MOUTH_LEVELS = 7
_EYE_LEVELS = 6

# Per viseme: (width, max height) of the opening in units of the head height H, and whether the
# upper teeth and the tongue show.
_MOUTH_SHAPES: dict[int, tuple[float, float, bool, bool]] = {
    Viseme.A: (0.058, 0.046, True, True),
    Viseme.I: (0.070, 0.020, True, False),
    Viseme.U: (0.030, 0.030, False, False),
    Viseme.E: (0.062, 0.034, True, True),
    Viseme.O: (0.040, 0.044, False, True),
}


def _c(colour: str, k: float = 1.0) -> tuple[int, int, int, int]:
    b, g, r, a = parse_colour(colour)
    return (min(255, int(b * k)), min(255, int(g * k)), min(255, int(r * k)), a)


class _Pen:
    """Drawing in units of the rig height, on a supersampled BGRA canvas."""

    def __init__(self, w: int, h: int, unit: float):
        self.img = np.zeros((h * SS, w * SS, 4), np.uint8)
        self.u = unit * SS
        self.cx = w * SS / 2

    def p(self, x: float, y: float) -> tuple[int, int]:
        return round(self.cx + x * self.u), round(y * self.u)

    def r(self, v: float) -> int:
        return max(1, round(v * self.u))

    def ellipse(self, x, y, rx, ry, colour, angle=0.0, start=0, end=360, thick=-1) -> None:
        t = thick if thick < 0 else self.r(thick)
        cv2.ellipse(
            self.img, self.p(x, y), (self.r(rx), self.r(ry)), angle, start, end, colour, t, cv2.LINE_AA
        )

    def poly(self, pts, colour) -> None:
        arr = np.array([self.p(x, y) for x, y in pts], np.int32)
        cv2.fillPoly(self.img, [arr], colour, cv2.LINE_AA)

    def polyline(self, pts, colour, thick) -> None:
        arr = np.array([self.p(x, y) for x, y in pts], np.int32)
        cv2.polylines(self.img, [arr], False, colour, self.r(thick), cv2.LINE_AA)

    def done(self) -> np.ndarray:
        h, w = self.img.shape[0] // SS, self.img.shape[1] // SS
        return cv2.resize(self.img, (w, h), interpolation=cv2.INTER_AREA)


def _arc(cx, cy, rx, ry, a0, a1, n=24) -> list[tuple[float, float]]:
    t = np.linspace(np.radians(a0), np.radians(a1), n)
    return [(cx + rx * np.cos(v), cy + ry * np.sin(v)) for v in t]


# Face geometry in units of H (the rig height), x relative to the centre line.
_HEAD_Y, _FACE_RX, _FACE_RY = 0.30, 0.150, 0.175
_EYE_Y, _EYE_DX = 0.315, 0.068
_MOUTH_Y = 0.415


def _face_outline() -> list[tuple[float, float]]:
    # Rounded top, cheeks narrowing to a soft chin.
    top = _arc(0, _HEAD_Y, _FACE_RX, _FACE_RY, 180, 360, 30)
    right = [(_FACE_RX * 0.98, _HEAD_Y + 0.05), (_FACE_RX * 0.80, _HEAD_Y + 0.12), (0.05, _HEAD_Y + 0.165)]
    chin = _arc(0, _HEAD_Y + 0.150, 0.055, 0.03, 20, 160, 9)
    left = [(-0.05, _HEAD_Y + 0.165), (-_FACE_RX * 0.80, _HEAD_Y + 0.12), (-_FACE_RX * 0.98, _HEAD_Y + 0.05)]
    return top + right + chin + left


def _draw_body(pen: _Pen, st: BuiltinStyle) -> None:
    skin, outfit, accent = _c(st.skin), _c(st.outfit), _c(st.accent)
    shade = _c(st.skin, 0.86)
    # Back hair lives behind the neck, so it belongs to the body layer (it barely moves with the head).
    back = _arc(0, _HEAD_Y - 0.01, 0.20, 0.21, 180, 360, 30)
    back += [
        (0.21, 0.48),
        (0.20, 0.56),
        (0.16, 0.60),
        (0.10, 0.58),
        (-0.10, 0.58),
        (-0.16, 0.60),
        (-0.20, 0.56),
        (-0.21, 0.48),
    ]
    pen.poly(back, _c(st.hair, 0.75))
    pen.poly([(-0.045, 0.40), (0.045, 0.40), (0.05, 0.60), (-0.05, 0.60)], skin)  # neck
    pen.poly([(-0.045, 0.46), (0.045, 0.46), (0.045, 0.50), (0, 0.53), (-0.045, 0.50)], shade)
    torso = [
        (-0.09, 0.55),
        (0.09, 0.55),
        (0.27, 0.63),
        (0.36, 0.74),
        (0.40, 1.01),
        (-0.40, 1.01),
        (-0.36, 0.74),
        (-0.27, 0.63),
    ]
    pen.poly(torso, outfit)
    pen.poly([(-0.09, 0.55), (0, 0.66), (0.09, 0.55), (0.05, 0.55), (0, 0.60), (-0.05, 0.55)], skin)
    pen.poly([(-0.10, 0.55), (-0.02, 0.70), (-0.16, 0.62)], accent)  # collar
    pen.poly([(0.10, 0.55), (0.02, 0.70), (0.16, 0.62)], accent)
    pen.ellipse(0, 0.80, 0.012, 0.012, accent)
    pen.ellipse(0, 0.90, 0.012, 0.012, accent)
    pen.polyline([(-0.22, 0.78), (-0.25, 1.0)], _c(st.outfit, 0.8), 0.006)
    pen.polyline([(0.22, 0.78), (0.25, 1.0)], _c(st.outfit, 0.8), 0.006)


def _draw_head(pen: _Pen, st: BuiltinStyle) -> None:
    skin, hair = _c(st.skin), _c(st.hair)
    pen.ellipse(-_FACE_RX, _EYE_Y + 0.03, 0.022, 0.034, skin)  # ears
    pen.ellipse(_FACE_RX, _EYE_Y + 0.03, 0.022, 0.034, skin)
    pen.poly(_face_outline(), skin)
    pen.ellipse(-0.085, 0.375, 0.030, 0.016, (150, 140, 235, 90))  # blush (BGRA premultiplied-ish pink)
    pen.ellipse(0.085, 0.375, 0.030, 0.016, (150, 140, 235, 90))
    # Fringe: a cap over the forehead with pointed locks.
    cap = _arc(0, _HEAD_Y - 0.005, 0.165, 0.19, 180, 360, 30)
    locks = [
        (0.165, _HEAD_Y + 0.04),
        (0.13, 0.27),
        (0.10, 0.24),
        (0.07, 0.285),
        (0.03, 0.235),
        (-0.01, 0.28),
        (-0.05, 0.235),
        (-0.09, 0.275),
        (-0.12, 0.24),
        (-0.15, 0.30),
        (-0.165, _HEAD_Y + 0.05),
    ]
    pen.poly(cap + locks, hair)
    pen.poly([(-0.165, 0.30), (-0.19, 0.47), (-0.15, 0.44), (-0.14, 0.33)], hair)  # side locks
    pen.poly([(0.165, 0.30), (0.19, 0.47), (0.15, 0.44), (0.14, 0.33)], hair)
    pen.polyline(_arc(-0.05, 0.20, 0.09, 0.07, 200, 250, 8), _c(st.hair, 1.3), 0.006)  # shine
    brow = _c(st.hair, 0.8)
    pen.polyline(_arc(-_EYE_DX, _EYE_Y - 0.02, 0.032, 0.018, 205, 320, 10), brow, 0.006)
    pen.polyline(_arc(_EYE_DX, _EYE_Y - 0.02, 0.032, 0.018, 220, 335, 10), brow, 0.006)
    pen.polyline([(0.004, 0.36), (-0.004, 0.375), (0.004, 0.378)], _c(st.skin, 0.72), 0.004)  # nose


def _draw_eyes(pen: _Pen, st: BuiltinStyle, closure: float) -> None:
    skin, iris = _c(st.skin), _c(st.eyes)
    lash = (40, 30, 35, 255)
    rx, ry = 0.034, 0.030
    for side in (-1, 1):
        x = side * _EYE_DX
        pen.ellipse(x, _EYE_Y + 0.01, rx, ry, (250, 250, 252, 255))
        pen.ellipse(x, _EYE_Y + 0.012, 0.021, 0.028, iris)
        pen.ellipse(x, _EYE_Y + 0.004, 0.021, 0.018, _c(st.eyes, 0.6), start=180, end=360)
        pen.ellipse(x, _EYE_Y + 0.014, 0.010, 0.013, (30, 25, 30, 255))
        pen.ellipse(x + 0.008, _EYE_Y + 0.0, 0.006, 0.006, (255, 255, 255, 255))
        pen.ellipse(x - 0.007, _EYE_Y + 0.022, 0.003, 0.003, (255, 255, 255, 255))
        top = _EYE_Y + 0.01 - ry
        if closure > 0:
            # The lid: skin covering the eye from the top down to the lid line, which the lashes follow.
            lid_y = top + closure * 2 * ry
            pen.poly(
                [
                    *_arc(x, _EYE_Y + 0.01, rx + 0.004, ry + 0.004, 180, 360, 20),
                    (x + rx + 0.004, lid_y),
                    (x - rx - 0.004, lid_y),
                ],
                skin,
            )
            below = max(0.0, 2 * ry - closure * 2 * ry)
            if closure >= 0.999:
                pen.polyline(_arc(x, lid_y - 0.012, rx, 0.012, 20, 160, 12), lash, 0.007)
            else:
                pen.polyline(
                    _arc(x, lid_y + below * 0.1, rx, 0.004 + below * 0.15, 180, 360, 12), lash, 0.008
                )
        else:
            pen.polyline(_arc(x, _EYE_Y + 0.01, rx + 0.002, ry + 0.002, 195, 345, 14), lash, 0.009)
        pen.polyline(
            [(x + side * (rx - 0.002), top + ry * 0.6), (x + side * (rx + 0.012), top + ry * 0.2)],
            lash,
            0.006,
        )


def _draw_mouth(pen: _Pen, viseme: int | None, level: float) -> None:
    lip = (110, 110, 205, 255)
    if viseme is None:
        pen.polyline(_arc(0, _MOUTH_Y - 0.012, 0.026, 0.012, 25, 155, 12), (80, 70, 150, 255), 0.006)
        return
    w, hmax, teeth, tongue = _MOUTH_SHAPES[viseme]
    h = hmax * (0.2 + 0.8 * level)
    top = _MOUTH_Y - h * 0.2
    # Upper edge flatter than the lower one: reads as an open, smiling mouth.
    outline = _arc(0, top, w / 2, h * 0.22, 180, 360, 16)[::-1] + _arc(0, top, w / 2, h, 0, 180, 20)
    pen.poly(outline, lip)
    inner = [(x * 0.86, top + (y - top) * 0.86) for x, y in outline]
    pen.poly(inner, (45, 30, 75, 255))
    if tongue:
        pen.ellipse(0, top + h * 0.78, w * 0.26, h * 0.22, (120, 110, 225, 255))
    if teeth:
        pen.poly(
            [(x, y) for x, y in inner if y <= top + h * 0.12]
            + [(w * 0.36, top + h * 0.16), (-w * 0.36, top + h * 0.16)],
            (245, 245, 250, 255),
        )


def build_builtin_rig(style: BuiltinStyle, height: int) -> Rig:
    """The built-in anchor as a Rig `height` px tall (width 0.8 of that)."""
    h = max(64, int(height))
    w = round(h * 0.8) // 2 * 2
    unit = float(h)

    body_pen = _Pen(w, h, unit)
    _draw_body(body_pen, style)
    body = body_pen.done()

    head_pen = _Pen(w, h, unit)
    _draw_head(head_pen, style)
    head_full = head_pen.done()

    eye_imgs = []
    for i in range(_EYE_LEVELS):
        pen = _Pen(w, h, unit)
        _draw_eyes(pen, style, i / (_EYE_LEVELS - 1))
        eye_imgs.append(pen.done())
    mouth_imgs: list[np.ndarray] = []
    pen = _Pen(w, h, unit)
    _draw_mouth(pen, None, 0)
    mouth_imgs.append(pen.done())
    for v in _MOUTH_SHAPES:
        for i in range(_MOUTH_LEVELS):
            pen = _Pen(w, h, unit)
            _draw_mouth(pen, v, i / (_MOUTH_LEVELS - 1))
            mouth_imgs.append(pen.done())

    # The head patch: the drawn head and features plus a margin so roll and nod never clip them;
    # no larger, since it is warped every frame.
    bx0, by0, bx1, by1 = common_box([head_full, *eye_imgs, *mouth_imgs])
    margin = int(0.025 * h) + 2
    x0, y0 = max(0, bx0 - margin), max(0, by0 - margin)
    x1, y1 = min(w, bx1 + margin), min(h, by1 + margin)
    head = np.ascontiguousarray(head_full[y0:y1, x0:x1])
    eyes = crop_layers(eye_imgs, 4, origin=(x0, y0))
    mouths_all = crop_layers(mouth_imgs, 4, origin=(x0, y0))
    mouths: dict[int, list] = {}
    for k, v in enumerate(_MOUTH_SHAPES):
        mouths[v] = mouths_all[1 + k * _MOUTH_LEVELS : 1 + (k + 1) * _MOUTH_LEVELS]
    from renderer.rig import premul_layer

    return Rig(
        base=premul_layer(body),
        eyes=eyes,
        mouth_closed=mouths_all[0],
        mouths=mouths,
        head=head,
        head_xy=(x0, y0),
        pivot=(w / 2 - x0, 0.50 * h - y0),
        scale=h / 720 / 0.92,
    )

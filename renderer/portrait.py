"""The portrait avatar: one photo animated through its own facial landmarks (lips, lids, jaw move; nothing is drawn on).

At load: landmarks come from renderer.landmarks (face mesh, cache or the operator's file); the photo
is placed on the canvas; for every viseme and openness level a piecewise-affine warp of a landmark
mesh over lips, chin and jaw is rendered into one small patch, with the opening between the inner
lips shaded from the photo's own colours; blink levels warp the upper lid's skin down over the eye.
Per frame: paste two small patches (crossfading neighbouring levels), copy the photo, and warp only
the head region (sway, roll, nod, breath), blended back through a feathered mask; the background
never moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from renderer.background import read_image, to_bgr
from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig
from renderer.errors import AvatarError
from renderer.idle import Pose
from renderer.landmarks import Landmarks, find_landmarks
from renderer.layers import feather_mask

_MOUTH_LEVELS = 10  # openness levels per viseme (level 0 is the untouched photo)
_EYE_LEVELS = 6  # blink levels (0 = open)
_CLOSED_BELOW = 0.05
_MIN_FACE_PX = 40  # face height on the canvas below which the mouth cannot be animated believably


@dataclass(frozen=True)
class Shape:
    """A viseme's mouth at full openness, in face heights: lower-lip drop, upper-lip lift, width change."""

    drop: float
    lift: float
    widen: float  # + spreads the corners, - rounds the mouth
    teeth: bool  # upper teeth show (painted only when the photo's mouth is closed)


SHAPES: dict[int, Shape] = {
    Viseme.A: Shape(0.085, 0.010, 0.00, True),
    Viseme.I: Shape(0.032, 0.008, 0.10, True),
    Viseme.U: Shape(0.040, 0.006, -0.20, False),
    Viseme.E: Shape(0.055, 0.010, 0.06, True),
    Viseme.O: Shape(0.070, 0.008, -0.15, False),
}


class FaceFrame:
    """The face's own axes: u along the eye line (photo left -> right), v down the face; origin at the mouth."""

    def __init__(self, lm: Landmarks):
        le = (lm.p("left_eye_outer") + lm.p("left_eye_inner")) / 2
        re = (lm.p("right_eye_outer") + lm.p("right_eye_inner")) / 2
        a = math.atan2(float(re[1] - le[1]), float(re[0] - le[0]))
        c, s = math.cos(a), math.sin(a)
        self.rot = np.array([[c, s], [-s, c]], np.float64)  # photo -> local
        self.origin = lm.mouth_centre.astype(np.float64)
        self.angle = a

    def local(self, p: np.ndarray) -> np.ndarray:
        return (np.asarray(p, np.float64) - self.origin) @ self.rot.T

    def photo(self, q: np.ndarray) -> np.ndarray:
        return np.asarray(q, np.float64) @ self.rot + self.origin


def _curve(frame: FaceFrame, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A contour in local coordinates as (u sorted, v) for np.interp."""
    q = frame.local(pts)
    order = np.argsort(q[:, 0], kind="stable")
    return q[order, 0], q[order, 1]


def _smooth(x: np.ndarray | float) -> np.ndarray:
    t = np.clip(x, 0.0, 1.0)
    return t * t * (3 - 2 * t)


def warp_maps(
    pairs: list[tuple[np.ndarray, np.ndarray]], rect: tuple[int, int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Backward maps (map_x, map_y) over rect (x0, y0, x1, y1) of a piecewise-affine warp.

    Each pair is (src, dst) grids of shape (rows, cols, 2) in photo px with the same topology; every
    grid quad is split into two triangles and each destination triangle samples its source triangle.
    Pixels outside all triangles map to themselves, so a grid whose outer ring does not move leaves
    everything around it untouched.
    """
    x0, y0, x1, y1 = rect
    X, Y = np.meshgrid(np.arange(x0, x1, dtype=np.float32), np.arange(y0, y1, dtype=np.float32))
    map_x, map_y = X.copy(), Y.copy()
    for src, dst in pairs:
        rows, cols = src.shape[:2]
        for r in range(rows - 1):
            for c in range(cols - 1):
                for tri in (((r, c), (r, c + 1), (r + 1, c + 1)), ((r, c), (r + 1, c + 1), (r + 1, c))):
                    d = np.array([dst[i] for i in tri], np.float64)
                    s = np.array([src[i] for i in tri], np.float64)
                    e1, e2 = d[1] - d[0], d[2] - d[0]
                    det = e1[0] * e2[1] - e1[1] * e2[0]
                    if abs(det) < 1e-6 or np.allclose(d, s, atol=1e-4):
                        continue  # empty, or not moving (the map is already the identity there)
                    bx0 = max(math.floor(d[:, 0].min()) - x0, 0)
                    bx1 = min(math.ceil(d[:, 0].max()) + 1 - x0, x1 - x0)
                    by0 = max(math.floor(d[:, 1].min()) - y0, 0)
                    by1 = min(math.ceil(d[:, 1].max()) + 1 - y0, y1 - y0)
                    if bx0 >= bx1 or by0 >= by1:
                        continue
                    px = X[by0:by1, bx0:bx1] - d[0, 0]
                    py = Y[by0:by1, bx0:bx1] - d[0, 1]
                    # Barycentric coordinates of every pixel in the box.
                    b1 = (px * e2[1] - py * e2[0]) / det
                    b2 = (e1[0] * py - e1[1] * px) / det
                    inside = (b1 >= -1e-3) & (b2 >= -1e-3) & (b1 + b2 <= 1 + 1e-3)
                    if not inside.any():
                        continue
                    sx = s[0, 0] + b1 * (s[1, 0] - s[0, 0]) + b2 * (s[2, 0] - s[0, 0])
                    sy = s[0, 1] + b1 * (s[1, 1] - s[0, 1]) + b2 * (s[2, 1] - s[0, 1])
                    mx = map_x[by0:by1, bx0:bx1]
                    my = map_y[by0:by1, bx0:bx1]
                    mx[inside] = sx[inside]
                    my[inside] = sy[inside]
    return map_x, map_y


class PortraitFigure:
    def __init__(
        self,
        path: Path,
        face_box: tuple[int, int, int, int] | None,
        box: tuple[int, int, int, int],
        width: int,
        height: int,
        cfg: AvatarConfig,
        *,
        landmarks_file: Path | None = None,
        cache_dir: Path | None = None,
    ):
        photo = to_bgr(read_image(path, "avatar.path", cv2.IMREAD_COLOR))
        ph, pw = photo.shape[:2]
        if face_box is not None:
            x, y, w, h = face_box
            if x + w > pw or y + h > ph:
                raise AvatarError(
                    f"avatar.face_box {list(face_box)} lies outside the photo {str(path)!r} ({pw}x{ph})"
                )
        self.photo_landmarks = find_landmarks(
            path, photo, face_box=face_box, landmarks_file=landmarks_file, cache_dir=cache_dir
        )
        self.path = path
        self.scale = height / 720
        self._place(photo, box, cfg.layout.fit)
        fh = self.lm.face_height
        if fh < _MIN_FACE_PX:
            raise AvatarError(
                f"avatar.path: the face in {str(path)!r} is only {fh:.0f} px tall on the {width}x{height} "
                f"canvas (at least {_MIN_FACE_PX} needed); crop the photo closer to the face, or set "
                f"avatar.layout.fit: cover"
            )
        self.covers_canvas = self.rect == (0, 0, width, height)
        self._precompute()

    # -- load time -----------------------------------------------------------------------------

    def _place(self, photo: np.ndarray, box: tuple[int, int, int, int], fit: str) -> None:
        bx, by, bw, bh = box
        ph, pw = photo.shape[:2]
        lm = self.photo_landmarks
        oval = lm.contour("face_oval")
        fcx, fcy = float(oval[:, 0].mean()), float(oval[:, 1].mean())
        s = max(bw / pw, bh / ph) if fit == "cover" else min(bw / pw, bh / ph)
        sw, sh = max(1, round(pw * s)), max(1, round(ph * s))
        # Upscaling a small photo: Lanczos keeps edges smooth where nearest/linear would show steps.
        interp = cv2.INTER_AREA if s < 1 else (cv2.INTER_LANCZOS4 if s > 1.5 else cv2.INTER_CUBIC)
        img = cv2.resize(photo, (sw, sh), interpolation=interp)
        if fit == "cover":
            sw, sh = max(bw, sw), max(bh, sh)
            # Crop around the face: centred horizontally on it, the face in the upper third.
            x0 = int(np.clip(fcx * s - bw / 2, 0, sw - bw))
            y0 = int(np.clip(fcy * s - bh * 0.38, 0, sh - bh))
            img = img[y0 : y0 + bh, x0 : x0 + bw]
            self.rect = (bx, by, bw, bh)
        else:
            x0 = y0 = 0
            self.rect = (bx + (bw - sw) // 2, by + bh - sh, sw, sh)
        self.work = np.ascontiguousarray(img)
        self.base = self.work.copy()
        self.lm = lm.scaled(s, x0, y0)  # landmarks in work (= placed photo) pixels
        self.photo_scale = s

    def _clip_rect(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        h, w = self.base.shape[:2]
        return max(0, int(x0)), max(0, int(y0)), min(w, math.ceil(x1)), min(h, math.ceil(y1))

    def _precompute(self) -> None:
        lm = self.lm
        self.frame = FaceFrame(lm)
        self.face_h = lm.face_height
        self._precompute_mouth()
        self._precompute_eyes()
        self._precompute_head()

    # Mouth ------------------------------------------------------------------------------------

    def _mouth_grid(self) -> None:
        """Source grid (rows x cols, local coords) over the lower face, and per node the motion weights."""
        lm, fr, H = self.lm, self.frame, self.face_h
        uo = _curve(fr, lm.contour("lip_upper_outer"))
        lo = _curve(fr, lm.contour("lip_lower_outer"))
        ui = _curve(fr, lm.contour("lip_upper_inner"))
        li = _curve(fr, lm.contour("lip_lower_inner"))
        cl, cr = fr.local(lm.p("mouth_left")), fr.local(lm.p("mouth_right"))
        u_l, u_r = float(cl[0]), float(cr[0])
        uc, hw = (u_l + u_r) / 2, (u_r - u_l) / 2
        jl, jr = fr.local(lm.p("jaw_left")), fr.local(lm.p("jaw_right"))
        # The jaw's edge at mouth height: a little inside the face's widest points.
        e_l = uc + 0.9 * (float(jl[0]) - uc)
        e_r = uc + 0.9 * (float(jr[0]) - uc)
        e_l, e_r = min(e_l, u_l - 0.3 * hw), max(e_r, u_r + 0.3 * hw)
        oval = fr.local(lm.contour("face_oval"))
        low = oval[oval[:, 1] > 0]  # the oval below the mouth: jaw and chin
        order = np.argsort(low[:, 0])
        jaw_u, jaw_v = low[order, 0], low[order, 1]
        chin_v = float(fr.local(lm.p("chin"))[1])
        nose_v = float(fr.local(lm.p("nose_base"))[1])

        mouth_cols = np.linspace(u_l, u_r, 13)
        left = [e_l, u_l - 0.55 * (u_l - e_l), u_l - 0.22 * (u_l - e_l)]
        right = [u_r + 0.22 * (e_r - u_r), u_r + 0.55 * (e_r - u_r), e_r]
        cols = np.concatenate([left, mouth_cols, right])
        inside = (cols >= u_l - 1e-6) & (cols <= u_r + 1e-6)
        # Where the inner lips split when the mouth opens: the darkest row of a photo's existing
        # opening (between upper and lower teeth), else the middle.
        self.split = self._split_fraction(ui, li, uc, hw)
        lip_t = max(float(np.interp(uc, lo[0], lo[1]) - np.interp(uc, uo[0], uo[1])), 0.04 * H)
        rows = np.zeros((11, cols.size), np.float64)
        for j, u in enumerate(cols):
            if inside[j]:
                v1, v2 = np.interp(u, *uo), np.interp(u, *ui)
                v5, v6 = np.interp(u, *li), np.interp(u, *lo)
            else:
                vc = float(np.interp(u, [u_l, u_r], [cl[1], cr[1]]))
                v1, v2, v5, v6 = vc - 0.5 * lip_t, vc - 0.12 * lip_t, vc + 0.12 * lip_t, vc + 0.5 * lip_t
            v2 = max(v2, v1)
            v5 = max(v5, v2)
            v6 = max(v6, v5)
            vm = v2 + self.split * (v5 - v2)
            # The fixed row above the lips: under the nostrils in the middle, but well above the
            # corners beside the nose, so a smile's raised corners get room to move without a crease.
            side = float(_smooth((abs(u - uc) / hw - 0.3) / 0.5))
            top = min(nose_v + 0.45 * (float(np.interp(uc, *uo)) - nose_v), v1 - 0.15 * lip_t - side * 0.05 * H)
            chin = max(float(np.interp(u, jaw_u, jaw_v)), v6 + 0.1 * H)
            if u <= jaw_u[0] or u >= jaw_u[-1]:
                chin = max(v6 + 0.1 * H, chin_v * 0.7)
            rows[:, j] = [top, v1, v2, vm, vm, v5, v6, (v6 + chin) / 2, chin, chin + 0.1 * H, chin + 0.25 * H]
        self._cols, self._rows = cols, rows
        self._uc, self._hw, self._edges = uc, hw, (e_l, e_r)
        self._inside = inside

    def _split_fraction(
        self, ui: tuple[np.ndarray, np.ndarray], li: tuple[np.ndarray, np.ndarray], uc: float, hw: float
    ) -> float:
        gap = float(np.interp(uc, *li) - np.interp(uc, *ui))
        self.mouth_open_px = gap
        if gap < 3:
            return 0.5
        gray = cv2.cvtColor(self.base, cv2.COLOR_BGR2GRAY).astype(np.float32)
        us = np.linspace(uc - 0.4 * hw, uc + 0.4 * hw, 9)
        # A photo with teeth showing: the upper teeth fill most of the opening, so the bite line is
        # searched in its lower part (a split higher up would carry upper teeth down with the jaw).
        fs = np.linspace(0.5, 0.92, 15)
        prof = []
        for f in fs:
            pts = np.array([(u, np.interp(u, *ui) + f * (np.interp(u, *li) - np.interp(u, *ui))) for u in us])
            xy = self.frame.photo(pts).astype(np.float32)
            vals = cv2.remap(gray, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR)
            prof.append(float(vals.mean()))
        # The teeth's bite line: the darkest row (teeth are bright, the gap between them dark).
        return float(np.clip(fs[int(np.argmin(prof))], 0.5, 0.92))

    def _mouth_motion(self, shape: Shape, o: float) -> np.ndarray:
        """Local displacement (rows, cols, 2) of the mouth grid nodes at openness o."""
        H, uc, hw = self.face_h, self._uc, self._hw
        cols, inside = self._cols, self._inside
        e_l, e_r = self._edges
        # Opening: widest at the lips' middle (u = 0, which on a turned face is nearer one corner),
        # zero at the corners.
        u_l, u_r = uc - hw, uc + hw
        t = np.where(cols < 0, cols / max(-u_l, 1e-3), cols / max(u_r, 1e-3))
        wm = np.where(inside, np.sqrt(np.clip(1 - t**2, 0, 1)), 0.0)
        half = np.where(cols < uc, uc - e_l, e_r - uc)
        wj = np.cos(np.clip((cols - uc) / half, -1, 1) * math.pi / 2) ** 2  # the jaw: broad, 0 at its edges
        d = shape.drop * H * o
        lift = shape.lift * H * o
        dv = np.zeros_like(self._rows)
        dv[1:4] = -lift * wm
        dv[4:6] = d * wm
        dv[6] = d * (0.75 * wm + 0.25 * wj)
        dv[7] = d * (0.4 * wm + 0.6 * wj)
        dv[8] = d * 0.95 * wj
        dv[9] = d * 0.5 * wj
        # Width: the lip rows move their corners in (rounded) or out (spread), cheeks follow less.
        col_w = np.where(inside, 1.0, 0.0)
        n_side = 3
        col_w[:n_side] = [0.0, 0.25, 0.6]
        col_w[-n_side:] = [0.6, 0.25, 0.0]
        row_w = np.array([0.0, 0.9, 1, 1, 1, 1, 0.9, 0.5, 0.2, 0.0, 0.0])[:, None]
        du = shape.widen * o * (cols - uc) * col_w * row_w
        return np.stack([du, dv], axis=-1)

    def _precompute_mouth(self) -> None:
        self._mouth_grid()
        fr = self.frame
        src_local = np.stack([np.broadcast_to(self._cols, self._rows.shape), self._rows], axis=-1)
        src = fr.photo(src_local)
        # Patch: everything the grid covers at the widest opening.
        ext = [src]
        for shape in SHAPES.values():
            ext.append(fr.photo(src_local + self._mouth_motion(shape, 1.0)))
        allp = np.concatenate([e.reshape(-1, 2) for e in ext])
        mx0, my0, mx1, my1 = self._clip_rect(*(allp.min(axis=0) - 2), *(allp.max(axis=0) + 2))
        self.mouth_xy = (mx0, my0)
        self.mouth_rect = (mx0, my0, mx1, my1)
        closed = np.ascontiguousarray(self.base[my0:my1, mx0:mx1])
        self.mouth_closed = closed
        self._colours()
        self.mouth_levels: dict[int, list[np.ndarray]] = {}
        for v, shape in SHAPES.items():
            levels = [closed]
            for i in range(1, _MOUTH_LEVELS):
                o = i / (_MOUTH_LEVELS - 1)
                dst_local = src_local + self._mouth_motion(shape, o)
                map_x, map_y = warp_maps([(src, fr.photo(dst_local))], self.mouth_rect)
                patch = cv2.remap(self.base, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                self._cavity(patch, dst_local, shape)
                levels.append(np.ascontiguousarray(patch))
            self.mouth_levels[v] = levels
        self._mouth_buf = np.empty_like(closed)

    def _colours(self) -> None:
        """Lip, mouth-interior, tongue and teeth colours taken from the photo itself."""
        lm = self.lm
        h, w = self.base.shape[:2]
        outer = np.concatenate([lm.contour("lip_upper_outer"), lm.contour("lip_lower_outer")[::-1]])
        inner = np.concatenate([lm.contour("lip_upper_inner"), lm.contour("lip_lower_inner")[::-1]])
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(outer).astype(np.int32)], 255)
        cv2.fillPoly(m, [np.round(inner).astype(np.int32)], 0)
        lips = self.base[m > 0].astype(np.float32)
        lip = np.median(lips, axis=0) if len(lips) >= 4 else np.array([90, 90, 170], np.float32)
        self.lip_colour = lip
        # Interior: the lips' own hue, very dark; tongue: the lips' hue, a little lighter than the dark.
        # (BGR) A mouth's inside is dark red-brown whatever the lipstick: the lips' hue pulled to red.
        self.dark_colour = lip * np.array([0.10, 0.12, 0.26], np.float32) + np.array([6, 8, 18], np.float32)
        self.tongue_colour = lip * np.array([0.5, 0.5, 0.68], np.float32)
        # Teeth: the brightest part of the face, a little dimmed (they sit in the mouth's shadow).
        oval = lm.contour("face_oval")
        fm = np.zeros((h, w), np.uint8)
        cv2.fillPoly(fm, [np.round(oval).astype(np.int32)], 255)
        face = self.base[fm > 0].astype(np.float32)
        if len(face):
            lum = face.mean(axis=1)
            bright = face[lum >= np.percentile(lum, 97)].mean(axis=0)
        else:
            bright = np.array([220, 225, 230], np.float32)
        grey = float(bright.mean())
        self.teeth_colour = np.clip(0.7 * bright + 0.3 * grey, 150, 235) * 0.85

    def _cavity(self, patch: np.ndarray, dst_local: np.ndarray, shape: Shape) -> None:
        """Shade the opening between the moved inner lips (grid rows 3 and 4): interior, tongue, teeth."""
        fr, H = self.frame, self.face_h
        mx0, my0, mx1, my1 = self.mouth_rect
        inside = self._inside
        top = dst_local[3, inside]
        bot = dst_local[4, inside]
        if float((bot[:, 1] - top[:, 1]).max()) < 0.6:
            return
        poly = fr.photo(np.concatenate([top, bot[::-1]]))
        # Work only on the opening's bounding box (plus the blur's reach) inside the patch.
        pad = 3 + int(0.012 * H)
        cx0, cy0 = max(int(poly[:, 0].min()) - pad, mx0), max(int(poly[:, 1].min()) - pad, my0)
        cx1, cy1 = min(int(poly[:, 0].max()) + pad + 1, mx1), min(int(poly[:, 1].max()) + pad + 1, my1)
        if cx0 >= cx1 or cy0 >= cy1:
            return
        full = patch
        patch = full[cy0 - my0 : cy1 - my0, cx0 - mx0 : cx1 - mx0]
        mx0, my0, mx1, my1 = cx0, cy0, cx1, cy1
        poly = poly - (mx0, my0)
        ph, pw = patch.shape[:2]
        ss = 4  # supersampled mask: a smooth lip edge
        m = np.zeros((ph * ss, pw * ss), np.uint8)
        cv2.fillPoly(m, [np.round((poly + 0.5) * ss - 0.5).astype(np.int32)], 255, cv2.LINE_AA)
        cover = cv2.resize(m, (pw, ph), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        cover = cv2.GaussianBlur(cover, (0, 0), 0.35 + 0.004 * H)
        if cover.max() <= 0:
            return
        X, Y = np.meshgrid(np.arange(mx0, mx1, dtype=np.float64), np.arange(my0, my1, dtype=np.float64))
        q = fr.local(np.stack([X, Y], -1))
        u, v = q[..., 0], q[..., 1]
        ut = np.interp(u, top[:, 0], top[:, 1])
        ub = np.interp(u, bot[:, 0], bot[:, 1])
        gap = np.maximum(ub - ut, 1e-3)
        t = np.clip((v - ut) / gap, 0, 1)
        across = np.clip(np.abs(u - self._uc) / self._hw, 0, 1)
        # Darker deep inside and towards the corners.
        depth = (1 - 4 * (t - 0.5) ** 2) * (1 - across**2)
        colour = self.dark_colour * (1.25 - 0.5 * depth)[..., None]
        # The tongue: a soft rounded mass at the bottom, visible once the mouth opens wide enough.
        tongue = _smooth((t - 0.55) / 0.3) * _smooth((0.75 - across) / 0.3) * _smooth(gap / (0.035 * H) - 0.3)
        colour = colour * (1 - tongue[..., None]) + self.tongue_colour * tongue[..., None]
        if shape.teeth and self.mouth_open_px < 0.02 * H:
            # Upper teeth hang from the upper lip, only in the mouth's middle (as a real mouth shows them).
            band = np.minimum(0.33 * gap, 0.026 * H)
            edge = (band - (v - ut)) / max(0.5, 0.004 * H)
            teeth = _smooth(edge) * _smooth((0.68 - across) / 0.2)
            # In the upper lip's shadow at the top, lit lower down, darker towards the corners; faint
            # gaps between the front teeth (about 0.05 face heights wide) so the band reads as teeth.
            depth = np.clip((v - ut) / np.maximum(band, 1e-3), 0, 1)
            tooth = 0.05 * H
            gaps = np.exp(-(((np.abs(u - self._uc) / tooth + 0.5) % 1 - 0.5) / 0.07) ** 2) * (across < 0.45)
            shade = (1 - 0.35 * across**2) * (0.72 + 0.28 * _smooth(depth / 0.45)) * (1 - 0.12 * gaps)
            teeth *= 0.92  # a little of the dark interior shows through at the edges
            colour = colour * (1 - teeth[..., None]) + self.teeth_colour * (shade * teeth)[..., None]
        c3 = cover[..., None]
        patch[:] = np.clip(patch * (1 - c3) + colour * c3, 0, 255).astype(np.uint8)

    # Eyes -------------------------------------------------------------------------------------

    def _eye_grid(self, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(source local grid, lid-edge motion at full closure, lower-lid motion) for one eye."""
        lm, fr, H = self.lm, self.frame, self.face_h
        up = _curve(fr, lm.contour(f"{side}_eye_upper"))
        lo = _curve(fr, lm.contour(f"{side}_eye_lower"))
        brow = _curve(fr, lm.contour(f"{side}_brow"))
        u0, u1 = float(min(up[0][0], lo[0][0])), float(max(up[0][-1], lo[0][-1]))
        ew = u1 - u0
        cols = np.concatenate(
            [[u0 - 0.35 * ew, u0 - 0.12 * ew], np.linspace(u0, u1, 11), [u1 + 0.12 * ew, u1 + 0.35 * ew]]
        )
        vu = np.interp(cols, *up)
        vl = np.maximum(np.interp(cols, *lo), vu)
        opening = vl - vu
        om = float(opening.max())
        vb = np.interp(cols, *brow)
        # The band of lid skin that stretches down: above the lid edge, never reaching the brow.
        band = np.clip(np.minimum(1.1 * om + 0.01 * H, 0.7 * (vu - vb)), 0.012 * H, None)
        below = max(0.6 * om, 0.02 * H)
        rows = np.stack([vu - band, vu, vl, vl + below])
        grid = np.stack([np.broadcast_to(cols, rows.shape), rows], -1)
        # Lids meet a little below the middle: the upper lid travels most of the way.
        return grid, 0.82 * opening, 0.18 * opening

    def _precompute_eyes(self) -> None:
        fr = self.frame
        grids = [self._eye_grid(s) for s in ("left", "right")]
        srcs = [fr.photo(g) for g, _, _ in grids]
        allp = np.concatenate([s.reshape(-1, 2) for s in srcs])
        ex0, ey0, ex1, ey1 = self._clip_rect(*(allp.min(axis=0) - 2), *(allp.max(axis=0) + 2))
        self.eye_xy = (ex0, ey0)
        open_patch = np.ascontiguousarray(self.base[ey0:ey1, ex0:ex1])
        self.eye_levels = [open_patch]
        for i in range(1, _EYE_LEVELS):
            c = _smooth(i / (_EYE_LEVELS - 1) * 1.0)
            pairs = []
            for (g, down, up), src in zip(grids, srcs, strict=True):
                d = g.copy()
                d[1, :, 1] += c * down
                d[2, :, 1] -= c * up
                pairs.append((src, fr.photo(d)))
            map_x, map_y = warp_maps(pairs, (ex0, ey0, ex1, ey1))
            patch = cv2.remap(self.base, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            self.eye_levels.append(np.ascontiguousarray(patch))
        self._eye_buf = np.empty_like(open_patch)

    # Head -------------------------------------------------------------------------------------

    def _precompute_head(self) -> None:
        lm = self.lm
        oval = lm.contour("face_oval")
        fx, fy = float(oval[:, 0].min()), float(oval[:, 1].min())
        fw, fh = float(oval[:, 0].max()) - fx, float(oval[:, 1].max()) - fy
        cx = fx + fw / 2
        self.face = (fx, fy, fw, fh)
        # Head region: the face with hair around it; pivot at the neck; feathered elliptical mask.
        hx0, hy0, hx1, hy1 = self._clip_rect(fx - 0.4 * fw, fy - 0.45 * fh, fx + 1.4 * fw, fy + 1.4 * fh)
        self.head_rect = (hx0, hy0, hx1 - hx0, hy1 - hy0)
        hh, hw = hy1 - hy0, hx1 - hx0
        mask = feather_mask(hh, hw, inset=0.08 * min(hw, hh), blur=0.09 * min(hw, hh))
        # The shoulders must not move with the head: fade the mask out down the neck.
        rows = np.arange(hy0, hy1, dtype=np.float32)[:, None]
        fade = np.clip(1 - (rows - (fy + 1.05 * fh)) / (0.3 * fh), 0, 1)
        mask = (mask.astype(np.float32) * fade).astype(np.uint8)
        self.head_mask3 = cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR)
        self.head_inv3 = cv2.bitwise_not(self.head_mask3)
        self.pivot = (cx - hx0, fy + 1.2 * fh - hy0)
        self._head_warp = np.empty((hh, hw, 3), np.uint8)

    # -- per frame -----------------------------------------------------------------------------

    @staticmethod
    def _mix(levels: list[np.ndarray], pos: float, buf: np.ndarray) -> np.ndarray:
        pos = min(max(pos, 0.0), len(levels) - 1.0)
        i = int(pos)
        f = pos - i
        if i >= len(levels) - 1 or f < 0.02:
            return levels[i]
        if f > 0.98:
            return levels[i + 1]
        cv2.addWeighted(levels[i], 1 - f, levels[i + 1], f, 0, dst=buf)
        return buf

    def render_into(self, canvas: np.ndarray, state: FrameState, pose: Pose) -> None:
        o = state.openness if state.openness > _CLOSED_BELOW else 0.0
        v = int(state.viseme) if int(state.viseme) in self.mouth_levels else int(Viseme.E)
        mouth = self._mix(self.mouth_levels[v], o * (_MOUTH_LEVELS - 1), self._mouth_buf)
        mx, my = self.mouth_xy
        np.copyto(self.work[my : my + mouth.shape[0], mx : mx + mouth.shape[1]], mouth)
        eyes = self._mix(self.eye_levels, pose.blink * (_EYE_LEVELS - 1), self._eye_buf)
        ex, ey = self.eye_xy
        np.copyto(self.work[ey : ey + eyes.shape[0], ex : ex + eyes.shape[1]], eyes)

        rx, ry, rw, rh = self.rect
        ch, cw = canvas.shape[:2]
        x0, y0 = max(rx, 0), max(ry, 0)
        x1, y1 = min(rx + rw, cw), min(ry + rh, ch)
        np.copyto(canvas[y0:y1, x0:x1], self.work[y0 - ry : y1 - ry, x0 - rx : x1 - rx])

        # The head (and the neck, through the mask's fade) moves; the background and body stay put.
        hx, hy, hw, hh = self.head_rect
        s = self.scale
        lift = pose.breath * (rh - (hy + self.pivot[1]))  # breathing lifts the head with the chest
        dx = (pose.dx + pose.head_dx) * s
        dy = (pose.dy * 0.5 + pose.head_dy) * s - lift
        if abs(dx) < 1e-3 and abs(dy) < 1e-3 and abs(pose.head_deg) < 1e-4:
            return  # no head motion (idle motion off): the copied photo is the frame
        m = cv2.getRotationMatrix2D(self.pivot, pose.head_deg, 1.0)
        m[0, 2] += dx
        m[1, 2] += dy
        src = self.work[hy : hy + hh, hx : hx + hw]
        cv2.warpAffine(
            src, m, (hw, hh), dst=self._head_warp, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        cv2.multiply(self._head_warp, self.head_mask3, dst=self._head_warp, scale=1 / 255)
        cx0, cy0 = rx + hx, ry + hy
        roi = canvas[max(cy0, 0) : min(cy0 + hh, ch), max(cx0, 0) : min(cx0 + hw, cw)]
        sy, sx = max(cy0, 0) - cy0, max(cx0, 0) - cx0
        inv = self.head_inv3[sy : sy + roi.shape[0], sx : sx + roi.shape[1]]
        cv2.multiply(roi, inv, dst=roi, scale=1 / 255)
        cv2.add(roi, self._head_warp[sy : sy + roi.shape[0], sx : sx + roi.shape[1]], dst=roi)

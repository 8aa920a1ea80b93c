"""The portrait avatar: one photo, its face found by OpenCV's frontal-face cascade (or a configured face_box).

At load: the photo is placed on the canvas, lip seam and eyes are located, and for every viseme and
openness level a mesh warp of lips and jaw (with a shaded mouth interior and teeth) is rendered
into a small patch; eyelid patches are made the same way. Per frame: paste two small patches, copy
the photo with a breathing row-scale, and warp only the head region (sway, roll, nod), blended back
through a feathered mask.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from renderer.background import read_image, to_bgr
from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig
from renderer.errors import AvatarError
from renderer.idle import Pose
from renderer.layers import copy_rows, feather_mask, row_runs

_MOUTH_LEVELS = 8  # openness levels per viseme (level 0 is the untouched photo)
_EYE_LEVELS = 5  # blink levels (0 = open)
_CLOSED_BELOW = 0.05

# Per viseme: jaw drop (fraction of face height at full openness), upper-lip lift, lip width change,
# whether upper teeth show.
_SHAPES: dict[int, tuple[float, float, float, bool]] = {
    Viseme.A: (0.11, 0.020, 0.00, True),
    Viseme.I: (0.04, 0.012, 0.14, True),
    Viseme.U: (0.05, 0.010, -0.22, False),
    Viseme.E: (0.07, 0.016, 0.08, True),
    Viseme.O: (0.09, 0.014, -0.15, False),
}


def detect_face(gray: np.ndarray) -> tuple[int, int, int, int] | None:
    """The largest frontal face (x, y, w, h) found by OpenCV's bundled Haar cascade, or None."""
    cascade = cv2.CascadeClassifier(str(Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"))
    h, w = gray.shape
    s = min(1.0, 800 / max(h, w))
    small = cv2.resize(gray, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else gray
    small = cv2.equalizeHist(small)
    min_side = max(24, int(min(small.shape) * 0.08))
    faces = cascade.detectMultiScale(small, scaleFactor=1.08, minNeighbors=5, minSize=(min_side, min_side))
    if len(faces) == 0:
        return None
    x, y, fw, fh = max(faces, key=lambda f: f[2] * f[3])
    return round(x / s), round(y / s), round(fw / s), round(fh / s)


def detect_eyes(gray: np.ndarray, face: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    """Left and right eye centres: the eye cascade inside the face's upper half, else face proportions."""
    fx, fy, fw, fh = face
    guess = [(fx + 0.31 * fw, fy + 0.40 * fh), (fx + 0.69 * fw, fy + 0.40 * fh)]
    x0, y0 = int(max(fx, 0)), int(max(fy + 0.15 * fh, 0))
    roi = gray[y0 : int(fy + 0.6 * fh), x0 : int(fx + fw)]
    if roi.size == 0:
        return guess
    cascade = cv2.CascadeClassifier(str(Path(cv2.data.haarcascades) / "haarcascade_eye.xml"))
    found = cascade.detectMultiScale(roi, 1.1, 4, minSize=(max(8, int(fw * 0.1)), max(8, int(fw * 0.1))))
    eyes = [(x0 + x + w / 2, y0 + y + h / 2) for x, y, w, h in found]
    left = [e for e in eyes if e[0] < fx + fw / 2 and abs(e[0] - guess[0][0]) < 0.15 * fw]
    right = [e for e in eyes if e[0] >= fx + fw / 2 and abs(e[0] - guess[1][0]) < 0.15 * fw]
    if left and right:
        pick_l = min(left, key=lambda e: abs(e[1] - guess[0][1]))
        pick_r = min(right, key=lambda e: abs(e[1] - guess[1][1]))
        if abs(pick_l[1] - pick_r[1]) < 0.12 * fh:
            return [pick_l, pick_r]
    return guess


def lip_seam(gray: np.ndarray, face: tuple[float, float, float, float]) -> float:
    """The row where the lips meet: the darkest row across the mouth's middle, in the lower face."""
    fx, fy, fw, fh = face
    cx = fx + fw / 2
    ya, yb = int(fy + 0.66 * fh), int(fy + 0.90 * fh)
    xa, xb = int(cx - 0.12 * fw), int(cx + 0.12 * fw)
    band = gray[max(ya, 0) : min(yb, gray.shape[0]), max(xa, 0) : min(xb, gray.shape[1])]
    if band.shape[0] < 3 or band.shape[1] < 3:
        return fy + 0.78 * fh
    rows = cv2.GaussianBlur(band.astype(np.float32), (1, 5), 0).mean(axis=1)
    return float(max(ya, 0) + int(np.argmin(rows)))


def _cos2(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, -1.0, 1.0)
    return np.cos(v * (math.pi / 2)) ** 2


class PortraitFigure:
    def __init__(
        self,
        path: Path,
        face_box: tuple[int, int, int, int] | None,
        box: tuple[int, int, int, int],
        width: int,
        height: int,
        cfg: AvatarConfig,
    ):
        photo = to_bgr(read_image(path, "avatar.path", cv2.IMREAD_COLOR))
        ph, pw = photo.shape[:2]
        if face_box is not None:
            x, y, w, h = face_box
            if x + w > pw or y + h > ph:
                raise AvatarError(
                    f"avatar.face_box {list(face_box)} lies outside the photo {str(path)!r} ({pw}x{ph})"
                )
            face: tuple[int, int, int, int] = face_box
        else:
            found = detect_face(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY))
            if found is None:
                raise AvatarError(
                    f"avatar.path: no face found in {str(path)!r}; use a frontal photo, or set "
                    f"avatar.face_box: [x, y, w, h] (the face's box in the photo's pixels)"
                )
            face = found
        self.scale = height / 720
        self._place(photo, face, box, cfg.layout.fit)
        self.covers_canvas = self.rect == (0, 0, width, height)
        self._precompute()

    # -- load time -----------------------------------------------------------------------------

    def _place(
        self, photo: np.ndarray, face: tuple[int, int, int, int], box: tuple[int, int, int, int], fit: str
    ) -> None:
        bx, by, bw, bh = box
        ph, pw = photo.shape[:2]
        if fit == "cover":
            s = max(bw / pw, bh / ph)
            sw, sh = max(bw, round(pw * s)), max(bh, round(ph * s))
            img = cv2.resize(photo, (sw, sh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
            # Crop around the face: centred horizontally on it, the face in the upper third.
            fcx, fcy = (face[0] + face[2] / 2) * s, (face[1] + face[3] / 2) * s
            x0 = int(np.clip(fcx - bw / 2, 0, sw - bw))
            y0 = int(np.clip(fcy - bh * 0.38, 0, sh - bh))
            img = img[y0 : y0 + bh, x0 : x0 + bw]
            self.rect = (bx, by, bw, bh)
        else:
            s = min(bw / pw, bh / ph)
            sw, sh = max(1, round(pw * s)), max(1, round(ph * s))
            img = cv2.resize(photo, (sw, sh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
            x0 = y0 = 0
            self.rect = (bx + (bw - sw) // 2, by + bh - sh, sw, sh)
        self.work = np.ascontiguousarray(img)
        self.base = self.work.copy()
        f = (face[0] * s - x0, face[1] * s - y0, face[2] * s, face[3] * s)
        gray = cv2.cvtColor(self.base, cv2.COLOR_BGR2GRAY)
        self.face = f
        self.eye_centres = detect_eyes(gray, f)
        self.seam = lip_seam(gray, f)

    def _grid(self, x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
        xs = np.arange(x0, x1, dtype=np.float32)
        ys = np.arange(y0, y1, dtype=np.float32)
        return np.meshgrid(xs, ys)

    def _clip_rect(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        h, w = self.base.shape[:2]
        return max(0, int(x0)), max(0, int(y0)), min(w, math.ceil(x1)), min(h, math.ceil(y1))

    def _precompute(self) -> None:
        fx, fy, fw, fh = self.face
        cx = fx + fw / 2
        ys = self.seam
        chin = fy + 1.02 * fh
        # Mouth/jaw patch.
        mx0, my0, mx1, my1 = self._clip_rect(cx - 0.62 * fw, ys - 0.30 * fh, cx + 0.62 * fw, chin + 0.45 * fh)
        self.mouth_xy = (mx0, my0)
        X, Y = self._grid(mx0, my0, mx1, my1)
        half_w = 0.21 * fw  # half the mouth width
        wj = _cos2((X - cx) / (0.58 * fw))  # jaw: broad
        g = np.where(chin > Y, 1.0, _cos2((Y - chin) / (0.42 * fh)))  # chin moves, neck stretches
        alpha = np.clip(1 - (Y - ys) / (0.16 * fh), 0, 1)  # near the lip: mouth-shaped; lower: whole jaw
        up = _cos2((ys - Y) / (0.22 * fh))
        self.mouth_levels: dict[int, list[np.ndarray]] = {}
        closed = np.ascontiguousarray(self.base[my0:my1, mx0:mx1])
        self.mouth_closed = closed
        for v, (jaw, lift, widen, teeth) in _SHAPES.items():
            levels = [closed]
            for i in range(1, _MOUTH_LEVELS):
                o = i / (_MOUTH_LEVELS - 1)
                hw_v = half_w * (1 + widen * o)
                wm = _cos2((X - cx) / hw_v)
                d = jaw * fh * o
                u = lift * fh * o
                dy = np.where(ys <= Y, d * (alpha * wm + (1 - alpha) * wj) * g, -u * wm * up)
                dx = (
                    (X - cx)
                    * widen
                    * o
                    * np.exp(-(((Y - ys) / (0.12 * fh)) ** 2))
                    * _cos2((X - cx) / (0.5 * fw))
                )
                patch = cv2.remap(
                    self.base,
                    (X - dx).astype(np.float32),
                    (Y - dy).astype(np.float32),
                    cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE,
                )
                self._interior(patch, X, Y, cx, ys, hw_v, d, u, teeth, fh)
                levels.append(np.ascontiguousarray(patch))
            self.mouth_levels[v] = levels
        self._mouth_buf = np.empty_like(closed)

        # Eyelids: both eyes in one patch. The lid is painted in skin tone taken from the nose bridge
        # (lit like the lids), shaded towards its edge, with a lash line; stretching real lid texture
        # would drag the eyebrow into the eye on faces with little lid showing.
        (lx, ly), (rx, ry) = self.eye_centres
        ew = 0.24 * fw  # eye width
        a = 0.055 * fh  # half the visible eye height (generous: the lid must cover the lash line)
        ex0, ey0, ex1, ey1 = self._clip_rect(
            lx - ew, min(ly, ry) - 0.12 * fh, rx + ew, max(ly, ry) + 0.10 * fh
        )
        self.eye_xy = (ex0, ey0)
        X, Y = self._grid(ex0, ey0, ex1, ey1)
        open_patch = np.ascontiguousarray(self.base[ey0:ey1, ex0:ex1])
        bx, by = int((lx + rx) / 2), int((ly + ry) / 2)
        r = max(2, int(0.03 * fw))
        sample = self.base[max(by - r, 0) : by + r, max(bx - r, 0) : bx + r].reshape(-1, 3)
        skin = (
            np.median(sample, axis=0).astype(np.float32)
            if sample.size
            else np.array([150, 170, 210], np.float32)
        )
        self.eye_levels = [open_patch]
        for i in range(1, _EYE_LEVELS):
            c = i / (_EYE_LEVELS - 1)
            patch = open_patch.astype(np.float32)
            for ex, ey in self.eye_centres:
                u = (X - ex) / (0.5 * ew)
                arc = np.sqrt(np.clip(1 - u**2, 0, 1))
                top = ey - a * arc  # the eye's upper outline
                bottom = ey + 0.95 * a * arc  # ... and its lower one
                lid = top + c * (bottom - top)  # the lid edge now: a crescent, then a closed arc
                cover = np.clip((lid - Y) / 1.5, 0, 1) * np.clip((Y - top) / (0.03 * fh) + 1, 0, 1)
                cover *= np.clip((1.08 - np.abs(u)) / 0.1, 0, 1)
                depth = np.clip((Y - top) / np.maximum(lid - top, 1), 0, 1)[..., None]
                colour = skin * (0.97 - 0.12 * depth)  # a crease-to-edge gradient
                cov = cover[..., None]
                patch = patch * (1 - cov) + colour * cov
                # Lashes along the lid edge, visible once the lid has come down.
                lash = np.exp(-(((Y - lid) / max(1.0, 0.011 * fh)) ** 2)) * np.clip(
                    (1.05 - np.abs(u)) / 0.1, 0, 1
                )
                lash *= 0.85 * min(1.0, c * 1.6)
                patch = patch * (1 - lash[..., None]) + np.array([35, 30, 40], np.float32) * lash[..., None]
            self.eye_levels.append(np.clip(patch, 0, 255).astype(np.uint8))
        self._eye_buf = np.empty_like(open_patch)

        # Head region, pivot at the neck, feathered mask.
        hx0, hy0, hx1, hy1 = self._clip_rect(fx - 0.35 * fw, fy - 0.55 * fh, fx + 1.35 * fw, fy + 1.35 * fh)
        self.head_rect = (hx0, hy0, hx1 - hx0, hy1 - hy0)
        hh, hw = hy1 - hy0, hx1 - hx0
        mask = feather_mask(hh, hw, inset=0.1 * min(hw, hh), blur=0.09 * min(hw, hh))
        # The neck and shoulders must not move with the head: fade the mask out below the chin.
        rows = np.arange(hy0, hy1, dtype=np.float32)[:, None]
        fade = np.clip(1 - (rows - (fy + 1.05 * fh)) / (0.3 * fh), 0, 1)
        mask = (mask.astype(np.float32) * fade).astype(np.uint8)
        self.head_mask3 = cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR)
        self.head_inv3 = cv2.bitwise_not(self.head_mask3)
        self.pivot = (cx - hx0, fy + 1.2 * fh - hy0)
        self._head_warp = np.empty((hh, hw, 3), np.uint8)
        self._runs_cache: dict[int, list[tuple[int, int, int]]] = {}

    @staticmethod
    def _interior(
        patch: np.ndarray,
        X: np.ndarray,
        Y: np.ndarray,
        cx: float,
        ys: float,
        hw_v: float,
        d: float,
        u: float,
        teeth: bool,
        fh: float,
    ) -> None:
        """Shade the opening between the moved lips: dark mouth, upper teeth, soft edges."""
        wm = _cos2((X - cx) / hw_v)
        top = ys - u * wm
        bot = ys + d * wm
        gap = bot - top
        inside = (top < Y) & (bot > Y) & (gap > 0.6)
        if not inside.any():
            return
        t = np.clip((Y - top) / np.maximum(gap, 1e-3), 0, 1)
        # Darker in the middle of the opening, a little warmer near the lips.
        shade = (1 - 4 * (t - 0.5) ** 2)[..., None]
        colour = np.array([40, 32, 78], np.float32) * (1 - 0.55 * shade)
        if teeth:
            band = (Y - top) < np.minimum(0.38 * gap, 0.045 * fh)
            colour = np.where((band & (wm > 0.35))[..., None], np.array([212, 218, 226], np.float32), colour)
        # Feathered coverage: 1 inside, ramping over ~1.5 px at the lip edges.
        edge = np.minimum(Y - top, bot - Y)
        cover = np.clip(edge / 1.5, 0, 1) * (gap > 0.6) * np.clip(wm / 0.08, 0, 1)
        cover = cover[..., None]
        patch[:] = np.clip(patch * (1 - cover) + colour * cover, 0, 255).astype(np.uint8)

    # -- per frame -----------------------------------------------------------------------------

    def _mix(self, levels: list[np.ndarray], pos: float, buf: np.ndarray) -> np.ndarray:
        pos = min(max(pos, 0.0), len(levels) - 1.0)
        i = int(pos)
        f = pos - i
        if i >= len(levels) - 1 or f < 0.02:
            return levels[i]
        if f > 0.98:
            return levels[i + 1]
        cv2.addWeighted(levels[i], 1 - f, levels[i + 1], f, 0, dst=buf)
        return buf

    def _runs(self, breath: float) -> list[tuple[int, int, int]]:
        h = self.work.shape[0]
        q = round(breath * h * 8)
        runs = self._runs_cache.get(q)
        if runs is None:
            runs = row_runs(h, h, 1 + q / (h * 8), h - 1)
            if len(self._runs_cache) > 256:
                self._runs_cache.clear()
            self._runs_cache[q] = runs
        return runs

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
        dst = canvas[y0:y1, x0:x1]
        if (x0, y0, x1, y1) == (rx, ry, rx + rw, ry + rh):
            copy_rows(dst, self.work, self._runs(pose.breath))
        else:
            np.copyto(dst, self.work[y0 - ry : y1 - ry, x0 - rx : x1 - rx])

        # The head: body sway and the head's own motion both move it (the photo's body stays put).
        hx, hy, hw, hh = self.head_rect
        s = self.scale
        lift = pose.breath * (rh - 1 - (hy + self.pivot[1]))
        m = cv2.getRotationMatrix2D(self.pivot, pose.head_deg, 1.0)
        m[0, 2] += (pose.dx + pose.head_dx) * s
        m[1, 2] += (pose.dy * 0.5 + pose.head_dy) * s - lift
        # Source: the work photo around the head (translated so the warp samples real pixels at edges).
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

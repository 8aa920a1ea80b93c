"""Cheap per-frame image primitives: premultiplied layers, clipped alpha blending, row-run vertical scaling.

Every per-frame operation here is a handful of OpenCV SIMD calls on small regions or one memcpy-like
copy; anything that resamples a whole frame (warpAffine, resize) is too slow for the 6 ms budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(slots=True)
class Layer:
    """A BGR image premultiplied by its alpha, plus 255-alpha replicated to 3 channels, placed at (x, y)."""

    premul: np.ndarray  # uint8 (h, w, 3)
    inv: np.ndarray  # uint8 (h, w, 3)
    x: int = 0
    y: int = 0

    @property
    def h(self) -> int:
        return int(self.premul.shape[0])

    @property
    def w(self) -> int:
        return int(self.premul.shape[1])

    @classmethod
    def from_bgra(cls, bgra: np.ndarray, x: int = 0, y: int = 0, opacity: float = 1.0) -> Layer:
        a = bgra[..., 3:4].astype(np.float32) / 255.0 * opacity
        premul = np.round(bgra[..., :3].astype(np.float32) * a).astype(np.uint8)
        inv = np.repeat(np.round(255.0 - a * 255.0).astype(np.uint8), 3, axis=2)
        return cls(np.ascontiguousarray(premul), np.ascontiguousarray(inv), x, y)

    def trimmed(self) -> Layer:
        """The same layer cropped to its non-transparent pixels (less to blend every frame)."""
        opaque = self.inv[..., 0] < 255
        if not opaque.any():
            return Layer(self.premul[:1, :1].copy(), self.inv[:1, :1].copy(), self.x, self.y)
        ys, xs = np.nonzero(opaque)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        return Layer(
            np.ascontiguousarray(self.premul[y0:y1, x0:x1]),
            np.ascontiguousarray(self.inv[y0:y1, x0:x1]),
            self.x + int(x0),
            self.y + int(y0),
        )


def bgra_premul(bgra: np.ndarray) -> np.ndarray:
    """BGRA straight alpha -> BGRA premultiplied (the form warpAffine can resample without fringes)."""
    out = bgra.copy()
    a = bgra[..., 3:4].astype(np.uint16)
    out[..., :3] = ((bgra[..., :3].astype(np.uint16) * a + 127) // 255).astype(np.uint8)
    return out


def _clip(dst_h: int, dst_w: int, x: int, y: int, h: int, w: int) -> tuple[slice, slice, slice, slice] | None:
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, dst_w), min(y + h, dst_h)
    if x0 >= x1 or y0 >= y1:
        return None
    return slice(y0, y1), slice(x0, x1), slice(y0 - y, y1 - y), slice(x0 - x, x1 - x)


def blend(dst: np.ndarray, premul: np.ndarray, inv: np.ndarray, x: int, y: int) -> None:
    """dst = dst * (1 - a) + premul at (x, y), clipped to dst; works for 3 or 4 channels (premul BGRA over)."""
    c = _clip(dst.shape[0], dst.shape[1], x, y, premul.shape[0], premul.shape[1])
    if c is None:
        return
    dy, dx, sy, sx = c
    roi = dst[dy, dx]
    cv2.multiply(roi, inv[sy, sx], dst=roi, scale=1 / 255)
    cv2.add(roi, premul[sy, sx], dst=roi)


def blend_layer(dst: np.ndarray, layer: Layer, dx: int = 0, dy: int = 0) -> None:
    blend(dst, layer.premul, layer.inv, layer.x + dx, layer.y + dy)


def paste(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    c = _clip(dst.shape[0], dst.shape[1], x, y, src.shape[0], src.shape[1])
    if c is None:
        return
    dy, dx, sy, sx = c
    np.copyto(dst[dy, dx], src[sy, sx])


def row_runs(n_out: int, n_src: int, scale: float, anchor_out: float) -> list[tuple[int, int, int]]:
    """Nearest-row map of a vertical scale about `anchor_out`, as (out_start, src_start, length) runs.

    A scale within a few percent duplicates or drops only a few rows, so copying the runs costs about
    one plain copy of the image, while cv2.resize of a 720p frame costs ~2.5 ms here.
    """
    out_rows = np.arange(n_out, dtype=np.float64)
    src = np.clip(np.rint(anchor_out + (out_rows - anchor_out) / scale), 0, n_src - 1).astype(np.int64)
    breaks = np.nonzero(np.diff(src) != 1)[0] + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [n_out]))
    return [(int(s), int(src[s]), int(e - s)) for s, e in zip(starts, ends, strict=True)]


def copy_rows(dst: np.ndarray, src: np.ndarray, runs: list[tuple[int, int, int]], x0: int = 0) -> None:
    """dst[out rows] = src[src rows, x0 : x0 + dst width] following `row_runs`."""
    w = dst.shape[1]
    for out0, src0, n in runs:
        np.copyto(dst[out0 : out0 + n], src[src0 : src0 + n, x0 : x0 + w])


def feather_mask(h: int, w: int, inset: float, blur: float) -> np.ndarray:
    """An elliptical uint8 mask filling (h, w) less `inset` px, with edges blurred by `blur` px."""
    m = np.zeros((h, w), np.uint8)
    cv2.ellipse(
        m, (w // 2, h // 2), (max(1, int(w / 2 - inset)), max(1, int(h / 2 - inset))), 0, 0, 360, 255, -1
    )
    k = int(blur) * 2 + 1
    return cv2.GaussianBlur(m, (k, k), blur / 2) if blur > 0 else m


def fit_image(img: np.ndarray, w: int, h: int, mode: str) -> np.ndarray:
    """Resize to (w, h): cover (crop the overflow, centred), contain (letterbox, transparent) or stretch."""
    ih, iw = img.shape[:2]
    if mode == "stretch":
        return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    s = max(w / iw, h / ih) if mode == "cover" else min(w / iw, h / ih)
    nw, nh = max(1, round(iw * s)), max(1, round(ih * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    r = cv2.resize(img, (nw, nh), interpolation=interp)
    if mode == "cover":
        x0, y0 = (nw - w) // 2, (nh - h) // 2
        return np.ascontiguousarray(r[y0 : y0 + h, x0 : x0 + w])
    out = np.zeros((h, w, img.shape[2]), img.dtype)
    paste(out, r, (w - nw) // 2, (h - nh) // 2)
    return out

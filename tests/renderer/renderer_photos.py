"""Real face photos shipped inside installed packages, and hard cases generated from them.

Real: scikit-image's astronaut (Eileen Collins, smiling with teeth) and matplotlib's Grace Hopper
(glasses, closed mouth). Generated from those: a drawn-on beard, drawn-on glasses, a three-quarter
(yaw-like) squeeze, a small face in a large frame and a low-resolution copy. Each comes with the
mouth centre (middle of the lip seam) in the photo's pixels, read off the images by eye, and the
face height (hairline to chin) used as the tolerance unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


@dataclass(frozen=True)
class Photo:
    name: str
    image: np.ndarray  # BGR
    mouth: tuple[float, float]  # checked by eye, photo px
    face_h: float  # hairline to chin, photo px (approximate; only a tolerance unit)
    eyes: tuple[tuple[float, float], tuple[float, float]]  # eye centres, photo px, by eye


def astronaut() -> Photo:
    import skimage.data

    img = cv2.cvtColor(skimage.data.astronaut(), cv2.COLOR_RGB2BGR)
    return Photo("astronaut", img, (224.0, 146.0), 107.0, ((200.0, 101.0), (247.0, 101.0)))


def hopper() -> Photo:
    import matplotlib

    img = cv2.imread(str(Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"))
    assert img is not None
    return Photo("hopper", img, (269.0, 278.0), 200.0, ((219.0, 190.0), (311.0, 188.0)))


def _noise(shape: tuple[int, ...], seed: int, sigma: float) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, sigma, shape).astype(np.float32)


def bearded() -> Photo:
    """Hopper with a full dark beard over chin and jaw, drawn below the lower lip (lips stay visible)."""
    p = hopper()
    img = p.image.copy()
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    poly = np.array([[178, 248], [210, 300], [245, 290], [269, 298], [295, 290], [330, 298], [362, 246],
                     [350, 300], [320, 330], [270, 342], [222, 330], [190, 300]], np.int32)  # fmt: skip
    cv2.fillPoly(mask, [poly], 255)
    # Moustache above the upper lip.
    cv2.ellipse(mask, (269, 264), (34, 7), 0, 0, 360, 255, -1)
    m = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32)[..., None] / 255
    hair = np.array([40, 48, 60], np.float32) + _noise((h, w, 1), 1, 18)
    streaks = cv2.GaussianBlur(_noise((h, w), 2, 60), (1, 9), 0)[..., None]
    beard = np.clip(hair + streaks, 0, 255)
    out = img.astype(np.float32) * (1 - m) + beard * m
    return Photo("beard", np.clip(out, 0, 255).astype(np.uint8), p.mouth, p.face_h, p.eyes)


def glasses() -> Photo:
    """The astronaut with thick dark glasses frames drawn around both eyes."""
    p = astronaut()
    img = p.image.copy()
    for ex, ey in p.eyes:
        cv2.rectangle(
            img, (int(ex - 17), int(ey - 10)), (int(ex + 17), int(ey + 11)), (25, 20, 20), 3, cv2.LINE_AA
        )
    cv2.line(img, (int(p.eyes[0][0] + 17), int(p.eyes[0][1] - 4)), (int(p.eyes[1][0] - 17), int(p.eyes[1][1] - 4)),
             (25, 20, 20), 3, cv2.LINE_AA)  # fmt: skip
    return Photo("glasses", img, p.mouth, p.face_h, p.eyes)


def three_quarter() -> Photo:
    """Hopper squeezed as if turned ~35 degrees: the photo's right half of the face compressed, the left stretched."""
    p = hopper()
    h, w = p.image.shape[:2]
    cx = 269.0
    xs = np.arange(w, dtype=np.float32)
    # Output x -> source x: sin-like yaw mapping around the face's centre line, face half-width ~95 px.
    r = 110.0
    out_x = np.clip((xs - cx) / r, -1, 1)
    yaw = np.radians(35)
    # A point at angle a on a cylinder of radius r appears at r*sin(a + yaw); invert for a.
    a = np.arcsin(np.clip(out_x, -1, 1)) - yaw
    src = np.where(np.abs((xs - cx) / r) < 1, cx + r * np.sin(np.clip(a, -np.pi / 2, np.pi / 2)), xs)
    map_x = np.broadcast_to(src, (h, w)).astype(np.float32)
    map_y = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None], (h, w)).astype(np.float32)
    img = cv2.remap(p.image, map_x, map_y, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)

    def fwd(x: float) -> float:
        return cx + r * float(np.sin(np.arcsin(np.clip((x - cx) / r, -1, 1)) + yaw))

    mouth = (fwd(p.mouth[0]), p.mouth[1])
    eyes = ((fwd(p.eyes[0][0]), p.eyes[0][1]), (fwd(p.eyes[1][0]), p.eyes[1][1]))
    return Photo("three_quarter", img, mouth, p.face_h, eyes)


def small_face() -> Photo:
    """The astronaut shrunk to half size in a large, plain 1024x768 frame: a face ~55 px tall."""
    p = astronaut()
    small = cv2.resize(p.image, (256, 256), interpolation=cv2.INTER_AREA)
    grad = np.linspace(150, 200, 768, dtype=np.float32)[:, None, None] * np.array([1.0, 0.97, 0.9])
    img = np.clip(np.broadcast_to(grad, (768, 1024, 3)) + _noise((768, 1024, 3), 3, 2), 0, 255).astype(
        np.uint8
    )
    ox, oy = 600, 400
    img[oy : oy + 256, ox : ox + 256] = small
    return Photo(
        "small",
        img,
        (ox + p.mouth[0] / 2, oy + p.mouth[1] / 2),
        p.face_h / 2,
        tuple((ox + x / 2, oy + y / 2) for x, y in p.eyes),  # type: ignore[arg-type]
    )


def low_res() -> Photo:
    """Hopper at a quarter of its size (128x150): a face ~50 px tall, upscaled ~5x on a 720p canvas."""
    p = hopper()
    img = cv2.resize(p.image, (128, 150), interpolation=cv2.INTER_AREA)
    s = 128 / p.image.shape[1]
    return Photo(
        "low_res",
        img,
        (p.mouth[0] * s, p.mouth[1] * s),
        p.face_h * s,
        tuple((x * s, y * s) for x, y in p.eyes),  # type: ignore[arg-type]
    )


ALL = {f.__name__: f for f in (astronaut, hopper, bearded, glasses, three_quarter, small_face, low_res)}

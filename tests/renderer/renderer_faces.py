"""Test images made on the spot: a drawn face photo the Haar cascade detects, and a sprite set with manifest."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import yaml


def draw_face_photo(
    width: int = 1280, height: int = 720, seed: int = 0
) -> tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]:
    """A photo-like BGR picture of a frontal face on a textured backdrop, and the regions we drew.

    Returns (image, {"face": box, "mouth": box, "eyes": box}) with boxes as (x, y, w, h).
    """
    rng = np.random.default_rng(seed)
    img = np.zeros((height, width, 3), np.uint8)
    # Backdrop: a soft vertical gradient plus grain, like a wall behind the person.
    grad = np.linspace(70, 120, height, dtype=np.float32)[:, None, None]
    img[:] = np.clip(
        grad * np.array([1.0, 0.95, 0.85]) + rng.normal(0, 3, (height, width, 3)), 0, 255
    ).astype(np.uint8)
    u = height / 720
    cx, cy = width // 2, int(300 * u)
    fw, fh = int(190 * u), int(250 * u)
    skin = (150, 175, 215)
    # Shoulders and neck.
    cv2.ellipse(
        img, (cx, int(760 * u)), (int(330 * u), int(200 * u)), 0, 180, 360, (90, 60, 50), -1, cv2.LINE_AA
    )
    cv2.rectangle(
        img, (cx - int(55 * u), cy + int(150 * u)), (cx + int(55 * u), int(600 * u)), (135, 160, 200), -1
    )
    # Hair behind, face, hair on top.
    cv2.ellipse(
        img,
        (cx, cy - int(20 * u)),
        (int(fw * 0.62), int(fh * 0.62)),
        0,
        0,
        360,
        (30, 35, 45),
        -1,
        cv2.LINE_AA,
    )
    cv2.ellipse(img, (cx, cy), (fw // 2, fh // 2), 0, 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(
        img,
        (cx, cy - int(70 * u)),
        (int(fw * 0.52), int(fh * 0.25)),
        0,
        180,
        360,
        (30, 35, 45),
        -1,
        cv2.LINE_AA,
    )
    # Cheek shading gives the cascade its bright-cheek / dark-eye contrast.
    shade = np.zeros_like(img)
    cv2.ellipse(shade, (cx, cy), (fw // 2, fh // 2), 0, 0, 360, (30, 30, 30), 18, cv2.LINE_AA)
    img = cv2.subtract(img, cv2.GaussianBlur(shade, (0, 0), 8 * u))
    ey = cy - int(20 * u)
    for side in (-1, 1):
        ex = cx + side * int(45 * u)
        cv2.ellipse(
            img,
            (ex, ey - int(26 * u)),
            (int(30 * u), int(9 * u)),
            0,
            180,
            360,
            (40, 45, 60),
            max(1, int(5 * u)),
            cv2.LINE_AA,
        )
        cv2.ellipse(img, (ex, ey), (int(26 * u), int(12 * u)), 0, 0, 360, (235, 235, 240), -1, cv2.LINE_AA)
        cv2.circle(img, (ex, ey), int(10 * u), (60, 70, 90), -1, cv2.LINE_AA)
        cv2.circle(img, (ex, ey), int(5 * u), (10, 10, 10), -1, cv2.LINE_AA)
        cv2.ellipse(
            img,
            (ex, ey),
            (int(27 * u), int(13 * u)),
            0,
            190,
            350,
            (30, 30, 40),
            max(1, int(3 * u)),
            cv2.LINE_AA,
        )
    # Nose: a shadowed ridge and nostrils.
    cv2.line(
        img,
        (cx - int(6 * u), ey + int(10 * u)),
        (cx - int(10 * u), ey + int(60 * u)),
        (120, 140, 180),
        max(1, int(4 * u)),
        cv2.LINE_AA,
    )
    for side in (-1, 1):
        cv2.circle(
            img, (cx + side * int(11 * u), ey + int(66 * u)), int(5 * u), (90, 105, 140), -1, cv2.LINE_AA
        )
    # Lips with a dark seam.
    my = cy + int(72 * u)
    cv2.ellipse(img, (cx, my), (int(42 * u), int(13 * u)), 0, 0, 360, (95, 95, 175), -1, cv2.LINE_AA)
    cv2.line(
        img, (cx - int(40 * u), my), (cx + int(40 * u), my), (45, 40, 80), max(1, int(3 * u)), cv2.LINE_AA
    )
    img = cv2.GaussianBlur(img, (0, 0), 0.8 * u)
    regions = {
        "face": (cx - fw // 2, cy - fh // 2, fw, fh),
        "mouth": (cx - int(60 * u), my - int(25 * u), int(120 * u), int(70 * u)),
        "eyes": (cx - int(80 * u), ey - int(20 * u), int(160 * u), int(40 * u)),
    }
    return img, regions


def write_sprite_set(
    folder: Path, size: tuple[int, int] = (400, 500), drop: str | None = None
) -> dict[str, tuple[int, int, int, int]]:
    """A PNGTuber-style sprite folder: base, eyes, six mouths, manifest.yaml. `drop` leaves one viseme out."""
    w, h = size
    folder.mkdir(parents=True, exist_ok=True)

    def blank() -> np.ndarray:
        return np.zeros((h, w, 4), np.uint8)

    base = blank()
    cv2.ellipse(
        base, (w // 2, h), (int(w * 0.45), int(h * 0.3)), 0, 180, 360, (160, 90, 60, 255), -1, cv2.LINE_AA
    )
    cv2.circle(base, (w // 2, int(h * 0.4)), int(w * 0.3), (170, 200, 240, 255), -1, cv2.LINE_AA)
    cv2.imwrite(str(folder / "base.png"), base)
    ex, ey = int(w * 0.12), int(h * 0.36)
    for name, lid in (("eyes_open", 0.0), ("eyes_half", 0.5), ("eyes_closed", 1.0)):
        im = blank()
        for side in (-1, 1):
            c = (w // 2 + side * ex, ey)
            if lid < 1:
                cv2.ellipse(
                    im, c, (16, int(18 * (1 - lid)) + 1), 0, 0, 360, (40, 30, 30, 255), -1, cv2.LINE_AA
                )
            else:
                cv2.line(im, (c[0] - 16, ey), (c[0] + 16, ey), (40, 30, 30, 255), 4, cv2.LINE_AA)
        cv2.imwrite(str(folder / f"{name}.png"), im)
    my = int(h * 0.52)
    shapes = {"A": (40, 30), "I": (50, 12), "U": (18, 18), "E": (44, 20), "O": (26, 28)}
    im = blank()
    cv2.line(im, (w // 2 - 30, my), (w // 2 + 30, my), (50, 40, 120, 255), 4, cv2.LINE_AA)
    cv2.imwrite(str(folder / "mouth_closed.png"), im)
    for k, (mw, mh) in shapes.items():
        im = blank()
        cv2.ellipse(im, (w // 2, my), (mw, mh), 0, 0, 360, (40, 30, 90, 255), -1, cv2.LINE_AA)
        cv2.ellipse(im, (w // 2, my), (mw, mh), 0, 0, 360, (80, 80, 200, 255), 4, cv2.LINE_AA)
        cv2.imwrite(str(folder / f"mouth_{k}.png"), im)
    mouths = {"closed": "mouth_closed.png", **{k: f"mouth_{k}.png" for k in shapes}}
    if drop is not None:
        mouths.pop(drop)
    manifest = {
        "base": "base.png",
        "eyes": {"open": "eyes_open.png", "half": "eyes_half.png", "closed": "eyes_closed.png"},
        "mouths": mouths,
        "bounce_px": 4,
    }
    (folder / "manifest.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    return {
        "mouth": (w // 2 - 60, my - 40, 120, 80),
        "eyes": (w // 2 - ex - 25, ey - 25, 2 * ex + 50, 50),
    }

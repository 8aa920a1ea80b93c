"""Backgrounds: a colour, an image, or a looping video decoded once at load (frames kept as I420)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from renderer.config import BackgroundConfig, parse_colour
from renderer.errors import AvatarError
from renderer.layers import fit_image


def read_image(path: Path, key: str, flags: int = cv2.IMREAD_UNCHANGED) -> np.ndarray:
    if not path.is_file():
        raise AvatarError(f"{key}: file {str(path)!r} does not exist")
    # np.fromfile + imdecode also reads non-ASCII paths, which cv2.imread cannot on every platform.
    img = cv2.imdecode(np.fromfile(str(path), np.uint8), flags)
    if img is None:
        raise AvatarError(f"{key}: {str(path)!r} is not an image OpenCV can read (png, jpg, webp, bmp)")
    return img


def to_bgr(img: np.ndarray) -> np.ndarray:
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        a = img[..., 3:4].astype(np.float32) / 255
        return np.rint(img[..., :3] * a).astype(np.uint8)  # transparent parts over black
    return img


def to_bgra(img: np.ndarray) -> np.ndarray:
    if img.dtype != np.uint8:
        img = (img / 257).astype(np.uint8) if img.dtype == np.uint16 else img.astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


class Background:
    """frame(n) -> a BGR canvas-sized array to copy from; never modified by callers."""

    def __init__(self, cfg: BackgroundConfig, width: int, height: int, fps: int):
        self.width, self.height, self.fps = width, height, fps
        self._still: np.ndarray | None = None
        self._frames: list[np.ndarray] = []
        self._video_fps = float(fps)
        self._scratch = np.empty((height, width, 3), np.uint8)
        if cfg.kind == "colour":
            b, g, r, _ = parse_colour(cfg.colour)
            self._still = np.empty((height, width, 3), np.uint8)
            self._still[:] = (b, g, r)
            return
        assert cfg.path is not None
        path = cfg.path.expanduser()
        if cfg.kind == "image":
            img = to_bgr(read_image(path, "avatar.background.path", cv2.IMREAD_COLOR))
            self._still = np.ascontiguousarray(fit_image(img, width, height, cfg.fit))
            return
        self._load_video(path, cfg)

    def _load_video(self, path: Path, cfg: BackgroundConfig) -> None:
        import av

        if not path.is_file():
            raise AvatarError(f"avatar.background.path: file {str(path)!r} does not exist")
        try:
            with av.open(str(path)) as container:
                stream = container.streams.video[0]
                rate = stream.average_rate or stream.guessed_rate
                self._video_fps = float(rate) if rate else float(self.fps)
                limit = int(cfg.max_seconds * self._video_fps)
                for frame in container.decode(stream):
                    bgr = fit_image(frame.to_ndarray(format="bgr24"), self.width, self.height, cfg.fit)
                    # I420 is half the memory of BGR; converting back costs ~0.7 ms at 720p.
                    self._frames.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420))
                    if len(self._frames) >= limit:
                        break
        except (av.error.FFmpegError, IndexError) as exc:
            raise AvatarError(f"avatar.background.path: cannot decode video {str(path)!r}: {exc}") from None
        if not self._frames:
            raise AvatarError(f"avatar.background.path: video {str(path)!r} has no frames")

    @property
    def is_video(self) -> bool:
        return bool(self._frames)

    def frame(self, n: int) -> np.ndarray:
        if self._still is not None:
            return self._still
        # The loop position follows the output frame number, so repeats/skips stay deterministic.
        idx = int(n * self._video_fps / self.fps) % len(self._frames)
        cv2.cvtColor(self._frames[idx], cv2.COLOR_YUV2BGR_I420, dst=self._scratch)
        return self._scratch

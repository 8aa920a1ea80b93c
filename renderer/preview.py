"""Avatar preview for operators: a contact sheet PNG (neutral, every viseme wide open, mid-blink, landmarks) and a short clip with speech.

Used by `virtual-anchor avatar preview`; kept free of the daemon so it needs only the avatar config,
the canvas and some PCM. Frames come from the same CompositeAvatar the room renders, so what the
sheet shows is what goes on air.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from renderer.base import FrameState, Viseme
from renderer.factory import CompositeAvatar
from renderer.lipsync import mouth_track

_VISEMES = (Viseme.A, Viseme.I, Viseme.U, Viseme.E, Viseme.O)


def _label(img: np.ndarray, text: str) -> None:
    h = img.shape[0]
    scale = max(0.4, h / 500)
    th = max(1, round(scale * 2))
    cv2.putText(
        img, text, (8, round(28 * scale)), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), th + 2, cv2.LINE_AA
    )
    cv2.putText(
        img, text, (8, round(28 * scale)), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), th, cv2.LINE_AA
    )


def _face_crop(avatar: CompositeAvatar) -> tuple[slice, slice]:
    """Canvas rows/cols around the portrait's face (head to neck); the whole canvas for other kinds."""
    fig = avatar.figure
    face = getattr(fig, "face", None)
    if face is None:
        return slice(0, avatar.height), slice(0, avatar.width)
    fx, fy, fw, fh = face
    rx, ry, _, _ = fig.rect  # type: ignore[attr-defined]
    cx, cy = rx + fx + fw / 2, ry + fy + fh * 0.55
    half = 0.8 * max(fw, fh)
    y0, y1 = int(max(cy - half, 0)), int(min(cy + half, avatar.height))
    x0, x1 = int(max(cx - half, 0)), int(min(cx + half, avatar.width))
    return slice(y0, y1), slice(x0, x1)


def draw_landmarks(avatar: CompositeAvatar) -> np.ndarray:
    """The placed photo with its landmarks drawn on a copy: contours green, named points red."""
    fig = avatar.figure
    img = fig.base.copy()  # type: ignore[attr-defined]
    lm = fig.lm  # type: ignore[attr-defined]
    th = max(1, round(img.shape[0] / 720))
    for name, pts in lm.contours.items():
        closed = name == "face_oval"
        cv2.polylines(
            img, [np.round(pts * 4).astype(np.int32)], closed, (60, 230, 60), th, cv2.LINE_AA, shift=2
        )
    r = max(1.0, lm.face_height / 90)  # dots in proportion to the face, not the canvas
    for x, y in lm.points.values():
        cv2.circle(img, (round(x * 4), round(y * 4)), round(r * 4), (40, 40, 240), -1, cv2.LINE_AA, shift=2)
    out = np.zeros((avatar.height, avatar.width, 3), np.uint8)
    rx, ry, rw, rh = fig.rect  # type: ignore[attr-defined]
    x0, y0 = max(rx, 0), max(ry, 0)
    x1, y1 = min(rx + rw, avatar.width), min(ry + rh, avatar.height)
    out[y0:y1, x0:x1] = img[y0 - ry : y1 - ry, x0 - rx : x1 - rx]
    return out


def contact_sheet(avatar: CompositeAvatar, tile_h: int = 320) -> np.ndarray:
    """Neutral, each viseme at full openness, mid-blink and the landmarks, cropped to the face, in one image."""
    fps = avatar.fps
    rows, cols = _face_crop(avatar)
    tiles: list[tuple[str, np.ndarray]] = [("neutral", avatar.render(FrameState(n=0, fps=fps)))]
    for v in _VISEMES:
        tiles.append((f"{v.name} open", avatar.render(FrameState(n=0, fps=fps, openness=1.0, viseme=v))))
    # Mid-blink: the first frame of the idle schedule whose lids are half shut.
    n_blink = next((n for n in range(60 * fps) if 0.4 <= avatar.idle.pose(n, fps).blink <= 0.7), 0)
    tiles.append(("mid-blink", avatar.render(FrameState(n=n_blink, fps=fps))))
    n_shut = next((n for n in range(60 * fps) if avatar.idle.pose(n, fps).blink > 0.97), 0)
    tiles.append(("blink", avatar.render(FrameState(n=n_shut, fps=fps))))
    if hasattr(avatar.figure, "lm"):
        tiles.append(("landmarks", draw_landmarks(avatar)))
    out = []
    for name, frame in tiles:
        crop = frame[rows, cols]
        s = tile_h / crop.shape[0]
        t = cv2.resize(crop, (max(1, round(crop.shape[1] * s)), tile_h), interpolation=cv2.INTER_AREA)
        _label(t, name)
        out.append(t)
    per_row = 3
    while len(out) % per_row:
        out.append(np.zeros_like(out[0]))
    return np.concatenate([np.concatenate(out[i : i + per_row], 1) for i in range(0, len(out), per_row)], 0)


def write_clip(
    avatar: CompositeAvatar,
    pcm: np.ndarray,
    sample_rate: int,
    path: Path,
    seconds: float = 10.0,
    lead_frames: float = 0.5,
    subtitle: str = "",
) -> int:
    """An MP4 (H.264 + AAC) of the avatar saying `pcm` (padded with silence or cut to `seconds`); returns frames."""
    import av as pyav

    fps = avatar.fps
    n_frames = round(seconds * fps)
    spf = sample_rate // fps
    audio = np.zeros(n_frames * spf, np.float32)
    k = min(len(pcm), len(audio) - spf // 2)
    audio[spf // 2 : spf // 2 + k] = pcm[:k]  # speech starts half a frame in, as after a pause
    track = mouth_track(audio, sample_rate, fps, lead_frames)
    with pyav.open(str(path), "w") as out:
        vs = out.add_stream("libx264", rate=fps)
        vs.width, vs.height, vs.pix_fmt = avatar.width, avatar.height, "yuv420p"
        vs.options = {"crf": "20", "preset": "veryfast"}
        aud = out.add_stream("aac", rate=sample_rate)
        aud.layout = "mono"
        frame_buf = np.empty((avatar.height, avatar.width, 3), np.uint8)
        for n in range(n_frames):
            o = float(track.openness[n]) if n < len(track) else 0.0
            v = Viseme(int(track.viseme[n])) if n < len(track) else Viseme.CLOSED
            speaking = o > 0
            avatar.render(
                FrameState(
                    n=n,
                    fps=fps,
                    openness=o,
                    viseme=v,
                    speaking=speaking,
                    subtitle=subtitle if speaking else "",
                ),
                out=frame_buf,
            )
            for p in vs.encode(pyav.VideoFrame.from_ndarray(frame_buf, format="bgr24")):
                out.mux(p)
        block = 1024
        pts = 0
        for i in range(0, len(audio), block):
            chunk = audio[i : i + block]
            af = pyav.AudioFrame.from_ndarray(chunk[None, :].astype(np.float32), format="fltp", layout="mono")
            af.sample_rate = sample_rate
            af.pts = pts
            af.time_base = Fraction(1, sample_rate)
            pts += len(chunk)
            for p in aud.encode(af):
                out.mux(p)
        for stream in (vs, aud):
            for p in stream.encode():
                out.mux(p)
    return n_frames


def preview(
    avatar: CompositeAvatar,
    out_dir: Path,
    pcm: np.ndarray,
    sample_rate: int,
    *,
    lead_frames: float = 0.5,
    seconds: float = 10.0,
    subtitle: str = "",
) -> dict[str, Path]:
    """Writes contact_sheet.png, landmarks.json (portrait: the detected points, in the avatar.landmarks
    format, to edit if a point is off) and preview.mp4 into out_dir; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"sheet": out_dir / "contact_sheet.png", "clip": out_dir / "preview.mp4"}
    cv2.imwrite(str(paths["sheet"]), contact_sheet(avatar))
    lm = getattr(avatar.figure, "photo_landmarks", None)
    if lm is not None:
        paths["landmarks"] = out_dir / "landmarks.json"
        paths["landmarks"].write_text(json.dumps(lm.to_json(), indent=1), encoding="utf-8")
    write_clip(avatar, pcm, sample_rate, paths["clip"], seconds, lead_frames, subtitle)
    return paths

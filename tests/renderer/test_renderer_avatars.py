"""Avatars judged from their rendered frames: sizes, determinism, mouth follows the voice, idle life in silence."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from renderer_speech import FPS, STAGE_RATE

from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig, IdleConfig
from renderer.factory import build_avatar
from renderer.lipsync import _frame_rms, mouth_track

CANVASES = [(1280, 720), (720, 1280), (854, 480)]


def _cfg(kind: str, face_photo: tuple[Path, dict], sprite_dir: Path, **kw) -> AvatarConfig:
    path = {"portrait": face_photo[0], "sprite": sprite_dir, "builtin": None}[kind]
    return AvatarConfig(kind=kind, path=path, **kw)


def _changed_box(a: np.ndarray, b: np.ndarray, thresh: int = 25) -> tuple[int, int, int, int]:
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > thresh
    ys, xs = np.nonzero(diff)
    assert ys.size, "no pixel changed"
    return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1


@pytest.mark.parametrize("kind", ["builtin", "portrait", "sprite"])
@pytest.mark.parametrize(("w", "h"), CANVASES)
def test_renders_canvas_sized_bgr_deterministically(kind, w, h, face_photo, sprite_dir) -> None:
    av = build_avatar(_cfg(kind, face_photo, sprite_dir, seed=7), w, h, FPS)
    states = [
        FrameState(n=n, fps=FPS, openness=o, viseme=Viseme.A, speaking=o > 0, subtitle=s, banner=b)
        for n, o, s, b in [(0, 0.0, "", ""), (37, 0.8, "大家好", "回答 @小王: 价格？"), (500, 0.3, "hi", "")]
    ]
    first = [av.render(s) for s in states]
    for f in first:
        assert f.shape == (h, w, 3) and f.dtype == np.uint8
    # Out of order and repeated: the same state gives the same picture (the clock may repeat/skip).
    again = [av.render(s) for s in reversed(states)][::-1]
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)
    # A second avatar built from the same config and seed draws the same frames.
    twin = build_avatar(_cfg(kind, face_photo, sprite_dir, seed=7), w, h, FPS)
    assert np.array_equal(twin.render(states[1]), first[1])
    # Idle life moves the picture over time.
    assert not np.array_equal(av.render(FrameState(n=0, fps=FPS)), av.render(FrameState(n=60, fps=FPS)))


@pytest.mark.parametrize("kind", ["portrait", "sprite", "builtin"])
def test_mouth_region_follows_the_voice(kind, face_photo, sprite_dir, speech_en) -> None:
    """Pixel change in the mouth region, measured on rendered frames, tracks the audio loudness."""
    av = build_avatar(_cfg(kind, face_photo, sprite_dir), 854, 480, FPS)
    track = mouth_track(speech_en, STAGE_RATE, FPS)
    rms = _frame_rms(speech_en, STAGE_RATE // FPS, len(track), 0)
    # The mouth region: where an open mouth differs from a closed one in the same frame.
    y0, y1, x0, x1 = _changed_box(
        av.render(FrameState(n=0, fps=FPS, openness=1.0, viseme=Viseme.A)),
        av.render(FrameState(n=0, fps=FPS)),
    )
    change = []
    for k in range(len(track)):
        spoken = av.render(
            FrameState(
                n=k,
                fps=FPS,
                openness=float(track.openness[k]),
                viseme=Viseme(int(track.viseme[k])),
                speaking=True,
            )
        )
        # The same moment rendered silent: what idle motion alone would show.
        silent = av.render(FrameState(n=k, fps=FPS))
        roi = (slice(y0, y1), slice(x0, x1))
        change.append(np.abs(spoken[roi].astype(np.int16) - silent[roi].astype(np.int16)).mean())
    r = float(np.corrcoef(change, rms)[0, 1])
    assert r >= 0.6, r


@pytest.mark.parametrize("kind", ["portrait", "sprite", "builtin"])
def test_silence_keeps_mouth_shut_and_eyes_alive(kind, face_photo, sprite_dir) -> None:
    """20 s of silence: nothing moves in the mouth region, the eyes change at least every 6 s (blinks)."""
    # Body motion off, so any pixel change is a blink or a mouth movement.
    still = IdleConfig(sway_px=0, sway_deg=0, breath=0, speak_nod=0)
    av = build_avatar(_cfg(kind, face_photo, sprite_dir, idle=still, seed=3), 854, 480, FPS)
    y0, y1, x0, x1 = _changed_box(
        av.render(FrameState(n=0, fps=FPS, openness=1.0, viseme=Viseme.O)),
        av.render(FrameState(n=0, fps=FPS)),
    )
    first = av.render(FrameState(n=0, fps=FPS))
    h = first.shape[0]
    changes = []
    total = 20 * FPS
    for n in range(1, total):
        diff = cv2.absdiff(av.render(FrameState(n=n, fps=FPS)), first)
        rows = np.nonzero(diff.reshape(h, -1).max(axis=1) > 8)[0]
        if rows.size:
            # The mouth stays closed: whatever differs from frame 0 lies above the mouth region (the eyes).
            assert rows.max() < y0 or diff[y0:y1, x0:x1].max() <= 8, (
                f"mouth region changed in silence at frame {n}"
            )
            changes.append(n)
    assert changes, "the eyes never changed in 20 s of silence"
    gaps = np.diff([0, *changes, total - 1]) / FPS
    assert gaps.max() <= 6.0, gaps.max()


def test_speech_start_and_end_are_smooth(speech_en) -> None:
    """No pops: between consecutive frames the mouth never jumps from shut to wide open or back."""
    av = build_avatar(AvatarConfig(), 854, 480, FPS)
    track = mouth_track(np.concatenate([np.zeros(STAGE_RATE // 2, np.float32), speech_en]), STAGE_RATE, FPS)
    jumps = np.abs(np.diff(np.concatenate([[0.0], track.openness, [0.0]])))
    assert jumps.max() <= 1.0
    # The last frame of an utterance hands over to idle (openness 0) without a visible pop.
    assert track.openness[-1] < 0.3
    last = FrameState(
        n=len(track) - 1, fps=FPS, openness=float(track.openness[-1]), viseme=Viseme(int(track.viseme[-1]))
    )
    idle = FrameState(n=len(track), fps=FPS)
    a, b = av.render(last), av.render(idle)
    assert np.abs(a.astype(np.int16) - b.astype(np.int16)).mean() < 2.0


def test_overlays_drawn_and_label_on_by_default(face_photo, sprite_dir) -> None:
    cfg = AvatarConfig()
    av = build_avatar(cfg, 1280, 720, FPS)
    plain = build_avatar(
        cfg.model_copy(
            update={
                "overlays": cfg.overlays.model_copy(
                    update={"label": cfg.overlays.label.model_copy(update={"enabled": False})}
                )
            }
        ),
        1280,
        720,
        FPS,
    )
    s = FrameState(n=5, fps=FPS)
    with_label, without = av.render(s), plain.render(s)
    y0, y1, x0, _x1 = _changed_box(with_label, without, 20)
    assert y1 < 720 * 0.15 and x0 > 1280 * 0.5  # top-right corner
    sub = av.render(FrameState(n=5, fps=FPS, subtitle="今天的新品"))
    y0, y1, _, _ = _changed_box(sub, with_label, 20)
    assert y0 > 720 * 0.7  # subtitle at the bottom
    ban = av.render(FrameState(n=5, fps=FPS, banner="回答 @小王: 多少钱"))
    y0, y1, _, _ = _changed_box(ban, with_label, 20)
    assert y1 < 720 * 0.25  # banner at the top


def test_background_image_and_video(tmp_path: Path) -> None:
    import av as pyav

    img = np.zeros((90, 160, 3), np.uint8)
    img[:, :80] = (0, 0, 255)
    cv2.imwrite(str(tmp_path / "bg.png"), img)
    cfg = AvatarConfig(
        background={"kind": "image", "path": tmp_path / "bg.png"}, overlays={"label": {"enabled": False}}
    )
    frame = build_avatar(cfg, 854, 480, FPS).render(FrameState(n=0, fps=FPS))
    assert tuple(frame[10, 10]) == (0, 0, 255) and tuple(frame[10, 840]) == (0, 0, 0)

    # A 12-frame video whose frames differ in brightness; the loop follows the frame number.
    with pyav.open(str(tmp_path / "bg.mp4"), "w") as out:
        st = out.add_stream("libx264", rate=FPS)
        st.width, st.height, st.pix_fmt = 160, 96, "yuv420p"
        for i in range(12):
            f = np.full((96, 160, 3), 20 * i, np.uint8)
            for p in st.encode(pyav.VideoFrame.from_ndarray(f, format="bgr24")):
                out.mux(p)
        for p in st.encode():
            out.mux(p)
    cfg = AvatarConfig(
        background={"kind": "video", "path": tmp_path / "bg.mp4"}, overlays={"label": {"enabled": False}}
    )
    avatar = build_avatar(cfg, 854, 480, FPS)
    lum = [int(avatar.render(FrameState(n=n, fps=FPS))[5, 5].mean()) for n in range(26)]
    assert lum[0] < lum[6] < lum[11]
    assert abs(lum[12] - lum[0]) <= 3 and abs(lum[25] - lum[1]) <= 3  # looped


def test_layout_box_and_logo_corner(tmp_path: Path) -> None:
    logo = np.zeros((40, 80, 4), np.uint8)
    logo[..., 1] = 255
    logo[..., 3] = 255
    cv2.imwrite(str(tmp_path / "logo.png"), logo)
    cfg = AvatarConfig(
        layout={"avatar_box": [0.0, 0.0, 0.5, 1.0]},
        overlays={
            "label": {"enabled": False},
            "logo": {"path": str(tmp_path / "logo.png"), "position": "bottom-right", "height": 0.1},
        },
    )
    av = build_avatar(cfg, 854, 480, FPS)
    frame = av.render(FrameState(n=10, fps=FPS))
    bg = np.array([0x3A, 0x26, 0x20], np.uint8)  # the default background colour, BGR
    right = frame[:, 440:]
    not_bg = np.any(right != bg, axis=2)
    ys, xs = np.nonzero(not_bg)
    # The avatar stays in the left half; on the right only the logo, green, in the bottom-right corner.
    assert ys.min() > 480 * 0.8 and xs.min() + 440 > 854 * 0.8
    assert tuple(frame[ys.max() - 2, 440 + xs.max() - 2]) == (0, 255, 0)
    assert np.any(frame[:, :427] != bg)

"""The portrait avatar on real photos: it moves the photo's own mouth and lids, nothing else, in time with the voice."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from renderer_photos import ALL, Photo
from renderer_speech import FPS, STAGE_RATE

import renderer.landmarks as landmarks_mod
from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig, IdleConfig
from renderer.errors import AvatarError
from renderer.factory import build_avatar
from renderer.landmarks import NAMED_POINTS
from renderer.lipsync import _frame_rms, mouth_track

STILL = IdleConfig(sway_px=0, sway_deg=0, breath=0, speak_nod=0)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Photo]]:
    folder = tmp_path_factory.mktemp("photos")
    out = {}
    for name, make in ALL.items():
        p = make()
        path = folder / f"{name}.png"
        cv2.imwrite(str(path), p.image)
        out[name] = (path, p)
    return out


def _avatar(path: Path, w: int = 1280, h: int = 720, **kw):
    cfg = AvatarConfig(kind="portrait", path=path, idle=STILL, overlays={"label": {"enabled": False}}, **kw)
    return build_avatar(cfg, w, h, FPS)


def _to_canvas(av, xy: tuple[float, float]) -> tuple[float, float]:
    """Photo px -> canvas px for a portrait placed with fit 'contain'."""
    fig = av.figure
    s = fig.photo_scale
    rx, ry, _, _ = fig.rect
    return xy[0] * s + rx, xy[1] * s + ry


def _opening(
    closed: np.ndarray, opened: np.ndarray, mx: float, my: float, fh: float
) -> tuple[np.ndarray, np.ndarray]:
    """(ys, xs) of pixels near the mouth that turned dark: the mouth's opening, not lips or chin moving."""
    g0 = cv2.cvtColor(closed, cv2.COLOR_BGR2GRAY).astype(np.int16)
    g1 = cv2.cvtColor(opened, cv2.COLOR_BGR2GRAY).astype(np.int16)
    ys, xs = np.nonzero((g0 - g1 > 40) & (g1 < 90))
    near = (ys > my - 0.1 * fh) & (ys < my + 0.12 * fh) & (np.abs(xs - mx) < 0.4 * fh)
    return ys[near], xs[near]


def _changed(a: np.ndarray, b: np.ndarray, thresh: int = 12) -> np.ndarray:
    return np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > thresh


@pytest.mark.parametrize("name", list(ALL))
def test_landmarks_put_the_mouth_on_the_real_mouth(name, photos) -> None:
    path, photo = photos[name]
    av = _avatar(path)
    lm = av.figure.photo_landmarks
    err = float(np.hypot(*(lm.mouth_centre - np.array(photo.mouth)))) / photo.face_h
    assert err < 0.04, f"{name}: mouth centre {lm.mouth_centre} vs {photo.mouth} (checked by eye): {err:.3f}"
    for side, (ex, ey) in zip(("left", "right"), photo.eyes, strict=True):
        c = (lm.p(f"{side}_eye_top") + lm.p(f"{side}_eye_bottom")) / 2
        assert np.hypot(c[0] - ex, c[1] - ey) / photo.face_h < 0.05, (name, side, c, (ex, ey))
    # On the canvas: what goes dark when the mouth opens is centred on that same mouth.
    closed = av.render(FrameState(n=0, fps=FPS))
    opened = av.render(FrameState(n=0, fps=FPS, openness=0.5, viseme=Viseme.E))
    mx, my = _to_canvas(av, photo.mouth)
    fh = photo.face_h * av.figure.photo_scale
    ys, xs = _opening(closed, opened, mx, my, fh)
    assert ys.size > 10, f"{name}: the mouth did not open"
    # The opening hangs from the seam: allow for half the lower lip's drop at this openness.
    assert abs(xs.mean() - mx) < 0.04 * fh, (name, xs.mean(), mx)
    assert abs(ys.mean() - my) < 0.04 * fh + 0.5 * 0.5 * 0.055 * fh, (name, ys.mean(), my)


@pytest.mark.parametrize(
    ("name", "w", "h"),
    [("astronaut", 1280, 720), ("hopper", 720, 1280), ("bearded", 1280, 720), ("three_quarter", 854, 480),
     ("glasses", 1280, 720), ("small_face", 1280, 720), ("low_res", 1280, 720)],
)  # fmt: skip
def test_speaking_changes_only_the_lower_face_and_blinks_only_the_eyes(name, w, h, photos) -> None:
    path, photo = photos[name]
    av = _avatar(path, w, h)
    s = av.figure.photo_scale
    fh = photo.face_h * s
    mx, my = _to_canvas(av, photo.mouth)
    rest = av.render(FrameState(n=0, fps=FPS))
    speak = np.zeros(rest.shape[:2], bool)
    for v in (Viseme.A, Viseme.I, Viseme.U, Viseme.E, Viseme.O):
        for o in (0.3, 1.0):
            speak |= _changed(av.render(FrameState(n=0, fps=FPS, openness=o, viseme=v)), rest)
    ys, xs = np.nonzero(speak)
    assert ys.size > 20
    # Lower face: from just under the nose to a little below the chin, within the jaw's width.
    assert xs.min() >= mx - 0.5 * fh and xs.max() <= mx + 0.5 * fh, (name, xs.min(), xs.max(), mx, fh)
    assert ys.min() >= my - 0.2 * fh and ys.max() <= my + 0.6 * fh, (name, ys.min(), ys.max(), my, fh)
    # A blink: only the eyes change.
    n = next(n for n in range(2000) if av.idle.pose(n, FPS).blink > 0.95)
    blink = _changed(av.render(FrameState(n=n, fps=FPS)), rest)
    ys, xs = np.nonzero(blink)
    assert ys.size > 10, f"{name}: blink changed nothing"
    eyes = [_to_canvas(av, e) for e in photo.eyes]
    near = np.zeros(xs.shape, bool)
    for ex, ey in eyes:
        near |= (np.abs(xs - ex) < 0.2 * fh) & (np.abs(ys - ey) < 0.13 * fh)
    assert near.all(), f"{name}: blink changed pixels away from the eyes"


@pytest.mark.parametrize("name", ["astronaut", "hopper"])
def test_dark_opening_follows_the_voice_and_never_lags(name, photos, speech_en) -> None:
    path, photo = photos[name]
    av = _avatar(path, 854, 480)
    track = mouth_track(speech_en, STAGE_RATE, FPS)
    rms = _frame_rms(speech_en, STAGE_RATE // FPS, len(track), 0)
    mx, my = _to_canvas(av, photo.mouth)
    fh = photo.face_h * av.figure.photo_scale
    roi = (slice(int(my - 0.1 * fh), int(my + 0.2 * fh)), slice(int(mx - 0.3 * fh), int(mx + 0.3 * fh)))
    closed = cv2.cvtColor(av.render(FrameState(n=0, fps=FPS)), cv2.COLOR_BGR2GRAY)[roi]
    dark_closed = int((closed < 70).sum())
    dark = []
    for k in range(len(track)):
        f = av.render(
            FrameState(n=k, fps=FPS, openness=float(track.openness[k]), viseme=Viseme(int(track.viseme[k])))
        )
        dark.append(int((cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)[roi] < 70).sum()) - dark_closed)
    d = np.array(dark, np.float64)
    r = float(np.corrcoef(d, rms)[0, 1])
    assert r >= 0.7, r

    def corr(lag: int) -> float:  # mouth at k against sound at k + lag
        if lag >= 0:
            return float(np.corrcoef(d[: len(d) - lag], rms[lag:])[0, 1])
        return float(np.corrcoef(d[-lag:], rms[: len(rms) + lag])[0, 1])

    best = max(range(-2, 3), key=corr)
    assert best in (0, 1), {lag: round(corr(lag), 3) for lag in range(-2, 3)}


def test_rounded_visemes_narrow_spread_ones_widen(photos) -> None:
    path, photo = photos["hopper"]
    av = _avatar(path)
    rest = av.render(FrameState(n=0, fps=FPS))
    mx, my = _to_canvas(av, photo.mouth)
    fh = photo.face_h * av.figure.photo_scale

    def width(v: Viseme) -> int:
        _, xs = _opening(rest, av.render(FrameState(n=0, fps=FPS, openness=1.0, viseme=v)), mx, my, fh)
        xs = xs[np.abs(xs - mx) < 0.32 * fh]  # the opening itself, not the jaw's edge moving
        return int(xs.max() - xs.min())

    # Rounded (U, O) against spread (I, E) shapes: the dark opening is narrower.
    assert width(Viseme.U) < width(Viseme.I) - 0.03 * fh
    assert width(Viseme.O) < width(Viseme.E) - 0.02 * fh


def test_detection_is_cached_by_photo_hash(photos, tmp_path, monkeypatch) -> None:
    path, _ = photos["astronaut"]
    cfg = AvatarConfig(kind="portrait", path=path)
    first = build_avatar(cfg, 854, 480, FPS, cache_dir=tmp_path)
    cached = list((tmp_path / "avatar-landmarks").glob("*.json"))
    assert len(cached) == 1

    def no_detection(*a, **k):
        raise AssertionError("detection ran although the cache holds this photo")

    monkeypatch.setattr(landmarks_mod, "detect", no_detection)
    again = build_avatar(cfg, 854, 480, FPS, cache_dir=tmp_path)
    assert np.allclose(again.figure.photo_landmarks.mouth_centre, first.figure.photo_landmarks.mouth_centre)
    s = FrameState(n=3, fps=FPS, openness=0.7, viseme=Viseme.A)
    assert np.array_equal(again.render(s), first.render(s))


def test_landmarks_file_overrides_detection(photos, tmp_path) -> None:
    path, _ = photos["hopper"]
    auto = _avatar(path).figure.photo_landmarks
    # The operator's file moves every point 12 px down: the mouth must follow the file, not detection.
    pts = {k: [auto.points[k][0], auto.points[k][1] + 12] for k in NAMED_POINTS}
    lm_file = tmp_path / "hopper.landmarks.json"
    lm_file.write_text(json.dumps({"points": pts}), encoding="utf-8")
    fig = _avatar(path, landmarks=lm_file).figure
    assert fig.photo_landmarks.source == "file"
    assert np.allclose(fig.photo_landmarks.mouth_centre, auto.mouth_centre + np.array([0, 12]), atol=0.01)
    # x and y swapped by mistake: refused, not rendered.
    lm_file.write_text(json.dumps({"points": {k: [y, x] for k, (x, y) in pts.items()}}), encoding="utf-8")
    with pytest.raises(AvatarError, match=r"avatar\.landmarks.*not laid out like a face"):
        _avatar(path, landmarks=lm_file)
    del pts["chin"]
    lm_file.write_text(json.dumps({"points": pts}), encoding="utf-8")
    with pytest.raises(AvatarError, match=r"avatar\.landmarks.*'chin'"):
        _avatar(path, landmarks=lm_file)


def test_face_box_guides_detection_and_is_checked(photos) -> None:
    path, photo = photos["small_face"]
    x, y = photo.mouth
    fh = photo.face_h
    box = (int(x - 0.5 * fh), int(y - 0.75 * fh), int(fh), int(fh))
    fig = _avatar(path, face_box=box).figure
    assert np.hypot(*(fig.photo_landmarks.mouth_centre - photo.mouth)) < 0.04 * fh
    # A face_box on the empty backdrop: refused, not guessed.
    with pytest.raises(AvatarError, match=r"no usable face inside avatar\.face_box"):
        _avatar(path, face_box=(20, 20, 200, 200))


@pytest.mark.parametrize("image", ["chelsea", "rocket", "coffee"])
def test_photo_without_a_face_is_refused_with_what_to_set(image, tmp_path) -> None:
    """A cat's face (mesh score 0.82 on a tile), a rocket (0.58), a coffee cup: no anchor."""
    import skimage.data

    path = tmp_path / f"{image}.png"
    cv2.imwrite(str(path), cv2.cvtColor(getattr(skimage.data, image)(), cv2.COLOR_RGB2BGR))
    with pytest.raises(AvatarError) as e:
        _avatar(path)
    msg = str(e.value)
    assert str(path) in msg and "avatar.face_box" in msg and "avatar.landmarks" in msg and "confidence" in msg


def test_readme_landmarks_example_loads_and_matches_detection(photos, tmp_path) -> None:
    """The landmarks file documented in renderer/README.md (the astronaut's points) is valid and right."""
    import re

    readme = (Path(__file__).parents[2] / "renderer" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\"points\".*?)\n```", readme, re.S)
    assert block is not None
    lm_file = tmp_path / "astronaut.landmarks.json"
    lm_file.write_text(block.group(1), encoding="utf-8")
    path, photo = photos["astronaut"]
    fig = _avatar(path, landmarks=lm_file).figure
    assert fig.photo_landmarks.source == "file"
    assert np.hypot(*(fig.photo_landmarks.mouth_centre - photo.mouth)) < 0.04 * photo.face_h


def test_preview_writes_sheet_landmarks_and_speaking_clip(photos, tmp_path, speech_en) -> None:
    import av as pyav

    from renderer.preview import preview

    path, _ = photos["hopper"]
    avatar = build_avatar(AvatarConfig(kind="portrait", path=path), 854, 480, FPS)
    out = preview(avatar, tmp_path / "prev", speech_en, STAGE_RATE, seconds=4)
    sheet = cv2.imread(str(out["sheet"]))
    assert sheet is not None and sheet.shape[0] > 300 and sheet.shape[1] > 300
    assert set(json.loads(out["landmarks"].read_text())["points"]) == set(NAMED_POINTS)
    with pyav.open(str(out["clip"])) as c:
        kinds = {s.type for s in c.streams}
        frames = sum(1 for _ in c.decode(video=0))
    assert kinds == {"video", "audio"} and frames == 4 * FPS

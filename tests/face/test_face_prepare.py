"""Preparation: crop boxes and jaw masks from real landmarks, cached per (VAE, dtype, source hash); a second room computes
nothing; the paste-back shows a model's chin wherever it opens the mouth to."""

from __future__ import annotations

import itertools
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from renderer.landmarks import find_landmarks
from renderer.neural import prepare as prep
from renderer.neural.infer import compose
from renderer.neural.model import CROP, EXTRA_MARGIN


def test_box_and_mask_of_a_real_photo(photos: dict[str, Path], tmp_path: Path) -> None:
    p = prep.prepare(photos["astronaut"], tmp_path)
    x0, y0, x1, y1 = p.geometry.box(0)
    mouth = (224.0, 146.0)  # read off the photo by eye (tests/renderer/renderer_photos.py)
    assert x0 < mouth[0] < x1 and y0 < mouth[1] < y1
    # Lower half of the box: the mouth sits below the middle (v1.5: nose to chin below, as much above).
    assert (mouth[1] - y0) / (y1 - y0) > 0.5
    m = p.geometry.masks[0]
    assert m.shape == (CROP, CROP) and m.dtype == np.uint8
    mx, my = (mouth[0] - x0) / (x1 - x0) * CROP, (mouth[1] - y0) / (y1 - y0) * CROP
    assert m[int(my), int(mx)] == 255  # the model's mouth, fully
    assert not m[: int(0.4 * CROP)].any()  # the upper half is the source's (the feather reaches just past the middle)
    assert not m[0].any() and m[:, 0].max() < 128 and m[:, -1].max() < 128  # cheeks narrowed at the sides
    jaw, _ = prep.musetalk_points(find_landmarks(photos["astronaut"], p.source.frames[0]))
    cx, cy = jaw[8]  # the chin (68-point 8)
    for below in (0, EXTRA_MARGIN // 2):  # the chin and under it (where an open mouth puts the model's) are covered
        assert m[int((cy + below - y0) / (y1 - y0) * CROP), int((cx - x0) / (x1 - x0) * CROP)] >= 200


@pytest.mark.parametrize("name", ["astronaut", "hopper"])
def test_a_model_chin_lower_than_the_sources_shows_through_the_paste_back(
    photos: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """A stand-in model that opens the mouth: its crop is the source's own, everything N px lower. Pasted back, the
    frame around the chin is the lowered one, not the source's chin showing through."""
    p = prep.prepare(photos[name], tmp_path)
    frame, box, mask = p.source.frames[0], p.geometry.box(0), p.geometry.masks[0]
    x0, y0, x1, y1 = box
    n = 4  # px at the source's size
    crop = p.geometry.crops(p.source.frames)[0]
    shift = np.float32([[1, 0, 0], [0, 1, n * CROP / (y1 - y0)]])
    lowered = cv2.warpAffine(crop, shift, (CROP, CROP), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    out = frame.copy()
    compose(out, lowered, box, mask)
    want = frame.copy()
    want[n:] = frame[:-n]  # the frame as the stand-in draws it: everything n px lower
    jaw, _ = prep.musetalk_points(find_landmarks(photos[name], frame))
    cx, cy = (int(v) for v in jaw[8])
    half = (x1 - x0) // 8
    region = np.s_[cy - 3 : cy + n + 2, cx - half : cx + half]
    shown = np.abs(out[region].astype(int) - want[region]).mean()
    source = np.abs(frame[region].astype(int) - want[region]).mean()
    assert shown < 0.35 * source, f"the source's chin shows through: {shown:.1f} vs {source:.1f}"


def test_second_room_loads_from_cache_and_computes_nothing(
    face_model, photos: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = prep.prepare(photos["hopper"], tmp_path, face_model)
    assert first.computed == ["geometry", "latents"]
    assert first.latents is not None and first.latents.shape == (1, 8, 32, 32)
    assert face_model.has_source(first.key)
    files = sorted(f.name for f in (tmp_path / "neural-face").iterdir())
    assert len(files) == 2 and any(f.endswith(".latents.npz") for f in files)

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("computed again")

    monkeypatch.setattr(prep, "detect", boom)
    monkeypatch.setattr(prep, "find_landmarks", boom)
    monkeypatch.setattr(face_model, "encode_reference", boom)
    second = prep.prepare(photos["hopper"], tmp_path, face_model)
    assert second.computed == [] and second.key == first.key
    np.testing.assert_array_equal(second.latents, first.latents)
    np.testing.assert_array_equal(second.geometry.masks, first.geometry.masks)
    np.testing.assert_array_equal(second.geometry.boxes, first.geometry.boxes)


def test_latents_are_keyed_by_the_vae(face_model, photos: dict[str, Path], tmp_path: Path) -> None:
    """Another VAE (another model) must not reuse the latents; the geometry is reused."""
    prep.prepare(photos["astronaut"], tmp_path, face_model)
    vae_file = face_model.layout.vae_weights
    cache = tmp_path / "neural-face"
    before = {f.name for f in cache.iterdir()}
    key = prep.prepare(photos["astronaut"], tmp_path).key
    assert {f"{key}.npz", f"{key}-{face_model.layout.vae_id()}-float32.latents.npz"} == before
    assert face_model.layout.vae_id() != face_model.layout.model_id()
    assert vae_file.is_file()


def test_latents_are_keyed_by_the_dtype(tiny_model_dir: Path, photos: dict[str, Path], tmp_path: Path) -> None:
    """fp32 latents are not handed to a half-precision model (nor the other way): each dtype encodes its own."""
    import torch

    from renderer.neural.infer import FaceModel
    from renderer.neural.loader import load_face_model

    m = load_face_model(tiny_model_dir, device="cpu")
    half = FaceModel(m.layout, m.unet, m.vae, m.whisper, m.extractor, "cpu", torch.bfloat16)
    first = prep.prepare(photos["astronaut"], tmp_path, half)
    assert first.computed == ["geometry", "latents"]
    key = f"{first.key}-{m.layout.vae_id()}-bfloat16.latents.npz"
    assert (tmp_path / "neural-face" / key).is_file()
    again = prep.prepare(photos["astronaut"], tmp_path, half)
    assert again.computed == []
    assert "v2-" in first.key  # the preparation version: caches of the nose-tip box are rebuilt


def _write_video(path: Path, frames: list[np.ndarray], fps: int = 25) -> None:
    with av.open(str(path), "w") as out:
        s = out.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = frames[0].shape[1], frames[0].shape[0], "yuv420p"
        s.options = {"crf": "12"}
        for f in frames:
            for pkt in s.encode(av.VideoFrame.from_ndarray(f, format="bgr24")):
                out.mux(pkt)
        for pkt in s.encode():
            out.mux(pkt)


def test_video_source_is_tracked_and_loops_forward_and_back(photos: dict[str, Path], tmp_path: Path) -> None:
    img = cv2.imread(str(photos["astronaut"]))
    frames = [np.ascontiguousarray(np.roll(img, 3 * i, axis=1)) for i in range(8)]  # the face moves right
    video = tmp_path / "anchor.mp4"
    _write_video(video, frames)
    p = prep.prepare(video, tmp_path / "state")
    assert len(p.source.frames) == 8 and p.source.fps == 25
    xs = p.geometry.boxes[:, 0]
    assert xs[-1] - xs[0] == pytest.approx(21, abs=4)  # the box follows the face
    seq = [p.source.loop_index(n, 25) for n in range(40)]
    assert seq[:8] == [0, 1, 2, 3, 4, 5, 6, 7] and set(seq) <= set(range(8))  # the turns vary (tests/renderer)
    assert max(abs(a - b) for a, b in itertools.pairwise(seq)) == 1  # never a jump
    assert prep.prepare(video, tmp_path / "state").computed == []

"""Preparation: crop boxes and masks from real landmarks, cached per (model, source hash); a second room computes nothing."""

from __future__ import annotations

import itertools
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from renderer.neural import prepare as prep
from renderer.neural.model import CROP


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
    assert m[int(my), int(mx)] >= 240  # the model's mouth, all but fully
    assert not m[: CROP // 2].any()  # the upper half is never replaced
    rim = np.concatenate([m[0], m[-1], m[:, 0], m[:, -1]])
    assert not rim.any()  # the crop's edge never shows


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
    assert {f"{key}.npz", f"{key}-{face_model.layout.vae_id()}.latents.npz"} == before
    assert face_model.layout.vae_id() != face_model.layout.model_id()
    assert vae_file.is_file()


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
    assert seq[:16] == [0, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1, 0, 1]
    assert max(abs(a - b) for a, b in itertools.pairwise(seq)) == 1  # never a jump
    assert prep.prepare(video, tmp_path / "state").computed == []

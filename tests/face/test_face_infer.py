"""Batched inference: three rooms' frames in one UNet pass, answers in order, any max batch; seamless paste-back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from renderer.neural.infer import FaceItem, compose, paste_mask
from renderer.neural.prepare import prepare

FPS = 25


@pytest.fixture(scope="module")
def sources(
    face_model, photos: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, object]:
    state = tmp_path_factory.mktemp("state")
    return {name: prepare(path, state, face_model) for name, path in photos.items()}


@pytest.fixture(scope="module")
def windows(face_model, speech: np.ndarray) -> np.ndarray:
    f = face_model.audio_features(speech, 44100, FPS)
    return f.windows[int(0.4 * FPS) :]  # after its 0.4 s lead-in: the words


def _unet_calls(model) -> tuple[list[int], object]:
    sizes: list[int] = []
    handle = model.unet.register_forward_hook(lambda mod, args, out: sizes.append(int(args[0].shape[0])))
    return sizes, handle


def test_three_rooms_in_one_forward_pass(face_model, sources, windows: np.ndarray) -> None:
    a, h = sources["astronaut"], sources["hopper"]
    # Room 1 and room 3 show the astronaut (one registered source, two rooms), room 2 Grace Hopper.
    items = [FaceItem(a.key, 0, windows[3]), FaceItem(h.key, 0, windows[10]), FaceItem(a.key, 0, windows[20])]
    sizes, handle = _unet_calls(face_model)
    try:
        crops = face_model.run_batch(items)
    finally:
        handle.remove()
    assert sizes == [3]
    assert [c.shape for c in crops] == [(256, 256, 3)] * 3 and all(c.dtype == np.uint8 for c in crops)
    # Each room gets its own answer: the same item alone gives the same crop (batching changes nothing).
    for i in (1, 2):
        alone = face_model.run_batch([items[i]])[0]
        assert np.abs(alone.astype(int) - crops[i]).max() <= 2
    assert np.abs(crops[0].astype(int) - crops[1]).mean() > 5  # another face
    assert np.abs(crops[0].astype(int) - crops[2]).mean() > 0.5  # same face, other audio


@pytest.mark.parametrize("max_batch", [1, 5, 32])
def test_any_max_batch_gives_the_same_answers(
    face_model, sources, windows: np.ndarray, max_batch: int
) -> None:
    a, h = sources["astronaut"], sources["hopper"]
    items = [FaceItem((a, h)[i % 2].key, 0, windows[i]) for i in range(7)]
    saved = face_model.max_batch
    sizes, handle = _unet_calls(face_model)
    try:
        face_model.max_batch = 32
        reference = face_model.run_batch(items)
        face_model.max_batch = max_batch
        got = face_model.run_batch(items)
    finally:
        face_model.max_batch = saved
        handle.remove()
    passes = -(-7 // max_batch)
    assert sizes[1:] == [min(max_batch, 7 - i * max_batch) for i in range(passes)]
    for r, g in zip(reference, got, strict=True):
        assert np.abs(r.astype(int) - g).max() <= 2


def test_a_full_batch_of_32(face_model, sources, windows: np.ndarray) -> None:
    a = sources["astronaut"]
    items = [FaceItem(a.key, 0, windows[i % len(windows)]) for i in range(32)]
    sizes, handle = _unet_calls(face_model)
    saved, face_model.max_batch = face_model.max_batch, 32
    try:
        crops = face_model.run_batch(items)
    finally:
        face_model.max_batch = saved
        handle.remove()
    assert sizes == [32] and len(crops) == 32


def test_unknown_source_is_a_key_error(face_model, windows: np.ndarray) -> None:
    with pytest.raises(KeyError):
        face_model.run_batch([FaceItem("no-such-source", 0, windows[0])])


def test_paste_back_changes_only_inside_the_mask(face_model, sources, windows: np.ndarray) -> None:
    h = sources["hopper"]
    frame = h.source.frames[0]
    box, mask = h.geometry.box(0), h.geometry.masks[0]
    crop = face_model.run_batch([FaceItem(h.key, 0, windows[5])])[0]
    out = frame.copy()
    compose(out, crop, box, mask)
    x0, y0, x1, y1 = box
    outside = np.ones(frame.shape[:2], bool)
    outside[y0:y1, x0:x1] = paste_mask(mask, box) == 0
    changed = (out != frame).any(axis=2)
    assert not changed[outside].any()  # no seam: outside the feathered mask every pixel is the source's
    full = np.zeros(frame.shape[:2], bool)
    full[y0:y1, x0:x1] = paste_mask(mask, box) == 255
    assert changed[full].mean() > 0.9  # and the random model's mouth really is pasted in
    # The blend is gradual: along a column through the mask's edge, steps stay small.
    col = (x0 + x1) // 2
    diff = np.abs(out[y0:y1, col].astype(int) - frame[y0:y1, col]).max(axis=1)
    m = paste_mask(mask, box)[:, col - x0].astype(int)
    assert (diff <= np.maximum(m, 1) + 1).all()  # a pixel moves at most as far as its mask weight allows

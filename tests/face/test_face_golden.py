"""The face's maths against MuseTalk 1.5's own code: fixtures made by tests/face/golden/make_golden.py (its docstring
says how) from MuseTalk's whisper chunking, crop box, blending square, latent preparation, positional encoding and
one UNet step, on the numpy-seeded tiny model; and hooks on the UNet that check what goes in."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from renderer.landmarks import find_landmarks
from renderer.neural.infer import FaceItem
from renderer.neural.model import CROP, positional_encoding
from renderer.neural.prepare import blend_box, crop_box_68, musetalk_points, prepare
from tests.face.golden.make_golden import FPS_LIST, LONG_S, RATE, clip
from tests.face.tinymodel import fingerprint, write_model

GOLDEN = Path(__file__).parent / "golden" / "musetalk15.npz"


@pytest.fixture(scope="module")
def golden() -> dict[str, np.ndarray]:
    with np.load(GOLDEN) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def golden_model(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory, golden):
    """The model the fixtures were made with (numpy-seeded: the same weights under any torch), on the CPU in fp32."""
    from renderer.neural.loader import load_face_model

    folder = write_model(tmp_path_factory.mktemp("golden-model") / "models", portable=True)
    assert fingerprint(folder) == str(golden["model_fingerprint"]), (
        "the rebuilt tiny model is not the one the golden fixtures were made with (did diffusers/transformers rename "
        "parameters?): rerun tests/face/golden/make_golden.py")
    return load_face_model(folder, device="cpu", dtype="float32", max_batch=16)


@pytest.mark.parametrize("name", ["astronaut", "hopper"])
def test_the_crop_box_is_musetalks(golden, photos: dict[str, Path], name: str) -> None:
    img = cv2.imread(str(photos[name]))
    h, w = img.shape[:2]
    box = crop_box_68(golden[f"{name}_jaw"], golden[f"{name}_p29"], w, h)
    assert list(box) == golden[f"{name}_box"].tolist()
    assert list(blend_box(box)) == golden[f"{name}_blend_box"].tolist()
    # Today's landmarks still name the same points, and prepare puts the box there: landmark 29 on the nose bridge.
    jaw, p29 = musetalk_points(find_landmarks(photos[name], img))
    np.testing.assert_allclose(p29, golden[f"{name}_p29"], atol=1.5)
    np.testing.assert_allclose(jaw, golden[f"{name}_jaw"], atol=1.5)
    got = np.array(prepare(photos[name], None).geometry.box(0))
    assert np.abs(got - golden[f"{name}_box"]).max() <= 2, (got, golden[f"{name}_box"])


@pytest.mark.parametrize("fps", FPS_LIST)
def test_whisper_windows_are_musetalks(golden, golden_model, fps: int) -> None:
    want = golden[f"whisper_short_{fps}"]
    got = golden_model.audio_features(golden["short_pcm"], RATE, fps).windows
    assert got.shape[1:] == want.shape[1:], "tokens per frame: 10 steps x (encoder layers + the embedding layer)"
    np.testing.assert_allclose(got[: len(want)], want, rtol=1e-4, atol=1e-5)


def test_whisper_windows_across_two_segments_are_musetalks(golden, golden_model) -> None:
    got = golden_model.audio_features(clip(LONG_S, 2), RATE, 25).windows
    assert len(got) >= int(golden["long_count"])
    np.testing.assert_allclose(got[golden["long_frames"]], golden["whisper_long_25"], rtol=1e-4, atol=1e-5)


def test_reference_latents_are_musetalks(golden, golden_model, photos: dict[str, Path]) -> None:
    crop = golden["astronaut_crop"]
    p = prepare(photos["astronaut"], None)
    ours = p.geometry.crops(p.source.frames)[0]
    assert np.abs(ours.astype(int) - crop).max() <= 1  # cut and resized as MuseTalk does
    lat = golden_model.encode_reference(crop[None])
    np.testing.assert_allclose(lat, golden["astronaut_latents"], rtol=1e-4, atol=1e-4)


def test_positional_encoding_is_musetalks(golden, golden_model) -> None:
    # MuseTalk works it out in float32, we in float64: they differ by float32's rounding of sin(49 x ...).
    np.testing.assert_allclose(positional_encoding(50, 384), golden["pe_384"], atol=1e-5)
    np.testing.assert_allclose(positional_encoding(30, 32), golden["pe_32"], atol=1e-5)
    np.testing.assert_allclose(golden_model._pe.float().cpu().numpy(), golden["pe_32"], atol=1e-5)


def test_one_unet_step_is_musetalks(golden, golden_model) -> None:
    golden_model.register("golden", golden["astronaut_latents"])
    windows = golden_model.audio_features(golden["short_pcm"], RATE, 25).windows
    preds: list[np.ndarray] = []
    handle = golden_model.unet.register_forward_hook(lambda m, a, out: preds.append(out.sample.float().numpy()))
    try:
        crops = golden_model.run_batch([FaceItem("golden", 0, windows[k]) for k in golden["unet_frames"]])
    finally:
        handle.remove()
    np.testing.assert_allclose(preds[0], golden["unet_pred"], rtol=1e-3, atol=1e-4)
    assert np.abs(crops[0][96:160, 96:160].astype(int) - golden["unet_crop"]).max() <= 1


# --- hooks: what the UNet is given -----------------------------------------------------------------------------


def _inputs(model) -> tuple[list[tuple[np.ndarray, np.ndarray]], object]:
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def hook(mod, args, kwargs):
        seen.append((args[0].float().numpy().copy(), kwargs["encoder_hidden_states"].float().numpy().copy()))

    return seen, model.unet.register_forward_pre_hook(hook, with_kwargs=True)


def _encode(model, rgb01: np.ndarray) -> np.ndarray:
    """The VAE's posterior mean of one RGB image in 0..1 (H, W, 3), scaled: the latent of that exact image."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(rgb01.transpose(2, 0, 1)))[None].float() * 2 - 1
    with torch.inference_mode():
        return (model.vae.encode(x).latent_dist.mean * model.scaling)[0].numpy()


def test_unet_input_is_the_masked_crops_latents_then_the_references(face_model, golden) -> None:
    crop = golden["astronaut_crop"]
    face_model.register("hook", face_model.encode_reference(crop[None]))
    seen, handle = _inputs(face_model)
    try:
        face_model.run_batch([FaceItem("hook", 0, np.zeros((face_model.tokens, face_model.d_model), np.float32))])
    finally:
        handle.remove()
    sample = seen[0][0][0]
    rgb = crop[:, :, ::-1].astype(np.float32) / 255
    masked = rgb.copy()
    masked[CROP // 2 :] = 0  # the lower half at the masked value (-1 after scaling to -1..1)
    np.testing.assert_allclose(sample[:4], _encode(face_model, masked), atol=1e-4)
    np.testing.assert_allclose(sample[4:], _encode(face_model, rgb), atol=1e-4)
    assert np.abs(sample[:4] - sample[4:]).mean() > 0.2 * np.abs(sample[4:]).mean()  # the two really differ


def test_audio_tokens_are_the_stacked_whisper_states_of_the_frames_steps(face_model) -> None:
    import torch

    t = np.arange(int(0.8 * RATE)) / RATE
    pcm = (0.3 * np.sin(2 * np.pi * 220 * t) * (t % 0.25 < 0.15)).astype(np.float32)
    feats = face_model.audio_features(pcm, RATE, 25)
    with torch.inference_mode():
        mel = face_model.extractor(pcm, sampling_rate=RATE, return_tensors="pt").input_features
        states = face_model.whisper(mel, output_hidden_states=True).hidden_states
    assert len(states) == face_model.layers + 1  # every encoder layer and the embedding layer
    steps = np.stack([s[0].numpy() for s in states], axis=1)[: int(0.8 * 50)]  # (steps, layers + 1, d)
    face_model.register("tokens", np.zeros((1, 8, 32, 32), np.float32))
    seen, handle = _inputs(face_model)
    try:
        frames = (0, 7, 19)
        face_model.run_batch([FaceItem("tokens", 0, feats.windows[k]) for k in frames])
    finally:
        handle.remove()
    tokens = seen[0][1] - face_model._pe.float().numpy()
    for i, k in enumerate(frames):
        want = np.zeros((10, face_model.layers + 1, face_model.d_model), np.float32)
        for j, s in enumerate(range(2 * k - 4, 2 * k + 6)):  # 2 frames of context each side, 2 steps a frame
            if 0 <= s < len(steps):
                want[j] = steps[s]
        np.testing.assert_allclose(tokens[i], want.reshape(-1, face_model.d_model), atol=1e-4, err_msg=f"frame {k}")

"""The loader reads the published MuseTalk 1.5 layout, names a missing file, and falls back to the CPU and fp32."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from renderer.config import AvatarConfig
from renderer.neural.loader import (
    ModelFilesError,
    check_layout,
    load_face_model,
    resolve_device,
    resolve_dtype,
)


def test_tiny_model_loads_through_the_real_loader(face_model, tiny_model_dir: Path) -> None:
    import torch

    assert face_model.device == "cpu" and face_model.dtype == torch.float32
    assert face_model.unet.config.in_channels == 8 and face_model.unet.config.out_channels == 4
    assert face_model.unet.config.cross_attention_dim == face_model.d_model
    # MuseTalk's audio tokens: 10 whisper steps x (encoder layers + embeddings) per video frame.
    assert face_model.tokens == 10 * (face_model.layers + 1)
    # The weights on disk are the ones loaded (not a fresh random init).
    saved = torch.load(tiny_model_dir / "musetalkV15" / "unet.pth", weights_only=True)
    name = "conv_in.weight"
    assert torch.equal(saved[name], face_model.unet.state_dict()[name])


@pytest.mark.parametrize(
    "missing",
    [
        "musetalkV15/unet.pth",
        "musetalkV15/musetalk.json",
        "sd-vae/diffusion_pytorch_model.safetensors",
        "whisper/model.safetensors",
        "whisper/preprocessor_config.json",
    ],
)
def test_a_missing_file_is_named(tiny_model_dir: Path, tmp_path: Path, missing: str) -> None:
    copy = shutil.copytree(tiny_model_dir, tmp_path / "models")
    (copy / missing).unlink()
    with pytest.raises(ModelFilesError) as err:
        load_face_model(copy, device="cpu")
    assert str(copy / missing) in str(err.value)
    # The same check at config time, with no model loaded: one line naming the file.
    with pytest.raises(ValidationError) as err2:
        AvatarConfig.model_validate(
            {"kind": "neural", "model_dir": "models", "source": str(tmp_path / "models" / "musetalkV15")},
            context={"base_dir": tmp_path},
        )
    assert str(copy / missing) in str(err2.value)


def test_broken_weights_are_an_error_naming_the_folder(tiny_model_dir: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_model_dir, tmp_path / "models")
    (copy / "musetalkV15" / "unet.pth").write_bytes(b"not a checkpoint")
    with pytest.raises(ModelFilesError, match="cannot load"):
        load_face_model(copy, device="cpu")


def test_config_needs_model_dir_and_source(tiny_model_dir: Path, photos: dict[str, Path]) -> None:
    ok = AvatarConfig.model_validate(
        {
            "kind": "neural",
            "model_dir": str(tiny_model_dir),
            "source": str(photos["astronaut"]),
            "device": "cuda:1",
        }
    )
    assert ok.device == "cuda:1" and ok.dtype == "auto"
    with pytest.raises(ValidationError, match="needs 'model_dir'"):
        AvatarConfig.model_validate({"kind": "neural", "source": str(photos["astronaut"])})
    with pytest.raises(ValidationError, match="does not exist"):
        AvatarConfig.model_validate(
            {"kind": "neural", "model_dir": str(tiny_model_dir), "source": "/nonexistent/anchor.mp4"}
        )
    with pytest.raises(ValidationError, match="device"):
        AvatarConfig.model_validate(
            {
                "kind": "neural",
                "model_dir": str(tiny_model_dir),
                "source": str(photos["astronaut"]),
                "device": "gpu",
            }
        )
    with pytest.raises(ValidationError, match="apply only to kind 'neural'"):
        AvatarConfig.model_validate(
            {"kind": "portrait", "path": str(photos["astronaut"]), "source": str(photos["hopper"])}
        )
    assert check_layout(tiny_model_dir).unet_weights.name == "unet.pth"


def test_device_and_dtype_fall_back_to_the_cpu(caplog: pytest.LogCaptureFixture) -> None:
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with caplog.at_level(logging.INFO, logger="common.devices"):
        auto = resolve_device("auto")
        far = resolve_device(f"cuda:{gpus}")  # one past the last GPU: never usable
    assert far == "cpu"
    if gpus == 0:
        assert auto == "cpu"
        assert [r.levelno for r in caplog.records] == [logging.INFO, logging.WARNING]  # one line each
        assert "running on the CPU" in caplog.records[0].getMessage()
    else:
        assert auto == "cuda:0"
    assert resolve_device("cpu") == "cpu"
    assert resolve_dtype("bfloat16", "cpu") == torch.float32
    assert resolve_dtype("auto", "cpu") == torch.float32


def test_the_core_imports_without_torch() -> None:
    """Config, factory and the room-side neural modules must not pull torch in (the default install has none)."""
    code = (
        "import sys; import renderer.config, renderer.factory, renderer.neural.avatar, renderer.neural.prepare, "
        "renderer.neural.loader, renderer.neural.infer; "
        "bad = [m for m in ('torch', 'diffusers', 'transformers') if m in sys.modules]; "
        "sys.exit(f'imported {bad}' if bad else 0)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]


def test_the_published_checkpoint_formats_load_the_same_weights(tmp_path: Path) -> None:
    """As the download scripts fetch them: musetalkV15/unet.pth (a torch.save'd state dict), sd-vae's
    diffusion_pytorch_model.bin, and openai/whisper-tiny's pytorch_model.bin, saved as WhisperForConditionalGeneration
    (its encoder under `model.encoder.`). Each loads the very weights the safetensors base-model layout holds."""
    import torch

    from tests.face.tinymodel import write_model

    plain = write_model(tmp_path / "plain", portable=True)
    published = write_model(tmp_path / "published", portable=True, vae_bin=True, whisper_full=True)
    assert (published / "sd-vae" / "diffusion_pytorch_model.bin").is_file()
    assert not (published / "sd-vae" / "diffusion_pytorch_model.safetensors").exists()
    saved = torch.load(published / "whisper" / "pytorch_model.bin", map_location="cpu", weights_only=True)
    assert any(k.startswith("model.encoder.") for k in saved) and not (published / "whisper" / "model.safetensors").exists()
    layout = check_layout(published)
    assert (layout.unet_weights.name, layout.vae_weights.name, layout.whisper_weights.name) == (
        "unet.pth", "diffusion_pytorch_model.bin", "pytorch_model.bin")
    a, b = load_face_model(plain, device="cpu"), load_face_model(published, device="cpu")
    for part in ("unet", "vae", "whisper"):
        sa, sb = getattr(a, part).state_dict(), getattr(b, part).state_dict()
        assert sa.keys() == sb.keys(), part
        differ = [k for k in sa if not torch.equal(sa[k], sb[k])]
        assert not differ, f"{part}: {differ[:3]} not loaded from the checkpoint"
    # And the weights are the checkpoint's, not a fresh init that happens to agree: one tensor read straight from it.
    key = "model.encoder.layers.0.fc1.weight"
    assert torch.equal(saved[key], b.whisper.state_dict()["layers.0.fc1.weight"])

"""Load a MuseTalk-1.5-layout model folder onto a device: file checks that name what is missing, device and dtype choice.

Layout (as published; `model_dir` is the folder holding these):

    musetalkV15/musetalk.json   UNet2DConditionModel config
    musetalkV15/unet.pth        its state dict (torch.save)
    sd-vae/config.json          AutoencoderKL config
    sd-vae/diffusion_pytorch_model.safetensors  (or .bin)
    whisper/config.json         whisper-tiny; only the encoder is used
    whisper/model.safetensors   (or pytorch_model.bin)
    whisper/preprocessor_config.json

`check_layout` needs neither torch nor diffusers (config validation calls it); `load_face_model` imports them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from common.devices import resolve_device as common_resolve_device
from common.devices import torch_gpu_count
from renderer.errors import AvatarError
from renderer.neural.model import ModelLayout

if TYPE_CHECKING:
    import torch

    from renderer.neural.infer import FaceModel

log = logging.getLogger(__name__)

Dtype = Literal["auto", "float32", "float16", "bfloat16"]


class ModelFilesError(AvatarError):
    """A model folder that lacks a file of the published layout (str() names the file) or holds a broken one."""


def _one_of(folder: Path, names: tuple[str, ...], key: str) -> Path:
    for n in names:
        if (folder / n).is_file():
            return folder / n
    raise ModelFilesError(
        f"{key + ': ' if key else ''}missing file {str(folder / names[0])!r}"
        + (f" (or {', '.join(names[1:])})" if len(names) > 1 else "")
        + "; expected MuseTalk 1.5's published layout (docs/face.md)"
    )


def check_layout(model_dir: Path, key: str = "avatar.model_dir") -> ModelLayout:
    """Every file the loader needs is there, else ModelFilesError naming the first missing one."""
    root = model_dir.expanduser()
    if not root.is_dir():
        raise ModelFilesError(f"{key}: folder {str(root)!r} does not exist")
    mt, vae, wh = root / "musetalkV15", root / "sd-vae", root / "whisper"
    layout = ModelLayout(
        root=root,
        unet_config=_one_of(mt, ("musetalk.json",), key),
        unet_weights=_one_of(mt, ("unet.pth",), key),
        vae_dir=_one_of(vae, ("config.json",), key).parent,
        vae_weights=_one_of(vae, ("diffusion_pytorch_model.safetensors", "diffusion_pytorch_model.bin"), key),
        whisper_dir=_one_of(wh, ("config.json",), key).parent,
        whisper_weights=_one_of(wh, ("model.safetensors", "pytorch_model.bin"), key),
    )
    _one_of(wh, ("preprocessor_config.json",), key)
    return layout


def resolve_device(requested: str, *, what: str = "face") -> str:
    """cpu | cuda | cuda:N | auto -> the torch device; no usable GPU: the CPU, said once in the log."""
    return common_resolve_device(requested, torch_gpu_count, what=what)


def resolve_dtype(requested: Dtype, device: str, *, what: str = "face") -> torch.dtype:
    """auto: fp16 on a GPU, as MuseTalk and LiveTalking run the published weights (bf16 only when asked for: the model
    was not run in it upstream); fp32 on the CPU (half precision there is slow or unsupported)."""
    import torch

    if device == "cpu":
        if requested not in ("auto", "float32"):
            log.info("%s: %s asked for but running on the CPU; using float32", what, requested)
        return torch.float32
    if requested == "auto":
        return torch.float16
    return getattr(torch, requested)


def load_face_model(
    model_dir: Path, device: str = "auto", dtype: Dtype = "auto", *, max_batch: int = 16
) -> FaceModel:
    """Build UNet, VAE and whisper encoder from the folder on the chosen device and dtype, in eval mode."""
    import json
    import pickle

    import torch
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from safetensors import SafetensorError
    from transformers import WhisperFeatureExtractor, WhisperModel

    from renderer.neural.infer import FaceModel

    layout = check_layout(model_dir)
    dev = resolve_device(device)
    dt = resolve_dtype(dtype, dev)
    try:
        unet_cfg = json.loads(layout.unet_config.read_text(encoding="utf-8"))
        unet = UNet2DConditionModel.from_config(unet_cfg)
        state = torch.load(layout.unet_weights, map_location="cpu", weights_only=True)
        unet.load_state_dict(state)
        del state
        vae = AutoencoderKL.from_pretrained(layout.vae_dir)
        whisper = WhisperModel.from_pretrained(layout.whisper_dir).encoder
        extractor = WhisperFeatureExtractor.from_pretrained(layout.whisper_dir)
    except (OSError, ValueError, RuntimeError, KeyError, pickle.UnpicklingError, SafetensorError) as exc:
        raise ModelFilesError(
            f"avatar.model_dir: cannot load {str(layout.root)!r}: {type(exc).__name__}: {exc}"
        ) from exc
    if (
        unet.config.in_channels != 2 * vae.config.latent_channels
        or unet.config.cross_attention_dim != whisper.config.d_model
    ):
        raise ModelFilesError(
            f"avatar.model_dir: {str(layout.unet_config)!r} does not fit the VAE/whisper beside it (UNet in_channels "
            f"{unet.config.in_channels}, cross_attention_dim {unet.config.cross_attention_dim}; expected "
            f"{2 * vae.config.latent_channels} and whisper d_model {whisper.config.d_model})"
        )
    return FaceModel(layout, unet, vae, whisper, extractor, dev, dt, max_batch=max_batch)

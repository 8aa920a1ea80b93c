"""Writes a MuseTalk-1.5-shaped model with random weights in the published layout (tests and bench only).

`write_model(folder)` builds a tiny one (a few channels and layers: seconds on a CPU);
`write_model(folder, full_size=True)` the published sizes (UNet ~0.8 G parameters, sd-vae, whisper-tiny);
`write_model(folder, portable=True)` a tiny one whose weights come from numpy's frozen RandomState stream, one
seed per parameter name, not torch's initialisers: the same numbers under any torch version (the golden
fixtures of tests/face/golden/ were made with it). Each is read back by the real loader,
renderer.neural.loader.load_face_model. A checkpoint can also be written in the other published formats
(`vae_bin`: sd-vae's diffusion_pytorch_model.bin; `whisper_full`: whisper saved as
WhisperForConditionalGeneration, its weights under `model.`, as openai/whisper-tiny is).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

from renderer.neural.model import MUSETALK_UNET_CONFIG, SD_VAE_CONFIG, WHISPER_TINY_CONFIG

# The cross-attention (and self-attention) blocks at 16x16 rather than 32x32: attention over 1024
# positions would make the tiny model's CPU time grow with the square of the batch's memory.
TINY_UNET = {
    **MUSETALK_UNET_CONFIG,
    "block_out_channels": [32, 64],
    "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D"],
    "up_block_types": ["CrossAttnUpBlock2D", "UpBlock2D"],
    "attention_head_dim": 2,
    "layers_per_block": 1,
    "norm_num_groups": 8,
    "cross_attention_dim": 32,
    "sample_size": 32,
}
# Four blocks as in sd-vae, so a 256 crop still gives 32x32 latents; only the widths shrink.
TINY_VAE = {
    **SD_VAE_CONFIG,
    "block_out_channels": [8, 16, 16, 16],
    "layers_per_block": 1,
    "norm_num_groups": 4,
}
# max_source_positions stays 1500: whisper's feature extractor always pads to 30 s.
TINY_WHISPER = {
    **WHISPER_TINY_CONFIG,
    "d_model": 32,
    "encoder_layers": 2,
    "encoder_attention_heads": 2,
    "encoder_ffn_dim": 64,
    "decoder_layers": 1,
    "decoder_attention_heads": 2,
    "decoder_ffn_dim": 64,
}


def portable_init(module, seed: int) -> None:
    """Every parameter and float buffer from RandomState(seed ^ crc32(name)): weights ~ N(0, 1/fan_in), norm scales
    1 + N(0, 0.1), everything else N(0, 0.02). Deterministic across torch versions; as tame as torch's own init."""
    import numpy as np
    import torch

    with torch.no_grad():
        for name, t in [*module.named_parameters(), *module.named_buffers()]:
            if not t.is_floating_point():
                continue
            rs = np.random.RandomState((seed ^ zlib.crc32(name.encode())) & 0x7FFFFFFF)
            z = rs.standard_normal(tuple(t.shape))
            if t.ndim >= 2:
                v = z / np.sqrt(max(1, int(np.prod(t.shape[1:]))))
            elif name.endswith("weight") and "norm" in name:
                v = 1 + 0.1 * z
            else:
                v = 0.02 * z
            t.copy_(torch.from_numpy(np.asarray(v, np.float32)))


def fingerprint(folder: Path) -> str:
    """Names, shapes and rounded sums of a written model's tensors: equal only for the same model (golden checks)."""
    import torch
    from safetensors.torch import load_file

    from renderer.neural.loader import check_layout

    layout = check_layout(folder)
    h = hashlib.sha256()
    for f in (layout.unet_weights, layout.vae_weights, layout.whisper_weights):
        state = (torch.load(f, map_location="cpu", weights_only=True) if f.suffix in (".pth", ".bin")
                 else load_file(f))
        for k in sorted(state):
            v = state[k].double()
            h.update(f"{k}:{tuple(v.shape)}:{float(v.abs().sum()):.3e}".encode())
    return h.hexdigest()[:16]


def write_model(
    folder: Path,
    *,
    full_size: bool = False,
    seed: int = 0,
    portable: bool = False,
    vae_bin: bool = False,
    whisper_full: bool = False,
) -> Path:
    """Write musetalkV15/, sd-vae/ and whisper/ under `folder` (random weights); returns `folder`."""
    import torch
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from transformers import (
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperModel,
    )

    torch.manual_seed(seed)
    unet_cfg = MUSETALK_UNET_CONFIG if full_size else TINY_UNET
    vae_cfg = SD_VAE_CONFIG if full_size else TINY_VAE
    wh_cfg = WHISPER_TINY_CONFIG if full_size else TINY_WHISPER
    mt = folder / "musetalkV15"
    mt.mkdir(parents=True, exist_ok=True)
    unet = UNet2DConditionModel(**{k: v for k, v in unet_cfg.items() if not k.startswith("_")})
    if portable:
        portable_init(unet, seed)
    (mt / "musetalk.json").write_text(json.dumps(unet_cfg, indent=2), encoding="utf-8")
    torch.save(unet.state_dict(), mt / "unet.pth")
    del unet
    vae = AutoencoderKL(**{k: v for k, v in vae_cfg.items() if not k.startswith("_")})
    if portable:
        portable_init(vae, seed + 1)
    vae.save_pretrained(folder / "sd-vae", safe_serialization=not vae_bin)
    del vae
    whisper = (WhisperForConditionalGeneration if whisper_full else WhisperModel)(WhisperConfig(**wh_cfg))
    if portable:
        portable_init(whisper.model if whisper_full else whisper, seed + 2)
    if whisper_full:  # the published openai/whisper-tiny file (transformers now writes only safetensors itself)
        whisper.config.save_pretrained(folder / "whisper")
        torch.save(whisper.state_dict(), folder / "whisper" / "pytorch_model.bin")
    else:
        whisper.save_pretrained(folder / "whisper")
    WhisperFeatureExtractor(feature_size=wh_cfg["num_mel_bins"]).save_pretrained(folder / "whisper")
    return folder

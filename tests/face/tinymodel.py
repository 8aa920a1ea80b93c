"""Writes a MuseTalk-1.5-shaped model with random weights in the published layout (tests and bench only).

`write_model(folder)` builds a tiny one (a few channels and layers: seconds on a CPU);
`write_model(folder, full_size=True)` the published sizes (UNet ~0.8 G parameters, sd-vae, whisper-tiny).
Either is read back by the real loader, renderer.neural.loader.load_face_model.
"""

from __future__ import annotations

import json
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


def write_model(folder: Path, *, full_size: bool = False, seed: int = 0) -> Path:
    """Write musetalkV15/, sd-vae/ and whisper/ under `folder` (random weights); returns `folder`."""
    import torch
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperModel

    torch.manual_seed(seed)
    unet_cfg = MUSETALK_UNET_CONFIG if full_size else TINY_UNET
    vae_cfg = SD_VAE_CONFIG if full_size else TINY_VAE
    wh_cfg = WHISPER_TINY_CONFIG if full_size else TINY_WHISPER
    mt = folder / "musetalkV15"
    mt.mkdir(parents=True, exist_ok=True)
    unet = UNet2DConditionModel(**{k: v for k, v in unet_cfg.items() if not k.startswith("_")})
    (mt / "musetalk.json").write_text(json.dumps(unet_cfg, indent=2), encoding="utf-8")
    torch.save(unet.state_dict(), mt / "unet.pth")
    del unet
    vae = AutoencoderKL(**{k: v for k, v in vae_cfg.items() if not k.startswith("_")})
    vae.save_pretrained(folder / "sd-vae")
    del vae
    whisper = WhisperModel(WhisperConfig(**wh_cfg))
    whisper.save_pretrained(folder / "whisper")
    WhisperFeatureExtractor(feature_size=wh_cfg["num_mel_bins"]).save_pretrained(folder / "whisper")
    return folder

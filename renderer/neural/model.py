"""MuseTalk 1.5's architecture as data: the published configs of its UNet, VAE and whisper-tiny, and the constants of its pipeline.

Nothing here imports torch; `positional_encoding` is numpy. The configs are what the published
checkpoints carry (models/musetalkV15/musetalk.json, models/sd-vae/config.json, models/whisper/config.json),
used by tests and the bench to build a model of the same shape with random weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CROP = 256  # face crop side in px: the VAE sees 256x256, the UNet 32x32 latents
LATENT_CHANNELS = 4
VAE_SCALING = 0.18215  # sd-vae-ft-mse's latent scaling factor (also read from its config when present)
AUDIO_FPS = 50  # whisper encoder frames per second (20 ms hop after the conv stride of 2)
PAD_LEFT = 2  # MuseTalk's audio context: 2 video frames before and 2 after the current one
PAD_RIGHT = 2
WHISPER_RATE = 16000
SEGMENT_S = 30  # whisper's fixed input length
EXTRA_MARGIN = 10  # v1.5: the crop box reaches this many px below the chin (at the source's resolution)

# models/musetalkV15/musetalk.json (a diffusers UNet2DConditionModel config).
MUSETALK_UNET_CONFIG: dict = {
    "_class_name": "UNet2DConditionModel",
    "act_fn": "silu",
    "attention_head_dim": 8,
    "block_out_channels": [320, 640, 1280, 1280],
    "center_input_sample": False,
    "cross_attention_dim": 384,
    "down_block_types": [
        "CrossAttnDownBlock2D",
        "CrossAttnDownBlock2D",
        "CrossAttnDownBlock2D",
        "DownBlock2D",
    ],
    "downsample_padding": 1,
    "flip_sin_to_cos": True,
    "freq_shift": 0,
    "in_channels": 8,
    "layers_per_block": 2,
    "mid_block_scale_factor": 1,
    "norm_eps": 1e-05,
    "norm_num_groups": 32,
    "out_channels": 4,
    "sample_size": 64,
    "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"],
}

# models/sd-vae/config.json (stabilityai/sd-vae-ft-mse, an AutoencoderKL).
SD_VAE_CONFIG: dict = {
    "_class_name": "AutoencoderKL",
    "act_fn": "silu",
    "block_out_channels": [128, 256, 512, 512],
    "down_block_types": ["DownEncoderBlock2D"] * 4,
    "in_channels": 3,
    "latent_channels": 4,
    "layers_per_block": 2,
    "norm_num_groups": 32,
    "out_channels": 3,
    "sample_size": 256,
    "scaling_factor": VAE_SCALING,
    "up_block_types": ["UpDecoderBlock2D"] * 4,
}

# models/whisper/config.json (openai/whisper-tiny; only the encoder is used).
WHISPER_TINY_CONFIG: dict = {
    "d_model": 384,
    "encoder_layers": 4,
    "encoder_attention_heads": 6,
    "encoder_ffn_dim": 1536,
    "decoder_layers": 4,
    "decoder_attention_heads": 6,
    "decoder_ffn_dim": 1536,
    "num_mel_bins": 80,
    "max_source_positions": 1500,
    "max_target_positions": 448,
    "vocab_size": 51865,
}


STEPS_PER_FRAME = 2  # whisper steps per frame of context in a window (MuseTalk fixes it at 2 at any fps; its padding follows the fps)
WINDOW_STEPS = STEPS_PER_FRAME * (PAD_LEFT + PAD_RIGHT + 1)  # 10 whisper steps per video frame


def tokens_per_frame(encoder_layers: int) -> int:
    """Cross-attention tokens per video frame: 10 whisper steps x (encoder layers + the embedding layer)."""
    return WINDOW_STEPS * (encoder_layers + 1)


def positional_encoding(length: int, d_model: int) -> np.ndarray:
    """The sinusoidal encoding MuseTalk adds to each frame's audio tokens before the UNet, (length, d_model) float32."""
    pos = np.arange(length, dtype=np.float64)[:, None]
    div = np.exp(np.arange(0, d_model, 2, dtype=np.float64) * (-np.log(10000.0) / d_model))
    pe = np.zeros((length, d_model), np.float64)
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)[:, : d_model // 2]
    return pe.astype(np.float32)


@dataclass(frozen=True)
class ModelLayout:
    root: Path
    unet_config: Path
    unet_weights: Path
    vae_dir: Path
    vae_weights: Path
    whisper_dir: Path
    whisper_weights: Path

    def model_id(self) -> str:
        """Identifies the weights for cache keys: size and first 16 MiB of each weights file, hashed."""
        h = hashlib.sha256()
        for f in (self.unet_weights, self.vae_weights, self.whisper_weights):
            h.update(str(f.stat().st_size).encode())
            with f.open("rb") as fh:
                h.update(fh.read(16 << 20))
        return h.hexdigest()[:20]

    def vae_id(self) -> str:
        """The reference latents depend on the VAE alone: its weights' size and first 16 MiB, hashed."""
        h = hashlib.sha256(str(self.vae_weights.stat().st_size).encode())
        with self.vae_weights.open("rb") as fh:
            h.update(fh.read(16 << 20))
        return h.hexdigest()[:20]

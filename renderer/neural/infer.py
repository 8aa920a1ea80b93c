"""Batched inference of the neural face and the paste-back: audio windows + reference latents -> lower-face crops -> frame.

`FaceModel.run_batch(items)` takes items from any number of rooms and sources (each a registered
source's frame index and one frame's audio window), runs ONE UNet step at timestep 0 and one VAE
decode per chunk of `max_batch`, and returns the 256x256 BGR crops in the items' order. `compose`
pastes a crop back into the full frame through the source frame's feathered lower-face mask; it is
plain numpy/OpenCV (rooms call it without torch). Every frame of an utterance is sent; frames between
utterances are the source's idle loop, drawn by the caller.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from renderer.neural.audio import frame_count, frame_windows, to_whisper_rate
from renderer.neural.model import (
    CROP,
    SEGMENT_S,
    VAE_SCALING,
    WHISPER_RATE,
    ModelLayout,
    positional_encoding,
    tokens_per_frame,
)

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True, slots=True)
class FaceItem:
    """One video frame to draw: which registered source and which of its frames, and that frame's audio window."""

    source: str  # key given to FaceModel.register (the prepared source's key)
    index: int  # source frame index (its reference latents and, at paste-back, its box and mask)
    features: np.ndarray  # (tokens, d_model) float32: one window from FaceModel.audio_features


@dataclass(frozen=True, slots=True)
class UtteranceFeatures:
    """An utterance's audio as the model sees it: one window per video frame."""

    windows: np.ndarray  # (frames, tokens, d_model) float32

    def __len__(self) -> int:
        return int(self.windows.shape[0])


def paste_mask(mask: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The crop's uint8 mask at the box's size in frame px (box = x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    return cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)


def compose(frame: np.ndarray, crop: np.ndarray, box: tuple[int, int, int, int], mask: np.ndarray) -> None:
    """Paste a model crop (256x256 BGR) into `frame` in place, inside `box`, weighted by the feathered `mask`.

    Where the mask is 0 the frame's pixels stay exactly as they were (integer blend), so no seam can show
    at the box's edge: the mask is built to fade to 0 well inside the crop.
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    m = paste_mask(mask, box).astype(np.uint16)[..., None]
    face = cv2.resize(crop, (w, h), interpolation=cv2.INTER_LANCZOS4 if w > CROP else cv2.INTER_AREA)
    region = frame[y0:y1, x0:x1]
    blend = (region.astype(np.uint16) * (255 - m) + face.astype(np.uint16) * m + 127) // 255
    region[...] = blend.astype(np.uint8)


class FaceModel:
    """UNet + VAE + whisper encoder on one device, shared by every room of a host; thread-safe (one lock)."""

    def __init__(
        self,
        layout: ModelLayout,
        unet: Any,
        vae: Any,
        whisper_encoder: Any,
        extractor: Any,
        device: str,
        dtype: torch.dtype,
        *,
        max_batch: int = 16,
    ):
        import torch

        if not 1 <= max_batch <= 256:
            raise ValueError(f"max_batch must be 1..256, got {max_batch}")
        self.layout = layout
        self.device, self.dtype = device, dtype
        self.max_batch = max_batch
        self.unet = unet.to(device=device, dtype=dtype).eval().requires_grad_(False)
        self.vae = vae.to(device=device, dtype=dtype).eval().requires_grad_(False)
        self.whisper = whisper_encoder.to(device=device, dtype=dtype).eval().requires_grad_(False)
        self.extractor = extractor
        self.scaling = float(getattr(vae.config, "scaling_factor", VAE_SCALING) or VAE_SCALING)
        self.layers = int(self.whisper.config.encoder_layers)
        self.d_model = int(self.whisper.config.d_model)
        self.tokens = tokens_per_frame(self.layers)
        self._pe = torch.from_numpy(positional_encoding(self.tokens, self.d_model)).to(
            device=device, dtype=dtype
        )
        self._sources: dict[str, torch.Tensor] = {}
        self._lock = threading.Lock()
        self.forward_passes = 0  # UNet calls so far (the service reports batch sizes from this and run_batch)

    # -- sources -------------------------------------------------------------------------------

    def encode_reference(self, crops: np.ndarray) -> np.ndarray:
        """(N, 256, 256, 3) BGR uint8 face crops -> (N, 8, 32, 32) float32: lower-half-masked latents, then full ones."""
        import torch

        out = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(crops), self.max_batch):
                x = torch.from_numpy(np.ascontiguousarray(crops[i : i + self.max_batch, :, :, ::-1]))
                # Contiguous: a channels-last view takes another CPU conv kernel, whose masked latents drift ~1e-3
                # from MuseTalk's (tests/face/test_face_golden.py).
                x = x.to(self.device).permute(0, 3, 1, 2).contiguous().to(self.dtype) / 255.0
                masked = x.clone()
                masked[:, :, CROP // 2 :, :] = 0  # the model must draw the lower half from the audio
                both = torch.cat([masked, x]) * 2 - 1
                lat = self.vae.encode(both).latent_dist.mean * self.scaling
                n = x.shape[0]
                out.append(torch.cat([lat[:n], lat[n:]], dim=1).float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 8, CROP // 8, CROP // 8), np.float32)

    def register(self, key: str, latents: np.ndarray) -> None:
        """Keep a source's reference latents (from encode_reference or the prepare cache) on the device under `key`."""
        import torch

        t = torch.from_numpy(np.ascontiguousarray(latents)).to(device=self.device, dtype=self.dtype)
        with self._lock:
            self._sources[key] = t

    def unregister(self, key: str) -> None:
        with self._lock:
            self._sources.pop(key, None)

    def has_source(self, key: str) -> bool:
        return key in self._sources

    # -- audio ---------------------------------------------------------------------------------

    def audio_features(self, pcm: np.ndarray, sample_rate: int, fps: int) -> UtteranceFeatures:
        """An utterance's PCM (int16 or float, the stage's rate) -> one whisper window per video frame."""
        import torch

        a16 = to_whisper_rate(pcm, sample_rate)
        seconds = len(a16) / WHISPER_RATE
        frames = frame_count(len(pcm), sample_rate, fps)
        seg = SEGMENT_S * WHISPER_RATE
        hidden = []
        with self._lock, torch.inference_mode():
            for i in range(0, max(1, len(a16)), seg):
                chunk = a16[i : i + seg]
                feats = self.extractor(chunk, sampling_rate=WHISPER_RATE, return_tensors="pt").input_features
                enc = self.whisper(feats.to(device=self.device, dtype=self.dtype), output_hidden_states=True)
                steps = min(enc.hidden_states[0].shape[1], int(np.ceil(len(chunk) / WHISPER_RATE * 50)))
                hidden.append(torch.stack(enc.hidden_states, dim=2)[0, :steps].float().cpu().numpy())
        return UtteranceFeatures(frame_windows(np.concatenate(hidden), seconds, fps, frames))

    def memory_bytes(self) -> int:
        """Bytes held on the device by this model's weights and registered latents (for the per-model memory metric)."""
        tensors = [
            *self.unet.parameters(),
            *self.vae.parameters(),
            *self.whisper.parameters(),
            *self._sources.values(),
        ]
        return sum(t.numel() * t.element_size() for t in tensors)

    # -- the batch ------------------------------------------------------------------------------

    def run_batch(self, items: Sequence[FaceItem]) -> list[np.ndarray]:
        """Crops (256, 256, 3) BGR uint8 for the items, in order; one UNet pass per `max_batch` items.

        Items may come from different rooms and sources; a source must be registered. Raises KeyError
        for an unknown source and torch's own errors (e.g. out of memory) for the caller's fallback.
        """
        import torch

        crops: list[np.ndarray] = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(items), self.max_batch):
                chunk = items[i : i + self.max_batch]
                latents = torch.stack([self._sources[it.source][it.index] for it in chunk])
                audio = torch.from_numpy(np.stack([it.features for it in chunk]))
                audio = audio.to(device=self.device, dtype=self.dtype) + self._pe
                t = torch.zeros(len(chunk), device=self.device, dtype=torch.long)
                pred = self.unet(latents, t, encoder_hidden_states=audio).sample
                self.forward_passes += 1
                img = self.vae.decode(pred / self.scaling).sample
                img = ((img.float() / 2 + 0.5).clamp(0, 1) * 255).round().to(torch.uint8)
                rgb = img.permute(0, 2, 3, 1).cpu().numpy()
                crops.extend(np.ascontiguousarray(c[:, :, ::-1]) for c in rgb)
        return crops

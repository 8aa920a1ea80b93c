"""Sentence embeddings from a local sentence-transformers style model directory (mean pooling, L2-normalized).

Loads with transformers' AutoTokenizer/AutoModel (a sentence-transformers export keeps its encoder
at the directory root), so no extra package is needed. Used for dense KB retrieval and for the
answer cache's embedding match. Calls are synchronous; callers run them in a worker thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common.devices import resolve_device, torch_gpu_count

log = logging.getLogger(__name__)


class Embedder:
    def __init__(self, path: Path, device: str = "cpu", batch_size: int = 64, max_length: int = 256) -> None:
        self.path = Path(path)
        self.device_request = device
        self.batch_size = batch_size
        self.max_length = max_length
        self._tok: Any = None
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            from transformers import AutoModel, AutoTokenizer

            device = resolve_device(self.device_request, torch_gpu_count, what="embed")
            self._tok = AutoTokenizer.from_pretrained(self.path)
            model = AutoModel.from_pretrained(self.path)
            model.to(device)
            model.eval()
            self._model = model
            self.device = device
            log.info("embedder: loaded %s on %s", self.path, device)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        self.load()
        out: list[np.ndarray] = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                batch = list(texts[i : i + self.batch_size])
                enc = self._tok(batch, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
                enc = {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
                hidden = self._model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                pooled = torch.nn.functional.normalize(pooled.float(), dim=-1)
                out.append(pooled.cpu().numpy())
        if not out:
            return np.zeros((0, 1), dtype=np.float32)
        return np.concatenate(out).astype(np.float32)

"""How unsafe a comment reads: a softmax probe over its sentence embedding (brain.embed's bundled e5 model).

Word lists catch what is written plainly or disguised; they cannot read "主播一晚上多少钱" or "你女儿几点放学，我很
清楚". The probe reads the meaning the embedding gives: a linear softmax over clean and six unsafe classes (contact,
competitor, insult, illegal, political, inject), trained by scripts/train_risk.py on this repository's own labelled
chat (red-team development sets and training chat across many product kinds; the held-out sets of issue 22 never).
It decides no block: a comment that reads as unsafe gets no line (the room's posture of silence, brain/understand.py),
so a clean comment it misreads costs one answer, never a moderation verdict. The weights are valid for the model they
were trained on alone (`model_id` in the file): another embeddings backend has no probe until an operator trains one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

CLASSES = ("clean", "contact", "competitor", "insult", "illegal", "political", "inject")
MODEL_PATH = Path(__file__).resolve().parent / "models" / "risk-e5.npz"


@dataclass(frozen=True, slots=True)
class RiskReading:
    unsafe: float  # P(any unsafe class)
    label: str  # the likeliest unsafe class
    flagged: bool


class RiskProbe:
    def __init__(self, w: np.ndarray, b: np.ndarray, *, threshold: float = 0.5, model_id: str = "") -> None:
        self.w, self.b = np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)
        self.threshold = threshold
        self.model_id = model_id

    @classmethod
    def load(cls, path: Path = MODEL_PATH, *, model_id: str, threshold: float | None = None) -> RiskProbe | None:
        """The probe trained for `model_id`'s vectors, or None (no file, another model)."""
        try:
            with np.load(path) as z:
                trained_for = str(z["model_id"])
                if trained_for != model_id:
                    log.info("risk probe %s was trained on %s, not %s: not used", path.name, trained_for, model_id)
                    return None
                return cls(z["w"], z["b"], threshold=float(z["threshold"]) if threshold is None else threshold,
                           model_id=trained_for)
        except (OSError, KeyError, ValueError) as exc:
            log.warning("risk probe %s cannot be read: %s", path, exc)
            return None

    def probabilities(self, vecs: np.ndarray) -> np.ndarray:
        z = np.atleast_2d(vecs) @ self.w + self.b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    def unsafe(self, vecs: np.ndarray) -> np.ndarray:
        return 1.0 - self.probabilities(vecs)[:, 0]

    def read(self, vec: np.ndarray) -> RiskReading:
        p = self.probabilities(vec)[0]
        unsafe = float(1.0 - p[0])
        label = CLASSES[1 + int(np.argmax(p[1:]))]
        return RiskReading(unsafe, label, unsafe >= self.threshold)

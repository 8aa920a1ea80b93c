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
    friendly: float = 0.0  # P(friendly chit-chat)


class RiskProbe:
    def __init__(self, w: np.ndarray, b: np.ndarray, *, threshold: float = 0.5, model_id: str = "",
                 friendly: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        self.w, self.b = np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)
        self.threshold = threshold
        self.model_id = model_id
        # a second head: how likely a clean comment is friendly chit-chat (a greeting, praise, thanks, a purchase)
        self.fw, self.fb = (np.asarray(friendly[0], dtype=np.float32), np.asarray(friendly[1], dtype=np.float32)) \
            if friendly is not None else (None, None)

    @classmethod
    def load(cls, path: Path = MODEL_PATH, *, model_id: str, threshold: float | None = None) -> RiskProbe | None:
        """The probe trained for `model_id`'s vectors, or None (no file, another model)."""
        try:
            with np.load(path) as z:
                trained_for = str(z["model_id"])
                if trained_for != model_id:
                    log.info("risk probe %s was trained on %s, not %s: not used", path.name, trained_for, model_id)
                    return None
                friendly = (z["fw"], z["fb"]) if "fw" in z.files else None
                return cls(z["w"], z["b"], threshold=float(z["threshold"]) if threshold is None else threshold,
                           model_id=trained_for, friendly=friendly)
        except (OSError, KeyError, ValueError) as exc:
            log.warning("risk probe %s cannot be read: %s", path, exc)
            return None

    def probabilities(self, vecs: np.ndarray) -> np.ndarray:
        z = np.atleast_2d(vecs) @ self.w + self.b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    def friendliness(self, vecs: np.ndarray) -> np.ndarray:
        """P(friendly chit-chat) per vector (zeros without the head)."""
        if self.fw is None:
            return np.zeros(len(np.atleast_2d(vecs)))
        z = np.atleast_2d(vecs) @ self.fw + self.fb
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return (p / p.sum(1, keepdims=True))[:, 1]

    def unsafe(self, vecs: np.ndarray) -> np.ndarray:
        return 1.0 - self.probabilities(vecs)[:, 0]

    def read(self, vec: np.ndarray) -> RiskReading:
        p = self.probabilities(vec)[0]
        unsafe = float(1.0 - p[0])
        label = CLASSES[1 + int(np.argmax(p[1:]))]
        return RiskReading(unsafe, label, unsafe >= self.threshold, float(self.friendliness(vec)[0]))

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
    on_topic: float = 1.0  # P(about the goods, the order or the shop); 1.0 without that head


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(1, keepdims=True)


# The binary heads beside the unsafe softmax (each trained on clean comments alone): its name in the file, and what it
# reads when the file lacks it.
HEADS = {"friendly": 0.0, "on_topic": 1.0}


class RiskProbe:
    """The unsafe softmax and its binary heads: `friendly` (a greeting, praise, thanks, a purchase) and `on_topic`
    (about the goods, the order, the shop — not the weather, a match or a film)."""

    def __init__(self, w: np.ndarray, b: np.ndarray, *, threshold: float = 0.5, model_id: str = "",
                 heads: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        self.w, self.b = np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)
        self.threshold = threshold
        self.model_id = model_id
        self.heads = {k: (np.asarray(hw, dtype=np.float32), np.asarray(hb, dtype=np.float32))
                      for k, (hw, hb) in (heads or {}).items()}

    @classmethod
    def load(cls, path: Path = MODEL_PATH, *, model_id: str, threshold: float | None = None) -> RiskProbe | None:
        """The probe trained for `model_id`'s vectors, or None (no file, another model)."""
        try:
            with np.load(path) as z:
                trained_for = str(z["model_id"])
                if trained_for != model_id:
                    log.info("risk probe %s was trained on %s, not %s: not used", path.name, trained_for, model_id)
                    return None
                heads = {k: (z[f"{k}_w"], z[f"{k}_b"]) for k in HEADS if f"{k}_w" in z.files}
                return cls(z["w"], z["b"], threshold=float(z["threshold"]) if threshold is None else threshold,
                           model_id=trained_for, heads=heads)
        except (OSError, KeyError, ValueError) as exc:
            log.warning("risk probe %s cannot be read: %s", path, exc)
            return None

    def save(self, path: Path, **meta: object) -> None:
        arrays = {"w": self.w, "b": self.b, "classes": np.array(CLASSES), "threshold": np.float32(self.threshold),
                  "model_id": np.array(self.model_id)}
        for k, (hw, hb) in self.heads.items():
            arrays[f"{k}_w"], arrays[f"{k}_b"] = hw, hb
        np.savez_compressed(path, **arrays)

    def probabilities(self, vecs: np.ndarray) -> np.ndarray:
        return _softmax(np.atleast_2d(vecs) @ self.w + self.b)

    def head(self, name: str, vecs: np.ndarray) -> np.ndarray:
        """P(yes) of a binary head per vector (its default without the head)."""
        if name not in self.heads:
            return np.full(len(np.atleast_2d(vecs)), HEADS[name])
        hw, hb = self.heads[name]
        return _softmax(np.atleast_2d(vecs) @ hw + hb)[:, 1]

    def friendliness(self, vecs: np.ndarray) -> np.ndarray:
        return self.head("friendly", vecs)

    def unsafe(self, vecs: np.ndarray) -> np.ndarray:
        return 1.0 - self.probabilities(vecs)[:, 0]

    def read(self, vec: np.ndarray) -> RiskReading:
        p = self.probabilities(vec)[0]
        unsafe = float(1.0 - p[0])
        label = CLASSES[1 + int(np.argmax(p[1:]))]
        return RiskReading(unsafe, label, unsafe >= self.threshold, float(self.head("friendly", vec)[0]),
                           float(self.head("on_topic", vec)[0]))

"""How close each fact sits to every kind of question: a hub's embedding score is discounted (hubness reduction).

In a small embedding model's space some sentences lie near almost any query ("不能往锅里倒油深炸…" answers, by the
embedding, a recipe question, a size question and a storage question alike). A fact's *hub score* is its mean
similarity to the questions of a background set it is most similar to (how viewers ask in general,
data/questions_zh.txt); facts.py subtracts part of it from the fact's similarity to a question, so a fact wins because
it is close to *this* question, not to all of them (the CSLS correction of cross-lingual retrieval, Conneau et al. 2018).

The background's vectors for the bundled model ship in models/questions-e5.npz (scripts/build_background.py writes
it); for another model they are computed once per process, in the embedding thread, when a KB is built.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

QUESTIONS = Path(__file__).resolve().parent / "data" / "questions_zh.txt"
VECTORS = Path(__file__).resolve().parent / "models" / "questions-e5.npz"
# the k background questions closest to a fact make its hub score
NEIGHBOURS = 50

_lock = threading.Lock()
_by_model: dict[str, np.ndarray] = {}


def questions() -> list[str]:
    return [ln.strip() for ln in QUESTIONS.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


def questions_digest() -> str:
    return hashlib.sha1("\n".join(questions()).encode()).hexdigest()


def background(embed: object) -> np.ndarray | None:
    """The background questions' query vectors for `embed`'s model (an Embeddings), or None when it has none."""
    model_id = getattr(embed, "model_id", "")
    if not model_id:
        return None
    with _lock:
        if model_id in _by_model:
            return _by_model[model_id]
    vecs = _shipped(model_id)
    if vecs is None:
        vecs = embed.query_sync(questions())  # type: ignore[attr-defined]
        if vecs is not None:
            log.info("embedded %d background questions for %s", len(vecs), model_id)
    if vecs is not None:
        with _lock:
            _by_model[model_id] = vecs
    return vecs


def _shipped(model_id: str) -> np.ndarray | None:
    """The shipped vectors, when they were made by this model from today's question file."""
    try:
        with np.load(VECTORS) as z:
            if str(z["model_id"]) != model_id or str(z["digest"]) != questions_digest():
                return None
            return z["vectors"].astype(np.float32)
    except (OSError, KeyError, ValueError):
        return None


def hub_scores(facts: np.ndarray, back: np.ndarray | None) -> np.ndarray:
    """Per fact (rows of `facts`, unit vectors): the mean similarity of its NEIGHBOURS closest background questions
    (zeros without a background)."""
    if back is None or not len(back) or not len(facts):
        return np.zeros(len(facts))
    sims = facts @ back.T
    k = min(NEIGHBOURS, sims.shape[1])
    return np.sort(sims, axis=1)[:, -k:].mean(axis=1)

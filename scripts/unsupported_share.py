"""How often the guard's "unsupported" reading (guard_rules.unsupported) takes a model's invented sentence and how often a
true one, on the red-team product sets' claim probes (their facts as the knowledge base, no retrieval, no LLM).

Each probe's candidate answer is cut into sentences; a sentence holding a `bad` span is invented, one holding only `good`
spans is true. Printed per set and in all: invented sentences read as unsupported, true ones read so.

    .venv/bin/python scripts/unsupported_share.py [PART ...] [-v]   (default: every numbered set with a first run)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from broadcaster.brain.guard import GroundingGuard  # noqa: E402
from broadcaster.brain.sentences import split_sentences  # noqa: E402

RT = ROOT / "tests" / "brain" / "redteam"
_CLAIMS = ("invented", "grounded", "absolute", "promise")


def _facts(kb: Path) -> list[str]:
    return [ln.lstrip("-* ").strip() for ln in (kb / "facts.md").read_text(encoding="utf-8").splitlines()
            if ln.strip().startswith(("-", "*"))]


def _ran(part: str) -> bool:
    return f"FIRST_{part.upper()}_RUN" in (ROOT / "tests/brain/test_redteam.py").read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    parts = [a for a in argv if a != "-v"] or [f"heldout{n}" for n in range(14, 100)
                                                if (RT / f"kb{n}").exists() and _ran(f"heldout{n}")]
    total = [0, 0, 0, 0]
    for part in parts:
        facts = _facts(RT / f"kb{part.removeprefix('heldout')}")
        guard = GroundingGuard(facts, facts=facts)
        bad = [0, 0]
        good = [0, 0]
        for line in (RT / f"{part}.jsonl").read_text(encoding="utf-8").splitlines():
            it = json.loads(line) if line.strip() else {}
            if it.get("class") not in _CLAIMS:
                continue
            for s in split_sentences(it["llm"]):
                kind = bad if any(b in s for b in it.get("bad", [])) else good if any(g in s for g in it.get("good", [])) else None
                if kind is not None:
                    kind[0] += 1
                    kind[1] += guard.unsupported(s)
                    if verbose and guard.unsupported(s):
                        print(f"  {part} {'invented' if kind is bad else 'TRUE'}: {s}")
        print(f"{part}: invented read unsupported {bad[1]}/{bad[0]}, true read unsupported {good[1]}/{good[0]}")
        total = [total[0] + bad[0], total[1] + bad[1], total[2] + good[0], total[3] + good[1]]
    print(f"all: invented read unsupported {total[1]}/{total[0]}, true read unsupported {total[3]}/{total[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Which of the goods' sizes a relative word means: 小的, 小号, 最大的那个 → the facts' smallest or largest label.

Viewers name a size by where it stands among the others ("小的平时卖多少", "大号能装多少"), while the facts name each
by its label (20寸日常价399元, 24寸空箱重3.9千克). A label here is a figure with a size unit, or a letter size before 码,
that opens a clause of the facts, with at least one other label in the same unit opening another. The question is
read with the label in place of the relative word, so that its words and its embedding both meet the facts of that
size. Facts that name no sizes this way (one size only, or sizes only listed) leave every question as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from broadcaster.brain.facts import FactIndex
from broadcaster.brain.figures import figures

_LABEL = re.compile(r"^(?:本款|本品|其中)?(\d+(?:\.\d+)?|xxxl|xxl|xl|xs|s|m|l)\s*(英寸|寸|毫升|ml|升|码|厘米|cm|人份|件套)", re.I)
_LETTERS = ("xs", "s", "m", "l", "xl", "xxl", "xxxl")
_CLAUSE = re.compile(r"[，,。；;：:、\s]+")
# 小的 / 小号 / 最大的那个 / 大一点的 — never 多大的, 更大的 (bigger than every size), 挺大的 (a remark), 小孩, 大家
_RELATIVE = re.compile(r"(?<![多更挺很太好真蛮较超些点不大小])(最)?([小大])(?:号|款|尺寸|一点的|点的|一些的|个儿?的|的)")


def _rank(value: str) -> float:
    low = value.lower()
    return float(_LETTERS.index(low)) if low in _LETTERS else float(low)


@lru_cache(maxsize=64)
def labels(texts: tuple[str, ...]) -> tuple[str, str] | None:
    """The smallest and largest size label the facts name (None: fewer than two in one unit)."""
    by_unit: dict[str, set[str]] = {}
    for text in texts:
        for clause in _CLAUSE.split(text):
            m = _LABEL.match(clause)
            if m:
                by_unit.setdefault(m.group(2).lower(), set()).add(m.group(1))
    unit, values = max(by_unit.items(), key=lambda kv: len(kv[1]), default=("", set()))
    if len(values) < 2:
        return None
    ordered = sorted(values, key=_rank)
    return ordered[0] + unit, ordered[-1] + unit


@lru_cache(maxsize=64)
def size_labels(texts: tuple[str, ...]) -> frozenset[tuple[float, str]]:
    """The figures that name a size (value, canonical unit): each opens a clause of the facts, beside another in the
    same unit (24寸 in "24寸日常价459元" and "20寸…"); a name, said of that size wherever it is said."""
    by_unit: dict[str, set[float]] = {}
    for text in texts:
        for clause in _CLAUSE.split(text):
            m = _LABEL.match(clause)
            found = figures(m.group(0)) if m is not None and m.group(1)[0].isdigit() else []
            if found and found[0].unit:
                by_unit.setdefault(found[0].unit, set()).add(round(found[0].value, 4))
    return frozenset((v, unit) for unit, values in by_unit.items() if len(values) >= 2 for v in values)


def sized(question: str, facts: FactIndex) -> str:
    """The question with a relative size word read as the facts' label for it (unchanged where none applies)."""
    if not _RELATIVE.search(question):
        return question
    ends = labels(tuple(f.text for f in facts.facts))
    if ends is None:
        return question
    small, large = ends
    return _RELATIVE.sub(lambda m: small if m.group(2) == "小" else large, question)

"""Which of the goods' sizes a relative word or a bare number means: 小的, 最大的那个, 150的床 → the facts' label.

Viewers name a size by where it stands among the others ("小的平时卖多少", "大号能装多少"), while the facts name each
by its label (20寸日常价399元, 24寸空箱重3.9千克). A label here is a figure with a size unit, or a letter size before 码,
that opens a clause of the facts, with at least one other label in the same unit opening another. The question is
read with the label in place of the relative word, so that its words and its embedding both meet the facts of that
size. Facts that name no sizes this way (one size only, or sizes only listed) leave every question as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from broadcaster.brain.facts import FactIndex
from broadcaster.brain.figures import figures

_LABEL = re.compile(r"^(?:本款|本品|其中)?(\d+(?:\.\d+)?|xxxl|xxl|xl|xs|s|m|l)\s*(英寸|寸|毫升|ml|升|码|厘米|cm|人份|件套|米)", re.I)
_LETTERS = ("xs", "s", "m", "l", "xl", "xxl", "xxxl")
_CLAUSE = re.compile(r"[，,。；;：:、\s]+")
_SAYING = re.compile(r"[，,。；;！!？?]+")  # a clause as said: its figures are of the size it names
# 小的 / 小号 / 最大的那个 / 大一点的 — never 多大的, 更大的 (bigger than every size), 挺大的 (a remark), 小孩, 大家
_RELATIVE = re.compile(r"(?<![多更挺很太好真蛮较超些点不大小])(最)?([小大])(?:号|款|尺寸|一点的|点的|一些的|个儿?的|的)")


def _rank(value: str) -> float:
    low = value.lower()
    return float(_LETTERS.index(low)) if low in _LETTERS else float(low)


def _openers(texts: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """Each size label that opens a clause of the facts."""
    for text in texts:
        for clause in _CLAUSE.split(text):
            m = _LABEL.match(clause)
            if m is not None:
                yield m


@lru_cache(maxsize=64)
def labels(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The size labels the facts name, smallest first (empty: fewer than two in one unit)."""
    by_unit: dict[str, set[str]] = {}
    for m in _openers(texts):
        by_unit.setdefault(m.group(2).lower(), set()).add(m.group(1))
    unit, values = max(by_unit.items(), key=lambda kv: len(kv[1]), default=("", set()))
    return tuple(v + unit for v in sorted(values, key=_rank)) if len(values) >= 2 else ()


# A size said by its bare number (150的床, 20那个): the label with that number, or a metre's in centimetres.
_BARE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?=\s*(?:的|床|那|款|尺寸|规格))")


def _bare(number: str, names: tuple[str, ...]) -> str:
    for name in names:
        value = re.match(r"[\d.]+", name)
        if value is not None and (float(number) == float(value.group(0))
                                  or (name.endswith("米") and float(number) == round(float(value.group(0)) * 100, 4))):
            return name
    return number


@lru_cache(maxsize=64)
def size_labels(texts: tuple[str, ...]) -> frozenset[tuple[float, str]]:
    """The figures that name a size (value, canonical unit): each opens a clause of the facts, beside another in the
    same unit (24寸 in "24寸日常价459元" and "20寸…"); a name, said of that size wherever it is said."""
    by_unit: dict[str, set[float]] = {}
    for m in _openers(texts):
        found = figures(m.group(0)) if m.group(1)[0].isdigit() else []
        if found and found[0].unit:
            by_unit.setdefault(found[0].unit, set()).add(round(found[0].value, 4))
    return frozenset((v, unit) for unit, values in by_unit.items() if len(values) >= 2 for v in values)


def sized(question: str, facts: FactIndex) -> str:
    """The question with a relative size word read as the facts' label for it (unchanged where none applies)."""
    if not _RELATIVE.search(question) and not _BARE.search(question):
        return question
    names = labels(tuple(f.text for f in facts.facts))
    if not names:
        return question
    question = _BARE.sub(lambda m: _bare(m.group(1), names), question)
    return _RELATIVE.sub(lambda m: names[0] if m.group(2) == "小" else names[-1], question)


class SizeFigures:
    """Which size each of the facts' figures belongs to (the size labels its fact names), and a sentence that gives one
    size another's figure: "1.5米床的被套是220×240厘米" where 220×240厘米 is the 1.8米 bed's, "1.8米的到手价259元" where 259元
    is the 1.5米 bed's. A figure whose fact names no size belongs to every size."""

    def __init__(self, texts: tuple[str, ...]) -> None:
        self.labels = size_labels(texts)
        self.owners: dict[tuple[float, str], set[frozenset[tuple[float, str]]]] = {}
        for text in texts if self.labels else ():
            found = [(round(f.value, 4), f.unit) for f in figures(text) if f.unit]
            named = frozenset(k for k in found if k in self.labels)
            for k in found:
                if k not in self.labels:
                    self.owners.setdefault(k, set()).add(named)

    def against(self, sentence: str) -> str:
        """A figure said of a size whose facts never give it, only another size's do ('' when none)."""
        for clause in _SAYING.split(sentence) if self.owners else ():
            found = [(round(f.value, 4), f.unit, f.text) for f in figures(clause) if f.unit]
            named = {(v, u) for v, u, _ in found if (v, u) in self.labels}
            for v, u, text in found if named else ():
                owners = self.owners.get((v, u), set())
                if owners and all(o and not (o & named) for o in owners):
                    return f"{text} is the facts' figure for another size than the one named"
        return ""

"""What a text, or a set of facts, states in runs of figures: ranges (3到7天, 一到两天, 两三天) and lists (1、3、6、9小时)."""

from __future__ import annotations

import functools
import re

from broadcaster.brain.figures import (
    CLASSIFIERS,
    CN_NUM,
    UNIT_WORDS,
    about,
    figures,
    labelled_figures,
    number,
    numeric_text,
    stated_figures,
)

_RANGE = re.compile(rf"(\d+(?:\.\d+)?|[{CN_NUM}]+)\s*(?:{UNIT_WORDS})?\s*(?:到|至|-|~|～|—|－)\s*(\d+(?:\.\d+)?|[{CN_NUM}]+)")
# a numeral that says "about" with what it counts after it (两三次, 三五天)
_ABOUT = re.compile(rf"(?<![{CN_NUM}])([{CN_NUM}]{{2}})(?![{CN_NUM}])\s*(?:{UNIT_WORDS}|[{CLASSIFIERS}])")


@functools.lru_cache(maxsize=8)
def stated_ranges(texts: tuple[str, ...]) -> frozenset[tuple[float, float]]:
    """The ranges a set of facts states, read once per set (like labelled_figures); a list of three or more figures in one
    unit states the range from its least to its most (140℃、160℃…220℃ → 从140℃到220℃)."""
    lists: set[tuple[float, float]] = set()
    for sentence in (s for t in texts for s in re.split(r"[。；;！!？?\n]", t)):
        by_unit: dict[str, list[float]] = {}
        for v, u in figure_run(sentence):
            by_unit.setdefault(u, []).append(v)
        lists.update((min(vs), max(vs)) for vs in by_unit.values() if len(vs) >= 3)
    return frozenset(r for t in texts for r in ranges(t)) | frozenset(lists)


@functools.lru_cache(maxsize=8)
def stated_lists(texts: tuple[str, ...]) -> frozenset[tuple[tuple[float, str], ...]]:
    """Every run of three or more figures a fact's clause lists (可选定时1、3、6、9小时), as (value, unit) in order: the
    same list said in other words (可以定1、3、6、9小时) is that fact, whatever words it shares."""
    out = set()
    for t in texts:
        run = figure_run(t)
        out.update(run[i:j] for i in range(len(run)) for j in range(i + 3, len(run) + 1))
    return frozenset(out)


def figure_run(text: str) -> tuple[tuple[float, str], ...]:
    """The (value, unit) of every figure a text states, in order (figures reads the numeral forms itself)."""
    return tuple((round(f.value, 4), f.unit) for f in figures(text))


def ranges(text: str) -> set[tuple[float, float]]:
    """The ranges a text states (3到7天, 一到两天, 1-2天, 两三天), as (low, high) numbers."""
    n = numeric_text(text)
    out = {p for m in _ABOUT.finditer(n) if (p := about(m.group(1))) is not None}
    for m in _RANGE.finditer(n):
        a, b = number(m.group(1)), number(m.group(2))
        if a is not None and b is not None and a < b:
            out.add((a, b))
    return out


def warm_guard(facts: tuple[str, ...]) -> None:
    """Builds the KB-wide figure indexes a guard with these facts uses (call off the event loop after a KB build)."""
    labelled_figures(facts)
    stated_figures(facts)
    stated_lists(facts)

"""The figures the facts state only as what the goods are not ("暂无1.8升或2升的大容量款"): said of the goods, they go
against the facts, though the same number and unit stand in them ("一次能烧满2升水" where the kettle holds 1.5升).

A figure is denied where its clause of the facts says, before it, that there is none or it is not so (暂无, 没有, 不是,
不提供…); a limit (不超过35℃, 低于5℃) states the figure and is no denial. A figure some clause of the facts states
plainly is the goods' figure wherever else it is denied; a sentence clause with any negation ("没有2升的", "110伏的国家不能
直接用") is taken to deny it too.
"""

from __future__ import annotations

import functools
import re

from broadcaster.brain.figures import CLAUSE_CUT, figures, numeric_text

# Before a figure in its clause: the words that say there is none of it (not a limit, a condition or a range).
_DENIAL = re.compile(r"(?:暂无|暂时没有|暂未|没有|并非|不是|不提供|不支持|不含|不送|不带|不配|无(?=[\d一二两三四五六七八九十]))")
_LIMIT = re.compile(r"超过|低于|高于|以上|以下|以内|大于|小于|至少|最多|最少|不足|不到")


def _keys(clause: str) -> list[tuple[tuple[float, str], bool, str]]:
    """Each figure of a clause but a count or an ordinal (as a key and as said), and whether the clause denies it."""
    out = []
    for f in figures(clause):
        if f.unit != "ordinal" and not f.unit.startswith("count:"):
            said = f.text.strip()
            before = clause[: max(0, clause.find(said))]
            out.append(((round(f.value, 4), f.unit), bool(_DENIAL.search(before)) and not _LIMIT.search(before), said))
    return out


def _as_said(text: str) -> float | None:
    m = re.match(r"\d+(?:\.\d+)?", text.strip())
    return round(float(m.group(0)), 4) if m else None


@functools.lru_cache(maxsize=8)
def denied_figures(texts: tuple[str, ...]) -> frozenset[tuple[float | None, str]]:
    """(value, unit) of each figure the texts state only inside a denial, and (number, '') for its number as said when
    no other figure of the texts is said with it (28 of "暂无28厘米款": "选28的刚好")."""
    clauses = [c for t in texts for c in CLAUSE_CUT.split(numeric_text(t))]
    denied, stated = set(), set()
    for clause in clauses:
        for key, no, _ in _keys(clause):
            (denied if no else stated).add(key)
    only = denied - stated
    bare_denied, bare_said = set(), set()
    for clause in clauses:
        for f in figures(clause):
            n = _as_said(f.text)
            (bare_denied if (round(f.value, 4), f.unit) in only else bare_said).add(n)
    return frozenset(only | {(n, "") for n in bare_denied - bare_said if n is not None})


# Anywhere in a sentence's clause: a negation, before the figure or after it ("110伏的国家不能直接用").
_NEGATION = re.compile(r"不|没|无|别|非|未")


def said_as_the_goods(sentence: str, denied: frozenset[tuple[float | None, str]]) -> str:
    """A figure of `denied` that a clause of the sentence states with no negation at all ('' when none)."""
    for clause in CLAUSE_CUT.split(numeric_text(sentence)) if denied else ():
        for key, _, said in _keys(clause) if not _NEGATION.search(clause) else ():
            if key in denied or (key[1] == "" and (_as_said(said), "") in denied):
                return f"{said}" + (f" ({key[0]:g} {key[1]})" if key[1] else "") + ": a figure the facts state only as denied"
    return ""

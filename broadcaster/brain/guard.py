"""The grounding guard: drops sentences that state numbers the context lacks or that leak the prompt.

A sentence may only state a figure (price, size, duration, percentage, any number ≥ 10 or with a
decimal or a unit) that appears in the allowed texts: the retrieved passages, the persona facts and
the viewer's own question. Figures are compared by value, so "199元", "199.0 元", "一百九十九元" and
"¥199" are the same figure, and "1,299" equals "1299". Small bare counts ("两种颜色", "3个") pass.

A sentence that echoes the system prompt (long overlap with one of its rule lines) or talks about
its instructions is dropped too: that is what a prompt-injection success sounds like.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz

from broadcaster.brain.textnorm import normalize

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
_ARABIC = re.compile(r"(?<![a-z0-9_.])[¥￥$]?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?")
_CHINESE = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+(?:点[零〇一二三四五六七八九]+)?")
# Units after a number that make it a stated fact even when small ("3折", "5元", "2年").
_UNIT_AFTER = re.compile(
    r"^\s*(?:元|块|毛|角|分钱|折|%|％|percent|个?小时|分钟|秒|天|周|个月|月|年|岁|毫升|ml|升|l\b|克|g\b|千克|公斤|kg|斤|"
    r"厘米|cm|毫米|mm|米|m\b|寸|英寸|瓦|w\b|度|℃|倍)",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = re.compile(r"[¥￥$]\s*$|(?:售价|价格|原价|现价|到手价|只要|仅需|仅售|优惠)\s*$")
# Talk about instructions or the prompt itself: never said on stream.
_LEAK_PHRASES = re.compile(
    r"system\s*prompt|系统提示|提示词|系统指令|我的指令|我的设定|开发者(?:消息|指令)|ignore (?:all |the )?previous|"
    r"忽略(?:之前|以上|上面)的|以下是(?:资料|参考)|资料\s*\[?p\d",
    re.IGNORECASE,
)


def _cn_to_number(text: str) -> float | None:
    """Parses a Chinese numeral like 一百九十九, 两千五, 三点五, 十二; None if it is not one."""
    integer, _, frac = text.partition("点")
    total, section, digit = 0, 0, None
    last_unit = 1
    for c in integer:
        if c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        elif c in _CN_UNITS:
            unit = _CN_UNITS[c]
            if unit >= 10_000:
                section = (section + (digit or 0)) * unit
                total += section
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
        else:
            return None
    if digit is not None:
        # "两千五" means 2500: a trailing digit after a unit is one order below it.
        section += digit * (last_unit // 10 if last_unit >= 100 and len(integer) > 1 and integer[-2] in _CN_UNITS else 1)
    value = float(total + section)
    if frac:
        value += float("0." + "".join(str(_CN_DIGITS[c]) for c in frac))
    return value


@dataclass(frozen=True, slots=True)
class Figure:
    value: float
    text: str
    significant: bool  # ≥ 10, decimal, or with a unit/currency: must be grounded


# Idioms made of numeral characters that state no figure ("千万不要错过", "十分好用").
_IDIOMS = re.compile(r"千万|万一|十分|一一|一些|一点|一定|一样|一直|一起|一下|一般|一切|一流|万分|百分百|十足|三三两两|一模一样|五花八门|七上八下|九九|统一|唯一|万能")


def figures(text: str) -> list[Figure]:
    """Every number stated in text, with whether it is a fact that needs grounding."""
    text = _IDIOMS.sub(lambda m: "_" * len(m.group(0)), normalize(text))
    out: list[Figure] = []
    for m in _ARABIC.finditer(text):
        whole = m.group(1).replace(",", "")
        frac = m.group(2)
        value = float(f"{whole}.{frac}") if frac else float(whole)
        out.append(Figure(value, m.group(0), _significant(text, m.start(), m.end(), value, bool(frac))))
    for m in _CHINESE.finditer(text):
        s = m.group(0)
        if s in ("一", "两", "二") and not _UNIT_AFTER.match(text[m.end():]):
            continue  # "一下", "一起", "两个人" are words, not figures
        value = _cn_to_number(s)
        if value is None:
            continue
        out.append(Figure(value, s, _significant(text, m.start(), m.end(), value, "点" in s)))
    return out


def _significant(text: str, start: int, end: int, value: float, decimal: bool) -> bool:
    return (
        value >= 10
        or decimal
        or bool(_UNIT_AFTER.match(text[end:]))
        or bool(_CURRENCY_BEFORE.search(text[max(0, start - 6) : start]))
    )


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    ok: bool
    reason: str = ""  # "ungrounded number 299 (元)" | "prompt leak: …"


class GroundingGuard:
    """Checks one answer's sentences against what it may state; built per answer."""

    def __init__(self, allowed_texts: Iterable[str], prompt_rules: Iterable[str] = ()) -> None:
        self.allowed: set[float] = set()
        for t in allowed_texts:
            for f in figures(t):
                self.allowed.add(round(f.value, 4))
        self.rules = [normalize(r) for r in prompt_rules if len(r.strip()) >= 10]

    def check(self, sentence: str) -> GuardVerdict:
        leak = self._leak(sentence)
        if leak:
            return GuardVerdict(False, f"prompt leak: {leak}")
        for f in figures(sentence):
            if f.significant and round(f.value, 4) not in self.allowed:
                return GuardVerdict(False, f"ungrounded number {f.text.strip()} (not in passages/persona facts)")
        return GuardVerdict(True)

    def _leak(self, sentence: str) -> str:
        m = _LEAK_PHRASES.search(sentence)
        if m:
            return m.group(0)
        n = normalize(sentence)
        if len(n) >= 10:
            for rule in self.rules:
                if fuzz.partial_ratio(n, rule) >= 85 and min(len(n), len(rule)) >= 10:
                    return rule[:40]
        return ""

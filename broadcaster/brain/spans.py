"""A range a fact states and the figures a viewer gives for it: a figure inside a fact's range is the strongest sign
that fact answers ("身高168穿哪个码" → 适合身高165到170厘米)."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A range a fact states ("身高165到170厘米", "体重125-140斤", "适合3到6岁") and the figures a viewer gives for it ("168",
# "一百三十斤", "一米六五"): a figure inside a fact's range is the strongest sign that fact answers ("which size for me").
_NUM = r"(\d+(?:\.\d+)?|[零一二两三四五六七八九十百]+)"
_RANGE = re.compile(_NUM + r"\s*(?:厘米|cm|斤|公斤|kg|度|岁|个月|米|人)?\s*(?:到|至|-|~|～|—|－)\s*" + _NUM
                    + r"\s*(厘米|cm|斤|公斤|kg|度|岁|个月|米|人)?", re.I)
_HEIGHT = re.compile(r"(?:一|1)\s*米\s*([一二三四五六七八九\d])\s*([一二三四五六七八九\d])?")
# (a count with its classifier, 十支 or 3瓶, is a count of that thing: it fits no range of ages or heights)
# (a household, 五口人 or 三个人, is a count of people: it fits a range of people, 适合2到5人)
_GIVEN = re.compile(_NUM + r"\s*(?:来|多|左右)?\s*(厘米|cm|斤|公斤|kg|度|℃|岁|个月|口人|个人|人|[个支瓶盒袋罐件包片条双套张只台份箱])?", re.I)
# A list of settings a fact states ("可设40℃、55℃、70℃、85℃、100℃五档温度"): each is a point the viewer's figure may name.
_SETTING = r"\s*(度|℃|摄氏度|档|瓦|毫升|升|厘米|寸|分钟|小时)"
_LIST = re.compile(rf"(?:{_NUM}{_SETTING}?\s*[、/]\s*)+{_NUM}{_SETTING}")
_CN = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNIT = {"cm": "厘米", "kg": "公斤", "米": "厘米", "口人": "人", "个人": "人", "℃": "度", "摄氏度": "度"}
_COUNTS = frozenset("个支瓶盒袋罐件包片条双套张只台份箱")


def _value(s: str) -> float | None:
    if s[0].isdigit():
        return float(s)
    total, cur = 0, 0
    for ch in s:
        if ch in _CN:
            cur = _CN[ch]
        elif ch == "十":
            total += (cur or 1) * 10
            cur = 0
        elif ch == "百":
            total += (cur or 1) * 100
            cur = 0
        else:
            return None
    return float(total + cur)


# An open range: "12岁以下", "40摄氏度以上", "3岁以内", "不到5岁".
_OPEN = re.compile(_NUM + r"\s*(厘米|cm|斤|公斤|kg|度|摄氏度|岁|个月|米)?\s*(以下|以内|之内|及以下|以上|及以上|之上)")


def ranges(text: str) -> list[tuple[float, float, str]]:
    """The ranges a fact states: (low, high, unit or '')."""
    out = []
    for m in _OPEN.finditer(text):
        v = _value(m.group(1))
        if v is not None:
            unit = _UNIT.get((m.group(2) or "").lower(), (m.group(2) or "").lower()).replace("摄氏度", "度")
            out.append((0.0, v, unit) if m.group(3) in ("以下", "以内", "之内", "及以下") else (v, float("inf"), unit))
    for m in _LIST.finditer(text):
        unit = m.group(m.lastindex or 0)
        out += [(v, v, _UNIT.get(unit, unit)) for n in re.findall(_NUM, m.group(0)) if (v := _value(n)) is not None]
    for m in _RANGE.finditer(text):
        lo, hi = _value(m.group(1)), _value(m.group(2))
        if lo is not None and hi is not None and lo < hi:
            unit = (m.group(3) or "").lower()
            out.append((lo, hi, _UNIT.get(unit, unit)))
    return out


def given(text: str) -> list[tuple[float, str]]:
    """The figures a viewer states about themselves or their need: (value, unit or '')."""
    text = text.replace("俩", "两个").replace("仨", "三个")  # (俩人一起打 is two people)
    out = []
    for m in _HEIGHT.finditer(text):
        out.append((100 + _CN.get(m.group(1), 0 if not m.group(1).isdigit() else int(m.group(1))) * 10
                    + (_CN.get(m.group(2), int(m.group(2)) if m.group(2) and m.group(2).isdigit() else 0)
                       if m.group(2) else 0), "厘米"))
    rest = _HEIGHT.sub(" ", text)
    for m in _GIVEN.finditer(rest):
        v = _value(m.group(1))
        unit = (m.group(2) or "").lower()
        # a Chinese numeral with no unit is a word, not a figure (一锅, 一边, 一次): it fits no range
        if v is not None and (unit or m.group(1)[0].isdigit() or re.search(r"[十百千]", m.group(1))):  # (颈围四十二 is one)
            out.append((v, _UNIT.get(unit, unit)))
    return out


def inside(figs: Sequence[tuple[float, str]], spans: Sequence[tuple[float, float, str]]) -> int:
    """How many of the viewer's figures fall inside a fact's ranges (a bare figure fits a range of any unit)."""
    return sum(any(lo <= v <= hi and (u == unit or (not u and bool(unit)) or (not unit and u not in _COUNTS and u != "人"))
                   for lo, hi, unit in spans) for v, u in figs)

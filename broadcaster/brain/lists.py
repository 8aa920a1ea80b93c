"""The enumerations the facts state (colours, flavours, what is in the box) and an item a sentence adds to one.

A fact listing its items closes the list when it says so ("目前只有奶白色和雾灰色两种颜色"): a model's "还有一款曜石黑" or
"有奶油白、墨绿，还有樱花粉" adds an item the shop does not have. An item is one of the fact's when the two end alike (a
Chinese noun phrase's head is its end: "另外就是奶白" / "目前只有奶白").
"""

from __future__ import annotations

import re

from broadcaster.brain.figures import number

CLAUSE = re.compile(r"[^，,；;。！？!?]+")  # a clause (a list's 、 kept inside it)
# An enumeration: short items joined by 、/和/及/与 (a clause ending ", 还有X" adds X to it).
_AND_ALSO = re.compile(r"[，,]\s*(?=还有|以及|另外还有)")
_ITEM_JOIN = re.compile(r"、|和|及|与|以及|还有|或者|或")
_ITEM_EDGE = re.compile(r"^(?:颜色|口味|包括|包含|内含|有|还有|是|都是|共|分为|分|(?:只能|仅能|只可|仅可)(?:加|用|放|装|倒|选)?)+|(?:等|等等|的|色|款|味|两款|三款|几款|两种|三种|几种|"
                        r"可选|可以选|都有|\d+[个只件张本把条])+$")
_FILLER = frozenset("的色款味种个只件")
# The fact closes its list: only these ("只有", "仅有", "共两种", "就这两款", "…和墨绿两款").
_CLOSED = re.compile(r"只有|仅有|只能|仅能|只可|仅可|仅[\u4e00-\u9fff]{0,2}[两三四五六七八九\d]|共[有计]?[两三四五六七八九\d]+[种款个色]|"
                     r"就?这[两三四五六七八九\d][种款个色]|[两三四五六七八九\d][种款个]颜色|"
                     r"[两三四五六七八九\d][种款色](?:颜色|可选|选择)?(?:[。；;，,]|$)")
# One more of the kind said alone ("还有一款曜石黑", "另外还有粉色的"): the item it adds.
# (…or a bare "有X色的" answering "有黄色吗")
_ONE_MORE = re.compile(r"(?:^有|还有|另有|另外还有|也有)(?:一|1)?[款种个]?([\u4e00-\u9fffA-Za-z0-9]{2,6}?)(?:色|款|的|可选|哦|呢|啊|哈)*$")
# (…or one more allowed where the facts allow only theirs: "只能加常温纯净水或凉白开" → "可以加温水的")
_ALSO_OK = re.compile(r"(?:可以|能|也能|也可以|直接)(加|用|放|装|倒)(?:满|点|些|一点|一些|上|入|进)?([\u4e00-\u9fff]{1,6}?)(?:的|哦|呢|啊|哈|就行|就好|也行)*$")
_COLOUR = re.compile(r"[黑白灰红橙黄绿青蓝紫粉金银棕咖褐]")
# How many of a kind a sentence says there are ("一共四个颜色", "有5种口味").
_COUNT = re.compile(r"([两二三四五六七八九十\d]+)\s*(?:个|种|款)\s*(颜色|色|口味|味道|款式|尺码)")


def items(clause: str) -> list[str]:
    """The items of an enumeration in a clause, each short (at most six characters once its edges are off); [] when
    the clause is no list of short items."""
    clause = re.split(r"[：:]", clause)[-1]  # (what a colon introduces: 共6个颜色：奶白、雾霾蓝…)
    parts = [_ITEM_EDGE.sub("", p.strip()) for p in _ITEM_JOIN.split(clause)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or any(len(p) > 6 or not re.fullmatch(r"[\u4e00-\u9fffA-Za-z0-9]+", p) for p in parts):
        return []
    return parts


def _same(a: str, b: str) -> bool:
    """One item in two wordings: one ending the other (a noun phrase's head is its end: 奶白 / 奶油白 are not, 雾霾蓝 /
    蓝 are), or the same last two characters; never one inside the other's start (箱体 is no 箱体无划痕)."""
    return a.endswith(b) or b.endswith(a) or (len(a) >= 2 and len(b) >= 2 and a[-2:] == b[-2:])


class Lists:
    """The facts' enumerations, and what a sentence adds to them."""

    def __init__(self) -> None:
        self.lists: list[tuple[str, list[str], bool]] = []  # (the fact's clause, its items, closed)

    def read(self, sentence: str) -> None:
        """Keeps a fact sentence's enumerations."""
        closed = _CLOSED.search(sentence) is not None
        for clause in CLAUSE.findall(sentence):
            found = items(clause)
            if len(found) >= 2:
                self.lists.append((clause, found, closed))

    def names(self, item: str) -> bool:
        """Whether an item is one of the facts' listed ones (in either wording)."""
        return any(_same(item, x) for _, listed, _ in self.lists for x in listed)

    def _added(self, item: str, fact: str, listed: list[str]) -> bool:
        chars = [c for c in item if c not in _FILLER]
        return not any(_same(item, x) for x in listed) and bool(chars) and sum(c in fact for c in chars) * 2 < len(chars)

    def beyond(self, sentence: str) -> str:
        """An item the sentence adds to a list the facts state ('' when none): listed beside the fact's own items, or
        said alone as one more of a closed list's kind, or a count of the kind that is not the list's."""
        for m in _COUNT.finditer(sentence):
            n = number(m.group(1)) or 0
            kind = m.group(2)
            for fact, listed, _ in self.lists:
                if n and kind in fact and len(listed) != n:
                    return f"{m.group(0)} where the facts list {len(listed)}: {fact}"
        for clause in CLAUSE.findall(_AND_ALSO.sub("、", sentence)):
            found = items(clause)
            for fact, listed, closed in self.lists:
                if len(found) >= 2 and any(_same(i, x) for i in found for x in listed):
                    extra = next((i for i in found if self._added(i, fact, listed)), "")
                    if extra:
                        return f"{extra} added to a list the facts state: {fact}"
                    continue
                ok = _ALSO_OK.search(clause.strip()) if closed else None
                if ok and len(ok.group(2)) >= 2 and re.search(rf"(?:只能|仅能|只可|仅可){ok.group(1)}", fact) \
                        and not any(_same(ok.group(2), x) for x in listed) and any(x[-1] == ok.group(2)[-1] for x in listed):
                    return f"{ok.group(2)} allowed beyond what the facts allow: {fact}"
                m = _ONE_MORE.search(clause.strip()) if closed else None
                # (of the list's kind: a colour to a list of colours, else an item ending as the listed ones do)
                # (a list of colours is one its fact calls colours, or whose items are most of them colour words: 燕麦 is
                # a colour of 奶白、燕麦、浅灰)
                colours = "颜色" in fact or sum(bool(_COLOUR.search(x)) for x in listed) * 2 > len(listed)
                if m and self._added(m.group(1), fact, listed) and (
                        (_COLOUR.search(m.group(1)) and colours and "色" in fact)
                        or all(x[-1] == m.group(1)[-1] for x in listed)):
                    return f"{m.group(1)} added to a list the facts state: {fact}"
        return ""

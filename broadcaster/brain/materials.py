"""What each part is made of, as the facts say, and a sentence that makes a part of another material.

"内胆为304不锈钢，外壳为PP材质" makes the shell PP, so "外壳是304不锈钢的" goes against it, while "外壳是塑料的" (PP is a
plastic) and "内胆也是不锈钢" (a word of its material) do not. A material is read from a small vocabulary and its
family (塑料 for PP and ABS, 金属 for steel and aluminium); a part is whatever the facts say a material of.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Materials and the family each belongs to (a material may be said by its family's name).
_FAMILY = {
    **dict.fromkeys(("pp", "abs", "pc", "pe", "pet", "pvc", "tritan", "树脂", "亚克力", "尼龙"), "塑料"),
    **dict.fromkeys(("不锈钢", "铝合金", "铝镁合金", "铝", "铸铁", "铁", "铜", "钛", "钛合金", "钢", "锌合金"), "金属"),
    **dict.fromkeys(("纯棉", "长绒棉", "全棉", "棉"), "棉"),
    **dict.fromkeys(("真皮", "牛皮", "羊皮", "pu", "皮革"), "皮"),
    **dict.fromkeys(("实木", "榉木", "橡木", "松木", "竹", "竹子"), "木"),
    **dict.fromkeys(("硅胶", "橡胶", "乳胶", "tpe", "tpu"), "胶"),
    **dict.fromkeys(("玻璃", "高硼硅玻璃", "钢化玻璃"), "玻璃"),
    **dict.fromkeys(("陶瓷", "瓷"), "陶瓷"),
    **dict.fromkeys(("碳纤维", "玻璃纤维", "涤纶", "聚酯纤维", "锦纶", "氨纶", "莫代尔", "羊毛", "羊绒", "蚕丝", "真丝", "亚麻",
                     "牛津布", "记忆棉", "海绵"), ""),
}
_FAMILIES = {"塑料", "金属", "木头", "木", "胶", "皮", "布"}
_WORD = re.compile("|".join(sorted((*_FAMILY, *_FAMILIES, "304", "316", "201"), key=len, reverse=True)), re.IGNORECASE)
# A part and what it is made of in one clause (外壳为PP材质, 杆子是不锈钢的, 灯臂用的铝合金, 箱体采用PC).
_MADE = re.compile(r"([\u4e00-\u9fff]{2,4}?)(?:也|都|则)?(?:为|是|采用|选用|用的是?|由|使用)(?:的)?([^，,。；;！!？?]{1,16})")
_NOT = re.compile(r"不|没|非|无")


def of_a_family(family: str, text: str) -> bool:
    """Whether a text (lower-cased) names a material of the family (塑料: pp, abs …; 合金: 铝合金 …)."""
    return any(f == family and m in text for m, f in _FAMILY.items()) or (family == "合金" and "合金" in text)


def _materials(text: str) -> set[str]:
    """The materials a text names, but a coating's (陶瓷釉涂层 is what covers a part, not what it is made of)."""
    return {m.group(0).lower() for m in _WORD.finditer(text) if not _COATING.match(text, m.end())}


_COATING = re.compile(r"釉?(?:涂层|镀层|涂覆|贴面|覆膜|膜)")


def _fits(said: str, stated: set[str]) -> bool:
    """Whether a material said of a part is one the facts state of it: itself, a word of it, or its family's name."""
    return any(said == s or said in s or s in said or _FAMILY.get(s) == said or _FAMILY.get(s) == _FAMILY.get(said) == "棉"
               for s in stated)


class Materials:
    """The parts the facts give a material, and a sentence giving one of them another (built with FactClaims)."""

    def __init__(self) -> None:
        self.made: dict[str, tuple[set[str], str]] = {}  # a part → (its materials, the fact)

    def read(self, sentence: str) -> None:
        for m in _MADE.finditer(sentence):
            stuff = _materials(m.group(2))
            if stuff and not _NOT.search(_WORD.sub("", m.group(0))):  # (不锈钢 is no negation)
                part = m.group(1)
                self.made.setdefault(part, (set(), sentence))[0].update(stuff)

    def against(self, sentence: str, negated_at: Callable[[str, int], bool]) -> str:
        """The fact a sentence goes against by a part's material ('' when none)."""
        for m in _MADE.finditer(sentence) if self.made else ():
            part = next((p for p in self.made if m.group(1).endswith(p) or p.endswith(m.group(1))), None)
            if part is None or negated_at(sentence, m.start(2)) or _NOT.search(sentence[m.start(1) : m.start(2)]):
                continue
            stated, fact = self.made[part]
            wrong = [s for s in _materials(m.group(2)) if not _fits(s, stated)]
            if wrong:
                return f"{part} said to be {wrong[0]} where the facts make it {'、'.join(sorted(stated))}: {fact}"
        return ""

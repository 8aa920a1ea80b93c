"""The shop's terms the facts set, and a sentence that goes against one: the default carrier, who pays in which case,
what is sold apart, and what a cover leaves out.

"默认发中通快递" makes 中通 the default, so "默认发顺丰" goes against it; "无理由退货运费由买家承担" makes the buyer pay for a
no-reason return, so "无理由退货运费我们全包" goes against it; "在沙滩上使用需另拍防陷脚套" sells the foot covers apart, so
"防陷脚套已经在包装里了" and "沙滩上直接用就行" go against it. None of these needs a digit to be wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from broadcaster.brain.lists import CLAUSE

# The default carrier (默认发中通快递): a sentence naming another default goes against it.
_DEFAULT = re.compile(r"默认(?:发|走|用|是|为)?(顺丰|中通|圆通|申通|韵达|极兔|京东|邮政|ems|德邦|百世|菜鸟)", re.I)
# A thing the facts sell apart (在沙滩上使用需另拍防陷脚套), said to come with it or not needed for its use.
_APART = re.compile(r"(?:需|要|请)?(?:另拍|另购|另外购买|单独购买|另外拍|单独拍|另外买|单独买)([\u4e00-\u9fff]{2,6})")
_COMES_WITH = re.compile(r"包装里|盒子里|箱子里|自带|标配|附带|配了|配有|带了|已经在|里面有|送")
_GIVES = re.compile(r"包装内含|内含|标配|附带|配有|赠|(?<![配运递])送(?![达货到])")
_AS_IS = re.compile(r"直接|就行|没问题|随便|照样|也能|都能|放心")
# Who pays in which case (无理由退货运费由买家承担): the shop said to pay in that case goes against it.
_CASE = re.compile(r"无理由|七天|7天|不喜欢|个人原因|非质量|拆封")
_BUYER_PAYS = re.compile(r"(?:买家|顾客|消费者|客户|您|自己)(?:承担|自付|自理|支付|出|负责)|需自付|自理")
_SHOP_PAYS = re.compile(r"(?:我们|店铺|商家|店家|卖家|咱们|本店)(?:全|来|都)?(?:包|出|承担|负责|报销)|全包|(?:不用|无需|不需要|不要)(?:您|你)?(?:出|付|掏)|一分钱不用")
# A part the facts leave out of a cover (椅布属于易耗件不在保修范围), said to be covered (椅布也一起保).
# (its parts may be listed, 手套、毛刷头等配件; its kind said in a clause of its own first: 密封圈属于易耗件，不在保修范围内)
_OUT_OF = re.compile(r"([\u4e00-\u9fff、和及与]{2,16}?)(?:(?:属于|属|是|为)[\u4e00-\u9fff]{1,6}?[，,]?)?(?:不在|不属于|不包括在?)"
                     r"(保修|质保|退换|退货|包邮|售后)(?:范围|之列|内)")
_PARTS = re.compile(r"[、和及与]|等")
_USE_EDGE = re.compile(r"^(?:在|于|去|到)|(?:上|里|中|使用|用)+$")


class Terms:
    """What the facts set as the default, who pays when, and what they sell apart (built with FactClaims)."""

    def __init__(self) -> None:
        self.defaults: dict[str, str] = {}  # the default carrier (中通) → the fact
        self.buyer_pays: list[tuple[str, str]] = []  # (the case, the fact) where the buyer pays
        self.apart: list[tuple[str, tuple[str, ...], str]] = []  # (a thing sold apart, the uses that need it, the fact)
        self.uncovered: list[tuple[str, str, str]] = []  # (a part, the cover it is out of, the fact)
        self.given: list[str] = []  # the facts' clauses that give something (包装内含…, 前200单加送…)

    def read(self, sentence: str) -> None:
        self.defaults.update((m.group(1).lower(), sentence) for m in _DEFAULT.finditer(sentence))
        self.uncovered.extend((part, m.group(2), sentence) for m in _OUT_OF.finditer(sentence)
                              for part in _PARTS.split(m.group(1)) if len(part) >= 2)
        for clause in CLAUSE.findall(sentence):
            if _BUYER_PAYS.search(clause):
                self.buyer_pays.extend((m.group(0), sentence) for m in _CASE.finditer(clause))
            if _GIVES.search(clause):
                self.given.append(clause)
            m = _APART.search(clause)
            if m is not None:
                uses = (_USE_EDGE.sub("", u) for u in re.split(r"[或和及与、]", clause[: m.start()]))
                self.apart.append((m.group(1), tuple(u for u in uses if len(u) >= 2), sentence))

    def against(self, sentence: str, negated_at: Callable[[str, int], bool]) -> str:
        """The term a sentence goes against ('' when none); `negated_at(sentence, i)`: a negation just before i."""
        for thing, uses, fact in self.apart:
            if any(thing[-2:] in g for g in self.given):
                continue  # (a thing the facts also give, in the box or as a gift, comes with it too: 前200单加送备用滤网2片)
            named = thing[-2:] in sentence
            m = _COMES_WITH.search(sentence)
            if named and m is not None and not negated_at(sentence, m.start()):
                return f"{thing} said to come with it where the facts sell it apart: {fact}"
            if not named and any(u in sentence for u in uses) and _AS_IS.search(sentence):
                return f"a use said to need nothing where the facts need {thing}: {fact}"
        for part, cover, fact in self.uncovered:
            at = sentence.find(part[-2:])  # (the cover said of the part, after it: 整机保修1年，人为损坏不保修 is no cover of it)
            m = re.compile(rf"{cover}|{cover[0]}(?=[的了吗呢，。！!]|$)").search(sentence, at) if at >= 0 else None
            if m is not None and not negated_at(sentence, m.start()):
                return f"{part} said covered ({cover}) where the facts leave it out: {fact}"
        m = _DEFAULT.search(sentence)
        if m is not None and self.defaults and m.group(1).lower() not in self.defaults:
            return f"a default the facts do not set: {m.group(0)} ({next(iter(self.defaults.values()))})"
        if _SHOP_PAYS.search(sentence):
            for case, fact in self.buyer_pays:
                if case in sentence:
                    return f"the shop said to pay where the buyer does: {fact}"
        return ""

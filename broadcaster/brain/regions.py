"""The regions the facts limit (serve at a surcharge, or not at all), and a sentence that says otherwise.

"新疆、西藏每单加收15元运费；港澳台及海外暂不发货" makes 新疆 surcharged and 香港 unserved: "新疆也包邮" and "香港也能发" go
against it, "新疆是可以发的" agrees (served, at a charge), and so does "西藏能发，每单加收15元". A sentence naming no region
is read with the one said before it ("港澳台暂不发货。就是要加15元运费": a charge on places not served) and with the
region the viewer asked about ("我在台湾读书 能寄过去吗" → "可以寄，运费加15元" is said of 台湾).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from broadcaster.brain.places import LIMITING, regions_in, spoken_regions

# The shop paying the postage in any words (运费我们全包, 运费店家出).
_POSTAGE_PAID = r"(?:运费|邮费)[\u4e00-\u9fff]{0,2}?(?:全包|全免|包了|(?:我们|店家|商家|店里|这边)(?:出|承担|包))"
# What a region is served with when the facts limit it: postage free, no extra charge, shipped at all.
_SERVED = re.compile(r"(?:包邮|免邮|免运费|不(?:用|需要?)?加(?:钱|运费|邮费)|不加收|不收运费|没有运费|运费全免|" + _POSTAGE_PAID + r"|也(?:能|可以|都)?(?:发|寄|到|送)|"
                     r"(?:能|可以|都)(?:发|寄|送到?|到)|正常发|照常发|一样发|都发|发得了|寄得到)(?!不)")  # 都发不了 serves nothing
_FREE = re.compile(r"包邮|免|不(?:用|需要?)?加|不加收|不收|没有运费|运费全免|" + _POSTAGE_PAID)
_SURCHARGE = re.compile(r"加收|另收|多收|收点|补(?:运费|邮费|差价)|(?:运费|邮费)[\u4e00-\u9fff]{0,2}加|加[\u4e00-\u9fff\d.]{0,5}(?:运费|邮费)|"
                        r"(?:运费|邮费)(?:是|要|只要|就|才)?[\d一二三四五六七八九十]+(?:元|块)")  # (运费15元就行)
# A time to arrive (大概一周就到, 三天能送到): said after places not served, it serves them.
_ARRIVES = re.compile(r"(?:一周|一个星期|几天|[一二两三四五六七八九十\d]+(?:个)?(?:天|周|星期|工作日))(?:左右|内|之内)?(?:就|能|可以|会)?(?:到|送到|送达|收到|寄到)")
# Serving words that say a region is NOT served (the facts serve it, if at a surcharge).
_NOT_SERVED = re.compile(r"(?:暂时|暂)?(?:不|不能|没法|无法)(?:发货|发|寄|配送|送)")
# Places said by their scope (全国大部分地区都包邮): the sentence is not about the region the viewer asked.
_SCOPE = re.compile(r"全国|大部分|大多数|国内|内地|大陆|其他|其余|其它|别的地区|偏远")
# Every place at once (全国都包邮, 哪里都包邮, 所有地区都免运费): said only where the facts say it so themselves.
_EVERYWHERE = re.compile(r"(?:全国(?!大部分|大多数|多数|绝大部分)|所有地区|所有地方|哪里|哪儿|任何地方|各地|全部地区)(?:都|全|一律|统一)?"
                         r"(?:包邮|免邮|免运费|不加(?:钱|运费|邮费)|不收运费)")
# A clause about the places a sentence did not name ("…要补15元运费，其他大部分地区都包邮").
_OTHERS = re.compile(r"\s*(?:其他|其它|其余|别的|剩下的?|另外的|除此之外|除了这[些几])")
# Every place but those just named, served free (…加收15元。其他地方都包邮): true only when every place the facts limit was named.
_OTHERS_ALL = re.compile(r"(?:其他|其它|其余|别的|剩下的?|另外的)(?:的)?(?:大部分|大多数|绝大部分|多数)?(?:地方|地区|省份?|城市)?(?:也)?"
                         r"(?:都|全|全部|一律|统统|均|通通)(?:是|可以|能)?(?:包邮|免邮|免运费|不加(?:钱|运费|邮费))")


class Regions:
    """What the facts say of regions (built with FactClaims, one fact sentence at a time)."""

    def __init__(self) -> None:
        self.limited: dict[str, str] = {}  # region → the fact that limits it
        self.surcharged: dict[str, str] = {}  # region → the fact that serves it at an extra charge
        self.everywhere = ""  # a fact that itself says every place is served free (全国包邮，新疆加收…)

    def read(self, sentence: str) -> None:
        if _EVERYWHERE.search(sentence):
            self.everywhere = sentence
        if LIMITING.search(sentence):
            for region in regions_in(sentence):
                self.limited.setdefault(region, sentence)
            # (clause by clause: "新疆、西藏加收运费15元，港澳台暂不发货" charges the first and does not serve the second)
            for clause in re.split(r"[，,；;]", sentence):
                if re.search(r"加收|另收|需加|要加|补运费", clause) and not re.search(r"暂不发|不发货|不配送", clause):
                    for region in regions_in(clause):
                        self.surcharged.setdefault(region, sentence)

    def _unserved(self, regions: list[str]) -> list[str]:
        return [r for r in regions if r in self.limited and r not in self.surcharged]

    def against(self, sentence: str, said: list[str], before: str, asked: str, negated_at: Callable[[str, int], bool],
                clause_at: Callable[[str, int], str]) -> str:
        """The region fact a sentence goes against ('' when none); `said`: the regions it names; `before`: the answer's
        sentence just before; `asked`: the viewer's question."""
        if not said and (_SURCHARGE.search(sentence) or _ARRIVES.search(sentence)):
            named = spoken_regions(before)
            unserved = self._unserved(named) if not any(r in self.surcharged for r in named) else []
            if unserved and _NOT_SERVED.search(before):
                return f"a surcharge or a delivery said after {unserved[0]}, which the facts do not serve: {self.limited[unserved[0]]}"
        m = _FREE.search(sentence) if not said and not _SCOPE.search(sentence) else None
        charged = [r for r in spoken_regions(before) or spoken_regions(asked) if r in self.surcharged] if m else []
        if m is not None and charged and _SERVED.search(sentence) and not negated_at(sentence, m.start()):
            # (postage said free of the region just named or asked: "西藏可以发。运费我们全包")
            return f"{m.group(0)} said of {charged[0]}, which the facts serve at a charge: {self.surcharged[charged[0]]}"
        if not said and asked and not _NOT_SERVED.search(sentence) and not _SCOPE.search(sentence):
            m = _SURCHARGE.search(sentence) or _SERVED.search(sentence)
            unserved = self._unserved(spoken_regions(asked))
            if m is not None and unserved and not negated_at(sentence, m.start()):
                return f"{m.group(0)} said of {unserved[0]} (asked), which the facts do not serve: {self.limited[unserved[0]]}"
        m = _OTHERS_ALL.search(sentence) if self.limited else None
        left = [r for r in self.limited if r not in set(spoken_regions(sentence)) | set(spoken_regions(before))]
        if m is not None and left and not re.search(r"大部分|大多数|多数", m.group(0)) and not negated_at(sentence, m.start()):
            return f"{m.group(0)} where the facts limit {left[0]}, not named: {self.limited[left[0]]}"
        m = _EVERYWHERE.search(sentence) if self.limited and not self.everywhere else None
        if m is not None and not negated_at(sentence, m.start()) and not LIMITING.search(sentence):
            return f"{m.group(0)} where the facts limit {next(iter(self.limited))}: {next(iter(self.limited.values()))}"
        for region in said:
            fact = self.surcharged.get(region)
            if fact is not None and any(_NOT_SERVED.search(c) for c in re.split(r"[，,；;]", sentence) if region in spoken_regions(c)):
                return f"{region} said not served where the facts serve it: {fact}"
        for region in said:
            fact = self.limited.get(region)
            if fact is not None:
                m = _SERVED.search(sentence)
                # (a region served at a surcharge is served: only its postage said free goes against the facts)
                if m is not None and region in self.surcharged and not _FREE.match(m.group(0)):
                    continue
                if m is not None and not negated_at(sentence, m.start()) and not LIMITING.search(sentence) \
                        and not _OTHERS.match(clause_at(sentence, m.start())):
                    return f"{region} served ({m.group(0)}) where the facts limit it: {fact}"
        return ""

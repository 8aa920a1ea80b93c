"""The grounding guard: withholds answer sentences that state what the context does not.

A sentence may state a figure only when a retrieved passage or a persona fact states the same (value, unit; see
figures.py): "12小时" does not ground "12个月", and the viewer's question grounds nothing ("今天是不是9块9？" is a claim
to check). A figure said with the label the knowledge base states it with ("日常价128元"), or in a clause about the
same thing, is grounded by the whole KB; a bare or differently labelled one needs the retrieved passages; a number
read digit by digit (零四幺七) must be in them. Named facts (an origin, a gift, a carrier, an award) may come from
anywhere in the KB (`facts`).

Promises (wordlists PROMISES and the frames of guard_rules.py: 买一送一, 包邮, 保证人人都有, 不好喝不要钱, 先喝后付,
破损包赔, 下次还送 …) are voiced only when a passage makes the same promise; carriers, quality claims, shipping speed and
payment terms need the KB's very phrase; a return promise is checked with its conditions (拆封了也能无理由退 needs a
statement with 拆封, not 未拆封, and 无理由 together; its restrictions, 质量问题, must be said too; "也照样" inherits the
conditions before it). Absolute claims (最, 第一, 国家级, 天花板 …) are withheld even when the KB has them. A sentence
naming a passage id or a file, talking about its instructions or the model behind the persona, or echoing the system
prompt is withheld, and so is one repeating ECHO_CHARS of the viewer's characters that no passage has, or running
the shop down in the anchor's voice. Claims without digits are held against the facts by claims.py.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from broadcaster.brain.claims import FactClaims, fact_claims
from broadcaster.brain.figure_runs import figure_run, ranges, stated_lists, stated_ranges
from broadcaster.brain.figures import (
    CLASSIFIERS,
    CLAUSE_CUT,
    CN_NUM,
    DURATION,
    Figure,
    cjk_bigrams,
    figures,
    labelled_figures,
    numeric_text,
    said_otherwise,
    same_unit,
    stated_figures,
)
from broadcaster.brain.grounding_en import english_facts, is_english, leak_en
from broadcaster.brain.guard_rules import (
    CLAUSE_END,
    FRAME_EVIDENCE,
    FRAME_PROMISES,
    LEAK_PHRASES,
    POSTAGE_PAID,
    RESTRICTIONS,
    RETURN,
    SENTENCE_END,
    SHORT_FOR,
    WAIVED,
    absolute_claim,
    disparaging,
    echo_len,
    return_conditions,
    return_units,
    unsupported,
)
from broadcaster.brain.places import regions_in
from broadcaster.brain.textnorm import dense, is_cjk_char, normalize
from broadcaster.brain.variants import size_labels
from broadcaster.brain.wordlists import (
    EXACT_PROMISES,
    PROMISES,
)

# A number read digit by digit: three or more digit words with no 十/百/千 (零四幺七, 一三八), unless a unit follows.
_DIGIT_STRING = re.compile(rf"(?<![{CN_NUM}幺])[零〇幺一二三四五六七八九]{{3,}}(?![{CN_NUM}{CLASSIFIERS}元块克天月年小分秒度毫升斤])")
_ALSO = re.compile(r"也|照样|同样|一样")
_DIGIT_CHARS = str.maketrans("零〇幺一二三四五六七八九", "001123456789")
_EXACT_FRAMES = frozenset({"品质来历", "耐用承诺"})  # each phrase the sentence says must be the KB's own
_GUARANTEE_WORD = re.compile(r"^(?:保证|担保|承诺|包你|包您|包大家)(?:是|能|会|都|让|给|你|您|大家)*")
_NUMERAL_START = re.compile(rf"[{CN_NUM}\d]")
# Giving it as a present is a use, not a gift promised (适合送礼, 送长辈很合适, 送人自用都合适).
_GIFTING_USE = re.compile(r"送(?:礼(?![盒品物包券卡袋])|人|长辈|朋友|女朋友|男朋友|女友|男友|爸妈|父母|老师|客户|领导|家人|亲友)|送给(?:长辈|朋友|家人|父母|爸妈|客户)")
_SAVING = re.compile(r"便宜|省|少花|少了|差价|差了|相差|贵了|多花|优惠了|减了|节省|实惠|划算|比.{0,6}(?:少|低)")
_PER_PIECE = re.compile(r"(?<![结组综适])合(?!适|作|同|格|计)|平均|均价|相当于|算下来|折合|摊下来")  # not "一罐只要…": misleading
_REFUSED = re.compile(r"(?:不|没|没有|无法|不能|不会|不可以|不支持|不提供|暂不|暂时不|并不|并没有|不是|不再|别)"
                      r"(?:再|给|能|会|支持|提供|做|搞|参加|参与|发)?\s*$")
_FRAME_EVIDENCE = {label: [(re.compile(a), re.compile(b)) for a, b in pairs] for label, pairs in FRAME_EVIDENCE.items()}
# Conditions that say what state the goods or the buyer are in (not the terms of a return: 运费, 全额, 随时).
_BUYER_STATES = frozenset({"拆封", "使用", "无理由"})
# Where a product comes from: the place named must be in a passage ("产自云南" when the KB says 浙江丽水).
_ORIGIN = re.compile(r"(?:产自|产于|产地(?:是|在|为)?|原产(?:地|于)?(?:是|在)?|出自)\s*([\u4e00-\u9fff]{2,})")
_PLACE_FILLER = re.compile(r"^(?:我们|咱们|正宗|著名|有名|中国|国内)")

_GIFT_OBJECT = re.compile(
    rf"(?:送|赠送|附赠|赠)(?:给)?(?:你|您|大家|各位|粉丝)?(?:们)?(?:[{CN_NUM}\d]+[{CLASSIFIERS}])?([\u4e00-\u9fff]{{2}})"
)


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    ok: bool
    reason: str = ""  # "ungrounded number 299 元" | "ungrounded promise 买一送一" | "absolute claim 第一" | "prompt leak: …"


@functools.lru_cache(maxsize=1)
def _promise_res(extra: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    return ([(label, re.compile(p)) for label, p in (*PROMISES, *FRAME_PROMISES)]
            + [(p, re.compile(p)) for p in extra])


_GOODS = frozenset(f"count:{c}" for c in "个罐瓶盒件支袋包台只双套箱份条")


def _price_counts(fs: Sequence[Figure]) -> set[tuple[float, float]]:
    """The (price, count of goods ≥ 2) pairs a clause's figures say ("两罐188元" → (188, 2))."""
    prices = [f.value for f in fs if f.unit == "元"]
    counts = [f.value for f in fs if f.unit in _GOODS and f.value >= 2]
    return {(round(p, 2), c) for p in prices for c in counts}


def _bigrams(s: str) -> set[str]:
    s = re.sub(r"[^0-9a-z\u4e00-\u9fff]", "", s)
    return {s[i : i + 2] for i in range(len(s) - 1)}


def _word_bigrams(s: str) -> set[str]:
    """An English text's pairs of words: its letter pairs are any English text's ("th", "in"), so a rule's words are
    what a leak shares with it."""
    w = re.findall(r"[0-9a-z]+", s)
    return {f"{a} {b}" for a, b in itertools.pairwise(w)}


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class GroundingGuard:
    """Checks one answer's sentences against what it may state; built per answer."""

    def __init__(self, allowed_texts: Iterable[str], prompt_rules: Sequence[str] = (), *, grounding: bool = True,
                 promises: bool = True, absolute_claims: bool = True, extra_promises: Sequence[str] = (),
                 question: str = "", facts: Iterable[str] = (), claims: FactClaims | None = None) -> None:
        self.texts = [numeric_text(t) for t in allowed_texts]
        self.allowed: list[tuple[float, str]] = []
        # the numbers as the passages write them: a figure said without its unit in a list that gives the unit once
        # ("长32、宽28、高33厘米") is the passages' 32厘米, whatever its unit scales it to
        self._written: set[float] = set()
        for t in self.texts:
            for f in figures(t):
                self.allowed.append((round(f.value, 4), f.unit))
                if f.text.strip().replace(".", "", 1).isdigit():
                    self._written.add(round(float(f.text.strip()), 4))
        # Prices the passages state, and what they make: savings (a−b, k·a−b) and averages per piece (a÷k).
        self._money = sorted({v for v, u in self.allowed if u == "元" and v > 0})
        pairs = [(a, b) for a in self._money for b in self._money if a != b]
        self._money_derived = (
            {round(k * a - b, 2) for a, b in pairs for k in range(1, 6) if k * a - b > 0} | {round(a - b, 2) for a, b in pairs if a > b},
            {round(a / k, 2) for a in self._money for k in range(2, 6)},
        )
        self.rules = [normalize(r) for r in prompt_rules if len(r.strip()) >= 10]
        # The persona line is a self-introduction when paraphrased; the other rules are not for the air.
        self._rule_grams = [_bigrams(r) for r in self.rules[1:]]
        self._rule_words = [_word_bigrams(r) for r in self.rules[1:]]
        self.grounding = grounding
        self.promises = promises
        self.absolute_claims = absolute_claims
        self._promise_res = _promise_res(tuple(extra_promises))
        self._joined = "\n".join(self.texts)
        self._digits = re.sub(r"\D", "", self._joined.translate(_DIGIT_CHARS))
        # Named facts (origins, gifts, promises) may come from anywhere in `facts` (the whole knowledge base).
        self._named = "\n".join([self._joined, *(numeric_text(t) for t in facts)])
        # A figure said with the label the knowledge base states it with ("日常价128元", "付款后24小时内发货") is that
        # statement quoted, wherever it is: grounded even when retrieval did not rank its passage. Bare or
        # differently labelled figures still need the retrieved passages (a 3 from "续水3次" is no 仨罐).
        facts = tuple(facts)
        self._labelled = labelled_figures(facts) if facts else frozenset()
        self._sizes = size_labels(facts)  # (a size's name, 24寸 of "24寸日常价459元", is said of it anywhere)
        self._stated, self._lists = (stated_figures(facts), stated_lists(facts)) if facts else ({}, frozenset())
        # (price, count) said together in one clause of the passages or facts ("两罐装188元"): a price said with a count
        # of the goods is grounded only as such a pair (99元 is one can's price, never two cans')
        self._priced = {pair for t in (*self.texts, *(numeric_text(t) for t in facts))
                        for c in CLAUSE_CUT.split(t) for pair in _price_counts(figures(c))}
        # Runs of the viewer's words that the passages and rules do not also contain: voiced back, they are an echo.
        q, self._asked = dense(question), question
        known = dense(self._joined)
        self._echo_len = k = echo_len(question)
        self._echo = {q[i : i + k] for i in range(len(q) - k + 1) if q[i : i + k] not in known} if k else set()
        self._return_units = [u for t in self.texts for u in return_units(t)]
        # a range is said only as the facts state it (1到12小时 of 1、3、6、9小时 and 12小时)
        self._ranges = ranges(self._joined) | (stated_ranges(facts) if facts else frozenset())
        # what the facts deny and limit (claims.py): a promise without digits against them; read from `facts` when the
        # caller has no prepared reading (a talk line's paraphrase, a keyword reply), cached per set of facts
        self._claims = claims if claims is not None else (fact_claims(facts) if facts else None)
        self._known: frozenset[str] | None = None  # the word pairs the facts say (unsupported), read when first needed

    def check(self, sentence: str, before: str = "") -> GuardVerdict:
        """One sentence's verdict; `before` is the answer's sentence said just before it (a return's condition or
        restriction said there counts, see check_returns)."""
        leak = self._leak(sentence)
        if leak:
            return GuardVerdict(False, f"prompt leak: {leak}")
        if self._echo:
            d = dense(sentence)
            k = self._echo_len
            run = next((d[i : i + k] for i in range(len(d) - k + 1) if d[i : i + k] in self._echo), "")
            if run:
                return GuardVerdict(False, f"echo of the viewer's words {run}")
        verdict = self.check_claims(sentence)
        if not verdict.ok:
            return verdict
        slur = disparaging(sentence)
        if slur:
            return GuardVerdict(False, f"disparaging the shop {slur}")
        english = is_english(sentence)
        if english and (self.grounding or self.promises):
            why = leak_en(sentence)
            if not why and self.grounding:
                why = english_facts(self._named).unsupported(sentence)
            if why:
                return GuardVerdict(False, why)
        if self.grounding and not english:  # an English sentence's figures are read by words, against all the facts
            said = [(c, cjk_bigrams(c), fs, _price_counts(fs)) for c in CLAUSE_CUT.split(numeric_text(sentence))
                    for fs in (figures(c),)]
            # (a clause listing three or more figures exactly as a fact lists them is that fact)
            if len(run := figure_run(sentence)) >= 3 and run in self._lists:
                said = [(c, g, [], p) for c, g, _, p in said]
            for clause, grams, f, pairs in ((c, g, f, p) for c, g, fs, p in said for f in fs):
                if f.significant and not self._grounded(f, grams) and not self._derived(f, clause) \
                        and not ((f.unit == "元" or f.unit in _GOODS) and pairs & self._priced):
                    # (a price with its count as the facts pair them, "29块钱两个" ← "29元2个装", is that statement)
                    unit = f" {f.unit}" if f.unit else ""
                    return GuardVerdict(False, f"ungrounded number {f.text.strip()}{unit} (not in passages/persona facts)")
                other = said_otherwise(self._stated, f, grams) if f.significant else None
                if other is not None:
                    return GuardVerdict(False, f"figure {f.text.strip()} where the facts say otherwise of the same thing ({other:g} {f.unit})")
            for low, high in ranges(sentence) - self._ranges:
                return GuardVerdict(False, f"a range {low:g}–{high:g} the facts do not state")
            for clause, _, _, pairs in said:
                for price, count in pairs:
                    if (price, count) not in self._priced and not self._derived(Figure(price, "", True, "元"), clause):
                        return GuardVerdict(False, f"ungrounded price {price:g}元 for {count:g} (not paired in the facts)")
        if self.promises:
            n = numeric_text(sentence)
            n = _GIFTING_USE.sub(lambda m: " " * len(m.group(0)), n)
            for label, rx in self._promise_res:
                # a promise refused ("不支持货到付款", "没有买一送一", "不保证人人都有") promises nothing: only what is said
                # without a negation before it is checked
                said = rx.sub(lambda m: m.group(0) if not _REFUSED.search(n[max(0, m.start() - 6) : m.start()])
                              else " " * len(m.group(0)), n)
                m = rx.search(said)
                if m is None:
                    continue
                if not self._promise_grounded(label, rx, said):
                    return GuardVerdict(False, f"ungrounded promise {m.group(0)} ({label})")
            for m in _DIGIT_STRING.finditer(n):
                # a number read out digit by digit (零四幺七: a phone or an id) must be in the passages as digits
                digits = m.group(0).translate(_DIGIT_CHARS)
                if digits not in self._digits:
                    return GuardVerdict(False, f"ungrounded number {m.group(0)} (digits {digits})")
            for m in _ORIGIN.finditer(n):
                place = _PLACE_FILLER.sub("", m.group(1))[:2]
                if len(place) == 2 and place not in self._named:
                    return GuardVerdict(False, f"ungrounded origin {m.group(0)}")
            returns = self.check_returns(n, before)
            if not returns.ok:
                return returns
            against = self._claims.contradiction(sentence, before, self._asked) if self._claims is not None else ""
            if against:
                return GuardVerdict(False, f"against the facts: {against}")
        return GuardVerdict(True)

    def unsupported(self, sentence: str) -> bool:
        """A model's statement the facts say none of (guard_rules.unsupported; a Chinese sentence, with grounding on)."""
        if self.grounding and self._known is None:  # (the regions the facts name count by their own names: 台湾 of 港澳台)
            self._known = cjk_bigrams("\n".join([self._named, *self.rules, *regions_in(self._named)]))
        return self.grounding and not is_english(sentence) and unsupported(sentence, self._known or frozenset())

    def check_returns(self, text: str, before: str = "") -> GuardVerdict:
        """Return promises with their conditions; `before` is the sentence said just before, so a condition
        in one sentence and the return in the next ("拆封了。也能无理由退。") are read as one statement."""
        if not self.promises:
            return GuardVerdict(True)
        if (waived := WAIVED.search(text)) and (RETURN.search(text) or RETURN.search(before)) and "只要" not in self._joined:
            return GuardVerdict(False, f"a return's conditions waved off: {waived.group(0)}")  # (…配件齐全。只要没坏就行。)
        n = numeric_text(text)
        if before:
            clauses = CLAUSE_END.split(SENTENCE_END.sub("，", numeric_text(before)).rstrip("，"))
            last = max((i for i, c in enumerate(clauses) if RETURN.search(c)), default=len(clauses) - 1)
            if any(label in _BUYER_STATES for c in clauses[last + 1 :] for label, _ in return_conditions(c)):
                last = len(clauses) - 1  # a condition said after it ("…也可以退。拆了不喜欢。") is for this one
            # A return said before ends its statement there: what trails it ("…也可以退，运费由我们承担。") is no
            # condition of a return in this sentence ("未拆封支持七天无理由退换。").
            n = "，".join(clauses[: last + 1]) + "，" + n
        units = return_units(n)
        if before:
            # "…也照样退" after a return statement: the same return, its conditions added to the one before
            # ("拆封后有质量问题也可以退。不喜欢口味也照样给您退。" promises a return of opened tea one does not like).
            # A unit that states its own value for a condition (未拆封 … / 拆封后 …也) overrides rather than inherits.
            units += [prev + "，" + unit for prev, unit in itertools.pairwise(units) if _ALSO.search(unit)
                      and not {label for label, _ in return_conditions(prev)} & {label for label, _ in return_conditions(unit)}]
        for unit in units:
            conds = return_conditions(unit)
            if conds and not self._return_grounded(conds, unit):
                said = "、".join(("" if pos else "非") + label for label, pos in sorted(conds))
                return GuardVerdict(False, f"ungrounded promise {unit} (退换 under {said})")
        m = POSTAGE_PAID.search(numeric_text(text))
        if m is not None and not RESTRICTIONS.search(n):
            # "运费我们出" where every statement of it in the KB is restricted ("质量问题…运费由我们承担"): said without
            # the restriction (in this sentence or the one before), it promises more than the KB does
            stated = [u for u in SENTENCE_END.split(self._named) if POSTAGE_PAID.search(u)]
            if stated and all(RESTRICTIONS.search(u) for u in stated):
                return GuardVerdict(False, f"ungrounded promise {m.group(0)} (运费承担 without its restriction)")
        return GuardVerdict(True)

    def _return_grounded(self, conds: set[tuple[str, bool]], unit: str) -> bool:
        """A passage statement names every condition the same way, and the sentence keeps its restrictions."""
        restricted = bool(RESTRICTIONS.search(unit))
        for stated in self._return_units:
            if conds <= return_conditions(stated) and (restricted or not RESTRICTIONS.search(stated)):
                return True
        return False

    def check_claims(self, sentence: str) -> GuardVerdict:
        """Absolute claims only (applies to every answer source, the KB and the cache included)."""
        if self.absolute_claims:
            claim = absolute_claim(sentence)
            if claim:
                return GuardVerdict(False, f"absolute claim {claim}")
        return GuardVerdict(True)

    def _grounded(self, f: Figure, grams: frozenset[str] = frozenset()) -> bool:
        v = round(f.value, 4)
        if f.label and f.unit and (v, f.unit, f.label) in self._labelled:
            return True
        if any(grams & kb for kb in self._stated.get((v, f.unit), ())):
            return True  # the KB states this value in this unit in a clause about the same thing ("到手价只要99元", "304不锈钢")
        if f.phrase and is_cjk_char(f.phrase[-1]) and f.phrase in self._named:
            return True  # a count inside a name the knowledge base uses ("两罐装"), not a count of its own
        if not f.unit and v in self._written:
            return True
        # (a duration in another unit is the same figure: 两天内 of 48小时内)
        return any((value == v and (not f.unit or same_unit(f.unit, unit) or (f.unit.startswith("count:") and not unit)))
                   or (unit in DURATION and f.unit in DURATION and abs(value * DURATION[unit] - v * DURATION[f.unit]) < 1e-6)
                   for value, unit in (*self.allowed, *self._sizes))

    def _derived(self, f: Figure, clause: str) -> bool:
        """A sum the passages' prices make, said with what it is: a saving ("比单买便宜10元": 2×99−188) or an average
        per piece ("合94元一罐": 188÷2). Without such words a figure is not derived: an invented price that happens to
        equal a difference is still withheld, and a total is never derived ("两罐198元" when the two-can pack is 188元)."""
        if f.unit != "元" or not self._money:
            return False
        v = round(f.value, 2)
        if _SAVING.search(clause) and v in self._money_derived[0]:
            return True
        return bool(_PER_PIECE.search(clause)) and v in self._money_derived[1]

    def _promise_grounded(self, label: str, rx: re.Pattern[str], sentence: str) -> bool:
        if label == "买赠" and not rx.search(self._named):
            # buy and get a gift the KB gives ("买一罐就送一个茶匙" ← "每罐附赠一个竹制茶匙"): the gift named, not a count
            # of the goods ("买两罐送一罐")
            m = _GIFT_OBJECT.search(sentence)
            return (m is not None and not _NUMERAL_START.match(m.group(1)) and m.group(1) in self._named
                    and bool(re.search(r"赠|送", self._named)))
        if label == "担保":
            # what is guaranteed, said in the KB's own words ("保证全国包邮" ← "全国包邮"), is the KB's statement
            m = rx.search(sentence)
            said = _GUARANTEE_WORD.sub("", m.group(0)) if m is not None else ""
            return len(said) >= 2 and dense(said)[:6] in dense(self._named)
        if label in _EXACT_FRAMES:
            return all(m.group(0) in self._named for m in rx.finditer(sentence))
        if not rx.search(self._named):
            # a frame the KB states in its own words (运费不收钱 ← 包邮), judged by what the sentence is about
            return any(about.search(sentence) and kb.search(self._named) for about, kb in _FRAME_EVIDENCE.get(label, ()))
        if label in EXACT_PROMISES:  # every one the sentence names, by name (or its full name: 普票 of 普通发票)
            return all(m.group(0) in self._named or SHORT_FOR.get(m.group(0), m.group(0)) in self._named
                       for m in rx.finditer(sentence))
        if label == "赠品":
            m = _GIFT_OBJECT.search(sentence)
            if m is not None and m.group(1) not in self._named:
                return False  # a gift the passages do not name
        return True

    def _leak(self, sentence: str) -> str:
        m = LEAK_PHRASES.search(sentence)
        if m:
            return m.group(0)
        n = normalize(sentence)
        if len(n) >= 10:
            for rule in self.rules:
                if fuzz.partial_ratio(n, rule) >= 85 and min(len(n), len(rule)) >= 10:
                    return rule[:40]
            english = _CJK.search(n) is None
            grams = _word_bigrams(n) if english else _bigrams(n)
            if len(grams) >= (3 if english else 6):
                for rule, rg in zip(self.rules[1:], self._rule_words if english else self._rule_grams, strict=True):
                    shared = len(grams & rg)
                    if shared >= (3 if english else 6) and shared / len(grams) >= 0.45:
                        return rule[:40]
        return ""

"""The knowledge base as facts (one line or sentence each) and the fact that answers a question, with a margin.

A shop's facts are short lines ("- 充绒量160克", "价格：日常价128元"); a question is answered by one of them, not by the
passage around it. `FactIndex` scores every fact for a question three ways — embedding similarity (the query/passage
roles of brain.embed), word overlap (BM25 over the facts) and whether the fact carries what the question's slot asks
(a price for a price question, the unit asked) — and `choose` returns the best fact with its *margin* over the next
one: embedding scores bunch together (0.83–0.91 for every fact of a small sheet), so a fact is only an answer when it
stands out from the rest, never because its raw score passes a bar. Scores are standardized per question (z-scores
over every fact), so the margin means the same for a 20-fact sheet and a 2000-fact catalogue.

A fact that shares a word with the comment (a place, a brand, a number) but not its meaning does not stand out: the
embedding reads the whole sentence, and the word's weight is one of three."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from broadcaster.brain.asked import exception_only, per_package
from broadcaster.brain.intent import asked_units, denies, evidence, slot_spans, slots, states_unit
from broadcaster.brain.places import LIMITING, names_mainland, regions_in
from broadcaster.brain.sentences import split_sentences
from broadcaster.brain.spans import given, inside, ranges
from broadcaster.brain.thesaurus import catalogue_words

_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)、]|[（(]?\d+[)）])\s*")

# How the three readings combine (tuned on the development products, see docs/brain.md): the embedding's z-score,
# word overlap's z-score and a fact that carries the slot's evidence.
W_DENSE = 1.0
W_CLAUSE = 0.5  # the embedding of the comment's asking clause alone ("我家台面窄 这锅有多宽" → "这锅有多宽")
W_WORDS = 3.0
W_WORDS_ALONE = 1.5  # without embeddings the words carry the reading
# Characters and character pairs the question shares with a fact, weighted by how few facts carry them: jieba's words
# miss a colloquial form of the fact's word (多宽 / 宽28厘米, 最低温 / 温度, 分开付 / 分期付款).
W_CHARS = 2.0
W_PAIRS = 2.0
W_SLOT = 2.0
W_UNIT = 0.5
_MEASURED = frozenset({"毫升", "克", "毫米", "度", "瓦", "分贝", "毫安时", "千卡"})
NARROW_SLOTS = frozenset({"runtime", "charge_time", "freebie", "port", "while_charging"})
W_PER = 0.5  # (of W_UNIT) a fact stating its figures per the package the question asks of
W_RANGE = 2.0
W_PLACE = 1.0  # a fact naming the region the viewer names (a city for its province, a country for 海外)
HUB = 0.5  # how much of a fact's closeness to every kind of question (brain/hubs.py) its similarity loses
MARGIN = 0.15  # a fact answers when it leads the next-best by this much (z units of the combined score) and reads related
MARGIN_SLOTLESS = 0.3
# Two facts answer together when neither leads the other but the two lead every other fact by this much.
MARGIN_PAIR = 0.5
SLOT_SWAP = 0.5  # how far behind the best a fact carrying the question's slot may be and still answer in its place
SLOTLESS_WORDS = 0.1  # the share of a slotless question's word weight that backs the embedding's pick
MARGIN_UNBACKED = 0.8  # a lead that backs a pick on its own (no slot's evidence, no shared words)
MIN_Z = 2.0
SLOT_Z = 0.8
# What anchors a fact to a question beyond the combined score (Choice.anchored): a share of its words, or an
# embedding z-score this high on its own.
ANCHOR_WORDS = 0.02
DENSE_ALONE = 2.0


@dataclass(frozen=True, slots=True)
class Fact:
    text: str  # as it is said ("充绒量160克")
    passage_id: str
    question: str = ""  # an FAQ entry's question (embedded with its answer)


@dataclass(frozen=True, slots=True)
class Choice:
    fact: Fact | None
    score: float  # the combined z-score of the best fact
    margin: float  # its lead over the next one
    confident: bool
    also: Fact | None  # a second fact tied with the first, the two leading the rest ("续航多久": with and without ANC)
    # the best fact shares something checkable with the question beyond the embedding: a word, the slot's evidence,
    # the unit asked, a figure inside its range — or the embedding alone reads it very strongly
    anchored: bool
    why: str  # "dense z 2.31, words z 1.10, slot price; margin 0.84 over '…'"
    ranked: tuple[tuple[Fact, float, float, float], ...] = ()  # (fact, combined, dense z, words z), best first
    fits: int = 0  # the viewer's figures inside the best fact's ranges ("我163，110斤" → M码's two ranges)
    in_unit: bool = False  # the question asks a quantity in a unit (有多高) and the best fact states a figure in it
    own_word: str = ""  # a word of the question (two characters or more) the best fact alone says (双碗 of 有双碗的吗)


def facts_of(passages: Sequence[object]) -> list[Fact]:
    """Every passage's lines as facts: a bullet or a sheet line is one fact, a long paragraph one fact a sentence.
    The passage's title line (the product's name, carried by every chunk) is no fact."""
    from broadcaster.brain.corpus import body, spoken

    out: list[Fact] = []
    seen: set[str] = set()
    for p in passages:
        text = p.text  # type: ignore[attr-defined]
        pid = p.id  # type: ignore[attr-defined]
        if text.startswith("问：") and "\n答：" in text:
            q, a = text[2:].split("\n答：", 1)
            out.append(Fact(a.strip(), pid, q.strip()))
            continue
        for line in body(p).splitlines():  # type: ignore[arg-type]
            line = _BULLET.sub("", line).strip()
            if not line or line.startswith("#"):
                continue
            # a sheet's line of several facts ("容量500毫升；材质是…；重量280克") is one fact a clause
            clauses = [c for c in re.split(r"[；;]", line) if c.strip()]
            pieces = clauses if len(clauses) > 1 and all(len(c.strip()) >= 4 for c in clauses) else [line]
            for piece in (q for c in pieces for q in (split_sentences(c, max_chars=120) if len(c) > 80 else [c])):
                said = spoken(piece)
                key = said.rstrip("。；;")
                if len(key) >= 2 and key not in seen:
                    seen.add(key)
                    out.append(Fact(said, pid))
    return out


# "Where" asks for a place: of the facts that answer, the one that names one ("哪里发货的" → 从深圳仓发货, not the regions
# it does not ship to).
_WHERE = re.compile(r"哪里|哪儿|哪个地方|什么地方|啥地方|从哪|哪个仓|哪个城市|哪个省|在哪|哪发|哪产|哪的")
_PLACE = re.compile(r"[\u4e00-\u9fff](?:仓|省|市|县|(?<!地)区|镇|基地|工厂|厂)(?![\u4e00-\u9fff]{0,1}费)|产自|产地|来自|原产|发自|从[\u4e00-\u9fff]{2,6}发")


def _lead(order: list[int], i: int) -> None:
    """Puts fact i first in the ranking."""
    order.remove(i)
    order.insert(0, i)


# (…or a place and nothing else, asked after the shop's answer on another: "澳门呢")
_ORDERING = re.compile(r"下单|买|拍|发|寄|送|到|运费|邮费|包邮|^[\u4e00-\u9fff]{2,8}?(?:呢|呐|可以不|可以吗|行不|行吗)[?？!！\s]*$")
# Characters that carry a question's form, not what it asks about.
_FORM = frozenset("的了吗呢啊吧么是不有没能会要这那个一我你他她它们在和与也都就还可以什么多少怎么样咋啥嘛呀哦喔哈")
_CLAUSES = re.compile(r"[\s，,。！!？?～~、；;]+")
_CLAUSES_EN = re.compile(r"[,.!?;~]+\s*")

_LATIN_WORD = re.compile(r"[a-z]{2,}")


def _cjk(text: str) -> list[str]:
    """What a text is made of for sharing: its Chinese characters (but the question's form) and its Latin words (PU,
    PTFE, ih), each whole."""
    return [c for c in text if "\u4e00" <= c <= "\u9fff" and c not in _FORM] + _LATIN_WORD.findall(text.lower())


def _pairs(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1) if all("\u4e00" <= c <= "\u9fff" for c in text[i:i + 2])}


def _words(text: str) -> set[str]:
    """A text's Chinese words of two characters or more."""
    from broadcaster.brain.lexical import tokenize

    return {t for t in tokenize(text) if len(t) >= 2 and "\u4e00" <= t[0] <= "\u9fff"}


def asking_clauses(question: str) -> list[str]:
    """The clauses of a comment that ask, when it has several ("有多高 吊柜底下塞得进不" → both; "我家台面窄 这锅有多宽"
    → "这锅有多宽"): each is embedded on its own too, so the context around a question does not blur what it asks."""
    from broadcaster.brain.intent import is_question

    # (a space parts Chinese clauses; in English it parts words)
    cut = _CLAUSES if re.search(r"[\u4e00-\u9fff]", question) else _CLAUSES_EN
    parts = [p for p in cut.split(question) if len(p.strip()) >= 2]
    return [p for p in parts if is_question(p)] if len(parts) > 1 else []


def reading_texts(question: str) -> tuple[list[str], int]:
    """What a question is embedded as, and how many of the rows read it whole: its words, its words with its slot's
    ("拍了多久能发出来" + 发货 快递), then its asking clauses (choose's `clause_vecs`)."""
    from broadcaster.brain.intent import retrieval_query

    asked = retrieval_query(question)
    whole = [question] if asked == question else [question, asked]
    return whole + asking_clauses(question), len(whole)


def split_rows(vecs: np.ndarray | None, whole: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """reading_texts' embedded rows as choose takes them: the whole readings, and the asking clauses (None if none)."""
    if vecs is None:
        return None, None
    return vecs[:whole], (vecs[whole:] if len(vecs) > whole else None)


def _z(x: np.ndarray) -> np.ndarray:
    sd = float(x.std())
    return (x - float(x.mean())) / sd if sd > 1e-9 else np.zeros_like(x)


class FactIndex:
    """Facts with their embeddings (passage role) and a BM25 index over them."""

    def __init__(self, facts: Sequence[Fact], vectors: np.ndarray | None, background: np.ndarray | None = None) -> None:
        """`background`: the query vectors of how viewers ask in general (brain/hubs.py), for the facts' hub scores."""
        from broadcaster.brain.hubs import hub_scores
        from broadcaster.brain.lexical import BM25Index, Passage

        self.facts = list(facts)
        self.vectors = vectors if vectors is not None and len(vectors) == len(self.facts) else None
        # a fact near every kind of question is discounted by this share of its closeness to them
        self.hubs = HUB * hub_scores(self.vectors, background) if self.vectors is not None else np.zeros(len(self.facts))
        self._words = BM25Index([Passage(str(i), f"{f.question} {f.text}".strip()) for i, f in enumerate(self.facts)])
        self._said = self.texts = tuple(f"{f.question}{f.text}" for f in self.facts)
        self._chars = [set(_cjk(t)) for t in self._said]
        self._regions = [set(regions_in(t)) for t in self._said]
        self._limits = [LIMITING.search(t) is not None for t in self._said]
        df: dict[str, int] = {}
        for cs in self._chars:
            for c in cs:
                df[c] = df.get(c, 0) + 1
        n = max(1, len(self.facts))
        self._idf = {c: math.log(1 + n / k) for c, k in df.items()}
        self._idf_unknown = math.log(1 + n)

    def __len__(self) -> int:
        return len(self.facts)

    @property
    def min_z(self) -> float:
        """The combined z-score a fact must reach to answer: MIN_Z, or less for a few facts (the most one of n can
        reach is √(n−1))."""
        return min(MIN_Z, 0.8 * math.sqrt(max(1, len(self.facts) - 1)))

    @staticmethod
    def embed_texts(facts: Sequence[Fact]) -> list[str]:
        return [f"{f.question} {f.text}".strip() for f in facts]

    def _same(self, i: int, j: int) -> bool:
        """Whether two facts say the same: one text, or one's characters nearly all in the other (an FAQ answer that
        restates a sheet line and adds to it)."""
        a, b = self._chars[i], self._chars[j]
        return self.facts[i].text == self.facts[j].text or (bool(a and b) and len(a & b) >= 0.9 * min(len(a), len(b)))

    def _shared(self, question: str) -> tuple[np.ndarray, np.ndarray]:
        """Per fact: the IDF-weighted share of the question's characters it carries, and the share of the question's
        character pairs."""
        qc = set(_cjk(question))
        if not re.search(r"[\u4e00-\u9fff]", question):
            qc = {c for c in qc if len(c) == 1}  # an English question's words are BM25's (a Latin word counts in Chinese)
        weights = {c: self._idf.get(c, self._idf_unknown) for c in qc}
        total = sum(weights.values()) or 1.0
        # one shared character is no evidence (片儿 / 儿童, 烟油 / 倒油): a fact counts from two; a Latin word is a word
        # (PU的包包 / PU皮) and counts as two
        chars = np.array([sum(w for c, w in weights.items() if c in fc) / total
                          if sum(len(c) > 1 for c in qc & fc) + len(qc & fc) >= 2 else 0.0 for fc in self._chars])
        qp = _pairs(question)
        pairs = np.array([sum(p in t for p in qp) / len(qp) for t in self._said]) if qp \
            else np.zeros(len(self.facts))
        return chars, pairs

    def _own_word(self, words: set[str], i: int) -> str:
        return next((t for t in sorted(words) if t in self._said[i] and sum(t in s for s in self._said) == 1), "")

    def _namer(self, question: str, words: set[str], order: list[int]) -> int | None:
        """The first fact in `order` naming the things the question names that the best fact does not (a word of two
        characters or more that one or two facts say), when there are such things."""
        spans = slot_spans(question)  # (a slot's own words name no thing: 颜色 of 掉颜色, 容量)
        things = [t for t in words if 1 <= sum(t in s for s in self._said) <= 2 and t not in self._said[order[0]]
                  and not any(t in sp or sp in t for sp in spans)]
        return next((i for i in order[1:] if all(t in self._said[i] for t in things)), None) if things else None

    def choose(self, question: str, qvec: np.ndarray | None, clause_vecs: np.ndarray | None = None) -> Choice:
        """The fact that answers the question, its combined score and margin; `qvec` its query embedding, or several
        readings of it (None: words and slots alone); `clause_vecs` its asking clauses' (asking_clauses)."""
        n = len(self.facts)
        if n == 0:
            return Choice(None, 0.0, 0.0, False, None, False, "no facts")
        words = np.zeros(n)  # the share of the question's word weight a fact covers (BM25's match)
        # a city stands for its region in the facts' words ("呼和浩特" → the 内蒙古 surcharge)
        named = set(regions_in(question))
        # …and a catalogue word for an everyday one (开水 → 热水: thesaurus.py)
        extra = [r for r in named if r not in question] + catalogue_words(question)
        for hit in self._words.search(f"{question} {' '.join(extra)}" if extra else question, k=n):
            words[int(hit.passage.id)] = hit.match
        # …and the facts naming the viewer's region by any of its names ("我在马来西亚" → 海外暂不发货)
        place = np.array([float(bool(r & named)) for r in self._regions]) if named else np.zeros(n)
        if not named and names_mainland(question):
            # …and a mainland place the facts do not except ("江浙沪免运费吧") is not answered by their exceptions
            place = -np.array([float(bool(r) and self._limits[i]) for i, r in enumerate(self._regions)])
        # one query vector, or several readings of the question (its words, and its words with its slot's): their mean
        # similarity, a reading of what is asked less tied to one wording
        dense = (self.vectors @ np.atleast_2d(qvec).T).mean(axis=1) - self.hubs \
            if self.vectors is not None and qvec is not None else None
        wanted, units = slots(question), asked_units(question)
        # (the share of the asked slots a fact carries: "不想要了退回去 邮费谁出" asks a return's postage, which the fact on
        # return postage carries whole)
        slot = np.array([sum(evidence(s, f.text) for s in wanted) / len(wanted) * (not exception_only(wanted, f.text, question))
                         for f in self.facts]) if wanted else np.zeros(n)
        unit = np.array([float(states_unit(units, f.text)) for f in self.facts]) if units else np.zeros(n)
        if wanted and (slot * unit).any():
            # a quantity asked in a unit is carried by the facts stating a figure in it ("多大容量的" → 5.5升, not
            # "暂无大容量款", which only names the slot) — when one of the slot's facts states it at all; a fact saying the
            # goods lack it answers too (保温多久 → 断电后没有保温功能)
            lacks = np.array([len(wanted) == 1 and denies(next(iter(wanted)), f.text) for f in self.facts])
            slot = slot * ((unit > 0) | lacks)
        elif wanted and unit.any() and units <= _MEASURED:
            # (…and when none does, the facts stating a measure in the unit answer as its carriers do: 放多少水 → 最大容量
            # 14升, not the fact on letting the water out that carries howto's 用 — not a time or a count: 分几个月付 is
            # no question the facts' 每3个月 answer)
            slot = np.where(unit > 0, slot.max(), slot)
        if _WHERE.search(question):
            unit = unit + np.array([float(_PLACE.search(f.text) is not None) for f in self.facts])
        # the package a quantity is asked of, said the facts' way (一包有多重 → 每袋净含量330克, not 整箱约1.8公斤)
        each = per_package(question, "一每单")
        unit = unit + np.array([float(bool(each & per_package(f.text, "每单"))) for f in self.facts]) * W_PER if each else unit
        figs = given(question)
        fit = np.array([float(inside(figs, ranges(f.text))) for f in self.facts]) if figs else np.zeros(n)
        zd = _z(dense) if dense is not None else np.zeros(n)
        # the asking clause read alone: of several asking clauses, the one closest to each fact
        zc = _z((self.vectors @ np.atleast_2d(clause_vecs).T).max(axis=1) - self.hubs) \
            if self.vectors is not None and clause_vecs is not None and len(clause_vecs) else zd
        chars, pairs = self._shared(question)
        raw = W_DENSE * zd + W_CLAUSE * zc + W_WORDS * words * (1.0 if dense is not None else W_WORDS_ALONE) \
            + W_CHARS * chars + W_PAIRS * pairs + W_SLOT * slot + W_UNIT * unit + W_RANGE * fit + W_PLACE * place
        combined = _z(raw)  # one scale for the margin, with or without embeddings
        order = [int(i) for i in np.argsort(-combined)]
        # a question naming a slot, and a fact carrying most of what it asks close behind the best: that fact answers
        # ("下单后多久能发出" → the shipping fact, not the invoice fact sharing 下单); of those, one naming the viewer's
        # region, or one carrying all of several slots where the best carries some, further behind ("人在香港 能下单吗" →
        # 港澳台暂不发货, not the shipping time; "不喜欢能退不" → the no-reason policy, not who pays a return's postage)
        carrier = next((i for i in order if slot[i] and slot[i] == slot.max() and place[i] >= place.max()), None) if wanted else None
        behind = float(combined[order[0]] - combined[carrier]) if carrier is not None else 0.0
        by_place = carrier is not None and place[carrier] > place[order[0]] and behind <= 3 * SLOT_SWAP
        whole = len(wanted) > 1 and carrier is not None and slot[carrier] == 1 and slot[order[0]] < 1
        # (a slot no other reading shares — a battery's runtime, its charge time — is answered by its carrier however far
        # behind: 充一次能用多久 → 满电后…可用约40小时, not 每3个月充一次电)
        narrow = carrier is not None and not slot[order[0]] and bool(wanted & NARROW_SLOTS)
        if carrier is not None and (by_place or narrow or (slot[order[0]] < slot[carrier] and behind <= SLOT_SWAP * (3 if whole else 1))):
            _lead(order, carrier)
        # (…and, naming no slot, a region with an order or a delivery, by the fact naming that region: 香港能下单吗)
        placer = next((i for i in order if place[i] > 0), None) if named and not wanted and _ORDERING.search(question) else None
        placed = placer is not None and place[order[0]] <= 0 and combined[order[0]] - combined[placer] <= 3 * SLOT_SWAP
        if placed:
            _lead(order, placer)
        stater = next((i for i in order if unit[i]), None) if units and not unit[order[0]] else None
        stater = stater if stater is not None and slot[stater] >= slot[order[0]] else None
        if stater is not None and combined[order[0]] - combined[stater] <= 2 * SLOT_SWAP:
            # (…and a quantity asked by the fact stating it behind one that states none and carries no more of the slots
            # asked: 涂层有几层, 最高能拉到多高, 最少得放多少, 放多少水)
            _lead(order, stater)
        question_words = _words(question)
        namer = self._namer(question, question_words, order) if wanted and not (placed or by_place) else None
        if namer is not None and combined[order[0]] - combined[namer] <= SLOT_SWAP and (slot[namer] or not narrow):
            # (…and a slot asked of a thing the question names, by the fact naming it close behind one that does not:
            # 电池送不送 → 电池需自备, not the gift of a bowl)
            _lead(order, namer)
        best, whole = order[0], whole and order[0] == carrier  # (a whole carrier leads by its lead over the others that are)
        # the next fact that says something else: a fact and its near copy (an FAQ answer restating a sheet line) tie;
        # of the facts that can answer a slot question (those carrying it, naming the region when it won by that), the lead
        # over the next of them
        others = [i for i in order[1:] if not self._same(i, best)]
        if wanted and slot[best]:
            others = [i for i in others if slot[i] >= (1 if whole else 1e-9) and (place[i] >= place[best] or not by_place)]
        if placed:
            others = [i for i in others if place[i] >= place[best]]  # (it leads the others naming the region)
        if units and unit[best]:
            # (a quantity asked: the facts stating no figure in its unit do not answer it — "手柄有多长" → 锅柄长18厘米, not
            # the gift of a 手柄套)
            others = [i for i in others if unit[i]]
        second = others[0] if others else None
        margin = float(combined[best] - combined[second]) if second is not None else float(combined[best])
        top = float(combined[best])
        related = float(combined.max())  # how well the comment reads as about the facts at all
        # a question naming a slot is answered only by a fact that carries what the slot asks (分期 is not answered by the
        # invoice fact, whatever its score); with no slot to back it, the best fact must stand out further (the embedding's
        # guess is all there is); a z-score cannot pass √(n−1) over n facts: five facts are judged by what they can reach
        min_z = self.min_z
        # with no slot, the embedding's pick must share more with the question than one character of the product's
        # name ("这款杯子在哪个工厂做的" is not answered by "杯盖是一键弹盖"): two characters, a word, a figure or a unit
        # (…or stand far ahead of every other fact: "下雨天能穿出去吗" → 不是防水面料)
        shared = bool(chars[best] > 0 or words[best] >= SLOTLESS_WORDS or fit[best] or unit[best])
        # (a slot read from a few words can be wrong — 进水会坏吗 is no shelf-life question — : a fact that stands far ahead
        # and shares the question's words answers even without the slot's evidence)
        backed = bool(slot[best]) or (shared and margin >= MARGIN_UNBACKED) if wanted else shared or margin >= MARGIN_UNBACKED
        # (a fact carrying the asked slot far ahead of every other that does reaches less: 0.8 of the bar)
        # (…and so does the fact stating a quantity in the unit asked: 深不深 → 锅深9.5厘米; and the one fact carrying all
        # of several slots asked, whatever its lead: 买俩有优惠没 → 拍两盒到手价109元)
        sole = len(wanted) > 1 and slot[best] == 1 and not any(slot[i] == 1 for i in others)
        carried = bool((wanted and slot[best]) or (units and unit[best])) and (margin >= MARGIN_UNBACKED or sole)
        # (a quantity asked in a unit is asked as narrowly as a slot: 线有多长 → 电源线长5米, the facts stating a length)
        confident = margin >= (MARGIN if wanted or (units and unit[best]) else MARGIN_SLOTLESS) and related >= min_z * (SLOT_Z if carried else 1.0) and backed
        also = None
        if not confident and second is not None and top >= min_z:
            third = next((i for i in others[1:] if not self._same(i, second)), None)
            lead = float(combined[second] - combined[third]) if third is not None else float(combined[second])
            # …and the second answers what the first does (the slot's evidence, the unit asked) when the question says
            if lead >= MARGIN_PAIR and float(combined[second]) >= 0.75 * min_z and (not wanted or slot[second]) \
                    and (not units or unit[second]):
                confident, also = True, self.facts[second]  # two facts answer together, ahead of every other
        why = (f"dense z {zd[best]:.2f}, words {words[best]:.2f}" + (f", slot {'/'.join(sorted(wanted))}" +
               ("" if slot[best] else " not carried") if wanted else "") + (f", range fits {int(fit[best])}" if figs else "")
               + f"; z {top:.2f}, margin {margin:.2f}" + (f" over {self.facts[second].text!r}" if second is not None else ""))
        ranked = tuple((self.facts[i], float(combined[i]), float(zd[i]), float(words[i])) for i in order[:5])
        if also is not None:
            why += f"; with {also.text!r}, the two ahead of the rest"
        anchored = bool(words[best] >= ANCHOR_WORDS or slot[best] or unit[best] or fit[best] or zd[best] >= DENSE_ALONE)
        return Choice(self.facts[best], top, margin, confident, also, anchored, why, ranked, int(fit[best]),
                      bool(unit[best] and units), self._own_word(question_words, best))

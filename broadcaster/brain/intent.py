"""What a viewer's question asks for: its slot (price, shipping, how to use …) and what it is about.

Question-type words map to one slot ("多少钱", "价格", "怎么卖", "几块", "贵不贵" → price), so an FAQ
entry is found for any paraphrase that asks the same thing about the same product ("怎么泡比较好喝"
→ "怎么泡"), and an extractive answer takes the passage sentence that answers the slot (a price
question gets the sentence with the price), not the one that shares the most characters. Keys are
compared edit-tolerantly, so a typo ("保质其多久") still finds its entry.

Since heldout10: a slot asked in unusual words maps to it (一泡能续几回, 放几克 → howto; 两罐一起拍多少 → price; a carrier
named → shipping); a closing 不/没 is a question particle, not a topic (要运费不); a quantity question's unit
(asked_units: 几克 → 克, 几回 → a count of brews) picks, of the entries and sentences that answer the slot, the one
stating a figure in that unit; and is_question tells a question by its form, however short, from a remark. Slots of
other kinds of products (size, care, wear, list price, a material named) and, for retrieval, only the slot words the
passages use.

Since heldout12: opened in any verb with how long (打开盖子以后多久得喝完) asks shelf_life, 发出来 is shipping, and how well
it sells (卖得好不好, 买的人多吗) is a slot of its own (sales).

Since heldout14/15 (three independent writers asked each of these in their own words): paying on delivery or in parts
in any words (到了再给钱, 分开付) is payment, how many one may buy (最多能买几袋, 能拍三台不) is a slot of its own (limit),
and where it ships from (从哪儿发出来的) is shipping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pypinyin import lazy_pinyin
from rapidfuzz import fuzz

from broadcaster.brain.figures import figures
from broadcaster.brain.intent_en import SLOT_TERMS_EN, english, evidence_en, is_question_en, slots_en
from broadcaster.brain.slot_words import ASKED_UNITS, SLOTS, USE_ASKED
from broadcaster.brain.textnorm import normalize, question_key
from broadcaster.brain.thesaurus import catalogue_words

_SLOT_Q = {s: re.compile(q) for s, (q, _) in SLOTS.items()}
_USE_ASKED = re.compile(USE_ASKED)
_FAULT = re.compile(r"毛病|质量问题|故障|坏了|坏的|破损|破了|漏[水气电]?了|裂了|不工作|不转了?|不亮了?|失灵|不能用了|用不了")
_SUITABLE_NAMED = re.compile(SLOTS["suitable"][0].replace(USE_ASKED + "|", "", 1))
_SLOT_EVIDENCE = {s: re.compile(e) for s, (_, e) in SLOTS.items()}
_QUESTION_WORDS = re.compile(
    # who/when fillers that are not the topic (买回去能放多久, 要不要自己付运费), before 要/不 alone
    r"买回[去来家]?|拿回去|回去|回家|收到后|"
    # which way it travels is not what it is about (寄过来要运费不, 发过去几天)
    r"过来|过去|回来|到家里?|要不要|需不需要|用不用|自己出|自己|付|掏|入手|合适|一共|总共|"
    # where the buyer is qualifies a shipping question, it is not what it is about (偏远地区要运费吗)
    # a quantity bought is a qualifier of a price question, not its topic (买两罐啥价, 拍三盒怎么算)
    r"(?:买|拍|下单|订|入|来)(?=[一二两三四五六七八九十\d几]+[罐瓶盒件只套袋包斤])|[一二两三四五六七八九十\d几]+[罐瓶盒件只套袋包斤]装?|"
    r"偏远地区|偏远|地区|新疆|西藏|内蒙古?|青海|宁夏|甘肃|海南|港澳台|香港|澳门|台湾|国外|海外|农村|乡下|山区|外地|外省|省内|省外|"
    + "|".join(q for q, _ in SLOTS.values())
    + r"|多长时间|多久|多长|时间|几天|几个|比较|好喝|好用|一点|怎样|如何|弄|办|搞|咋|啥|哪|吗|呢|呀|啊|吧|的|了|要|能|可以|"
    r"谁出|谁付|谁承担|谁来出|要钱|收费|收不收|算谁的|"
    # a closing 不/没/没有 makes a yes-no question (要运费不, 有赠品没有); buying together says how, not what (一起拍)
    r"(?:不|没|没有|么|嘛)$|一起|一块儿?|合起来|加起来|拍|下单|"
    # who pays a charge is part of asking about it (要不要出运费, 补邮费吗)
    r"[出付掏给交补](?=运费|邮费|快递费|差价)|怎么算|咋算|如何算|怎么收|"
    # a serving says how much per use, not what about (一杯放几克, 每次泡多久)
    r"[一每](?:杯|次|壶|泡|回)|"
    r"怎么|什么|多少|有|是|这|那|个|款|请问|主播|一下|[一二两三四五六七八九十\d]"
)
# Words added to a question for retrieval, so "什么时候发" finds the passage that says 发货.
SLOT_TERMS: dict[str, str] = {
    "price": "价格 价 元", "postage": "包邮 运费", "shipping": "发货 快递", "returns": "退换货 退货", "howto": "冲泡 水温 用法",
    "shelf_life": "保质期 开封", "sales": "销量 回购", "storage": "储存 密封 存放 保存 常温", "origin": "产地 产自", "weight": "净含量 重量 克", "capacity": "容量 毫升",
    "color": "颜色", "list_price": "日常价 原价", "size": "尺码 码 身高", "care": "洗涤 清洗", "wear": "缩水 掉色", "taste": "口感 味道 口味", "ingredients": "配料 成分", "quality": "品质 质量",
    "authentic": "正品 授权", "effect": "功效 作用", "payment": "付款 分期", "cod": "货到付款",
    "no_reason": "无理由", "contents": "包装内含 包含", "invoice": "发票", "gift": "赠品 附赠 赠送", "warranty": "保修", "keep_warm": "保温 小时", "runtime": "续航 可用", "charge_time": "充满 充电", "grade": "等级", "stock": "库存 现货", "limit": "限购",
    "material": "材质 材料 包装 面料", "packaging": "包装", "load": "承重", "water": "防水", "carry": "收纳", "assembly": "安装", "app": "App 下载", "suitable": "适合 适用 人群",  # only the words the KB uses are added (see KnowledgeBase.retrieve_sync)
}
# How close two question keys must be for an edit-tolerant match when neither has a slot.
KEY_SIMILARITY = 0.75
# Share of a question's topic characters an FAQ entry (its questions and answer) must contain.
TOPIC_COVERAGE = 0.6


def _sound(key: str) -> str:
    """A question key as it sounds (toneless pinyin), so a homophone typo keys the same."""
    return " ".join(lazy_pinyin(key))


def slots(text: str) -> set[str]:
    """The slots a question asks for (possibly several, possibly none); an English text's by the English words too
    (intent_en.py)."""
    key = question_key(text)
    found = {s for s, rx in _SLOT_Q.items() if rx.search(key)}
    if "list_price" in found:
        found.discard("price")  # which price is asked: the list price, not the live room's (平时卖多少 → 日常价)
    if "no_reason" in found and _FAULT.search(key):
        found.discard("no_reason")  # (a fault named is no return for no reason: 用了发现有毛病能换吗)
    if "suitable" in found and len(found) > 1 and not _SUITABLE_NAMED.search(_USE_ASKED.sub("", key)):
        found.discard("suitable")  # (湿着能用吗 asks of water, not who it suits)
    return found | slots_en(text) if english(text) else found


def slot_spans(text: str) -> list[str]:
    """The words of a question that name its slots (掉颜色 of 洗了会掉颜色不)."""
    key = question_key(text)
    return [m.group(0) for rx in _SLOT_Q.values() for m in rx.finditer(key)]


def topic(text: str) -> str:
    """What a question is about, without its question-type words and fillers ("杯盖多少钱" → "杯盖")."""
    return _QUESTION_WORDS.sub("", question_key(text))


def retrieval_query(question: str, known: Callable[[str], bool] | None = None) -> str:
    """The question with its slots' words added (what to search the passages for); with `known`, only the words the
    passages use (a word they never use would only lower every passage's match)."""
    terms = {**SLOT_TERMS, **SLOT_TERMS_EN} if english(question) else SLOT_TERMS
    words = [w for s in sorted(slots(question)) if s in terms for w in terms[s].split()] + catalogue_words(question)
    extra = " ".join(w for w in dict.fromkeys(words) if known is None or known(w))
    return f"{question} {extra}" if extra else question


# What the price is now (到手价, 直播间价, 活动价): a price question not asking the list price asks this one.
_LIVE_PRICE = re.compile(r"到手|直播间|活动|券后|秒杀|现价|特价|福利价|优惠价|折后|拍下|今天|现在")


def evidence(slot: str, sentence: str) -> bool:
    if slot == "price" and _SLOT_EVIDENCE["list_price"].search(sentence) and not _LIVE_PRICE.search(sentence):
        return False  # a list price alone (日常价129元) does not say what it costs now
    if slot == "weight" and _SLOT_EVIDENCE["load"].search(sentence) and not re.search(r"净重|重量|毛重|自重|净含量", sentence):
        return False  # what it bears (承重120千克) is not what it weighs
    rx = _SLOT_EVIDENCE.get(slot)
    return bool(rx is not None and rx.search(sentence)) or (english(sentence) and evidence_en(slot, sentence))


_DENIED_BEFORE = re.compile(r"(?:没有|没|无|不带|不支持|不具备|暂无|不能)$")


def denies(slot: str, sentence: str) -> bool:
    """Whether the sentence says the goods lack what the slot asks of (断电后没有保温功能): a quantity asked of it
    (保温多久) is answered by that, though it states no figure."""
    rx = _SLOT_EVIDENCE.get(slot)
    return rx is not None and any(_DENIED_BEFORE.search(sentence[max(0, m.start() - 4) : m.start()])
                                  for m in rx.finditer(sentence))


_COUNT_ASKED = re.compile(r"(?:几|多少)个?([层格腔段节根种款只件罐盒包瓶杯支台套双袋箱份颗粒片张把条色样类档期])(?!月|小时|钟头|人|星期)")


_SAME_COUNT = {"包": "包袋", "袋": "袋包", "个": "个只", "只": "只个", "盒": "盒罐", "罐": "罐盒"}  # (一箱几包 ← 每箱5袋)


_OFTEN = re.compile(SLOTS["often"][0])
# A count asked of a thing named by a noun, no classifier (几个刀头的): a fact saying a numeral right before it states it.
_THING_COUNT = re.compile(r"(?:几|多少)个([\u4e00-\u9fff]{2,3}?)(?:的|吗|呢|啊|呀|么|$)")
_NUMERAL = r"(?:\d+|[一二两三四五六七八九十双俩仨]+)个?"
_TIMES = frozenset({"分钟", "秒", "天", "月"})


def asked_units(text: str) -> frozenset[str]:
    """The units a quantity question asks in (empty when it asks none)."""
    key = question_key(text)
    found = [u for rx, u in ASKED_UNITS if rx.search(key)]
    # (a count asked by its classifier, 涂层有几层 or 一盒几颗: the fact stating a count of it, 三层, 52颗)
    found += [frozenset({f"count:{c}" for c in _SAME_COUNT.get(m.group(1), m.group(1))}) for m in _COUNT_ASKED.finditer(key)]
    if {"毫米"} in found and "多长" in key and not re.search(r"多久|多长时间", key):
        return frozenset({"毫米"})  # 多长 with a fit or a dimension is a length
    m = _THING_COUNT.search(key)
    if m is not None and not found:
        found.append(frozenset({f"thing:{m.group(1)}"}))  # (几个刀头的: the fact that counts them, 三刀头)
    if _OFTEN.search(key):
        # (how often, 多久弄一回, asks a frequency, 每周一次, not a duration: no figure in a unit of time answers it)
        found = [u for u in found if not u & _TIMES]
    return frozenset().union(*found)


def states_unit(units: frozenset[str], sentence: str) -> bool:
    """Whether the sentence states a figure in one of the units."""
    return bool(units) and (any(f.unit in units for f in figures(sentence))
                            or any(re.search(_NUMERAL + re.escape(u[6:]), sentence) for u in units if u.startswith("thing:")))


# A yes-no, wh- or either-or question by its form, however short ("一泡能续几回", "要运费不", "茶匙还有吗", "炒的还是蒸的"):
# it asks the shop something even when no slot names it, unlike a remark ("主播好美"). The director files a chat
# line as a question or a comment by it; the brain sends a weakly matched question to the model by it.
_QUESTION_FORM = re.compile(
    r"[?？]|吗|呢|么|多少|(?<![好茶十没这那前后近头过])几(?![乎何十百千万])[\u4e00-\u9fff]|怎么|怎样|如何|什么|哪|为什么|为啥|谁|能不能|"
    r"可不可以|可以吗|有没有|是不是|要不要|会不会|好不好|对不对|请问|咋|啥|多[大久重长高远宽厚短低矮轻薄窄细粗深]|([\u4e00-\u9fff])不\1|"
    r"还是|真的假的|几钿|好多钱|系咪|咩|干嘛|"
    # (a thing gone in a moment is said, not asked: 秒没, 抢没, 一会儿就没)
    r"(?:嘛|不|(?<![秒抢就又全都])没|没有|几|(?:对|是|好|行|可以|没事|没问题|不要紧|不碍事)吧|(?:能|可以|会)[\u4e00-\u9fff]{1,3}吧)[啊呀哦呢]?[\s~～!！。.]*$|"
    # …or at the end of the asking clause, the reason after it ("线够长不 插座离衣柜有点远", "有货没，想买两个")
    r"[\u4e00-\u9fff](?<![我你他她它们也都还天])(?:不|没|没有)[啊呀哦呢]?(?=[\s，,；;]+[\u4e00-\u9fff])|"
    r"\b(?:how|what|when|where|why|which|can|does|is there)\b",
    re.IGNORECASE,
)


def is_question(text: str, *, normalized: bool = False, language: str = "zh") -> bool:
    """Whether a comment is a question by its form; `normalized`: `text` is already textnorm.normalize()d. In an English
    room (`language` en) an English comment's form is read with the English lists too (intent_en.is_question_en)."""
    if _QUESTION_FORM.search((text if normalized else normalize(text)).strip()):
        return True
    return language == "en" and english(text) and is_question_en(text)


@dataclass(frozen=True, slots=True)
class FaqMatch:
    question: str  # the FAQ question it matched
    answer: str
    passage_id: str
    score: float
    why: str  # "slot price, topic 茶 covered" | "key similarity 0.82"


class FaqMatcher:
    """Finds the FAQ entry a question means, by slot and topic, or by an edit-tolerant key."""

    def __init__(self, pairs: Sequence[tuple[str, str, str]], passages: Sequence[str] = ()) -> None:
        # How specific each character is to a few passages: a topic character most passages share
        # ("茶" in a tea shop's KB) says little about which entry is meant.
        docs = [set(p) for p in passages] or [set(a) for _, a, _ in pairs]
        n = max(1, len(docs))
        df: dict[str, int] = {}
        for d in docs:
            for c in d:
                df[c] = df.get(c, 0) + 1
        self._idf = {c: math.log(1 + n / k) for c, k in df.items()}
        self._idf_unknown = math.log(1 + n)
        self.entries: list[tuple[str, str, str, str, set[str], str]] = []
        for q, a, pid in pairs:
            self.entries.append((q, a, pid, question_key(q), slots(q), topic(q)))
        self._sounds = [_sound(e[3]) for e in self.entries]
        # Everything an entry's questions and answer say, per answer: the topic words it covers.
        self._context: dict[str, str] = {}
        for q, a, *_ in self.entries:
            self._context[a] = self._context.get(a, a) + question_key(q)

    def match(self, question: str) -> FaqMatch | None:
        key = question_key(question)
        if not key or not self.entries:
            return None
        q_slots = slots(question)
        q_topic = topic(question)
        units = asked_units(question)
        best: FaqMatch | None = None
        sound = _sound(key) if not q_slots else ""
        for (q, a, pid, fkey, f_slots, _f_topic), f_sound in zip(self.entries, self._sounds, strict=True):
            if fkey == key:
                return FaqMatch(q, a, pid, 2.0, "same question")
            if sound and sound == f_sound and len(key) >= 2:
                # the same question typed with a homophone ("包油吗" for "包邮吗"): the typo took its slot word
                best = FaqMatch(q, a, pid, 1.9, "same sound")
                continue
            score, why = 0.0, ""
            if q_slots and f_slots and q_slots & f_slots:
                context = self._context[a]
                covered = self._coverage(q_topic, context)
                if covered >= TOPIC_COVERAGE:
                    score = 1.0 + covered * 0.5 + len(q_slots & f_slots) * 0.1 - 0.01 * len(fkey)
                    why = f"slot {'/'.join(sorted(q_slots & f_slots))}, topic {q_topic or '-'} covered {covered:.0%}"
                    if states_unit(units, a):  # the entry states the figure in the unit asked ("几回" → "续水3次")
                        score += 0.2
                        why += f", states {'/'.join(sorted(units))}"
            if not score:
                sim = fuzz.ratio(key, fkey) / 100.0
                # Typos and small rewordings; a question whose slot matched but whose topic did not
                # ("杯盖多少钱" vs "杯子多少钱") is about something else.
                if sim >= KEY_SIMILARITY and (not q_slots or not f_slots):
                    score, why = sim, f"key similarity {sim:.2f}"
            if score and (best is None or score > best.score):
                best = FaqMatch(q, a, pid, score, why)
        return best

    def _coverage(self, topic_chars: str, context: str) -> float:
        """IDF-weighted share of the topic's characters the entry mentions (1.0 for an empty topic)."""
        if not topic_chars:
            return 1.0
        weights = [(c, self._idf.get(c, self._idf_unknown)) for c in dict.fromkeys(topic_chars)]
        total = sum(w for _, w in weights)
        return sum(w for c, w in weights if c in context) / total if total else 1.0


# Characters that carry the form of a question, not what it asks about (see same_content).
_FORM_CHARS = frozenset("的了吗呢吧啊呀啦哦嘛么是有能会要想还请问一下个这那不没可以怎样什多少几啥咋如何哪呐哈嗯诶哎额")


def same_content(a: str, b: str) -> bool:
    """Whether two question keys ask about the same things: the same characters once the question's form is set
    aside, but for one added on one side ("洗碗机能不能洗杯子" / "杯子能不能进洗碗机": 进). A place, a size, a colour or a
    product swapped for another ("新疆包邮吗" / "西藏包邮吗", "红色有吗" / "蓝色有吗") makes another question whatever
    an embedding says."""
    ca, cb = {c for c in a if c not in _FORM_CHARS}, {c for c in b if c not in _FORM_CHARS}
    return len(ca ^ cb) <= 1

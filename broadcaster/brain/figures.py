"""Figures in a sentence, as value and unit: every numeral form (Arabic, Chinese 一二三/两/十/百/千/万/亿 with 点 decimals,
financial 壹贰叁, 仨/俩, 廿/卅, keycaps 7️⃣, circled ②/❷, full-width), money as people say it (9块9, 3毛5, 两块五), 百分之五十,
八五折, 2w / 1.5k, halves, approximators (八十多杯), units converted (250克 = 0.25千克) and a count before a classifier
(有5种颜色) as a figure too; and the figures a knowledge base states with their labels and context (for grounding)."""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from dataclasses import dataclass

from broadcaster.brain.textnorm import normalize

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
# Financial and other numeral characters → everyday ones (仨/俩 carry their classifier).
_NUMERAL_MAP = str.maketrans({
    "壹": "一", "贰": "二", "貳": "二", "叁": "三", "參": "三", "肆": "四", "伍": "五", "陆": "六", "陸": "六", "柒": "七",
    "捌": "八", "玖": "九", "拾": "十", "佰": "百", "陌": "百", "仟": "千", "阡": "千", "萬": "万", "億": "亿", "两": "两",
    **{chr(0x2776 + i): str(i + 1) for i in range(9)}, "\u277f": "10",  # ❶…❿
    **{chr(0x278A + i): str(i + 1) for i in range(9)}, "\u2793": "10",  # ➊…➓
    **{chr(0x24F5 + i): str(i + 1) for i in range(9)}, "\u24fe": "10",  # ⓵…⓾
    "\u20e3": "", "\ufe0f": "",  # keycap: 7️⃣ = "7" U+FE0F U+20E3
})
_SPECIAL = [(re.compile("仨"), "三个"), (re.compile("俩"), "两个"), (re.compile("廿"), "二十"), (re.compile("卅"), "三十"),
            # a whole span is a span (满电能用一整个月: 1个月)
            (re.compile(r"([一两二三四五六七八九十])整个?(月|星期)"), r"\1个\2"),
            (re.compile(r"([一两二三四五六七八九十])整个?(天|年|周|晚|夜)"), r"\1\2")]
CN_NUM = "零〇一二两三四五六七八九十百千万亿"
_CN_DIGIT_CHARS = "零〇一二两三四五六七八九"

_ARABIC = re.compile(r"(?<![a-z0-9_.])[¥$]?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*([万千亿wk](?![a-z]|卡))?")
_CHINESE = re.compile(rf"[{CN_NUM}]+(?:点[{_CN_DIGIT_CHARS}]+)?")
# "半年", "半斤", "半个月", "一个半小时", "两年半": halves.
_HALF = re.compile(rf"(?:([{CN_NUM}]+|\d+)(?:个)?半|(?<![{CN_NUM}\d])半)(?=个?(?:小时|钟头|月|年|斤|天|周|星期|罐|杯))"
                   rf"|([{CN_NUM}]+|\d+)(年|斤|天|周)半")
# Money said the way people say it: 9块9, 3毛5, 两块五, 九块九毛.
_MONEY = re.compile(
    rf"(\d+|[{CN_NUM}]+)(块|元)(?![一两\d]\s*[个种款只件罐盒包瓶杯支台套双袋箱份斤])(\d|[{_CN_DIGIT_CHARS}])"
    rf"(?![\d零〇二两三四五六七八九十百千万亿])(?!一(?![个种款只件罐盒包瓶杯支台套双袋箱份]))(?:毛|角)?"
)
_MAO = re.compile(rf"(\d|[{_CN_DIGIT_CHARS}])(毛|角)(\d|[{_CN_DIGIT_CHARS}])?(?![\d{CN_NUM}])")
_PERCENT = re.compile(rf"百分之([\d.]+|[{CN_NUM}点]+)")
_DISCOUNT = re.compile(rf"(?<![{CN_NUM}\d])([{_CN_DIGIT_CHARS}])([{_CN_DIGIT_CHARS}])折")

# Units after a number: canonical unit and the factor to it. Longest first.
_UNITS: list[tuple[str, str, float]] = [
    ("块钱", "元", 1), ("人民币", "元", 1), ("元", "元", 1), ("块", "元", 1), ("rmb", "元", 1), ("毛", "元", 0.1), ("角", "元", 0.1),
    ("折", "折", 1), ("%", "%", 1), ("％", "%", 1), ("percent", "%", 1),
    # Durations in minutes, days and months, so 2小时 = 120分钟, 一年半 = 18个月, 两周 = 14天.
    ("个小时", "分钟", 60), ("小时", "分钟", 60), ("钟头", "分钟", 60), ("分钟", "分钟", 1), ("秒钟", "秒", 1), ("秒", "秒", 1),
    ("个工作日", "天", 1), ("工作日", "天", 1), ("天", "天", 1), ("个星期", "天", 7), ("星期", "天", 7), ("周", "天", 7),
    ("个月", "月", 1), ("月", "月", 1), ("年", "月", 12), ("岁", "岁", 1),
    ("毫克", "克", 0.001), ("千克", "克", 1000), ("公斤", "克", 1000), ("kg", "克", 1000), ("斤", "克", 500), ("两", "克", 50), ("克", "克", 1),
    ("g", "克", 1), ("毫升", "毫升", 1), ("ml", "毫升", 1), ("升", "毫升", 1000), ("l", "毫升", 1000),
    ("毫米", "毫米", 1), ("mm", "毫米", 1), ("厘米", "毫米", 10), ("cm", "毫米", 10), ("公里", "毫米", 1e6), ("米", "毫米", 1000),
    ("英寸", "寸", 1), ("寸", "寸", 1), ("瓦", "瓦", 1), ("w", "瓦", 1), ("度", "度", 1), ("℃", "度", 1), ("°c", "度", 1),
    ("倍", "倍", 1), ("点", "点钟", 1), ("人", "人", 1), ("位", "人", 1), ("名", "人", 1),
    # devices' specs: latency, loudness, battery, frequency, power, light (6毫秒 is no 60毫秒); food energy (560千卡)
    ("千卡", "千卡", 1), ("大卡", "千卡", 1), ("kcal", "千卡", 1),
    ("毫秒", "秒", 0.001), ("ms", "秒", 0.001), ("分贝", "分贝", 1), ("db", "分贝", 1), ("毫安时", "毫安时", 1),
    ("mah", "毫安时", 1), ("安时", "毫安时", 1000), ("ah", "毫安时", 1000), ("赫兹", "赫兹", 1), ("hz", "赫兹", 1), ("千瓦", "瓦", 1000), ("kw", "瓦", 1000),
    ("流明", "流明", 1), ("lm", "流明", 1), ("开尔文", "K", 1), ("勒克斯", "勒克斯", 1), ("lux", "勒克斯", 1),
    ("平方米", "平方米", 1), ("平米", "平方米", 1), ("平方", "平方米", 1), ("㎡", "平方米", 1), ("m²", "平方米", 1), ("平", "平方米", 1),
    ("伏特", "伏", 1), ("伏", "伏", 1), ("v", "伏", 1), ("安培", "安", 1), ("毫安", "安", 0.001),  # (12伏 is no 12期)
    ("yuan", "元", 1), ("rmb", "元", 1), ("dollars", "美元", 1), ("hours", "分钟", 60), ("days", "天", 1),
]
_UNIT_RE = re.compile(r"\s*(" + "|".join(re.escape(u) for u, _, _ in sorted(_UNITS, key=lambda x: -len(x[0]))) + r")(?![a-z])")
_UNIT_OF = {u: (c, f) for u, c, f in _UNITS}
# Classifiers: a number before one is a count ("5种颜色"); 个 matches any of them.
CLASSIFIERS = "个种款只件罐盒包瓶杯支台套双袋箱份颗粒片张把条色口泡道期批单样类次遍回号档层格腔段节根"
_CLASSIFIER_RE = re.compile(rf"\s*([{CLASSIFIERS}])")
_MEASURES = {"元", "折", "%", "分钟", "秒", "天", "月", "岁", "克", "毫升", "毫米", "寸", "瓦", "度", "千瓦时",
             "倍", "点钟", "人", "美元", "分贝", "毫安时", "赫兹", "千卡", "伏", "安", "平方米", "流明", "K", "勒克斯"}
_CURRENCY_BEFORE = re.compile(r"[¥$]\s*$|(?:售价|价格|原价|现价|到手价|只要|仅需|仅售|优惠|减|便宜|降价|立减)\s*$")
_ORDINAL_BEFORE = re.compile(r"(?:第|星期|周|礼拜|no\.?|型号|编号)\s*$")
# Idioms made of numeral characters that state no figure ("千万不要错过", "十分好用").
_IDIOMS = re.compile(
    r"千万|万一|十分(?!钟)|一一|一些|一点(?![零一二三四五六七八九\d]|钟)|一定|一样|一直|一起|一下|一般|一切|一流|万分|百分百|十足|三三两两|一模一样|五花八门|"
    r"七上八下|(?<![零〇一二两三四五六七八九十])九九(?![零〇一二两三四五六七八九十百千万元块折%])|统一|唯一|万能|一芽一叶|一次性|一口气|一会|一边|一旦|一向|一共|一律|一款|一份心|第一时间"
)


def numeric_text(text: str) -> str:
    """The text with every numeral form made ordinary (NFKC: full-width and circled digits; keycaps; 壹; 仨)."""
    text = text.translate(_NUMERAL_MAP)
    text = unicodedata.normalize("NFKC", text)
    for pattern, repl in _SPECIAL:
        text = pattern.sub(repl, text)
    return normalize(text)


def _cn_to_number(text: str) -> float | None:
    """Parses a Chinese numeral like 一百九十九, 两千五, 三点五, 十二; None if it is not one."""
    integer, _, frac = text.partition("点")
    total, section, digit = 0, 0, None
    last_unit = 1
    for c in integer:
        if c in _CN_DIGITS:
            if digit is not None and section == 0 and total == 0:
                digit = digit * 10 + _CN_DIGITS[c]  # 二四 = 24, read digit by digit
                continue
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


def number(s: str) -> float | None:
    """A figure written in digits or in Chinese numerals (12, 十二, 两千五); None if it is neither."""
    s = s.strip()
    if not s:
        return None
    if re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s)
    return _cn_to_number(s)


@dataclass(frozen=True, slots=True)
class Figure:
    value: float
    text: str
    significant: bool  # a stated fact that must be grounded
    unit: str = ""  # canonical unit ("元", "小时", "克" …), "count:种" for a classifier, "" for a bare number
    label: str = ""  # the two CJK characters said just before it ("日常价128元" → 常价), "" if fewer
    phrase: str = ""  # a count with its classifier and the character after ("两罐装188元" → 两罐装)


_NOT_CJK = re.compile(r"[^\u4e00-\u9fff]")
_LABEL_FILLERS = frozenset({"只要", "就要", "才要", "仅需", "大概", "大约", "左右", "一共", "总共", "也是", "都是", "还是"})


def _with_label(f: Figure, t: str, start: int) -> Figure:
    """The figure with the two CJK characters before it in t (its label: what the figure is the value of)."""
    label = _NOT_CJK.sub("", t[max(0, start - 10) : start])[-2:]
    if len(label) != 2 or label in _LABEL_FILLERS:
        label = ""
    phrase = t[start : start + len(f.text) + 2] if f.unit.startswith("count:") else ""
    return dataclasses.replace(f, label=label, phrase=phrase) if label or len(phrase) > len(f.text) + 1 else f


@functools.lru_cache(maxsize=8)
def labelled_figures(texts: tuple[str, ...]) -> frozenset[tuple[float, str, str]]:
    """(value, unit, label) of every figure the texts state with a label (a KB's "日常价: 128元" → (128, 元, 常价))."""
    return frozenset((round(f.value, 4), f.unit, f.label) for t in texts for f in figures(t)
                     if f.label and f.unit)


CLAUSE_CUT = re.compile(r"[。！？!?；;\n，,、]+")
_LIST_CLAUSE_CUT = re.compile(r"[。！？!?；;\n，,]+")
# A number with its unit or classifier ("18个月", "两罐", "99元"): no context word of the figure it states.
UNIT_WORDS = "|".join(re.escape(u) for u, _, _ in sorted(_UNITS, key=lambda x: -len(x[0])))
_FIGURE_SPAN = re.compile(rf"(?:\d+(?:\.\d+)?|[{CN_NUM}点半]+)(?:多|余|来)?\s*(?:{UNIT_WORDS})?")
# Pairs that say nothing about what a figure is of.
_FUNCTION_PAIRS = frozenset({"可以", "我们", "咱们", "就是", "这个", "这款", "一个", "只要", "就能", "大家", "现在", "今天", "的话",
                             "直接", "还是", "也是", "都是", "左右", "大概", "以上", "以内", "之内", "建议"})


def cjk_bigrams(text: str) -> frozenset[str]:
    """The telling pairs of CJK characters in text: numbers with their units left out (a classifier stays: 两罐装 →
    罐装), function words too."""
    run = _NOT_CJK.sub(" ", _FIGURE_SPAN.sub(" ", text))
    return frozenset(w[i : i + 2] for w in run.split() for i in range(len(w) - 1)) - _FUNCTION_PAIRS


@functools.lru_cache(maxsize=8)
def stated_figures(texts: tuple[str, ...]) -> dict[tuple[float, str], list[frozenset[str]]]:
    """(value, unit) of every figure the texts state (unit '' for a bare number) → the telling word pairs of each clause
    stating it (pairs most of the texts share, such as the product's name, tell nothing and are left out)."""
    # (counted per sentence: a knowledge base cut into a few long passages shares most pairs between them)
    said = [x for t in texts for x in re.split(r"[。！？!?\n]+", numeric_text(t)) if x.strip()]
    # (a list's items share its clause's words: 温度可选40℃、50℃、60℃ says each of them of the temperature)
    clauses = [(i, c) for i, t in enumerate(said) for c in _LIST_CLAUSE_CUT.split(t)]
    df: dict[str, set[int]] = {}
    for i, c in clauses:
        for g in cjk_bigrams(c):
            df.setdefault(g, set()).add(i)
    common = {g for g, docs in df.items() if len(docs) > max(2, len(said) // 3)}
    out: dict[tuple[float, str], list[frozenset[str]]] = {}
    for _, c in clauses:
        for f in figures(c):
            if f.unit != "ordinal":  # (a bare number too: the 304 of 内胆为304不锈钢, unit '')
                out.setdefault((round(f.value, 4), f.unit), []).append(cjk_bigrams(c) - common)
    return out


def figures(text: str) -> list[Figure]:
    """Every number stated in text, with its canonical unit and whether it needs grounding."""
    t = _IDIOMS.sub(lambda m: "〃" * len(m.group(0)), numeric_text(text))
    out: list[Figure] = []
    taken = [False] * len(t)

    def claim(a: int, b: int) -> bool:
        if any(taken[a:b]):
            return False
        for i in range(a, b):
            taken[i] = True
        return True

    for m in _PERCENT.finditer(t):
        v = number(m.group(1))
        if v is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(v, m.group(0), True, "%"), t, m.start()))
    for m in _DISCOUNT.finditer(t):
        if claim(m.start(), m.end()):
            f = Figure(_CN_DIGITS[m.group(1)] + _CN_DIGITS[m.group(2)] / 10, m.group(0), True, "折")
            out.append(_with_label(f, t, m.start()))
    for m in _HALF.finditer(t):
        whole = m.group(1) or m.group(2)
        base = number(whole) if whole else 0.0
        if base is not None and claim(m.start(), m.end() - (len(m.group(3)) + 1 if m.group(3) else 0)):
            end = m.end() - (len(m.group(3)) + 1 if m.group(3) else 0)
            # "两年半": the unit sits between the number and 半
            f = _figure(t[:end] + (m.group(3) or "") + t[m.end():] if m.group(3) else t, m.start(), end, base + 0.5,
                        True, m.group(0))
            if m.group(3):
                for i in range(m.start(), m.end()):
                    taken[i] = True
            out.append(_with_label(f, t, m.start()))
    for m in _MONEY.finditer(t):
        a, b = number(m.group(1)), number(m.group(3))
        if a is not None and b is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(round(a + b / 10, 4), m.group(0), True, "元"), t, m.start()))
    for m in _MAO.finditer(t):
        a = number(m.group(1))
        b = number(m.group(3)) if m.group(3) else 0.0
        if a is not None and b is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(round(a / 10 + b / 100, 4), m.group(0), True, "元"), t, m.start()))
    for m in _ARABIC.finditer(t):
        if any(taken[m.start() : m.end()]):
            continue
        whole = m.group(1).replace(",", "")
        frac = m.group(2)
        value = float(f"{whole}.{frac}") if frac else float(whole)
        mult = m.group(3)
        kelvin = mult == "k" and value >= 1000  # (3000K is a colour temperature, never three million)
        if mult and not kelvin:
            value *= {"万": 1e4, "w": 1e4, "千": 1e3, "k": 1e3, "亿": 1e8}[mult]
        claim(m.start(), m.end())
        f = _figure(t, m.start(), m.end(), value, bool(frac), m.group(0)) if not kelvin else Figure(value, m.group(0), True, "K")
        if not f.unit and (m.group(0).lstrip()[:1] in "¥$" or (value >= 10 and _PER_ONE.match(t, m.end()))):
            f = Figure(f.value, f.text, True, "元")  # (a price said per piece without its 元: 到手89一箱)
        out.append(_with_label(f, t, m.start()))
    for m in _CHINESE.finditer(t):
        s = m.group(0)
        if any(taken[m.start() : m.end()]):
            continue
        pair = about(s)
        if pair is not None and (f := _figure(t, m.start(), m.end(), pair[1], False, s)).unit:
            # 两三次, 三五天: about that many, a range in speech (2 or 3 times), never 23 read digit by digit
            out.extend(_with_label(Figure(round(f.value * v / pair[1], 6), s, f.significant, f.unit), t, m.start()) for v in pair)
            continue
        value = _cn_to_number(s)
        if value is None:
            continue
        lone = all(c in _CN_UNITS for c in s)  # "万", "百", "十万": a power of ten without a digit
        if lone and m.start() and t[m.start() - 1] in CN_NUM:
            continue  # the start of the unit after a decimal ("一点三千克": 1.3 of 千克)
        if lone:
            value = 1.0
            for c in s:
                value *= _CN_UNITS[c]
        f = _figure(t, m.start(), m.end(), value, "点" in s, s)
        if s in ("一", "两", "二") and not f.unit:
            continue  # "一下", "一起", "两人" are words, not figures
        if s == "一" and f.unit in DURATION and _RATE_AFTER.match(t, m.end()):
            # a rate's span, not a figure of its own: 一分钟震38000次, 一天刷两次 (each is 每分钟, 每天)
            f = Figure(f.value, f.text, False, f.unit, f.label, f.phrase)
        if lone and len(s) == 1 and not f.unit and not _APPROX_BEFORE.search(t[max(0, m.start() - 2) : m.start()]):
            continue  # "百搭", "万事如意", "千里": words; "上万条好评", "过千单", "百年", "年销百万" state a figure
        out.append(_with_label(f, t, m.start()))
    return out


DURATION = {"秒": 1 / 60, "分钟": 1.0, "天": 1440.0, "月": 43200.0}  # the units of time, in minutes
_PER_ONE = re.compile(r"\s*一(?:箱|罐|件|盒|袋|包|瓶|套|支|条|双|只|台|把|张|桶|提|斤)")
# a number soon after the span: the span is a rate's ("一分钟大概震38000次", "一天刷两次")
_RATE_AFTER = re.compile(rf"(?:个)?(?:小时|钟头|分钟|秒钟?|天|日|月|周|星期)[\u4e00-\u9fff]{{0,5}}?(?:\d|[{CN_NUM}])")
_RANGE_TO = re.compile(r"\s*(?:到|至|-|~|～|—|－)\s*")
_RANGE_TO_VALUE = re.compile(r"\d+(?:\.\d+)?")
_POWER_BEFORE = re.compile(r"(?:耗|用|费|省)电|电费")
_APPROX_BEFORE = re.compile(r"(?:上|数|近|几|超过?|过|破|逾|成|好几)$")  # "上万", "过千", "近百": about that many
_APPROX_AFTER = re.compile(r"^\s*(?:多|余|来)(?=\s*[^\d\s])")  # "八十多杯", "20余天": the unit after the approximator


def _figure(t: str, start: int, end: int, value: float, decimal: bool, text: str) -> Figure:
    after = _APPROX_AFTER.sub("", t[end:])
    if _ORDINAL_BEFORE.search(t[max(0, start - 4) : start]):
        return Figure(value, text, False, "ordinal")
    unit = ""
    m = _UNIT_RE.match(after)
    if m is not None:
        canon, factor = _UNIT_OF[m.group(1)]
        if canon == "点钟" and re.match(r"\s*点\s*\d", after):
            canon, factor = "", 1  # a decimal point, not o'clock
        if canon == "度" and (re.match(r"\s*度电", after) or _POWER_BEFORE.search(t[max(0, start - 8) : start])):
            canon = "千瓦时"  # 0.12度电, 耗电约0.12度: energy, not a temperature
        if canon:
            unit, value = canon, round(value * factor, 6)
    if not unit:
        c = _CLASSIFIER_RE.match(after)
        if c is not None:
            unit = "count:" + c.group(1)
    if not unit and (r := _RANGE_TO.match(after)) is not None:
        # the low end of a range takes the high end's unit ("12到14个鸡翅": 12 is a count of wings, not 12期)
        high = _RANGE_TO_VALUE.match(after, r.end())
        if high is not None:
            low = _figure(t, start, end + high.end(), value, decimal, text)
            unit, value = low.unit, low.value
    if not unit and _CURRENCY_BEFORE.search(t[max(0, start - 6) : start]):
        unit = "元"
    if unit in _MEASURES:
        significant = True
    elif unit.startswith("count:"):
        significant = value >= 2 or decimal
    else:
        significant = value >= 10 or decimal
    return Figure(value, text, significant, unit)


def said_otherwise(stated: dict[tuple[float, str], list[frozenset[str]]], f: Figure, grams: frozenset[str]) -> float | None:
    """A value `stated` (stated_figures) in this figure's unit — a duration in any — in a clause about the same thing, when
    it never gives this value there ("保温能一直保48小时" where "12小时保温"; "破损七天内" where 破损…24小时内). The value
    of the fact clause sharing most of this clause's word pairs is what the facts say of the thing (加满一次…12分钟)."""
    if not f.unit or f.unit.startswith("count:") or f.unit == "ordinal" or not grams:
        return None
    scale = DURATION if f.unit in DURATION else {f.unit: 1.0}
    v = round(f.value * scale[f.unit], 4)
    near: dict[float, frozenset[str]] = {}  # value (in the scale's unit) → the most word pairs a clause stating it shares
    for (value, unit), clauses in stated.items():
        if unit in scale and (shared := max((grams & kb for kb in clauses), key=len)):
            at = round(value * scale[unit], 4)
            near[at] = max(near.get(at, frozenset()), shared, key=len)
    if not near or v not in near:
        return next((x / scale[f.unit] for x in near), None)
    best = max(near, key=lambda x: len(near[x]))
    # (…or shares only what the best shares too: 磁吸无线最大20瓦 meets 有线输出最大20瓦 by 最大 alone, 无线输出最大15瓦 by more)
    ahead = len(near[best]) - len(near[v])
    return best / scale[f.unit] if ahead >= len(near[v]) + 2 or (near[v] < near[best] and ahead >= 2) else None


def same_unit(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.startswith("count:") and b.startswith("count:"):
        # 个 counts any thing (3个 is 3支), never installments, times, a link's number or a setting (12个鸡翅 is no 12期)
        return (a == "count:个" and b not in _NOT_THINGS) or (b == "count:个" and a not in _NOT_THINGS)
    return False


_NOT_THINGS = frozenset(f"count:{c}" for c in "期次遍回号档批")


def about(numeral: str) -> tuple[float, float] | None:
    """The two figures of a numeral that says "about" (一两, 两三, 三四 … 八九, 三五), None for any other."""
    if len(numeral) != 2 or any(c not in _CN_DIGITS for c in numeral):
        return None
    a, b = _CN_DIGITS[numeral[0]], _CN_DIGITS[numeral[1]]
    return (float(a), float(b)) if a >= 1 and (b == a + 1 or (a, b) == (3, 5)) else None

"""Text normalization for speech: Chinese readings of prices, percentages, dates, times, phones, units and model numbers.

A TTS voice reads what it is given; "¥199.9" or "RTX4090" or a URL come out as noise. This module
rewrites a sentence into what a Chinese live host would say: ¥199.9 → 一百九十九点九元, 50% → 百分之五十,
2024-05-01 → 二零二四年五月一日, 20:30 → 二十点三十分, 13812345678 → 幺三八幺二三四五六七八 (digit by
digit, 1 read as 幺 as on air), 5kg → 五千克, RTX4090 → RTX四零九零, GPU → G P U; emoji, platform
emotes ([doge]) and URLs are dropped and @mentions are read as the name. `normalize(text, "en")` does the same
cleanup, then the English readings of textnorm_en.py ($5.99 → five dollars and ninety-nine cents); other
languages get the cleanup only, leaving numbers to the voice.
"""

from __future__ import annotations

import re
import unicodedata

_DIGITS = "零一二三四五六七八九"
_PHONE_DIGITS = "零幺二三四五六七八九"
_SMALL_UNITS = ["", "十", "百", "千"]
_BIG_UNITS = ["", "万", "亿", "万亿"]
# Measure words before which a bare 2 is read 两 (两个, 两件), as people say it. Not 月: 2月 is February (二月).
_MEASURE = "个件位次天瓶盒包斤块只条张台套双款种份本支杯碗把颗袋箱年周小时分钟秒单遍人克米"


def digits_zh(s: str, phone: bool = False) -> str:
    """Reads a digit string one digit at a time (0 → 零; 1 → 幺 when `phone`)."""
    table = _PHONE_DIGITS if phone else _DIGITS
    return "".join(table[int(c)] for c in s if c.isdigit())


def _four(n: int) -> str:
    """0 < n < 10000, without leading 零 handling of the group itself."""
    out = []
    zero = False
    for pos in range(3, -1, -1):
        d = (n // 10**pos) % 10
        if d == 0:
            if out:
                zero = True
            continue
        if zero:
            out.append("零")
            zero = False
        out.append(_DIGITS[d] + _SMALL_UNITS[pos])
    return "".join(out)


def int_zh(n: int) -> str:
    """Cardinal reading of an integer: 10 → 十, 15 → 十五, 110 → 一百一十, 1005 → 一千零五, 20000 → 二万."""
    if n < 0:
        return "负" + int_zh(-n)
    if n == 0:
        return "零"
    groups: list[int] = []
    while n:
        groups.append(n % 10000)
        n //= 10000
    if len(groups) > len(_BIG_UNITS):
        return digits_zh(str(sum(g * 10000**i for i, g in enumerate(groups))))
    out = ""
    need_zero = False
    for i in range(len(groups) - 1, -1, -1):
        g = groups[i]
        if g == 0:
            need_zero = bool(out)
            continue
        if out and (need_zero or g < 1000):
            out += "零"
        out += _four(g) + _BIG_UNITS[i]
        need_zero = False
    # 一十五 → 十五 only at the very start (一百一十 keeps its 一).
    if out.startswith("一十"):
        out = out[1:]
    return out


def number_zh(s: str) -> str:
    """Reads a decimal number string: "199.90" → 一百九十九点九, "-3" → 负三, "1,299" → 一千二百九十九, "0.05" → 零点零五."""
    s = s.replace(",", "")
    neg = s.startswith("-")
    if neg or s.startswith("+"):
        s = s[1:]
    whole, _, frac = s.partition(".")
    frac = frac.rstrip("0")
    text = digits_zh(whole) if len(whole) > 16 else int_zh(int(whole or "0"))
    if frac:
        text += "点" + digits_zh(frac)
    return ("负" if neg else "") + text


# --- language-neutral cleanup -------------------------------------------------------------------

_URL = re.compile(r"(?:https?://|ftp://|www\.)[^\s\u4e00-\u9fff，。！？、；：）】」》]+", re.I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_BARE_DOMAIN = re.compile(r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|cn|net|org|io|tv|top|xyz|cc)(?:/[^\s]*)?\b", re.I)
_EMOTE = re.compile(r"\[[^\[\]\s]{1,12}\]")  # platform emotes: [doge] [笑哭]
_MENTION = re.compile(r"@([^\s@:：,，。!！?？]+)[:：]?\s*")


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    if ch in "\u200d\ufe0f\ufe0e\u20e3":
        return True
    if 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF:
        return True
    if 0x1F1E6 <= cp <= 0x1F1FF or 0xE0020 <= cp <= 0xE007F:
        return True
    # Other symbols (arrows, dingbats, ☆) go too, but not the degree/copyright signs of Latin-1.
    return cp >= 0x2190 and unicodedata.category(ch) == "So"


def clean(text: str) -> str:
    """NFKC (full-width → half-width), drops URLs/emails/emoji/emotes, reads @name as name, squeezes spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = _URL.sub(" ", text)
    text = _EMAIL.sub(" ", text)
    text = _BARE_DOMAIN.sub(" ", text)
    text = _EMOTE.sub(" ", text)
    text = _MENTION.sub(lambda m: m.group(1) + "，", text)
    text = "".join(" " if _is_emoji(c) else c for c in text)
    text = re.sub(r"[ \t\r\n]+", " ", text)
    # Spaces between CJK characters are not pauses anyone would make.
    text = re.sub(r"(?<=[\u4e00-\u9fff，。！？、]) (?=[\u4e00-\u9fff])", "", text)
    text = re.sub(r"(?<=[\u4e00-\u9fff]) (?=[，。！？、])", "", text)
    text = re.sub(r"，\s*([，。！？])", r"\1", text)
    return text.strip(" ，")


# --- Chinese readings -----------------------------------------------------------------------------

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"

_UNITS: dict[str, str] = {
    "km/h": "公里每小时", "m/s": "米每秒",
    "kg": "千克", "mg": "毫克", "g": "克", "t": "吨",
    "km": "公里", "cm": "厘米", "mm": "毫米", "m": "米",
    "ml": "毫升", "mL": "毫升", "L": "升", "l": "升",
    "℃": "摄氏度", "°C": "摄氏度", "°": "度",
    "mAh": "毫安时", "kWh": "千瓦时", "kW": "千瓦", "W": "瓦", "V": "伏",
    "Hz": "赫兹", "kHz": "千赫兹", "MHz": "兆赫兹", "GHz": "吉赫兹",
    "TB": "T B", "GB": "G B", "MB": "M B", "KB": "K B",
    "寸": "寸", "斤": "斤",
    "h": "小时", "min": "分钟", "s": "秒", "ms": "毫秒",
}
# Longest first so "kg" wins over "g" and "mAh" over "m".
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))

_CURRENCY_PREFIX = {"¥": "元", "￥": "元", "$": "美元", "€": "欧元", "£": "英镑", "HK$": "港元", "US$": "美元"}

_PHONE = re.compile(r"(?<![\d.])(?:\+?86[- ]?)?(1[3-9]\d)[- ]?(\d{4})[- ]?(\d{4})(?![\d.])")
_LANDLINE = re.compile(r"(?<![\d.])((?:0\d{2,3}|400|800)[- ]\d{3,4}[- ]?\d{3,4})(?![\d.])")
_DATE_YMD = re.compile(r"(?<!\d)(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})(?:日|号)?(?!\d)")
_DATE_YM = re.compile(r"(?<!\d)(\d{4})年(\d{1,2})月(?!\d)")
_DATE_MD = re.compile(r"(?<!\d)(\d{1,2})月(\d{1,2})(日|号)")
_YEAR = re.compile(r"(?<!\d)(\d{4})年")
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-4])[:：]([0-5]\d)(?:[:：]([0-5]\d))?(?![\d:])")
_PERCENT = re.compile(r"([-+]?" + _NUM + r")\s?[%％]")
_PERMILLE = re.compile(r"(" + _NUM + r")\s?‰")
_PRICE_PREFIX = re.compile(r"(HK\$|US\$|[¥￥$€£])\s?(" + _NUM + r")(万|千|百|亿)?(元|块)?")
_RANGE = re.compile(r"(" + _NUM + r")\s?[-~～至]\s?(" + _NUM + r")(?=\s?(?:" + _UNIT_ALT + r"|[\u4e00-\u9fff%]))")
_FRACTION = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")
_UNIT_AFTER = re.compile(r"(?<![A-Za-z\d.])(-?" + _NUM + r")\s?(" + _UNIT_ALT + r")(?![A-Za-z])")
_MODEL = re.compile(r"(?<![A-Za-z\d])([A-Za-z]+[-]?)(\d+(?:\.\d+)?)([A-Za-z]*)(?![\d])")
_PER_UNIT = re.compile(r"(元|块|美元)\s?/\s?(?=[\u4e00-\u9fff])")  # 五十九元/件 → 五十九元一件
_TIMES = re.compile(r"(?<![A-Za-z\d])[x×*]\s?(\d+)(?![\d.])")  # x2 → 乘二
_NO = re.compile(r"\bNo\.\s?(\d+)", re.I)  # No.1 → 第一
_WAN = re.compile(r"(" + _NUM + r")[wW](?![A-Za-z])")  # 10w+ → 十万加
_GENERATION = re.compile(r"(?<!\d)([0-9]{2})后")  # 95后 → 九五后
_RATIO = re.compile(r"(?<![\d:])(\d+)[:：](\d+)(?![\d:])")  # 3:2 → 三比二 (after times)
# Shopping festivals are said digit by digit.
_FESTIVALS = {"618": "六一八", "520": "五二零", "521": "五二一", "1212": "双十二"}
_FESTIVAL = re.compile(r"(?<![\d.¥￥$])(" + "|".join(_FESTIVALS) + r")(?=大促|活动|狂欢|节|当天|期间|购物)")
_ACRONYM = re.compile(r"(?<![A-Za-z])([A-Z]{2,6})(?![A-Za-z])")
# A bare 2 before a measure word, but never part of a longer or decimal number, a negative number, an
# ordinal (第2件 → 第二件, 2年级 → 二年级) or a clock time (八点2分 → 八点二分).
_TWO_MEASURE = re.compile(r"(?<![\d.\-第点])(?<!第 )2(?=[" + _MEASURE + r"])(?!年级)")
# A sign belongs to the number only where it cannot be an operator (not right after a digit or letter).
_NUMBER = re.compile(r"(?:(?<![\dA-Za-z])[-+])?" + _NUM)
# Order numbers, codes: 7+ digits read one by one, unless it is a round amount (1000000 → 一百万).
_LONG_DIGITS = re.compile(r"(?<![\d.])(?!\d+000(?![\d.]))\d{7,}(?![\d.])")


def _price(m: re.Match[str]) -> str:
    sym, num, mult, _yuan = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    return number_zh(num) + mult + _CURRENCY_PREFIX[sym]


def _time(m: re.Match[str]) -> str:
    h, mi, s = int(m.group(1)), int(m.group(2)), m.group(3)
    out = int_zh(h) + "点"
    if mi or s:
        out += ("零" + _DIGITS[mi] if mi < 10 else int_zh(mi)) + "分"
    if s and int(s):
        out += int_zh(int(s)) + "秒"
    return out


def _model(m: re.Match[str]) -> str:
    letters, digits, tail = m.group(1).rstrip("-"), m.group(2), m.group(3)
    # Long model digits are read one by one (四零九零); short ones as a number (十五, PM二点五).
    spoken = digits_zh(digits) if len(digits) >= 3 and "." not in digits else number_zh(digits)
    return f"{_spell(letters)}{spoken}{(' ' + _spell(tail)) if tail else ''}"


def _spell(word: str) -> str:
    """All-caps acronyms are spelled out letter by letter; other words are left for the voice to read."""
    if word.isupper() and 2 <= len(word) <= 6:
        return " ".join(word)
    return word


def normalize_zh(text: str) -> str:
    """The Chinese host reading of a sentence (see the module docstring)."""
    t = clean(text)
    t = _PHONE.sub(lambda m: digits_zh("".join(m.groups()), phone=True), t)
    t = _LANDLINE.sub(lambda m: digits_zh(m.group(1), phone=True), t)
    t = _DATE_YMD.sub(lambda m: f"{digits_zh(m.group(1))}年{int_zh(int(m.group(2)))}月{int_zh(int(m.group(3)))}日", t)
    t = _DATE_YM.sub(lambda m: f"{digits_zh(m.group(1))}年{int_zh(int(m.group(2)))}月", t)
    t = _DATE_MD.sub(lambda m: f"{int_zh(int(m.group(1)))}月{int_zh(int(m.group(2)))}{m.group(3)}", t)
    t = _YEAR.sub(lambda m: digits_zh(m.group(1)) + "年", t)
    t = _TIME.sub(_time, t)
    t = _RATIO.sub(lambda m: f"{int_zh(int(m.group(1)))}比{int_zh(int(m.group(2)))}", t)
    t = _FESTIVAL.sub(lambda m: _FESTIVALS[m.group(1)], t)
    t = _GENERATION.sub(lambda m: digits_zh(m.group(1)) + "后", t)
    t = _NO.sub(lambda m: "第" + int_zh(int(m.group(1))), t)
    t = _TIMES.sub(lambda m: "乘" + int_zh(int(m.group(1))), t)
    t = _WAN.sub(lambda m: number_zh(m.group(1)) + "万", t)
    t = _PRICE_PREFIX.sub(_price, t)
    t = _PERCENT.sub(lambda m: ("负" if m.group(1).startswith("-") else "") + "百分之"
                     + number_zh(m.group(1).lstrip("+-")), t)
    t = _PERMILLE.sub(lambda m: "千分之" + number_zh(m.group(1)), t)
    t = _RANGE.sub(lambda m: f"{number_zh(m.group(1))}到{number_zh(m.group(2))}", t)
    t = _FRACTION.sub(lambda m: f"{int_zh(int(m.group(2)))}分之{int_zh(int(m.group(1)))}", t)
    t = _UNIT_AFTER.sub(lambda m: number_zh(m.group(1)) + _UNITS[m.group(2)], t)
    t = _PER_UNIT.sub(r"\1一", t)
    t = _MODEL.sub(_model, t)
    t = _ACRONYM.sub(lambda m: " ".join(m.group(1)), t)
    t = _LONG_DIGITS.sub(lambda m: digits_zh(m.group(0)), t)
    t = _TWO_MEASURE.sub("两", t)
    t = _NUMBER.sub(lambda m: number_zh(m.group(0)), t)
    t = t.replace("&", "和").replace("+", "加").replace("=", "等于")
    t = re.sub(r"[ ]+", " ", t)
    t = re.sub(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", t)
    return t.strip()


def normalize(text: str, language: str = "zh") -> str:
    """Normalizes `text` for a voice speaking `language` (zh*: Chinese readings; en*: English; others: cleanup)."""
    lang = language.lower()
    if lang.startswith(("zh", "cmn", "yue")):
        return normalize_zh(text)
    if lang.startswith("en"):
        from broadcaster.voice.textnorm_en import normalize_en

        return normalize_en(clean(text).replace("，", ", "))  # clean() reads "@name" as "name，"
    return clean(text)

"""How a text is read before the moderation rules: emoji stand-ins, look-alike letters, characters written as
components, accents (fold); the contact views (numerals of every system as digits, separators gone, app names read
by sound); the pinyin of a character and of a word; the word segmenter and how common a word is."""

from __future__ import annotations

import functools
import re
import unicodedata

from pypinyin import lazy_pinyin
from pypinyin.pinyin_dict import pinyin_dict

from broadcaster.brain.textnorm import _EMOJI, _t2s, is_cjk_char
from broadcaster.brain.wordlists import COMPONENT_PAIRS, EMOJI_STANDINS, LOOKALIKES, RADICAL_FORMS, READINGS

BREAK = "|"  # what an allowed phrase or a unit leaves in a view: no word runs across it
# A homophone or a crossing match that is a word this common (jieba dictionary frequency) is a real word.
COMMON_WORD_FREQ = 100
LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})

# Numerals of every system → digits (for the contact views only: "八" is a digit there, not a word).
_NUMERALS = str.maketrans({
    **dict(zip("零〇幺一二三四五六七八九", "001123456789", strict=True)),
    **dict(zip("壹贰貳叁參肆伍陆陸柒捌玖", "122334566789", strict=True)),
    **{chr(0x2776 + i): str(i + 1) for i in range(9)}, **{chr(0x278A + i): str(i + 1) for i in range(9)},
    **{chr(0x24F5 + i): str(i + 1) for i in range(9)}, "⓿": "0", "\u20e3": "", "\ufe0f": "",
})
# App names in leet (w31x1n, k0uk0u): a token of letters and digits that reads as an app once digits are letters.
_LEET_TOKEN = re.compile(r"(?<![a-z0-9])(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{2,8}(?![a-z0-9])")
_LETTER_DIGIT = re.compile(r"[a-z]\d|\d[a-z]")
_LEET_APPS = frozenset({"weixin", "wechat", "vx", "wx", "qq", "koukou", "qun", "dianhua", "shouji", "weibo", "tg", "telegram"})


def _leet_app(m: re.Match[str]) -> str:
    t = m.group(0).translate(LEET)
    return t if t in _LEET_APPS else m.group(0)


_JOIN_DIGITS = re.compile(r"(?<=\d)[\s\-.·_,，、/|~]+(?=\d)")
_JOIN_LETTERS = re.compile(r"(?<![a-z])[a-z](?:[\s.·_\-*,，、|/]+[a-z](?![a-z]))+")
_DIGITISH = re.compile(r"[0-9olisz]{7,}")  # "138oooo1234", "33o72i5s9": look-alike letters inside a long number
_NOT_COMPACT = re.compile(r"[^0-9a-z\u3400-\u9fff\uf900-\ufaff:¥$@_\-]+")
_DIGIT_LETTERS = str.maketrans("olisz", "01152")
# App names read by sound: a pair of characters with these readings is the app, whatever they are.
_SOUND_PAIRS = {("kou", "kou"): "扣扣", ("wei", "xin"): "微信", ("qi", "e"): "企鹅"}
_SOUND_ONE = {"qun": "群"}
_SOUND_SYLLABLES = frozenset({"kou", "wei", "qi", "qun"})
# Emoji read as the syllable/word they stand for, look-alike letters as latin (before every rule).
_FOLD = str.maketrans({**EMOJI_STANDINS, **LOOKALIKES, **{k.upper(): v for k, v in LOOKALIKES.items() if k.upper() != k}})


_ENCLOSED = str.maketrans({
    **{chr(0x1F150 + i): chr(0x61 + i) for i in range(26)},  # 🅐 negative circled
    **{chr(0x1F170 + i): chr(0x61 + i) for i in range(26)},  # 🅰 negative squared
    **{chr(0x1F1E6 + i): chr(0x61 + i) for i in range(26)},  # 🇦 regional indicators
    "×": "x", "✘": "x", "✗": "x",
})
_RADICALS = str.maketrans(RADICAL_FORMS)
_COMPONENT_FIRST = frozenset(k[0] for k in COMPONENT_PAIRS) | frozenset(RADICAL_FORMS)
_COMPONENTS = re.compile("|".join(map(re.escape, COMPONENT_PAIRS)))
_ACCENTED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]")  # latin with diacritics, combining marks
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20dc\u20de-\u20ff]")  # not the keycap U+20E3


def fold(text: str) -> str:
    """Emoji stand-ins (🐴 → 马, 🍑 → 桃), look-alike letters of other scripts (Cyrillic х → x), enclosed
    letters (🅥 → v), diacritics (wēi xìn → wei xin) and characters split into their components (亻言 → 信)
    read as meant."""
    text = text.translate(_FOLD).translate(_ENCLOSED)
    if not _COMPONENT_FIRST.isdisjoint(text):
        text = _COMPONENTS.sub(lambda m: COMPONENT_PAIRS[m.group(0)], text.translate(_RADICALS))
    if _ACCENTED.search(text):
        text = _COMBINING.sub("", unicodedata.normalize("NFD", text))
        text = unicodedata.normalize("NFC", text)
    return text


@functools.lru_cache(maxsize=16384)
def contact_views(text: str) -> tuple[str, ...]:
    """The text as the contact and pattern rules read it: compact (no spaces or punctuation), single
    letters joined ("k.o.u" → kou), digits joined; once as typed, once with every numeral a digit
    (_sound_views adds both with app names read by sound)."""
    t = _EMOJI.sub("", unicodedata.normalize("NFKC", text))
    t = _t2s(t).lower().replace("：", ":")
    plain: list[str] = []
    for v in (t, t.translate(_NUMERALS)):
        v = _JOIN_DIGITS.sub("", v)
        v = _JOIN_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), v)
        v = _DIGITISH.sub(lambda m: m.group(0).translate(_DIGIT_LETTERS)
                          if sum(c.isdigit() for c in m.group(0)) >= 5 else m.group(0), v)
        if _LETTER_DIGIT.search(v):
            v = _LEET_TOKEN.sub(_leet_app, v)
        v = _NOT_COMPACT.sub("", v)
        if v not in plain:
            plain.append(v)
    return tuple(plain)


@functools.lru_cache(maxsize=16384)
def sound_views(views: tuple[str, ...]) -> tuple[str, ...]:
    """The contact views with app names read by sound, where that changes anything."""
    return tuple(x for x in map(_by_sound, views) if x not in views)


@functools.lru_cache(maxsize=65536)
def _sound_class(c: str) -> str:
    return char_pinyin(c) if is_cjk_char(c) else ""


def _by_sound(v: str) -> str:
    chars = list(v)
    syl = [_sound_class(c) for c in chars]
    if not _SOUND_SYLLABLES.intersection(syl):
        return v
    i = 0
    while i < len(chars):
        pair = _SOUND_PAIRS.get((syl[i], syl[i + 1])) if i + 1 < len(chars) else None
        if pair is not None:
            chars[i], chars[i + 1] = pair[0], pair[1]
            i += 2
            continue
        one = _SOUND_ONE.get(syl[i])
        if one is not None:
            chars[i] = one
        i += 1
    return "".join(chars)


@functools.lru_cache(maxsize=65536)
def char_pinyin(c: str) -> str:
    """Toneless pinyin of one CJK character (its most common reading), or '' if unknown."""
    if c in READINGS:
        return READINGS[c]
    reading = pinyin_dict.get(ord(c))
    if not reading:
        return ""
    first = reading.split(",")[0].replace("ü", "v")
    return "".join(ch for ch in unicodedata.normalize("NFD", first) if not unicodedata.combining(ch))


def variants(syl: str) -> frozenset[str]:
    """The syllables a blurred reading stands for: sha → {sha, sa}, xing → {xing, xin}, zhang → 4."""
    heads = {syl[:2], syl[0]} if syl[:2] in ("zh", "ch", "sh") else {syl[0] + "h", syl[0]} if syl[0] in "zcs" and syl[1:2] != "h" else {""}
    body = syl[2:] if syl[:2] in ("zh", "ch", "sh") else syl[1:] if syl[0] in "zcs" else syl
    tails = {body, body[:-1]} if body.endswith("ng") else {body, body + "g"} if body.endswith("n") else {body}
    return frozenset(h + t for h in heads for t in tails) if heads != {""} else frozenset(tails)


@functools.cache
def chars_by_syllable() -> dict[str, tuple[int, ...]]:
    """Every code point of the pinyin table grouped by its toneless reading (built once, ~0.2 s)."""
    groups: dict[str, list[int]] = {}
    for cp in pinyin_dict:
        syl = char_pinyin(chr(cp))
        if syl:
            groups.setdefault(syl, []).append(cp)
    return {k: tuple(v) for k, v in groups.items()}


@functools.lru_cache(maxsize=16384)
def word_syllables(word: str) -> tuple[str, ...]:
    return tuple(s.replace("ü", "v").lower() for s in lazy_pinyin(word))


@functools.cache
def segmenter():  # type: ignore[no-untyped-def]
    from broadcaster.brain.lexical import _jieba

    return _jieba()

"""Listed words matched by how they sound: homophones ("沙比", "尼玛死了"), latin spellings ("sha bi", "jiaweixin"),
one letter for a syllable ("W信"), blurred initials and finals for words of three syllables or more, insult nouns in
an insult's slot — and the word context that makes a homophone ordinary speech (a common word, a longer dictionary
word, a degree complement)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from broadcaster.brain.spelling import (
    BREAK,
    COMMON_WORD_FREQ,
    char_pinyin,
    chars_by_syllable,
    segmenter,
    variants,
    word_syllables,
)
from broadcaster.brain.textnorm import is_cjk_char
from broadcaster.brain.wordlists import EVERYDAY_WORDS, NEUTRAL_NOUNS

# Characters so common after a word that a homophone ending in one is speech, not an evasion.
_FUNCTION_CHARS = frozenset("好的了是吗呢在有不很也都就和呀啊吧哦")
# A two-character homophone whose last character is a question/mood particle is speech ("差别大吗" is not 大麻).
_PARTICLES = frozenset("吗呢吧啊呀嘛么哦")
# 死 after a verb or adjective is a degree complement ("笑死我了", "累死了"), not a stand-in for 私/司.
_COMPLEMENT = frozenset("死")
# The slot after an address that an insult fills ("主播纸张吧", "你就是个X！"): two characters, then a particle or the end.
_ADDRESS_SLOT = re.compile(r"(?:^|[^\u4e00-\u9fff])(?:(?:你|主播|你们|这主播|这人)(?:就是|真是|真的是|简直是|就|真|是|纯|个)*"
                           r"([\u4e00-\u9fff]{2})(?=[吧啊呀嘛哦]?(?:$|[\s，,。.!！?？~]))|([\u4e00-\u9fff]{2})主播)"
                           # a comment opening with a word on its own, then a pause: a vocative ("铸币 说的什么")
                           r"|^([\u4e00-\u9fff]{2,3})(?=[\s，,。!！~])")
# An insult noun said on its own as a clause: the whole comment, or a clause closing it ("坐等倒闭，诈骗犯", "黑心商家",
# "骗子公司，别买"). Matched as written only (a two-character comment that merely sounds like an insult is speech).
_NOUN_CLAUSE = re.compile(r"(?:^|(?<=[\s，,。!！?？~吧啊呀]))([\u4e00-\u9fff]{2,6})(?=[\s，,。!！?？~]|$)")
_CLAUSE_PARTICLES = "吧啊呀哦"
# …or opening a clause as the person a jeer is about ("肥婆穿什么都像套了个麻袋", "骗子还好意思开播"): the noun, then what
# only a person does or is told (wears, looks, dares, deserves, gets out).
_NOUN_SUBJECT = re.compile(r"(?:^|(?<=[\s，,。!！?？~]))(?:这个?|那个?|这种|那种|这些|那些)?([\u4e00-\u9fff]{2,4}?)"
                           r"(?:也|还|就|都|天天|整天|每天|真)?(?=穿|长得|长成|长这|配|好意思|敢|有脸|凭什么|滚|去死|出来丢人)")


def common(word: str) -> bool:
    return word in EVERYDAY_WORDS or (segmenter().dt.FREQ.get(word) or 0) >= COMMON_WORD_FREQ


def known(word: str) -> bool:
    return len(word) <= 1 or (segmenter().dt.FREQ.get(word) or 0) >= 10 or word in EVERYDAY_WORDS


def real_word_around(d: str, start: int, end: int) -> bool:
    """True when a two-character match only straddles common words ("颜色|情况" holds 色情; "参加|群众"
    holds 加群). Longer listed words are not excused: "加徽|信号" still holds 加徽信."""
    if end - start != 2 or not all(is_cjk_char(c) for c in d[start:end]):
        return False
    lo, hi = max(0, start - 4), min(len(d), end + 4)
    pos = lo
    crossing = False
    covering: list[str] = []
    for tok in segmenter().lcut(d[lo:hi], HMM=False):
        t0, t1 = pos, pos + len(tok)
        pos = t1
        if t1 <= start or t0 >= end:
            continue
        if t0 <= start and t1 >= end:
            # One word holds the whole match: "色情网站", "办证" — unless the word only holds it across
            # a word of its own that starts before it ("南京东路" = 南京 + 东路, not 京东).
            return t0 < start and common(tok[: start - t0]) and known(tok[end - t0 :])
        covering.append(tok)
        if t0 < start < t1 or t0 < end < t1:
            crossing = True
    # Crossed words must be common; a longer word just has to be in the dictionary ("北京|东城区"), and so does the
    # word after a common one ("参加|群舞": a rarer dictionary word is still a word, not an evasion).
    words = [t for t in covering if len(t) > 1]
    return crossing and (all(common(t) or (len(t) >= 3 and known(t)) for t in words)
                         or (len(words) == 2 and common(words[0]) and known(words[1])))


def inside_word(d: str, start: int, end: int) -> bool:
    """True when a homophone is only part of a longer dictionary word ("打麻将" holds 打麻 ~ 大麻)."""
    lo, hi = max(0, start - 4), min(len(d), end + 4)
    pos = lo
    for tok in segmenter().lcut(d[lo:hi], HMM=False):
        t0, t1 = pos, pos + len(tok)
        pos = t1
        if t0 <= start and t1 >= end:
            # any dictionary word the segmenter chose (打麻将 is rare in its counts, but a word)
            return t1 - t0 > end - start and (segmenter().dt.FREQ.get(tok) or 0) > 0
    return False


def speech_homophone(d: str, key: str, src: str, start: int) -> bool:
    """A homophone that is ordinary speech: its first character 死 as a degree complement after a verb
    or adjective ("笑死我了" is not 私我), or its substituted characters one common word of their own
    and the rest the listed word's ("弟弟我也要" is not 滴滴我)."""
    if src[0] in _COMPLEMENT and src[0] != key[0] and start > 0 and is_cjk_char(d[start - 1]):
        return True
    diff = [i for i, (a, b) in enumerate(zip(key, src, strict=True)) if a != b]
    if not diff or len(diff) == len(src):
        return False
    pos = 0
    for tok in segmenter().lcut(src, HMM=False):
        a, b = pos, pos + len(tok)
        pos = b
        if len(tok) >= 2 and diff == list(range(a, b)) and common(tok):
            return True  # the substituted characters are one common word, the rest the listed word's own
    # a dictionary word and a closing particle ("败家了" is not 百家乐): the sound of a listed word made of speech
    return (src[-1] in _FUNCTION_CHARS and len(src) >= 3 and src[:-1] != key[:-1] and known(src[:-1]))


def function_tail(key: str, src: str) -> bool:
    diff = [i for i, (a, b) in enumerate(zip(key, src, strict=True)) if a != b]
    return (len(diff) == 1 and diff[0] == len(key) - 1 and src[-1] in _FUNCTION_CHARS
            and len(key) >= 3 and common(key[:-1]))


def pinyin_pattern(d: str, initials: bool) -> re.Pattern[str]:
    """A regex over the pinyin stream for one word: CJK syllables are lower case, typed latin upper.

    A syllable may be a CJK character's reading (blurred, for words of three syllables or more), the viewer's own spelling of it, or, with
    `initials`, one lone typed letter — but not every syllable of a word may be a lone letter
    (pure initials are the abbreviation rule's business, on whole tokens).
    """
    syls = word_syllables(d)
    # Blurred initials/finals only for words of three syllables or more: for two, too many everyday
    # pairs blur into a listed word ("是吗" ~ 死妈).
    readings = [sorted(variants(s), key=len, reverse=True) if len(syls) >= 3 else [s] for s in syls]
    full = ["|".join([*map(re.escape, r), re.escape(s.upper())]) for r, s in zip(readings, syls, strict=True)]
    if initials:
        lone = [f"(?<![A-Z]){re.escape(s[0].upper())}(?![A-Z])" for s in syls]
        body = "|".join(
            "".join(f"(?:{full[j]})" if j == i else f"(?:{full[j]}|{lone[j]})" for j in range(len(syls)))
            for i in range(len(syls))
        )
    else:
        body = "".join(f"(?:{f})" for f in full)
    return re.compile(f"(?=({body}))")


def pinyin_stream(d: str) -> tuple[str, set[int], list[int], set[str], str]:
    """The dense text as pinyin (CJK → lower-case toneless syllables, typed latin → upper case).

    Returns the stream, the offsets a syllable may start or end at (around a CJK character only
    its syllable's edges; inside typed latin any offset), per stream offset the index of the
    dense character it came from, the CJK syllables and the typed latin letters (upper case).
    """
    parts: list[str] = []
    syllables: set[str] = set()
    typed: list[str] = []
    origin: list[int] = []
    bounds: set[int] = {0}
    pos = 0
    for i, c in enumerate(d):
        if is_cjk_char(c):
            syl = char_pinyin(c)
            syl = syl or BREAK
            syllables.add(syl)
            parts.append(syl)
            origin.extend([i] * len(syl))
            bounds.add(pos)
            pos += len(syl)
            bounds.add(pos)
        else:
            parts.append(c.upper() if c != BREAK else c)
            if c != BREAK:
                typed.append(c.upper())
            origin.append(i)
            if c != BREAK:
                bounds.add(pos)
                bounds.add(pos + 1)
            pos += 1
    return "".join(parts), bounds, origin, syllables, "".join(typed)


class SoundIndex:
    """The listed words of two syllables or more by how they sound. Per word its regex over the pinyin stream, per
    syllable the readings that may stand for it (blurred ones for words of three syllables or more) and (readings,
    typed spelling) pairs; per reading, the words that have it. A text is only matched against words it could spell
    (see _candidates): most try none."""

    def __init__(self, words: dict[str, str], *, initials: bool) -> None:
        self.words = words  # dense form → the listed word
        self.initials = initials
        self._list: list[tuple[str, re.Pattern[str], tuple[frozenset[str], ...],
                               tuple[tuple[frozenset[str], str], ...]]] = []
        for key in sorted(words, key=len, reverse=True):
            syls = word_syllables(key)
            classes = tuple(variants(x) if len(syls) >= 3 else frozenset({x}) for x in syls)
            self._list.append((key, pinyin_pattern(key, initials), classes,
                               tuple(zip(classes, (x.upper() for x in syls), strict=True))))
        self._by_spelling: dict[str, list[int]] = {}  # a syllable as typed (upper case) → words with it
        for i, (_, _, _, pairs) in enumerate(self._list):
            for _, u in pairs:
                self._by_spelling.setdefault(u, []).append(i)
        self._by_syllable: dict[str, list[int]] = {}
        for i, (_, _, classes, _) in enumerate(self._list):
            for reading in set().union(*classes):
                self._by_syllable.setdefault(reading, []).append(i)
        self._by_first: dict[str, list[int]] = {}  # a reading of a word's first syllable → words
        for i, (_, _, classes, _) in enumerate(self._list):
            for reading in classes[0]:
                self._by_first.setdefault(reading, []).append(i)
        # Characters that sound like a syllable of some listed word: a text with fewer than two of
        # them (and no latin letters) cannot match by pinyin, so the per-character walk is skipped.
        by_syllable = chars_by_syllable() if words else {}
        self.sound_alike: dict[int, None] = {cp: None for syl in self._by_syllable for cp in by_syllable.get(syl, ())}

    def __bool__(self) -> bool:
        return bool(self._list)

    def _candidates(self, syllables: set[str], typed: str, lone: str) -> list[int]:
        """Words the text may spell: every syllable sounded by a CJK character, spelled out in latin
        letters, or (initials) given as one letter; without latin letters, only all-CJK ones."""
        if not typed:
            # Only CJK: a word must have every syllable sounded, its first one included (a smaller index).
            first: set[int] = set()
            for syl in syllables:
                first.update(self._by_first.get(syl, ()))
            return [i for i in first if all(not c.isdisjoint(syllables) for c in self._list[i][2][1:])]
        seen: set[int] = set()
        for syl in syllables:
            seen.update(self._by_syllable.get(syl, ()))
        out = [i for i in seen if all(not c.isdisjoint(syllables) for c in self._list[i][2])]
        if typed:
            full = set(out)
            spelled = {i for u, idx in self._by_spelling.items() if u in typed for i in idx}
            for i in (seen | spelled) - full:
                pairs = self._list[i][3]
                if all(
                        not c.isdisjoint(syllables) or u in typed or (self.initials and u[0] in lone)
                        for c, u in pairs):
                    out.append(i)
        return out

    def hits(self, d: str, hit: Callable[[str, str, str], None]) -> None:
        """Every listed word the dense text spells by sound (a homophone, a latin spelling, a lone letter for a
        syllable): hit(word, "pinyin" | "initial", what in the text spelled it)."""
        stream, bounds, origin, syllables, typed = pinyin_stream(d)
        # Letters standing alone (no latin neighbour): only these may stand for a syllable ("W信").
        lone = "".join(c.upper() for i, c in enumerate(d) if c.isascii() and c.isalpha()
                       and not (i > 0 and d[i - 1].isascii() and d[i - 1].isalpha())
                       and not (i + 1 < len(d) and d[i + 1].isascii() and d[i + 1].isalpha()))
        for i in self._candidates(syllables, typed, lone):
            key, rx, _, _ = self._list[i]
            for m in rx.finditer(stream):
                seg = m.group(1)
                start, end = m.start(1), m.end(1)
                if start not in bounds or end not in bounds:
                    continue
                src = d[origin[start] : origin[end - 1] + 1]
                word = self.words[key]
                if src == key:
                    continue  # the text rule's business (it knows when a word only straddles two)
                if seg.islower():
                    # Every syllable came from a CJK character: a homophone, unless it is a common word,
                    # straddles common words, or is the listed word's own start followed by an everyday
                    # function character ("企鹅好可爱" is not 企鹅号).
                    if (common(src) or real_word_around(d, origin[start], origin[end - 1] + 1)
                            or function_tail(key, src) or speech_homophone(d, key, src, origin[start])
                            or (len(key) == 2 and src[-1] != key[-1] and src[-1] in _PARTICLES)
                            or inside_word(d, origin[start], origin[end - 1] + 1)):
                        continue
                    kind = "pinyin"
                else:
                    kind = "initial" if re.search(r"(?<![A-Z])[A-Z](?![A-Z])", seg) and not seg.isupper() else "pinyin"
                hit(word, kind, src)
                break


class InsultSlots:
    """Insult nouns in the slots an insult fills: after an address (你/主播 + a copula), before 主播, or opening the
    comment as a vocative — read by sound for two-syllable insults ("主播纸张吧" is 智障) — and a noun said as a clause
    of its own, as written ("…，诈骗犯"; ordinary nouns such as 猴子, 垃圾 left out)."""

    def __init__(self, insult_words: Iterable[str], *, by_sound: bool) -> None:
        words = tuple(insult_words)
        self._sounds = {word_syllables(w): w for w in words
                        if len(w) == 2 and all(is_cjk_char(c) for c in w)} if by_sound else {}
        self._nouns = frozenset(w for w in words if len(w) >= 2)
        self._clause_nouns = self._nouns - NEUTRAL_NOUNS

    def __bool__(self) -> bool:
        return bool(self._nouns)

    def hits(self, n: str, hit: Callable[[str, str, str], None]) -> None:
        """Over the normalized text: hit(noun, "pinyin" | "text", the slot's words)."""
        for m in _ADDRESS_SLOT.finditer(n):
            slot = m.group(1) or m.group(2) or m.group(3)
            word = slot if slot in self._nouns else self._sounds.get(word_syllables(slot))
            if word is not None:
                hit(word, "pinyin", slot)
        for rx in (_NOUN_CLAUSE, _NOUN_SUBJECT):
            for m in rx.finditer(n):
                noun = m.group(1).rstrip(_CLAUSE_PARTICLES)
                if noun in self._clause_nouns:
                    hit(noun, "text", noun)

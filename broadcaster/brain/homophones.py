"""A word of a comment typed by its sound (功律 for 功率, 保休 for 保修): the input method's slip read as the facts' word.

Chat is typed fast on pinyin keyboards, and the first candidate of a syllable is often the wrong character. A span of
the comment that is no word of the language (jieba's dictionary does not know it, or knows it as rare) but sounds
exactly like a word of the facts and shares a character with it is read as that word, so that the facts' words,
slots and units meet it. Only a token the segmenter made up (its HMM's guess: "功律", "保文能") is read again;
"垫子", "放水", "已|下单" are words and stay; the facts' word is one of their own, not a function word of the
language ("不能", "以下"); a sound two words of the facts share is no guess between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from broadcaster.brain.spelling import COMMON_WORD_FREQ, segmenter, word_syllables
from broadcaster.brain.textnorm import is_cjk_char

_SPANS = (2, 3)
FUNCTION_FREQ = 3000  # a facts' word this common in the language (不能 33939, 以下 7611) is no product's own word
CHAR_WORD_FREQ = 30000  # a character this common as a word on its own (是, 有, 比) is that word, not a slip


def _freq(word: str) -> int:
    return segmenter().dt.FREQ.get(word) or 0


def _loose(question: str) -> list[int]:
    """Per character: the token it stands in when that is one the segmenter made up by its HMM (no word it knows),
    else -1. A slip stays inside one such token: a single character between words (是, 有, 过) is a word itself."""
    out: list[int] = []
    for k, tok in enumerate(segmenter().cut(question)):
        out += [k if len(tok) > 1 and _freq(tok) == 0 else -1] * len(tok)
    return out


@lru_cache(maxsize=64)
def _by_sound(texts: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    """The facts' words (two or three characters, no function word) by their toneless syllables; a sound two of them
    share is left out."""
    found: dict[tuple[str, ...], set[str]] = {}
    for text in texts:
        for word in segmenter().cut_for_search(text):  # (额定功率 and its 功率)
            if len(word) in _SPANS and all(is_cjk_char(c) for c in word) and _freq(word) < FUNCTION_FREQ:
                found.setdefault(word_syllables(word), set()).add(word)
    return {sound: next(iter(words)) for sound, words in found.items() if len(words) == 1}


def mended(question: str, facts: Sequence[str]) -> str:
    """The question with each sound-alike slip read as the facts' word (unchanged where there is none)."""
    sounds = _by_sound(tuple(facts))
    if not sounds:
        return question
    loose = _loose(question)
    out, i = [], 0
    while i < len(question):
        for n in _SPANS:
            span = question[i:i + n]
            if len(span) < n or not all(is_cjk_char(c) for c in span) or loose[i] < 0 \
                    or len(set(loose[i:i + n])) > 1 or _freq(span) >= COMMON_WORD_FREQ:
                continue
            word = sounds.get(word_syllables(span))
            if word is not None and word != span and set(word) & set(span) and not any(
                    a != b and _freq(a) >= CHAR_WORD_FREQ for a, b in zip(span, word, strict=True)):
                out.append(word)
                i += n
                break
        else:
            out.append(question[i])
            i += 1
    return "".join(out)

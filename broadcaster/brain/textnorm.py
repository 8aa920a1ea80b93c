"""Text normalization shared by triage, moderation, the answer cache and retrieval.

`normalize` makes what a viewer typed comparable: full-width → half-width (NFKC), traditional →
simplified Chinese, lower case, emoji and control characters removed, runs of spaces and repeated
punctuation squeezed. `question_key` goes further for cache keys (filler words and all punctuation
removed), and `dense` keeps only letters/digits/CJK for evasion-resistant matching.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from opencc import OpenCC

_T2S = OpenCC("t2s")


def _traditional_chars() -> frozenset[str]:
    """Characters that t2s changes; a text with none of them needs no (slow, pure-Python) conversion."""
    import opencc

    chars: set[str] = set()
    table = Path(opencc.__file__).parent / "dictionary" / "TSCharacters.txt"
    for line in table.read_text(encoding="utf-8").splitlines():
        key, _, values = line.partition("\t")
        if key and values.split(" ")[0] != key:
            chars.update(key)
    return frozenset(chars)


_TRADITIONAL = _traditional_chars()

# Emoji, pictographs, dingbats, variation selectors and zero-width characters.
_EMOJI = re.compile(
    "["
    "\U0001f000-\U0001faff"
    "\U00002600-\U000027bf"
    "\U0001f900-\U0001f9ff"
    "\u200b-\u200f\u2060-\u206f\ufe00-\ufe0f\ufeff"
    "]+"
)
_SPACES = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+")
_REPEAT_PUNCT = re.compile(r"([!?。！？~～.,，、…])\1+")
_REPEAT_CHARS = re.compile(r"(\D)\1{3,}")  # 哈哈哈哈哈哈 → 哈哈哈 (never a number's digits: 10000元 is no 1000元)
_NON_WORD = re.compile(r"[^0-9a-z\u3400-\u9fff\uf900-\ufaff]+")
_LETTERS_CJK = re.compile(r"[^a-z\u3400-\u9fff\uf900-\ufaff]+")
# Words that change nothing about what is asked ("请问主播这个杯子多少钱呀" ≈ "杯子多少钱").
_FILLERS = re.compile(
    r"^(?:(?:主播|大家|各位|老师)(?:早上|上午|中午|下午|晚上)?好|(?:早上|上午|中午|下午|晚上)好|在吗|哈喽|嗨"
    r"|请问一下|请问|问一下|问下|主播|老师|姐姐|哥哥|小姐姐|那个|这个|想问|我想问|我想知道|你好|您好|hello|hi)+"
    r"|(?:啊|呀|呢|吧|哈|哦|喔|嘛|啦|么|呗|哇|嘿|呐|捏)+$"
)


def _t2s(text: str) -> str:
    if _TRADITIONAL.isdisjoint(text):
        return text
    return _T2S.convert(text)


@functools.lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """NFKC (full-width → half-width), traditional → simplified, lower case, no emoji, squeezed spaces."""
    # Cached: floods repeat the same few texts, and every stage (triage, moderation, cache) asks.
    text = unicodedata.normalize("NFKC", text).replace("\u2795", "+")  # ➕ is an emoji, but it means 加
    text = _CONTROL.sub("", _EMOJI.sub("", text))
    text = _t2s(text).lower()
    text = _REPEAT_PUNCT.sub(r"\1", text)
    text = _REPEAT_CHARS.sub(r"\1\1\1", text)
    return _SPACES.sub(" ", text).strip()


def clean(text: str) -> str:
    """What the viewer wrote, minus emoji, control characters and runs of spaces (for display and prompts)."""
    return _SPACES.sub(" ", _CONTROL.sub("", _EMOJI.sub("", text))).strip()


def display(text: str) -> str:
    """What the viewer wrote, made presentable: full-width → half-width (NFKC), no emoji or control
    characters, squeezed spaces, case kept (for names read out or shown)."""
    return clean(unicodedata.normalize("NFKC", text))


def question_key(text: str) -> str:
    """Cache key of a question: normalized, punctuation/space-free, without leading/trailing filler words."""
    key = _NON_WORD.sub("", normalize(text))
    for _ in range(3):  # fillers can be stacked ("请问主播这个")
        stripped = _FILLERS.sub("", key)
        if stripped == key or not stripped:
            break
        key = stripped
    return key


@functools.lru_cache(maxsize=16384)
def dense(text: str) -> str:
    """Only latin letters and CJK characters of the normalized text (spacing/symbol/digit evasion removed)."""
    return _LETTERS_CJK.sub("", normalize(text))


def dense_with_figures(text: str) -> str:
    """dense, with its digits kept: a quote of the facts says their figures too (UPF100+ is no quote of UPF50+)."""
    return re.sub(r"[^0-9a-z\u4e00-\u9fff]", "", normalize(text))


def is_cjk_char(c: str) -> bool:
    o = ord(c)
    return 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF

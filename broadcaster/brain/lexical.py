"""Words: jieba tokens of normalized text (multi-character words also as their characters) and a BM25 index over them.

Retrieval is BM25 (k1=1.5, b=0.75) with an inverted index, so a query costs time proportional to the postings of its
terms rather than to the number of passages. Used for the knowledge base's passages, its facts and the moderator's
word segmentation alike.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from broadcaster.brain.textnorm import normalize

log = logging.getLogger(__name__)

_TOKEN_OK = re.compile(r"[0-9a-z\u3400-\u9fff]")
CHAR_MARK = "\x01"
CHAR_WEIGHT = 0.3
_ALNUM = re.compile(r"(?=.*[a-z])(?=.*\d)[a-z0-9]+")
_LETTERS_OR_DIGITS = re.compile(r"[a-z]+|\d+")
_CJK_WORD = re.compile(r"[\u3400-\u9fff]+")
# Words that say nothing about which passage is meant.
STOPWORDS = frozenset(
    ["的", "了", "吗", "呢", "吧", "啊", "呀", "啦", "是", "我", "你", "他", "她", "它", "们", "这", "那", "个", "有", "在", "也", "都", "就", "和", "与", "及", "或", "请问", "主播", "一下", "什么", "怎么", "多少", "可以", "能", "会", "要", "想", "还", "哦", "嘛", "么", "多久", "多长", "多大", "多重", "时候", "什么时候", "怎么办", "怎么样", "怎样", "如何", "能不能", "可不可以", "是不是", "有没有", "为什么", "为啥", "哪些", "哪个", "哪里", "a", "an", "the", "is", "are", "of", "to", "and", "or", "what", "how", "do", "does", "can", "i", "you"]
)


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    text: str
    title: str = ""
    file: str = ""


@dataclass(frozen=True, slots=True)
class Hit:
    passage: Passage
    score: float
    match: float  # share of the query's IDF mass this passage covers (0–1)


_jieba_lock = threading.Lock()
_jieba_ready = False


def _jieba() -> Any:
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return jieba


def tokenize(text: str) -> list[str]:
    """jieba search-mode tokens of the normalized text, without punctuation and stop words.

    Multi-character Chinese words also contribute their single characters (marked with CHAR_MARK
    and weighted CHAR_WEIGHT in scoring), so "退货" still finds "退换货" when jieba cuts them
    differently, while whole-word matches still decide the ranking.
    """
    jieba = _jieba()
    out: list[str] = []
    for t in jieba.lcut_for_search(normalize(text)):
        if not _TOKEN_OK.search(t) or t in STOPWORDS:
            continue
        out.append(t)
        if len(t) > 1 and _CJK_WORD.fullmatch(t):
            out.extend(CHAR_MARK + c for c in t if c not in STOPWORDS)
        elif _ALNUM.fullmatch(t):
            # a spec code also as its letters and its number ("spf50" finds "SPF多少", "ipx4" finds "ipx")
            out.extend(CHAR_MARK + part for part in _LETTERS_OR_DIGITS.findall(t))
        elif t.isascii() and t.isalpha() and len(t) >= 2:
            out.append(CHAR_MARK + t)  # …and a bare code word meets it there
    return out


# -- BM25 -------------------------------------------------------------------------------------------------


class BM25Index:
    def __init__(self, passages: Sequence[Passage], *, k1: float = 1.5, b: float = 0.75,
                 tokenizer: Callable[[str], list[str]] = tokenize) -> None:
        self.passages = list(passages)
        self.k1, self.b = k1, b
        self.tokenizer = tokenizer
        postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = np.zeros(len(self.passages), dtype=np.float64)
        for i, p in enumerate(self.passages):
            tokens = tokenizer(p.text)
            lengths[i] = len(tokens)
            counts: dict[str, int] = defaultdict(int)
            for t in tokens:
                counts[t] += 1
            for t, c in counts.items():
                postings[t].append((i, c))
        n = max(1, len(self.passages))
        avg = float(lengths.mean()) if len(self.passages) else 1.0
        self._norm = k1 * (1 - b + b * lengths / max(avg, 1e-9))
        self._idf: dict[str, float] = {}
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for t, plist in postings.items():
            df = len(plist)
            self._idf[t] = math.log(1 + (n - df + 0.5) / (df + 0.5))
            ids = np.fromiter((i for i, _ in plist), dtype=np.int64, count=df)
            tfs = np.fromiter((c for _, c in plist), dtype=np.float64, count=df)
            self._postings[t] = (ids, tfs)

    def __len__(self) -> int:
        return len(self.passages)

    def knows(self, word: str) -> bool:
        """Whether a passage uses the word (as jieba cuts it)."""
        return any(t in self._idf for t in self.tokenizer(word) if not t.startswith(CHAR_MARK))

    def search(self, query: str, k: int = 3) -> list[Hit]:
        terms = list(dict.fromkeys(self.tokenizer(query)))
        if not terms or not self.passages:
            return []
        # Unknown query terms still count in the IDF mass (as if in one passage), so a query about
        # something the KB never mentions scores a low match.
        n = len(self.passages)
        unknown_idf = math.log(1 + (n - 1 + 0.5) / 1.5)
        weights = {t: CHAR_WEIGHT if t.startswith(CHAR_MARK) else 1.0 for t in terms}
        total_idf = sum(self._idf.get(t, unknown_idf) * weights[t] for t in terms)
        scores = np.zeros(n)
        covered = np.zeros(n)
        for t in terms:
            post = self._postings.get(t)
            if post is None:
                continue
            ids, tfs = post
            idf = self._idf[t] * weights[t]
            scores[ids] += idf * tfs * (self.k1 + 1) / (tfs + self._norm[ids])
            covered[ids] += idf
        if k >= n:
            order = np.argsort(-scores)
        else:
            top = np.argpartition(-scores, k)[:k]
            order = top[np.argsort(-scores[top])]
        return [
            Hit(self.passages[i], float(scores[i]), float(covered[i] / total_idf) if total_idf else 0.0)
            for i in order[:k]
            if scores[i] > 0
        ]


def explain_terms(index: BM25Index, query: str, passage_id: str) -> list[tuple[str, float]]:
    """Each query term's share of a passage's BM25 score (term, contribution), largest first."""
    terms = list(dict.fromkeys(index.tokenizer(query)))
    try:
        i = next(j for j, p in enumerate(index.passages) if p.id == passage_id)
    except StopIteration:
        return []
    out = []
    for t in terms:
        post = index._postings.get(t)
        if post is None:
            continue
        ids, tfs = post
        where = np.flatnonzero(ids == i)
        if where.size:
            tf = float(tfs[where[0]])
            w = CHAR_WEIGHT if t.startswith(CHAR_MARK) else 1.0
            out.append((t.replace(CHAR_MARK, "·"), index._idf[t] * w * tf * (index.k1 + 1) / (tf + index._norm[i])))
    return sorted(out, key=lambda x: -x[1])

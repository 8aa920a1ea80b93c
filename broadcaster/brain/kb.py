"""A room's knowledge base: Markdown/YAML/text files chunked into passages, BM25 over jieba tokens.

Passages get stable ids (`relative/path.md#3`). FAQ files (YAML lists of {q, a}, or a mapping with a
`faq:` list) become one passage per pair and also warm the answer cache. Product sheets (YAML
mappings) are flattened to "key: value" lines and chunked per top-level key. Markdown is chunked
per heading, paragraphs packed up to `chunk_chars`, each chunk carrying its heading.

Retrieval is BM25 (k1=1.5, b=0.75) with an inverted index, so a query costs time proportional to
the postings of its terms rather than to the number of passages. Optionally a dense index (a local
sentence-transformers style model) is fused with BM25 by reciprocal rank. `KnowledgeBase` rebuilds
itself in a worker thread when the files change.

Without a model, `kb_answer` answers from the FAQ entry meant or the best relevant passage, preferring what says
what each slot of the question asks, in the unit asked, and adds the other slot's sentence when a comment asks two.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from broadcaster.brain.claims import FactClaims
from broadcaster.brain.embed import Embeddings
from broadcaster.brain.facts import FactIndex, facts_of
from broadcaster.brain.guard import absolute_claim
from broadcaster.brain.intent import FaqMatch, asked_units, evidence, retrieval_query, slots, states_unit
from broadcaster.brain.sentences import split_sentences
from broadcaster.brain.textnorm import normalize

log = logging.getLogger(__name__)

_SUFFIXES = (".md", ".markdown", ".yaml", ".yml", ".txt")
_TOKEN_OK = re.compile(r"[0-9a-z\u3400-\u9fff]")
CHAR_MARK = "\x01"
CHAR_WEIGHT = 0.3
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


@dataclass(slots=True)
class Corpus:
    passages: list[Passage] = field(default_factory=list)
    faq: list[tuple[str, str, str]] = field(default_factory=list)  # (question, answer, passage id)


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
    return out


# -- loading ----------------------------------------------------------------------------------------------


def _chunk_paragraphs(paragraphs: Iterable[str], limit: int) -> list[str]:
    chunks: list[str] = []
    cur = ""
    for para in paragraphs:
        para = para.strip()
        if not para:
            continue
        while len(para) > limit:  # an overlong paragraph is cut at sentence ends
            pieces = split_sentences(para, max_chars=limit)
            first = ""
            for p in pieces:
                if len(first) + len(p) > limit and first:
                    break
                first += p
            if not first:
                first = para[:limit]
            if cur:
                chunks.append(cur)
                cur = ""
            chunks.append(first)
            para = para[len(first) :].strip() if para.startswith(first) else para[limit:]
        if cur and len(cur) + len(para) + 1 > limit:
            chunks.append(cur)
            cur = ""
        cur = f"{cur}\n{para}" if cur else para
    if cur:
        chunks.append(cur)
    return chunks


def _markdown(text: str, limit: int) -> list[tuple[str, str]]:
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*)$", line)
        if m:
            sections.append((m.group(1).strip(), []))
        else:
            sections[-1][1].append(line)
    out: list[tuple[str, str]] = []
    for title, lines in sections:
        paragraphs = re.split(r"\n\s*\n", "\n".join(lines))
        for chunk in _chunk_paragraphs(paragraphs, limit):
            out.append((title, chunk))
    return out


_STARTS_WITH_FIGURE = re.compile(r"^(?:[\d.¥￥$]|约|仅|只|[零〇一二两三四五六七八九十百千万]+[个只罐瓶盒件袋包年月天周小分克斤两元块种款次度毫升]|"
                                  r"半[个年月天小斤])")


def _said_with(key: str, value: Any) -> str:
    """One key of a nested mapping said as speech: "日常价" + 128元 → "日常价128元", "颜色" + 黑色 → "颜色是黑色"."""
    v = str(value).strip()
    if isinstance(value, bool):  # 可充电: true → "可充电", 赠品: false → "没有赠品"
        return key if value else f"没有{key}"
    if not v or _STARTS_WITH_FIGURE.match(v) or key.endswith(("是", "为", "：", ":")):
        return f"{key}{v}"
    return f"{key}是{v}"


def _flatten(node: Any, prefix: str = "") -> list[str]:
    """A YAML value as lines of text. A mapping of plain values under a key reads as one line of speech ("价格：
    日常价128元，直播间到手价99元"), not one "价格 日常价：128元" line per key, so a sentence taken from it for an
    extractive answer (or quoted by a model) sounds like someone talking."""
    if isinstance(node, dict) and prefix and node and all(not isinstance(v, (dict, list)) for v in node.values()):
        # values that have commas of their own are kept apart by semicolons (each a sentence to pick)
        sep = "；" if any(re.search(r"[，,]", str(v)) for v in node.values()) else "，"
        return [f"{prefix}：{sep.join(_said_with(str(k), v) for k, v in node.items())}"]
    if isinstance(node, dict):
        lines: list[str] = []
        for k, v in node.items():
            lines.extend(_flatten(v, f"{prefix}{k}" if not prefix else f"{prefix} {k}"))
        return lines
    if isinstance(node, list):
        if all(not isinstance(v, (dict, list)) for v in node):
            return [f"{prefix}：{'、'.join(str(v) for v in node)}"]
        lines = []
        for v in node:
            lines.extend(_flatten(v, prefix))
        return lines
    return [f"{prefix}：{node}" if prefix else str(node)]


def faq_pairs(data: Any) -> list[tuple[str, str]] | None:
    items = data.get("faq") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        return None
    pairs: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        q = item.get("q", item.get("question"))
        a = item.get("a", item.get("answer"))
        if not q or not a:
            return None
        for question in q if isinstance(q, list) else [q]:
            pairs.append((str(question), str(a)))
    return pairs


def kb_files(root: Path) -> list[Path]:
    """The KB's files, sorted (so ids are stable). Hidden paths are skipped: a Kubernetes ConfigMap mount holds
    every file twice, once more under its ..<timestamp> folder, and editors leave .swp/.~ files."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def load_corpus(root: Path, chunk_chars: int = 300) -> Corpus:
    """Reads every Markdown/YAML/text file under root into passages."""
    corpus = Corpus()
    for path in kb_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("kb: cannot read %s: %s", path, exc)
            continue
        chunks: list[tuple[str, str]] = []
        if path.suffix.lower() in (".yaml", ".yml"):
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                log.warning("kb: %s is not valid YAML (%s); skipped", path, exc)
                continue
            pairs = faq_pairs(data)
            if pairs is not None:
                seen: dict[str, str] = {}
                for q, a in pairs:
                    pid = seen.get(a, "")
                    if not pid:  # alternative phrasings of one question share one passage
                        pid = seen[a] = f"{rel}#{len(seen)}"
                        corpus.passages.append(Passage(pid, f"问：{q}\n答：{a}", q, rel))
                    corpus.faq.append((q, a, pid))
                continue
            if isinstance(data, dict):
                title = str(data.get("name", data.get("title", path.stem)))
                for key, value in data.items():
                    if key in ("name", "title") and isinstance(value, str):
                        continue  # the sheet's title, carried by every chunk; "name：…" is nothing to say
                    lines = _flatten(value, str(key))
                    for chunk in _chunk_paragraphs(lines, chunk_chars):
                        chunks.append((title, chunk))
            elif data is not None:
                chunks = [(path.stem, c) for c in _chunk_paragraphs(_flatten(data), chunk_chars)]
        elif path.suffix.lower() in (".md", ".markdown"):
            chunks = _markdown(text, chunk_chars)
        else:
            chunks = [(path.stem, c) for c in _chunk_paragraphs(re.split(r"\n\s*\n", text), chunk_chars)]
        for i, (title, chunk) in enumerate(chunks):
            body = chunk if not title or chunk.startswith(title) else f"{title}\n{chunk}"
            corpus.passages.append(Passage(f"{rel}#{i}", body, title, rel))
    return corpus


def files_signature(root: Path) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime_ns, size) of every KB file: any edit, addition or removal changes it."""
    if not root.is_dir():
        return ()
    out = []
    for p in kb_files(root):
        st = p.stat()
        out.append((p.as_posix(), st.st_mtime_ns, st.st_size))
    return tuple(out)


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


def rrf_fuse(rankings: Sequence[Sequence[Hit]], k: int, c: float = 60.0) -> list[Hit]:
    """Reciprocal-rank fusion; the fused hit keeps the best `match` any ranking gave it."""
    fused: dict[str, float] = defaultdict(float)
    best: dict[str, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking):
            fused[hit.passage.id] += 1.0 / (c + rank + 1)
            prev = best.get(hit.passage.id)
            if prev is None or hit.match > prev.match:
                best[hit.passage.id] = hit
    ids = sorted(fused, key=lambda pid: -fused[pid])[:k]
    return [Hit(best[pid].passage, fused[pid], best[pid].match) for pid in ids]


class DenseIndex:
    """Cosine similarity over embeddings of every passage (brain.embed: passages in the passage role, the question
    in the query role)."""

    def __init__(self, passages: Sequence[Passage], matrix: np.ndarray, embed: Embeddings) -> None:
        self.passages = list(passages)
        self.matrix = matrix
        self.embed = embed

    def search(self, query: str, k: int = 3) -> list[Hit]:
        q = self.embed.query_sync([query]) if self.passages else None
        if q is None:
            return []
        sims = self.matrix @ q[0]
        order = np.argsort(-sims)[:k]
        # No `match`: an embedding's cosine is high for every passage (e5 scores bunch at 0.8–0.9), so it says nothing of
        # how well a passage covers the question; which fact answers is FactIndex's margin, not a passage's cosine.
        return [Hit(self.passages[i], float(sims[i]), 0.0) for i in order]


class KnowledgeBase:
    """A room's passages and indexes; `search` is async and runs in a worker thread."""

    def __init__(self, root: Path | None, *, chunk_chars: int = 300, top_k: int = 3,
                 check_interval_s: float = 5.0, embed: Embeddings | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.root = root
        self.chunk_chars = chunk_chars
        self.top_k = top_k
        self.check_interval_s = check_interval_s
        self.embed = embed
        self.clock = clock
        self.corpus = Corpus()
        self.bm25 = BM25Index([])
        self.dense: DenseIndex | None = None
        self.facts = FactIndex([], None)
        self.claims = FactClaims(())
        self._by_id: dict[str, Passage] = {}
        self._by_id_of: Corpus | None = None
        self.signature: tuple[tuple[str, int, int], ...] = ()
        self.builds = 0
        self.changed_ids: set[str] = set()
        self.version = ""  # a hash of every passage: answers cached under another version are stale
        self._last_check = -float("inf")
        self._lock = asyncio.Lock()

    @property
    def passages(self) -> list[Passage]:
        return self.corpus.passages

    def passage(self, pid: str) -> Passage | None:
        if self._by_id_of is not self.corpus:
            self._by_id = {p.id: p for p in self.corpus.passages}
            self._by_id_of = self.corpus
        return self._by_id.get(pid)

    @property
    def titles(self) -> str:
        """The KB's titles (a product sheet's name, a Markdown file's first heading): what the shop sells."""
        return " ".join(dict.fromkeys(p.title for p in self.corpus.passages if p.title))

    def build_sync(self) -> None:
        if self.root is None:
            return
        signature = files_signature(self.root)
        corpus = load_corpus(self.root, self.chunk_chars)
        bm25 = BM25Index(corpus.passages)
        dense, facts = None, facts_of(corpus.passages)
        vectors = None
        if self.embed is not None and self.embed.available and corpus.passages:
            # passages and facts in one call (one trip to the embedding thread)
            texts = [p.text for p in corpus.passages] + FactIndex.embed_texts(facts)
            matrix = self.embed.passage_sync(texts)
            if matrix is not None:
                dense = DenseIndex(corpus.passages, matrix[: len(corpus.passages)], self.embed)
                vectors = matrix[len(corpus.passages):]
        fact_index = FactIndex(facts, vectors)
        claims = FactClaims(f.text for f in facts)
        old = {p.id: p.text for p in self.corpus.passages}
        new = {p.id: p.text for p in corpus.passages}
        # Swap all at once: a search running concurrently sees the old or the new index, never a mix.
        self.corpus, self.bm25, self.dense, self.facts, self.signature = corpus, bm25, dense, fact_index, signature
        self.claims = claims
        # Passages that changed or disappeared: answers citing them must not be served any more.
        self.changed_ids = {pid for pid, text in old.items() if new.get(pid) != text}
        self.version = hashlib.sha1("\x00".join(f"{p.id}\x01{p.text}" for p in corpus.passages).encode()).hexdigest()[:16]
        self.builds += 1
        log.info("kb %s: %d passages, %d FAQ pairs", self.root, len(corpus.passages), len(corpus.faq))

    async def build(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self.build_sync)
            self._last_check = self.clock()

    async def maybe_rebuild(self) -> bool:
        """Rebuilds when a file changed since the last build (checked at most every check_interval_s)."""
        if self.root is None or self.clock() - self._last_check < self.check_interval_s:
            return False
        self._last_check = self.clock()
        signature = await asyncio.to_thread(files_signature, self.root)
        if signature == self.signature:
            return False
        await self.build()
        return True

    def search_sync(self, query: str, k: int | None = None) -> list[Hit]:
        k = k or self.top_k
        hits = self.bm25.search(query, k=max(k, 10) if self.dense is not None else k)
        if self.dense is not None:
            return rrf_fuse([hits, self.dense.search(query, k=10)], k)
        return hits

    async def search(self, query: str, k: int | None = None) -> list[Hit]:
        await self.maybe_rebuild()
        return await asyncio.to_thread(self.search_sync, query, k)

    def retrieve_sync(self, question: str, min_match: float, k: int | None = None) -> tuple[list[Hit], list[Hit]]:
        """(hits, relevant) for a viewer's question, its slot first: relevant passages carrying what the
        question's slot asks for (a price for "杯盖多少钱") come first; when none does, the question is
        searched again with its slot's words added ("什么时候发" + 发货 快递)."""
        hits = self.search_sync(question, k)
        relevant = [h for h in hits if h.match >= min_match]
        wanted = slots(question)
        if not wanted:
            return hits, relevant
        answering = [h for h in relevant if any(evidence(s, body(h.passage)) for s in wanted)]
        if all(_other_question(h.passage, wanted) for h in answering):  # none, or only FAQ entries asking another slot
            more = self.search_sync(retrieval_query(question, self.bm25.knows), k)
            ids = {h.passage.id for h in answering}
            answering = [h for h in more if h.match >= min_match and h.passage.id not in ids
                         and any(evidence(s, body(h.passage)) for s in wanted)] + answering
            ids = {h.passage.id for h in answering}
            hits = answering + [h for h in hits if h.passage.id not in ids]
        units = asked_units(question)
        # An FAQ entry asking another slot ("会缩水吗" for "怎么洗") answers last; a quantity question's passages stating a
        # figure in the unit asked come first ("续几回" → "续水3次").
        answering.sort(key=lambda h: (_other_question(h.passage, wanted), bool(units) and not states_unit(units, body(h.passage))))
        ids = {h.passage.id for h in answering}
        return hits, answering + [h for h in relevant if h.passage.id not in ids]

    async def retrieve(self, question: str, min_match: float, k: int | None = None) -> tuple[list[Hit], list[Hit]]:
        await self.maybe_rebuild()
        return await asyncio.to_thread(self.retrieve_sync, question, min_match, k)


def body(p: Passage) -> str:
    """A passage without the title line every chunk of its file carries (a product's name says nothing of a slot)."""
    return p.text.split("\n", 1)[1] if p.title and p.text.startswith(p.title + "\n") else p.text


_LABELLED = re.compile(r"^([^，。；：:\s]{1,10})[：:]\s*(.+)$", re.S)


def spoken(sentence: str) -> str:
    """A sheet line as speech: its "key：" label goes when what follows says it better ("价格：日常价128元，…" →
    "日常价128元，…", "冲泡：水温80度…" → "水温80度…"), and joins a figure it names ("保质期：18个月" → "保质期18个月");
    a label before words is kept ("配送：全国包邮")."""
    sentence = sentence.strip().rstrip("；;")
    m = _LABELLED.match(sentence)
    if m is None:
        return sentence
    label, rest = m.groups()
    if _STARTS_WITH_FIGURE.match(rest):
        return label + rest
    first = re.split(r"[，,；;。]", rest, maxsplit=1)[0]
    return rest if re.search(r"\d", first) else sentence


def _other_question(p: Passage, wanted: set[str]) -> bool:
    """An FAQ passage whose question asks slots, none of them wanted."""
    if not p.text.startswith("问：") or "\n答：" not in p.text:
        return False
    asked = slots(p.text[2:].split("\n答：", 1)[0])
    return bool(asked) and not asked & wanted


def extract_answer(query: str, hit: Hit, max_sentences: int = 2) -> str:
    """The sentences of a passage that answer the query: those carrying what its slot asks for (a price
    for a price question, see intent.SLOTS), those stating a figure in the unit a quantity question asks
    (intent.asked_units), then those sharing the most tokens with it (in passage order)."""
    text = hit.passage.text
    if "\n答：" in text:  # an FAQ passage: the answer is the whole point
        return text.split("\n答：", 1)[1].strip()
    sentences = [s for line in body(hit.passage).splitlines() for s in split_sentences(line, max_chars=80)]
    if not sentences:
        return ""
    q = set(tokenize(query))
    wanted = slots(query)
    units = asked_units(query)
    scored = []
    for i, s in enumerate(sentences):
        slot_hit = any(evidence(slot, s) for slot in wanted)
        # a quantity question's sentence states a figure in the unit asked (几克 → "3克茶叶…", not "续水3次")
        scored.append((10 * slot_hit + 5 * states_unit(units, s) + len(q & set(tokenize(s))), -i, s))
    best = sorted(scored, reverse=True)[:max_sentences]
    if wanted and best[0][0] >= 10:
        best = [b for b in best if b[0] >= 10]  # only sentences that answer the slot
    best = [b for b in best if b[0] > 0] or best[:1]
    chosen = sorted(best, key=lambda x: -x[1])
    out = []
    for _, _, s in chosen:
        s = spoken(s)
        if s and s[-1] not in "。！？!?.;；":
            s += "。"
        out.append(s)
    return "".join(out)


def kb_answer(question: str, faq: FaqMatch | None, relevant: Sequence[Hit], *,
              absolute_claims: bool = True) -> tuple[str, str]:
    """(answer, passage id) without a model: the FAQ entry meant, else the best relevant passage's sentences. An FAQ
    entry that does not say what every slot of the question asks ("原价多少" → an entry without the list price,
    "换货运费谁出" → one without the postage) or not in the unit asked ("几天能到" → "48小时内发货") gives way to the
    passage sentences that do ("一般两到四天送达"), when there are. ("", "") when the KB has no answer.
    `absolute_claims` (brain.guard.absolute_claims): clauses with one are left out, as the guard would withhold them."""
    text, pid = _kb_answer(question, faq, relevant)
    text = _and_the_other_slot(question, text, relevant)
    return (without_absolute_clauses(text) if absolute_claims else text), pid


_CLAUSES = re.compile(r"[^，,；;。！？!?]+[，,；;。！？!?]*")


def without_absolute_clauses(text: str) -> str:
    """A KB answer with the clauses that make an absolute claim left out ("这款是我们店销量第一的茶，回购的老客很多。" →
    "回购的老客很多。"): the guard withholds a whole sentence with one, and the rest of it is true and is the answer
    ("卖得好不好"). The text unchanged when nothing else would be left."""
    kept: list[str] = []
    for m in _CLAUSES.finditer(text):
        clause = m.group(0)
        if absolute_claim(clause):
            if kept and clause[-1] in "。！？!?" and kept[-1][-1] in "，,；;":
                kept[-1] = kept[-1][:-1] + clause[-1]  # the sentence ends where the left-out clause ended it
            continue
        kept.append(clause)
    out = "".join(kept).strip()
    return out if out else text


def _kb_answer(question: str, faq: FaqMatch | None, relevant: Sequence[Hit]) -> tuple[str, str]:
    units, wanted = asked_units(question), slots(question)

    def answers(text: str) -> bool:  # says what every slot asks, in the unit asked
        return all(evidence(s, text) for s in wanted) and (not units or states_unit(units, text))

    if faq is not None and (not relevant or answers(faq.answer)):
        return faq.answer, faq.passage_id
    if relevant:
        text = extract_answer(question, relevant[0])
        if faq is None or answers(text):
            return text, relevant[0].passage.id
    return (faq.answer, faq.passage_id) if faq is not None else ("", "")


def _and_the_other_slot(question: str, text: str, relevant: Sequence[Hit]) -> str:
    """Two questions in one comment ("包邮吗，什么时候发货"): when the answer says what one slot asks and not the
    other, a relevant passage's first sentence that does is added (one, so the answer stays short)."""
    wanted = slots(question)
    if not text or len(wanted) < 2:
        return text
    missing = sorted(s for s in wanted if not evidence(s, text))
    if not missing or len(missing) == len(wanted):
        return text
    said = normalize(text)
    for h in relevant:
        t = h.passage.text
        lines = [t.split("\n答：", 1)[1]] if "\n答：" in t else body(h.passage).splitlines()  # an FAQ's answer only
        for line in lines:
            for sentence in split_sentences(line, max_chars=80):
                if evidence(missing[0], sentence) and normalize(sentence).rstrip("。") not in said:
                    sentence = spoken(sentence)
                    return text + (sentence if sentence[-1] in "。！？!?.;；" else sentence + "。")
    return text

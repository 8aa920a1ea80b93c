"""A room's knowledge base: its passages (corpus.py) with a BM25 index, a dense index and its facts, rebuilt in a
worker thread when the files change; and the answer without a model.

Optionally a dense index (brain.embed) is fused with BM25 by reciprocal rank. `FactIndex` (facts.py) holds the KB line
by line for the fact that answers a question, and `FactClaims` (claims.py) what the facts deny and limit.

Without a model, `kb_answer` answers from the FAQ entry meant or the best relevant passage, preferring what says
what each slot of the question asks, in the unit asked, and adds the other slot's sentence when a comment asks two.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from broadcaster.brain.claims import FactClaims
from broadcaster.brain.corpus import Corpus, body, files_signature, load_corpus, spoken
from broadcaster.brain.embed import Embeddings
from broadcaster.brain.facts import FactIndex, facts_of
from broadcaster.brain.guard_rules import absolute_claim
from broadcaster.brain.hubs import background
from broadcaster.brain.intent import FaqMatch, asked_units, evidence, retrieval_query, slots, states_unit
from broadcaster.brain.lexical import BM25Index, Hit, Passage, tokenize
from broadcaster.brain.sentences import split_sentences
from broadcaster.brain.textnorm import normalize

log = logging.getLogger(__name__)


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
        """What the shop sells: the names of its product sheets and the top headings of its Markdown files."""
        return " ".join(dict.fromkeys(self.corpus.names))

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
        # a Chinese sheet's facts are measured against how viewers ask in general (hubs.py); the background is Chinese
        chinese = sum(any("\u4e00" <= c <= "\u9fff" for c in f.text) for f in facts) * 2 > len(facts)
        fact_index = FactIndex(facts, vectors, background(self.embed) if vectors is not None and chinese else None)
        claims = FactClaims((f.text for f in facts), context=corpus.names)
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
    return without_clauses(text, absolute_claim)


# An absolute claim said of a noun, before it (顶级食品级硅胶, 最高端的蒸汽加热技术): a word to leave out, not the clause.
_ATTRIBUTIVE = re.compile(r"[\u4e00-\u9fff]{0,3}?的|(?<=[级端尖流档配])")
_NOUN_AFTER = re.compile(r"[\u4e00-\u9fff]{4}")


def without_absolute_words(text: str) -> str:
    """The text with each absolute claim said before a noun left out of its clause ("顶级食品级硅胶密封圈，绝对不漏。" →
    "食品级硅胶密封圈，绝对不漏。"), then the clauses still making one (without_absolute_clauses)."""
    out = []
    for m in _CLAUSES.finditer(text):
        clause = m.group(0)
        for _ in range(3):
            claim = absolute_claim(clause)
            at = clause.find(claim) if claim else -1
            a = _ATTRIBUTIVE.match(clause, at + len(claim)) if at >= 0 else None
            if a is None or not _NOUN_AFTER.match(clause, a.end()):
                break
            clause = clause[:at] + clause[a.end():]
        out.append(clause)
    return without_absolute_clauses("".join(out))


def without_clauses(text: str, drop: Callable[[str], object]) -> str:
    """The text with the clauses `drop` is true of left out; unchanged when nothing else would be left."""
    kept: list[str] = []
    for m in _CLAUSES.finditer(text):
        clause = m.group(0)
        if drop(clause):
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

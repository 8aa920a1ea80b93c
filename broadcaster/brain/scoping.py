"""Which facts answer a viewer, as the Brain's mixin: the product a comment names or the one on screen (with the
shop's shared facts, or the shop's alone when the product's have nothing), the reading of the comment in that scope,
the show's live values (the price now, stock) as answers, and what the room chose to say nothing to and why."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from broadcaster.brain.config import BrainConfig
from broadcaster.brain.embed import Embeddings
from broadcaster.brain.figure_runs import warm_guard
from broadcaster.brain.intent import FaqMatcher
from broadcaster.brain.kb import KnowledgeBase
from broadcaster.brain.products import Catalogue, Scope
from broadcaster.brain.understand import Reading, Understanding
from broadcaster.lines import Line, LineSource
from common.bounded import BoundedDict
from danmaku.event import EventKind


class Scoping:
    """The Brain's products and readings (broadcaster/brain/core.py holds the state)."""

    cfg: BrainConfig
    kb: KnowledgeBase
    faq: FaqMatcher
    products: Catalogue
    embeddings: Embeddings
    understanding: Understanding
    _readings: BoundedDict[int, Reading]
    _silences: BoundedDict[int, str]

    async def _has_context(self, question: str, scope: Scope) -> bool:
        """Passages that share the question's words, at least half as well as kb.min_match asks."""
        if not scope.kb.passages:
            return False
        hits, relevant = await scope.kb.retrieve(question, self.cfg.kb.min_match)
        return bool(relevant) or any(h.match >= self.cfg.kb.min_match / 2 for h in hits)

    async def _read(self, line: Line, question: str, scope: Scope) -> tuple[Reading | None, Scope]:
        """The reading of a viewer's comment or super chat (None for other lines), and the scope that answers it: the
        product's facts, else the shop's when the product's have nothing (shipping, returns)."""
        ev = line.event
        if ev is None or ev.kind not in (EventKind.COMMENT, EventKind.SUPER_CHAT):
            return None, scope
        question = question or ev.text.strip()  # friendly emoji alone leave the cleaned line empty ("❤️❤️")
        if not question:
            return None, scope
        reading = await self.understanding.read(question, scope.kb.facts, scope.faq.match(question))
        if scope.product and not reading.answerable and self.kb.passages:
            shop = await self.understanding.read(question, self.kb.facts, self.faq.match(question))
            if shop.answerable:
                reading, scope = shop, Scope(self.kb, self.faq, None, "", self.kb)
        self._readings[line.id] = reading
        return reading, scope

    def _scope_for(self, question: str) -> Scope:
        """The product a question is about (named, else on screen) with the shop's shared facts, or the shop's."""
        product = self.products.subject(question) if self.products else None
        if product is None:
            return Scope(self.kb, self.faq, None, "", self.kb)
        return Scope(product.kb, product.faq, product.id, product.name, self.kb)

    def _live_answer(self, scope: Scope, reading: Reading) -> str:
        product = self.products.items.get(scope.product or "") if self.products else None
        return self.products.live_answer(product, reading.slots) if product is not None and reading.question else ""

    async def set_products(self, catalogue: Sequence[Any], live: Callable[[str], Any]) -> None:
        """The room's products (director.products): each product's facts indexed apart, and the show's live values
        (see broadcaster/brain/products.py). Called before going on air and before a reload swaps in."""
        await self.products.build(catalogue, live, self.embeddings, chunk_chars=self.cfg.kb.chunk_chars,
                                  top_k=self.cfg.kb.top_k)
        for product in self.products.items.values():
            await asyncio.to_thread(warm_guard, tuple(p.text for p in product.kb.passages))

    def present(self, product_id: str | None) -> None:
        """From now, `product_id` is the product on screen: a question naming no product is about it."""
        self.products.on_screen = product_id if product_id in self.products.items else None

    def silence_of(self, line: Line) -> str:
        """Why a viewer's line got no sentence ('' if it got one or was not a viewer's), for the audit log."""
        return self._silences.pop(line.id, "") or ("nothing to say" if line.source == LineSource.ANSWER else "")

    def reading_of(self, line: Line) -> Reading | None:
        return self._readings.get(line.id)

"""A room that sells several products: each product's facts apart, the product a question is about, live facts.

The show tells the brain its products (`set_products`: each product's facts folder or file, its price key and offers,
and a `live(id)` callable with what the show knows now: the product on screen, stock, offers running with their time
left and those that ended, the price now) and which one is on screen (`present`). The brain answers a question from
the facts of the product it names (its name or an alias), else from the product on screen, and from the shop's shared
knowledge base when the product's own facts have nothing (shipping, returns). A figure is only ever grounded by the
facts of the product the answer is about: the answer's `Scope` holds that product's knowledge base and the shop's,
never another product's.

The show's live values are facts: the price now (the value the card shows) answers a price question, stock set by the
operator answers a stock question, a running offer is said with its time left — and an offer that has ended is never
said: a sentence naming its text or its price fact is withheld.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcaster.brain.embed import Embeddings
from broadcaster.brain.intent import FaqMatcher
from broadcaster.brain.kb import KnowledgeBase

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Scope:
    """What one answer may draw on: a knowledge base and its FAQ, the product it is about (None: the shop's), and the
    shop's shared knowledge base beside it."""

    kb: KnowledgeBase
    faq: FaqMatcher
    product: str | None = None
    name: str = ""
    shared: KnowledgeBase | None = None

    @property
    def passages(self) -> list[Any]:
        return [*self.kb.passages, *(self.shared.passages if self.shared is not None and self.shared is not self.kb else ())]


@dataclass(slots=True)
class _Product:
    id: str
    name: str
    names: tuple[str, ...]
    kb: KnowledgeBase
    faq: FaqMatcher
    price_key: str
    offers: tuple[Any, ...]


class Catalogue:
    """The room's products as the brain knows them (empty in a room that sells one thing from brain.kb)."""

    def __init__(self) -> None:
        self.items: dict[str, _Product] = {}
        self.live: Callable[[str], Any] | None = None
        self.on_screen: str | None = None

    def __bool__(self) -> bool:
        return bool(self.items)

    async def build(self, catalogue: Sequence[Any], live: Callable[[str], Any], embeddings: Embeddings, *,
                    chunk_chars: int, top_k: int) -> None:
        """Each product's facts indexed apart (with the room's embeddings); swapped in whole when all are built."""
        items: dict[str, _Product] = {}
        for p in catalogue:
            root = Path(p.facts)
            kb = KnowledgeBase(root, chunk_chars=chunk_chars, top_k=top_k, check_interval_s=0, embed=embeddings)
            await kb.build()
            faq = FaqMatcher(kb.corpus.faq, [x.text for x in kb.passages])
            # a viewer names a product by its kind more often than its brand: the name's endings count
            # ("轻语电热水壶" → 热水壶, 水壶; "云朵浴巾" → 浴巾)
            tails = [p.name[i:] for i in range(1, len(p.name) - 1)] if len(p.name) >= 3 else []
            names = tuple(n for n in dict.fromkeys((p.name, *p.aliases, *tails)) if len(n) >= 2)
            items[p.id] = _Product(p.id, p.name, names, kb, faq, p.price_key, tuple(p.offers))
            log.info("product %s: %d passages, %d facts", p.id, len(kb.passages), len(kb.facts))
        self.items, self.live = items, live
        if self.on_screen not in items:
            self.on_screen = None

    def subject(self, question: str) -> _Product | None:
        """The product a question names (its longest name or alias in the question), else the one on screen."""
        named = [(len(n), p) for p in self.items.values() for n in p.names if n and n in question]
        if named:
            return max(named, key=lambda x: x[0])[1]
        return self.items.get(self.on_screen or "")

    def state(self, product: _Product) -> Any:
        if self.live is None:
            return None
        try:
            return self.live(product.id)
        except (ValueError, KeyError):
            return None

    def ended(self, product: _Product) -> tuple[str, ...]:
        """What an ended offer of the product is said with: its text and its price fact's key (never voiced again)."""
        state = self.state(product)
        if state is None:
            return ()
        words: list[str] = []
        for offer in state.ended:
            words.append(offer.text)
            if offer.price_key:
                words.append(offer.price_key)
        return tuple(w for w in words if w)

    def live_answer(self, product: _Product, wanted: frozenset[str]) -> str:
        """The answer the show's live values give ('' when none): the price now (and a running offer with its time
        left) for a price question, the stock the operator set for a stock question."""
        state = self.state(product)
        if state is None:
            return ""
        running = [(o, left) for o, left in state.running if left > 0]
        if "stock" in wanted and state.stock is not None:
            return f"{product.name}已经卖完了。" if state.stock <= 0 else f"{product.name}还剩{state.stock}件。"
        if "price" in wanted and "list_price" not in wanted and state.price:
            key, value = state.price
            line = f"{product.name}现在{key}{value}。"
            for offer, left in running[:1]:
                line += f"{offer.text}，还剩{_duration(left)}。"
            return line
        return ""


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}小时{(seconds % 3600) // 60}分钟"
    if seconds >= 60:
        return f"{seconds // 60}分钟"
    return f"{seconds}秒"


def names_ended(text: str, ended: Sequence[str]) -> str:
    """The ended offer a sentence names ('' when none)."""
    squeezed = re.sub(r"\s+", "", text)
    return next((w for w in ended if re.sub(r"\s+", "", w) in squeezed), "")

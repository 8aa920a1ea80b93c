"""The product desk: which product is on screen, the running order, its offers and stock, and the talk Scene.

One product is presented at a time. A switch (the operator's "present X" or "next", the running order's turn
ending, the product on screen selling out) is only ever asked for here; it happens when the director picks the
next line, so at a line boundary: that line (`ProductLine.presents`) is the first of the new product's turn, and
the show puts the product's card on screen with its first sentence.

What is said comes from the room's talk track (director/talk.py), given the product on screen as a `Scene`: its
intro (a `once` segment), its own segments, its price and stock as slots, its running offer. Every figure a
product line says is that product's own: `{price}` is its price fact (or its running offer's), and a figure
written into its talk, intro, offer text or calls to action must be one its facts state (checked when the desk is
built). An offer is named only while it runs, with time to spare; once it ends, never.

All times come from the injected clock (the director's), so tests drive hours of selling in milliseconds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from broadcaster.director.products import (
    LiveProduct,
    OfferConfig,
    OfferFacts,
    ProductConfig,
    ProductFacts,
    ProductsConfig,
    ProductsError,
    fact_texts,
    read_fact,
    unstated_figures,
)
from broadcaster.director.talk import (
    Offer,
    Scene,
    Segment,
    TalkLine,
    TalkTrack,
    TalkTrackError,
    left_text,
    load_segments,
    parse_variants,
)
from broadcaster.director.triage import TriagedLine
from broadcaster.lines import LineKind, LineSource
from renderer.card import MAX_OFFER_S, Card

log = logging.getLogger(__name__)

LINE_LEAD_S = 10.0  # how long the last line that names an offer may take (see ProductsConfig.offer_margin_s)


@dataclass(frozen=True, slots=True)
class ProductLine(TriagedLine):
    """A script line of a products room: `product` is the product it is about ("" for the room's own lines),
    `offer` the offer it names (cut at that offer's end), `presents` the first line of the turn of the product now
    on screen (its card goes up with this line's first sentence; at the start that may be the room's opening)."""

    product: str = ""
    offer: str = ""
    presents: bool = False


@dataclass(slots=True)
class _Product:
    cfg: ProductConfig
    price: str  # the value of cfg.price_key in its facts
    offer_prices: dict[str, tuple[str, str]]  # offer id → (its price key, value)
    segments: tuple[Segment, ...]  # its intro, then its talk file's segments
    facts: tuple[str, ...]  # its fact files' texts (what the talk side's guard checks paraphrases against)
    facts_version: str
    stock: int | None
    offers: dict[str, OfferConfig] = field(default_factory=dict)


def load_product(p: ProductConfig, where: str) -> _Product:
    """Reads a product's facts (price, offer prices) and talk; ProductsError naming `where` (or the file) when
    they cannot be used, or when a line says a figure its facts do not state."""
    try:
        price, _ = read_fact(p.facts, p.price_key)
        offer_prices = {o.id: (o.price_key, read_fact(p.facts, o.price_key)[0])
                        for o in p.offers if o.price_key is not None}
        facts = fact_texts(p.facts)
    except ProductsError as exc:
        raise ProductsError(f"{where}: {exc}") from None
    said = [(f"{where}.intro", t) for t in p.intro]
    said += [(f"{where}.offers[{j}].{k}", t) for j, o in enumerate(p.offers) for k, ts in (("text", [o.text]),
                                                                                          ("cta", o.cta)) for t in ts]
    segments: list[Segment] = []
    if p.talk is not None:
        try:
            segments = load_segments(p.talk)  # its segments and those of the files it includes
        except TalkTrackError as exc:
            raise ProductsError(f"{where}.talk: {exc}") from None
        said += [(item.where, t.text) for seg in segments for item in seg.items for t in item.variants]
    all_facts = "\n".join(facts)
    for at, text in said:
        bad = unstated_figures(text, all_facts)
        if bad:
            raise ProductsError(f"{at}: {text!r} says {', '.join(bad)}, which the facts of {p.id!r} ({p.facts}) "
                                "do not state: a product's lines may only say its own figures")
    for seg in segments:
        seg.name = f"{p.id}/{seg.name}"
    try:
        intro = Segment(f"{p.id}/intro", [TalkLine(parse_variants(p.intro, f"{where}.intro"), f"{where}.intro",
                                                   f"{p.id}/intro")], once=True)
    except TalkTrackError as exc:
        raise ProductsError(str(exc)) from None
    version = hashlib.sha1("\x1e".join(facts).encode()).hexdigest()[:12]
    return _Product(p, price, offer_prices, (intro, *segments), facts, version, p.stock,
                    {o.id: o for o in p.offers})


class ProductDesk:
    def __init__(self, cfg: ProductsConfig, talk: TalkTrack, *, clock: Callable[[], float],
                 where: str = "director.products") -> None:
        self.cfg = cfg
        self.talk = talk
        self.clock = clock
        self.order = [p.id for p in cfg.items]
        self.items: dict[str, _Product] = {p.id: load_product(p, f"{where}.items[{i}]")
                                           for i, p in enumerate(cfg.items)}
        self.on_screen: str | None = None
        self.turn_started = -math.inf
        self.wanted: str | None = None  # to present at the next line boundary
        self.wanted_by = ""  # operator, order, sold_out, start
        self.presenting = False  # switched: the next line handed out is the first of the turn
        self.running: dict[tuple[str, str], float] = {}  # (product, offer) → when it ends (clock seconds)
        self.ended: dict[tuple[str, str], float] = {}  # (product, offer) → when it ended
        self.presented = 0  # switches made
        self.offer_events: list[tuple[str, str, str]] = []  # (product, offer, started|ended), for the show to audit

    # -- what the talk track, the brain and the card are told -----------------------------------------------
    def scene(self) -> Scene | None:
        """The product on screen for the talk track (None when none is)."""
        pid = self.on_screen
        if pid is None:
            return None
        p = self.items[pid]
        key, price = self.price_now(pid)
        now = self.clock()
        lead = self.cfg.offer_margin_s + LINE_LEAD_S
        offer = None
        for o, end in self._running(pid, now):
            offer = Offer(name=o.id, text=o.text, ends_mono=end - lead, cta=tuple(o.cta))
            break
        priced_by = next((end for o, end in self._running(pid, now) if o.id in p.offer_prices), None)
        if priced_by is not None and now >= priced_by - lead:
            key = price = None  # an offer's price that ends before a line said now would: no price is said
        values: Mapping[str, Any] = {"price": price, "price_label": key,
                                     "stock": str(p.stock) if p.stock is not None else None}
        return Scene(product=pid, name=p.cfg.name, values=values, facts=p.facts, facts_version=p.facts_version,
                     segments=p.segments if p.stock != 0 else (), offer=offer)

    def scenes(self) -> list[Scene]:
        """Each product as the talk track would see it on screen (for the material its window needs)."""
        saved = self.on_screen
        try:
            out = []
            for pid in self.order:
                self.on_screen = pid
                scene = self.scene()
                assert scene is not None
                out.append(scene)
            return out
        finally:
            self.on_screen = saved

    def changed(self) -> None:
        """Something the scene shows changed (a switch, an offer, stock): the talk track sees it now (its calls to
        action after gifts draw from the scene between script lines too)."""
        self.talk.present(self.scene())

    def catalogue(self) -> list[ProductFacts]:
        return [ProductFacts(p.cfg.id, p.cfg.name, tuple(p.cfg.aliases), p.cfg.facts, p.cfg.price_key,
                             tuple(OfferFacts(o.id, o.text, o.price_key) for o in p.cfg.offers))
                for p in self.items.values()]

    def live(self, product_id: str) -> LiveProduct:
        p = self._get(product_id)
        now = self.clock()
        running = tuple((OfferFacts(o.id, o.text, o.price_key), end - now) for o, end in self._running(product_id, now))
        ended = tuple(OfferFacts(o.id, o.text, o.price_key) for o in p.cfg.offers if (product_id, o.id) in self.ended)
        return LiveProduct(product_id, product_id == self.on_screen, p.stock, running, ended,
                           self.price_now(product_id))

    def price_now(self, product_id: str) -> tuple[str, str]:
        """(price key, value) the card shows and {price} says: the first running offer's price, else the product's."""
        p = self._get(product_id)
        for o, _ in self._running(product_id, self.clock()):
            if o.id in p.offer_prices:
                return p.offer_prices[o.id]
        return p.cfg.price_key, p.price

    def card(self, product_id: str) -> tuple[Card, float | None]:
        """The product's card now, and the seconds its offer's countdown has left (None without a running offer):
        the stage sets the card's `ends_at` on its own timeline from that."""
        p = self._get(product_id)
        key, price = self.price_now(product_id)
        now = self.clock()
        running = self._running(product_id, now)
        offer, left = (running[0][0].text, running[0][1] - now) if running else ("", None)
        return Card(product_id, p.cfg.name, key, price, p.cfg.image, offer=offer, stock=p.stock), left

    def _running(self, product_id: str, now: float) -> list[tuple[OfferConfig, float]]:
        """The product's offers that run at `now` with their ends, in config order."""
        return [(o, self.running[(product_id, o.id)]) for o in self.items[product_id].cfg.offers
                if self.running.get((product_id, o.id), -math.inf) > now]

    def offer_running(self, product_id: str, offer_id: str) -> bool:
        return self.running.get((product_id, offer_id), -math.inf) > self.clock()

    # -- the operator -------------------------------------------------------------------------------------
    def _get(self, product_id: str) -> _Product:
        p = self.items.get(product_id)
        if p is None:
            raise ValueError(f"no product {product_id!r} (products: {', '.join(self.order)})")
        return p

    def present(self, product_id: str, by: str = "operator") -> None:
        """Presents a product from the next line boundary on (sold out or not: the operator may show it)."""
        self._get(product_id)
        self.wanted, self.wanted_by = product_id, by

    def next(self, by: str = "operator") -> str | None:
        """Presents the next product in stock after the one on screen (or wanted); returns it, None when none is."""
        pid = self._in_stock_after(self.wanted or self.on_screen)
        if pid is not None:
            self.present(pid, by)
        return pid

    def _in_stock_after(self, after: str | None) -> str | None:
        """The first product in stock after `after` in the list, round to the start (None: after the list's start)."""
        start = self.order.index(after) + 1 if after in self.order else 0
        return next((pid for pid in self.order[start:] + self.order[:start] if self.items[pid].stock != 0), None)

    def _offer(self, product_id: str, offer_id: str) -> OfferConfig:
        offer = self._get(product_id).offers.get(offer_id)
        if offer is None:
            raise ValueError(f"product {product_id!r} has no offer {offer_id!r} "
                             f"(offers: {', '.join(self.items[product_id].offers) or 'none'})")
        return offer

    def start_offer(self, product_id: str, offer_id: str) -> float:
        """Starts (or restarts) an offer; returns when it ends."""
        offer = self._offer(product_id, offer_id)
        end = self.clock() + min(offer.minutes * 60.0, MAX_OFFER_S)
        self.running[(product_id, offer_id)] = end
        self.ended.pop((product_id, offer_id), None)
        self.offer_events.append((product_id, offer_id, "started"))
        self.changed()
        return end

    def stop_offer(self, product_id: str, offer_id: str) -> bool:
        """Ends an offer now; False when it was not running."""
        self._offer(product_id, offer_id)
        if self.running.pop((product_id, offer_id), -math.inf) <= self.clock():
            return False
        self.ended[(product_id, offer_id)] = self.clock()
        self.offer_events.append((product_id, offer_id, "ended"))
        self.changed()
        return True

    def set_stock(self, product_id: str, stock: int | None) -> None:
        """Sets what is left (None: not shown). At 0 its pitch stops; in the running order the next product comes."""
        if stock is not None and (isinstance(stock, bool) or not isinstance(stock, int) or stock < 0):
            raise ValueError(f"stock must be a whole number ≥ 0 or null, got {stock!r}")
        self._get(product_id).stock = stock
        self.changed()

    # -- time ---------------------------------------------------------------------------------------------
    def tick(self) -> list[tuple[str, str]]:
        """Ends the offers whose time is up; returns them as (product, offer)."""
        now = self.clock()
        over = [k for k, end in self.running.items() if end <= now]
        for k in over:
            self.ended[k] = self.running.pop(k)
            self.offer_events.append((*k, "ended"))
        if over:
            self.changed()
        return over

    def due_in(self, now: float) -> float:
        """Seconds until a switch is due (0: at the next line boundary; inf: never by itself)."""
        if self.wanted is not None:
            return 0.0
        if self.on_screen is None:
            return 0.0 if self._in_stock_after(None) is not None else math.inf
        p = self.items[self.on_screen]
        if self.cfg.order != "loop" or (p.stock == 0 and self._in_stock_after(self.on_screen) in (None, self.on_screen)):
            return math.inf
        if p.stock == 0:
            return 0.0
        return self.turn_started + (p.cfg.minutes or self.cfg.minutes) * 60.0 - now

    # -- lines --------------------------------------------------------------------------------------------
    def switch(self, now: float) -> bool:
        """At a line boundary: makes a due switch (the product wanted, the running order's next, the first at the
        start). True when the next line handed out is the first of a new turn."""
        if self.wanted is None and self.due_in(now) <= 0:
            if self.on_screen is None:
                first = self._in_stock_after(None)
                if first is not None:
                    self.present(first, "start")
            else:
                stock = self.items[self.on_screen].stock
                if self.next("sold_out" if stock == 0 else "order") == self.on_screen:
                    self.wanted, self.turn_started = None, now  # the only product in stock: its turn goes on
        pid = self.wanted
        if pid is None:
            return False
        by, self.wanted, self.wanted_by = self.wanted_by, None, ""
        if pid == self.on_screen:  # presented again: its intro again (the talk track resets it only on a change)
            for seg in self.items[pid].segments:
                if seg.once:
                    seg.done, seg.next_index = False, 0
        self.on_screen, self.turn_started = pid, now
        self.presented += 1
        self.presenting = True
        for o in self.items[pid].cfg.offers:
            if o.auto_start and not self.offer_running(pid, o.id):
                self.start_offer(pid, o.id)
        self.changed()
        log.info("presenting %s (%s)", pid, by)
        return True

    def line(self, now: float, now_local: dt.time, deadline_s: float, priority: int = 0) -> ProductLine | None:
        """The next talk line with the product on screen (its intro first after a switch): a ProductLine naming the
        product when the line is one of its segments, its offer when it names the running offer."""
        scene = self.scene()
        got = self.talk.next(now, now_local, scene)
        presents, self.presenting = self.presenting, False
        if got is None:
            if not presents or scene is None:
                return None
            # Nothing to say (a sold-out product presented, a track with no material): its card still comes.
            got = (f"{scene.product}/intro", f"现在给大家看的是{scene.name}。")
        segment, text = got
        product = scene.product if scene is not None and segment.startswith(f"{scene.product}/") else ""
        offer, deadline = "", now + deadline_s
        if scene is not None and scene.offer is not None and scene.offer.ends_mono is not None:
            o = scene.offer
            if (o.text and o.text in text) or left_text(o.ends_mono - now) in text:
                offer, deadline = o.name, min(deadline, self.running.get((scene.product, o.name), deadline))
        return ProductLine(text=text, source=LineSource.SCRIPT, priority=priority if presents else 0,
                           deadline_mono=deadline, created_mono=now, kind=LineKind.SCRIPT, segment=segment,
                           product=product, offer=offer, presents=presents)

    # -- console, reloads ---------------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the console and the API show: the product on screen, the order, each product's price, stock, offers."""
        now = self.clock()
        due = self.due_in(now)
        products = []
        for pid in self.order:
            p = self.items[pid]
            key, price = self.price_now(pid)
            offers = []
            for o in p.cfg.offers:
                end = self.running.get((pid, o.id))
                state = "running" if end is not None and end > now else "ended" if (pid, o.id) in self.ended else "idle"
                offers.append({"id": o.id, "text": o.text, "minutes": o.minutes, "state": state,
                               "left_s": round(end - now, 1) if state == "running" and end is not None else None})
            products.append({"id": pid, "name": p.cfg.name, "price_label": key, "price": price, "stock": p.stock,
                             "offers": offers})
        return {"on_screen": self.on_screen, "wanted": self.wanted, "order": self.cfg.order,
                "turn_left_s": round(due, 1) if math.isfinite(due) and self.wanted is None else None,
                "products": products}

    def adopt(self, old: ProductDesk) -> None:
        """After a reload: keep what the operator and the clock decided (the product on screen and its turn, a
        wanted switch, stock set live, offers running and ended) for the products still listed."""
        keep = set(self.items)
        if old.on_screen in keep:
            self.on_screen, self.turn_started = old.on_screen, old.turn_started
        if old.wanted in keep:
            self.wanted, self.wanted_by = old.wanted, old.wanted_by
        for pid, p in old.items.items():
            if pid in keep and p.stock != p.cfg.stock:  # set live by the operator: it beats the config's start value
                self.items[pid].stock = p.stock
        self.running = {k: v for k, v in old.running.items() if k[0] in keep and k[1] in self.items[k[0]].offers}
        self.ended = {k: v for k, v in old.ended.items() if k[0] in keep and k[1] in self.items[k[0]].offers}
        self.presented, self.presenting = old.presented, old.presenting
        self.changed()

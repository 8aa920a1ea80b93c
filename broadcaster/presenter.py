"""The show's side of a products room: the product card on screen (through the stage port), the brain told which
product is on screen, offers ended on time, and the operator's product actions.

The director's ProductDesk decides what is presented; this puts it on air. The card of a new product is handed to
the stage with the first line of its turn and appears on the frame that line's first sentence starts; a change of
the card on screen (an offer started or ended, stock set) appears on the next frame.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from broadcaster.director.desk import ProductDesk, ProductLine
from broadcaster.director.products import LiveProduct, ProductAware
from broadcaster.lines import Line
from broadcaster.stage import StageEvent, StageEventKind

if TYPE_CHECKING:
    from broadcaster.brain import Brain
    from renderer.card import Card


class ShowSide(Protocol):
    """What the presenter uses of the Show that owns it (the Show imports the presenter, not the other way)."""

    room_id: str
    director: Any
    brain: Any
    audit: Any
    stage: Any

    def cut_lines(self, doomed: Any) -> None: ...

log = logging.getLogger(__name__)

TICK_S = 0.25  # how often offers are checked for their end (the card's countdown runs on the stage's frames)
ACTIONS = ("view", "present", "next", "start_offer", "stop_offer", "stock")


class Presenter:
    def __init__(self, show: ShowSide) -> None:
        self.show = show
        self.on_card: str | None = None  # the product whose card was last handed to the stage
        self.card_line: Line | None = None  # the line that card waits for (None: it is on screen)
        self.shown: str | None = None  # the product whose card is on screen now (the stage said so)
        self.handed: tuple[Card, float | None] | None = None  # the card last handed, its offer's seconds left

    @property
    def desk(self) -> ProductDesk | None:
        return self.show.director.products

    # -- the brain ------------------------------------------------------------------------------------
    async def tell_brain(self, brain: Brain, desk: ProductDesk | None) -> None:
        """Gives a brain that answers per product the room's products (at start, and before a reload swaps in)."""
        if desk is not None and isinstance(brain, ProductAware):
            await brain.set_products(desk.catalogue(), self.live)
            brain.present(desk.on_screen)

    def live(self, product_id: str) -> LiveProduct:
        """What the show knows of a product now (the brain's `live`); ValueError for a product not listed."""
        desk = self.desk
        if desk is None:
            raise ValueError(f"room {self.show.room_id} sells no products")
        return desk.live(product_id)

    # -- lines ----------------------------------------------------------------------------------------
    def picked(self, line: Line) -> bool:
        """A line was chosen: the first line of a turn puts the product on screen; False when the line must not be
        said (it names an offer that has ended meanwhile)."""
        desk = self.desk
        if desk is None or not isinstance(line, ProductLine):
            return True
        if line.offer and not desk.offer_running(line.product, line.offer):
            log.info("room %s: line %d dropped: offer %s/%s has ended", self.show.room_id, line.id, line.product,
                     line.offer)
            return False
        self.flush_offer_events()  # a switch may have started the new product's offers
        if line.presents and desk.on_screen is not None:
            brain = self.show.brain
            if isinstance(brain, ProductAware):
                brain.present(desk.on_screen)
            self.refresh(desk.on_screen, line)
        return True

    def on_stage(self, event: StageEvent) -> None:
        line = self.card_line
        if line is None or event.line.id != line.id:
            return
        if event.kind == StageEventKind.START or event.kind == StageEventKind.LINE_END:
            # START: the card went on screen on this frame. LINE_END before any START: the stage put it up then.
            self.card_line, self.shown = None, self.on_card
            self._audit_card(event.frame, event.line.id)

    def _audit_card(self, frame: int, line_id: int | None) -> None:
        """What card went on screen on which frame: with `line_id`, a product's turn began with that line."""
        audit, handed = self.show.audit, self.handed
        if audit is None or handed is None:
            return
        card, left = handed
        audit.write({"room": self.show.room_id, "line_source": "card", "product": card.product, "name": card.name,
                     "price_label": card.price_label, "price": card.price, "offer": card.offer,
                     "offer_left_s": round(left, 1) if left is not None else None, "stock": card.stock,
                     "frame": frame, "line": line_id, "switch": line_id is not None, "text": ""})

    def flush_offer_events(self) -> None:
        """Logs and audits each offer that started or ended, with the stage frame it did (what the recording and
        the lines are held to)."""
        desk = self.desk
        if desk is None:
            return
        events, desk.offer_events = desk.offer_events, []
        for pid, oid, state in events:
            log.info("room %s: offer %s/%s %s", self.show.room_id, pid, oid, state)
            if self.show.audit is not None:
                self.show.audit.write({"room": self.show.room_id, "line_source": "offer", "product": pid,
                                       "offer": oid, "state": state, "frame": self.show.stage.frame, "text": ""})

    def refresh(self, product_id: str | None = None, line: Line | None = None) -> None:
        """Hands the stage the card of `product_id` (the one on screen by default): with `line`, for that line's
        first sentence; else for the next frame, or for the line a switch's card still waits for."""
        desk = self.desk
        pid = product_id or (desk.on_screen if desk is not None else None)
        if desk is None or pid is None:
            return
        if line is None:
            if pid == self.on_card and self.card_line is not None:
                line = self.card_line  # its switch has not reached the screen yet: the newer card waits too
            elif pid != self.on_card:
                return  # not the product the screen shows or will show
        card, left = desk.card(pid)
        self.show.stage.show_card(card, at_line=line, offer_left_s=left)
        self.on_card, self.card_line, self.handed = pid, line, (card, left)
        if line is None:
            self.shown = pid
            self._audit_card(self.show.stage.frame + 1, None)  # it goes up on the next frame

    def restore(self) -> None:
        """A new stage (a media handover): the product on screen goes back on it at once."""
        desk = self.desk
        if desk is not None and desk.on_screen is not None:
            self.on_card = desk.on_screen
            self.card_line = None
            self.refresh(desk.on_screen)

    # -- time -----------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Ends offers on time: the card drops their countdown, and what of a line naming one is still queued is cut."""
        while True:
            await asyncio.sleep(TICK_S)
            desk = self.desk
            if desk is None:
                continue
            try:
                ended = desk.tick()
                if not ended:
                    continue
                self.flush_offer_events()
                self.show.cut_lines(lambda line, over=set(ended): isinstance(line, ProductLine)
                                    and (line.product, line.offer) in over)
                for pid in dict.fromkeys(pid for pid, _ in ended):
                    self.refresh(pid)  # only where that product's card is (or is about to be) on screen
            except Exception:
                log.exception("room %s: ending offers failed", self.show.room_id)

    # -- the operator ---------------------------------------------------------------------------------
    def act(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """An operator's product action (view, present, next, start_offer, stop_offer, stock); ValueError, worded for the
        operator, for a room without products, an unknown product or offer, or bad arguments. Returns the desk's
        view after it."""
        desk = self.desk
        if desk is None:
            raise ValueError(f"room {self.show.room_id} sells no products (director.products.items is empty)")
        if action not in ACTIONS:
            raise ValueError(f"unknown product action {action!r} (one of {', '.join(ACTIONS)})")
        if action == "view":
            return {"action": action, "result": None, "products": desk.view()}
        pid = args.get("product")
        if action != "next" and not isinstance(pid, str):
            raise ValueError("'product' must be a product id")
        result: Any = None
        if action == "present":
            desk.present(pid)  # type: ignore[arg-type]
            result = pid
        elif action == "next":
            result = desk.next()
            if result is None:
                raise ValueError("no product is in stock")
        elif action in ("start_offer", "stop_offer"):
            oid = args.get("offer")
            if not isinstance(oid, str):
                raise ValueError("'offer' must be an offer id")
            if action == "start_offer":
                desk.start_offer(pid, oid)  # type: ignore[arg-type]
                result = True
            else:
                result = desk.stop_offer(pid, oid)  # type: ignore[arg-type]
                if result:
                    self.show.cut_lines(lambda line: isinstance(line, ProductLine) and line.product == pid
                                        and line.offer == oid)
        else:
            stock = args.get("stock")
            desk.set_stock(pid, stock)  # type: ignore[arg-type]
            result = stock
        self.show.director.wake()
        self.flush_offer_events()
        self.refresh(pid if action in ("start_offer", "stop_offer", "stock") else None)
        log.info("room %s: operator %s %s", self.show.room_id, action,
                 {k: v for k, v in args.items() if k in ("product", "offer", "stock")})
        return {"action": action, "result": result, "products": desk.view()}

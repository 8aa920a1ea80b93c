"""The product card overlay: picture, name, price now, an offer's countdown and stock left, placed clear of the
face, subtitles, banner, logo and AI label, composed once per card (only the countdown digits change each second).

A card is drawn as a few opaque pieces that tile its rectangle: the part above the countdown row, that row's
label and its right end, the part below. The digits are one more piece, drawn last of all overlays, so that when
they change each second the compositor redraws only them (every other layer stays in the frame buffer as it is).
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from common.bounded import BoundedDict
from renderer.background import read_image, to_bgra
from renderer.config import CardConfig, parse_colour
from renderer.errors import AvatarError
from renderer.layers import Layer, fit_image
from renderer.text import clip_lines, wrap

log = logging.getLogger(__name__)

Rect = tuple[int, int, int, int]  # x, y, w, h in canvas px

_DIGITS = "0123456789:"
MAX_OFFER_S = 99 * 60 + 59  # the countdown reads mm:ss


@dataclass(frozen=True, slots=True)
class Card:
    """What a product card shows. The stage hands it to the avatar in FrameState.card; equal cards draw the same."""

    product: str
    name: str
    price_label: str  # the declared price key, e.g. 直播间到手价
    price: str  # that fact's value as the facts write it, e.g. 169元
    image: Path | None = None
    offer: str = ""  # the running timed offer, "" when none
    ends_at: float | None = None  # stage time (frame n / fps) at which the offer's countdown reads 00:00
    stock: int | None = None  # left in stock when the operator set it

    def seconds_left(self, t: float) -> int | None:
        """Whole seconds the countdown shows at stage time t (rounded up, as a countdown reads), None without one."""
        if self.ends_at is None:
            return None
        return min(MAX_OFFER_S, max(0, math.ceil(self.ends_at - t - 1e-9)))

    def countdown(self, t: float) -> str:
        left = self.seconds_left(t)
        return "" if left is None else f"{left // 60:02d}:{left % 60:02d}"


@dataclass(frozen=True, slots=True)
class Placement:
    rect: Rect  # the free area the card may use
    wide: bool  # picture left of the text (a band above the face) instead of above it (a column beside it)


# -- where the card goes ------------------------------------------------------------------------------


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def _free_spans(lo: int, hi: int, blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """[lo, hi) less the blocked intervals, as (start, end) spans in order."""
    spans, at = [], lo
    for b0, b1 in sorted(blocks):
        if b0 > at:
            spans.append((at, min(b0, hi)))
        at = max(at, b1)
        if at >= hi:
            break
    if at < hi:
        spans.append((at, hi))
    return [(a, b) for a, b in spans if b > a]


def place_card(width: int, height: int, keep_out: list[Rect], margin: int, cfg: CardConfig) -> Placement | None:
    """The largest free area for a card that touches none of `keep_out` (each grown by `margin`): a column at the
    left or right edge (a tall card) or a band across the canvas (a wide card), as `cfg.position` allows. None
    when nothing big enough is free: then no card is drawn rather than one over the face or the subtitles."""
    short = min(width, height)
    m = margin
    blocks = [(x - m, y - m, x + w + m, y + h + m) for x, y, w, h in keep_out]
    found: list[tuple[int, Placement]] = []
    cap_w = round(cfg.size * short)
    min_w = round(0.2 * short)
    for side in ("left", "right"):
        if cfg.position not in ("auto", side):
            continue
        for w in range(cap_w, min_w - 1, -max(2, short // 100)):
            x0 = m if side == "left" else width - m - w
            ys = [(b[1], b[3]) for b in blocks if _overlaps(x0, x0 + w, b[0], b[2])]
            spans = _free_spans(m, height - m, ys)
            best = max(spans, key=lambda s: s[1] - s[0], default=None)
            if best is not None and best[1] - best[0] >= 1.15 * w:
                found.append((w * (best[1] - best[0]), Placement((x0, best[0], w, best[1] - best[0]), False)))
                break
    if cfg.position in ("auto", "top"):
        cap_h = round(0.75 * cfg.size * short)
        for h in range(cap_h, round(0.18 * short) - 1, -max(2, short // 100)):
            w = min(width - 2 * m, 4 * h)
            x0 = (width - w) // 2
            xs = [(b[1], b[3]) for b in blocks if _overlaps(x0, x0 + w, b[0], b[2])]
            span = next((s for s in _free_spans(m, height - m, xs) if s[1] - s[0] >= h), None)
            if span is not None:
                found.append((w * h, Placement((x0, span[0], w, span[1] - span[0]), True)))
                break
    if not found:
        return None
    return max(found, key=lambda f: f[0])[1]


# -- drawing ------------------------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    b, g, r, _ = parse_colour(colour)
    return r, g, b


@dataclass(slots=True)
class _Composed:
    pieces: list[Layer]  # opaque tiles of the card (its rounded corners aside), at canvas positions
    digits_at: tuple[int, int] | None  # where the countdown digits go (canvas px)
    digit_size: int = 0


@dataclass(frozen=True, slots=True)
class _Seg:
    """A run of text in one size and colour; `digits`: the countdown's place (its text is not drawn)."""

    text: str
    size: int
    colour: tuple[int, int, int]
    digits: bool = False


_Row = list[_Seg]


class CardOverlay:
    """Places and draws product cards for one canvas. `pieces(card)` and `countdown(card, t)` return cached layers,
    the same objects frame after frame, so the compositor leaves them in place; thread-safe (a card may be
    composed ahead on another thread with `pieces`)."""

    def __init__(self, cfg: CardConfig, width: int, height: int, font: Path | None, keep_out: list[Rect],
                 margin: int):
        self.cfg = cfg
        self.width, self.height = width, height
        self.font_path = font
        self.placement = place_card(width, height, keep_out, margin, cfg) if cfg.enabled else None
        if cfg.enabled and self.placement is None:
            log.warning("avatar.overlays.card: no free area of the %dx%d canvas clear of the face, subtitles and "
                        "labels: product cards are not shown", width, height)
        self._plate, self._text = _rgb(cfg.plate), _rgb(cfg.text)
        self._price, self._accent = _rgb(cfg.price), _rgb(cfg.accent)
        self._fonts: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}
        self._composed: BoundedDict[Card, _Composed] = BoundedDict(8)
        self._images: BoundedDict[tuple[Path, int], np.ndarray | None] = BoundedDict(8)
        self._tiles: dict[int, tuple[int, dict[str, np.ndarray]]] = {}  # type size → (tile width, digit → tile)
        self._digits: BoundedDict[tuple[str, int, int], Layer] = BoundedDict(4)
        self._lock = threading.Lock()
        # What the last frame used (read and set on the clock thread only): a repeat costs one identity test.
        self._last: tuple[Card, list[tuple[Layer, int, int]]] | None = None
        self._tick: tuple[Card, int | None, list[tuple[Layer, int, int]]] | None = None
        self.composed = 0  # cards composed (a test counts these: once per card, never per frame)

    @property
    def rect(self) -> Rect | None:
        return self.placement.rect if self.placement is not None else None

    def font(self, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        f = self._fonts.get(size)
        if f is None:
            f = ImageFont.truetype(str(self.font_path), size) if self.font_path else ImageFont.load_default(size)
            self._fonts[size] = f
        return f

    # -- per frame ------------------------------------------------------------------------------------
    def pieces(self, card: Card) -> list[tuple[Layer, int, int]]:
        last = self._last
        if last is not None and last[0] is card:  # the same card as the last frame's: no lookup at all
            return last[1]
        comp = self._compose(card)
        placed = [(p, 0, 0) for p in comp.pieces] if comp is not None else []
        self._last = (card, placed)
        return placed

    def countdown(self, card: Card, t: float) -> list[tuple[Layer, int, int]]:
        """The digits of the offer's countdown at stage time t (drawn after every other overlay)."""
        if card.ends_at is None:
            return []
        left = card.seconds_left(t)
        tick = self._tick
        if tick is not None and tick[0] is card and tick[1] == left:
            return tick[2]
        placed = self._digits_layer(card, t)
        self._tick = (card, left, placed)
        return placed

    def _digits_layer(self, card: Card, t: float) -> list[tuple[Layer, int, int]]:
        comp = self._compose(card)
        if comp is None or comp.digits_at is None:
            return []
        text = card.countdown(t)
        key = (text, *comp.digits_at)
        with self._lock:
            layer = self._digits.get(key)
            if layer is None:
                tiles = self._tiles_for(comp.digit_size)[1]
                strip = np.hstack([tiles[ch] for ch in text])
                layer = Layer(strip, np.zeros_like(strip), *comp.digits_at)
                self._digits[key] = layer
        return [(layer, 0, 0)]

    # -- once per card --------------------------------------------------------------------------------
    def _compose(self, card: Card) -> _Composed | None:
        if self.placement is None:
            return None
        key = replace(card, ends_at=0.0 if card.ends_at is not None else None)  # the digits are not part of it
        with self._lock:
            comp = self._composed.get(key)
            if comp is None:
                comp = self._composed[key] = self._draw(card)
                self.composed += 1
        return comp

    def _rows(self, card: Card, ref: int, wrap_w: int, scale: float, wide: bool) -> list[_Row]:
        """The card's text rows, type sized in proportion to `ref` px. A column card gives each item its row; a wide
        (short) card puts the price beside its label and the stock after the countdown."""
        def size(k: float, least: int) -> int:
            return max(least, round(k * ref * scale))

        name_size, small, price_size, digit_size = size(0.085, 12), size(0.06, 10), size(0.13, 16), size(0.1, 14)
        rows: list[_Row] = [[_Seg(line, name_size, self._text)]
                            for line in self._wrap(card.name, name_size, wrap_w, 1 if wide else 2)]
        label, price = _Seg(card.price_label, small, self._text), _Seg(card.price, price_size, self._price)
        rows += [[label, _Seg(" ", small, self._text), price]] if wide else [[label], [price]]
        if card.offer:
            rows += [[_Seg(line, small, self._accent)] for line in self._wrap(card.offer, small, wrap_w, 1 if wide else 2)]
        stock = None
        if card.stock is not None:
            stock = _Seg("已售罄" if card.stock <= 0 else f"库存 {card.stock} 件", small,
                         self._price if card.stock <= 0 else self._text)
        if card.ends_at is not None:
            countdown = [_Seg("剩余 ", digit_size, self._accent), _Seg("", digit_size, self._accent, digits=True)]
            rows.append([*countdown, _Seg("   ", small, self._text), stock] if wide and stock else countdown)
            if wide:
                stock = None
        if stock is not None:
            rows.append([stock])
        return rows

    def _wrap(self, text: str, size: int, width: int, max_lines: int) -> list[str]:
        font = self.font(size)
        return clip_lines(wrap(text, font, width) or [""], font, width, max_lines)  # type: ignore[arg-type]

    def _metrics(self, row: _Row) -> tuple[int, int]:
        """(ascent, descent) of a row: its runs share one baseline."""
        m = [self.font(seg.size).getmetrics() for seg in row]  # type: ignore[union-attr]
        return max(a for a, _ in m), max(d for _, d in m)

    def _seg_w(self, seg: _Seg) -> int:
        return 5 * self._tiles_for(seg.size)[0] if seg.digits else int(self.font(seg.size).getlength(seg.text))

    def _layout(self, card: Card) -> tuple[int, int, int, int, int, list[_Row]]:
        """(card width, height, padding, picture side, text width, rows), the type shrunk until it fits."""
        assert self.placement is not None
        _, _, rw, rh = self.placement.rect
        has_picture = card.image is not None
        wide = self.placement.wide
        scale = 1.0
        while True:
            if wide:
                ch = min(rh, round(0.75 * self.cfg.size * min(self.width, self.height)))
                cw = min(rw, round(4 * ch))
                pad = max(6, round(0.07 * ch))
                side = ch - 2 * pad if has_picture else 0
                text_w = cw - 2 * pad - (side + pad if side else 0)
                rows = self._rows(card, round(1.9 * ch), text_w, scale, wide)
                text_h = self._text_h(rows)
                fits = text_h <= ch - 2 * pad and max(map(self._row_w, rows)) <= text_w
            else:
                cw = rw
                pad = max(6, round(0.06 * cw))
                text_w = cw - 2 * pad
                rows = self._rows(card, cw, text_w, scale, wide)
                text_h = self._text_h(rows)
                gap = 2 * self._gap(rows)
                side = min(text_w, rh - 2 * pad - text_h - gap) if has_picture else 0
                fits = (side >= text_w // 3 if has_picture else text_h <= rh - 2 * pad) and \
                    max(map(self._row_w, rows)) <= text_w
                ch = 2 * pad + text_h + (side + gap if side > 0 else 0)
            if fits or scale < 0.5:
                return cw, min(ch, rh), pad, max(0, side), text_w, rows
            scale *= 0.92

    def _row_w(self, row: _Row) -> int:
        return sum(self._seg_w(seg) for seg in row)

    @staticmethod
    def _gap(rows: list[_Row]) -> int:
        return max(2, rows[0][0].size // 6)

    def _text_h(self, rows: list[_Row]) -> int:
        return sum(sum(self._metrics(r)) for r in rows) + self._gap(rows) * (len(rows) - 1)

    def _draw(self, card: Card) -> _Composed:
        assert self.placement is not None
        rx, ry, rw, rh = self.placement.rect
        wide = self.placement.wide
        cw, ch, pad, side, text_w, rows = self._layout(card)
        gap = self._gap(rows)
        x0, y0 = rx + (rw - cw) // 2, ry + (rh - ch) // 2
        img = Image.new("RGB", (cw, ch), self._plate)
        draw = ImageDraw.Draw(img)
        picture = self._picture(card.image, side) if card.image is not None and side > 0 else None
        if picture is not None:
            at = (pad, (ch - side) // 2) if wide else ((cw - side) // 2, pad)
            img.paste(Image.fromarray(np.ascontiguousarray(picture[..., ::-1])), at)
        if wide:
            tx, ty = pad + (side + pad if side else 0), (ch - self._text_h(rows)) // 2
        else:
            tx, ty = pad, pad + (side + 2 * gap if side else 0)
        digits: tuple[int, int, int, int, int] | None = None  # x, y, w, h in the card; type size
        for row in rows:
            asc, desc = self._metrics(row)
            x = tx + max(0, (text_w - self._row_w(row)) // 2)
            for seg in row:
                w = self._seg_w(seg)
                if seg.digits:
                    d_asc, d_desc = self.font(seg.size).getmetrics()  # type: ignore[union-attr]
                    digits = (x, ty + asc - d_asc, w, d_asc + d_desc, seg.size)
                else:
                    font = self.font(seg.size)
                    draw.text((x, ty + asc), seg.text, font=font, fill=seg.colour, anchor="ls")
                x += w
            ty += asc + desc + gap
        bgr = np.asarray(img)[..., ::-1]
        # Rounded corners, antialiased: drawn at twice the size and reduced.
        mask = Image.new("L", (cw * 2, ch * 2), 0)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, cw * 2 - 1, ch * 2 - 1), radius=2 * pad, fill=255)
        alpha = np.asarray(mask.resize((cw, ch), Image.Resampling.LANCZOS))
        bgra = np.ascontiguousarray(np.dstack([bgr, alpha]))
        if digits is None:
            return _Composed([Layer.from_bgra(bgra, x0, y0)], None)
        # Tiles around the digits' rectangle, so that redrawing the digits touches no other layer.
        dx, dy, dw, dh, size = digits
        parts = [(bgra[:dy], x0, y0), (bgra[dy : dy + dh, :dx], x0, y0 + dy),
                 (bgra[dy : dy + dh, dx + dw :], x0 + dx + dw, y0 + dy), (bgra[dy + dh :], x0, y0 + dy + dh)]
        pieces = [Layer.from_bgra(np.ascontiguousarray(p), x, y) for p, x, y in parts if p.size]
        return _Composed(pieces, (x0 + dx, y0 + dy), size)

    def _tiles_for(self, size: int) -> tuple[int, dict[str, np.ndarray]]:
        """Opaque tiles of the digits on the plate colour, one width for all (the row never shifts)."""
        got = self._tiles.get(size)
        if got is None:
            font = self.font(size)
            asc, desc = font.getmetrics()  # type: ignore[union-attr]
            w = max(math.ceil(font.getlength(ch)) for ch in _DIGITS) + 1
            tiles = {}
            for ch in _DIGITS:
                img = Image.new("RGB", (w, asc + desc), self._plate)
                ImageDraw.Draw(img).text(((w - font.getlength(ch)) / 2, asc), ch, font=font, fill=self._accent,
                                         anchor="ls")
                tiles[ch] = np.ascontiguousarray(np.asarray(img)[..., ::-1])
            got = self._tiles[size] = (w, tiles)
        return got

    def _picture(self, path: Path, side: int) -> np.ndarray | None:
        """The product picture fitted into a side × side square over the plate (BGR); None when it cannot be read."""
        key = (path, side)
        if key in self._images:
            return self._images[key]
        try:
            bgra = to_bgra(read_image(path.expanduser(), "product image"))
        except AvatarError as exc:
            log.warning("product card: %s; drawn without its picture", exc)
            self._images[key] = None
            return None
        opaque = np.nonzero(bgra[..., 3] > 8)
        if opaque[0].size:  # a picture drawn with room around it: the product itself fills the square
            bgra = bgra[opaque[0].min() : opaque[0].max() + 1, opaque[1].min() : opaque[1].max() + 1]
        fitted = fit_image(bgra, side, side, "contain").astype(np.float32)
        a = fitted[..., 3:4] / 255.0
        plate = np.array(self._plate[::-1], np.float32)
        out = np.clip(fitted[..., :3] * a + plate * (1 - a) + 0.5, 0, 255).astype(np.uint8)
        self._images[key] = out
        return out

"""The overlays drawn over the avatar: subtitle, "answering @user" banner, AI-generated label, logo, product card."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from renderer.background import read_image, to_bgra
from renderer.base import FrameState
from renderer.card import CardOverlay
from renderer.config import OverlaysConfig
from renderer.errors import AvatarError
from renderer.layers import Layer, blend_layer
from renderer.text import TextRenderer, TextStyle, find_cjk_font, font_renders_cjk

log = logging.getLogger(__name__)


def pick_font(configured: Path | None) -> Path | None:
    """The subtitle font: the configured one (must exist) or one fontconfig finds that renders Chinese."""
    if configured is not None:
        path = configured.expanduser()
        if not path.is_file():
            raise AvatarError(f"avatar.overlays.subtitle.font: file {str(path)!r} does not exist")
        if not font_renders_cjk(path):
            log.warning(
                "avatar.overlays.subtitle.font %s cannot render Chinese: Chinese subtitles will show boxes",
                path,
            )
        return path
    found = find_cjk_font()
    if found is None:
        log.warning(
            "no font can render Chinese (the pylopdf-fonts-zh-cn package is missing: reinstall virtual-anchor, "
            "or set avatar.overlays.subtitle.font): Chinese subtitles and labels will show boxes"
        )
    return found


class Overlays:
    def __init__(self, cfg: OverlaysConfig, width: int, height: int):
        self.cfg = cfg
        self.width, self.height = width, height
        self.font = pick_font(cfg.subtitle.font)
        self.text = TextRenderer(self.font)
        sub, ban, lab = cfg.subtitle, cfg.banner, cfg.label
        self.sub_style = TextStyle(
            sub.colour, sub.outline, sub.box, sub.size or max(12, min(height // 20, width // 16))
        )
        self.ban_style = TextStyle(
            ban.colour, None, ban.box, ban.size or max(10, min(height // 30, width // 24))
        )
        self.margin = max(4, int(0.02 * height))
        top_row = 0
        self.label: Layer | None = None
        if lab.enabled:
            style = TextStyle(lab.colour, None, lab.box, lab.size or max(10, min(height // 45, width // 36)))
            self.label = self._corner(self.text.render(lab.text, style, int(width * 0.45)), lab.position)
            if lab.position.startswith("top"):
                top_row = max(top_row, self.label.y + self.label.h)
        self.logo: Layer | None = None
        if cfg.logo is not None:
            path = cfg.logo.path.expanduser()
            img = to_bgra(read_image(path, "avatar.overlays.logo.path"))
            lh = max(8, int(cfg.logo.height * height))
            lw = max(1, round(img.shape[1] * lh / img.shape[0]))
            img = cv2.resize(img, (lw, lh), interpolation=cv2.INTER_AREA)
            self.logo = self._corner(Layer.from_bgra(img, opacity=cfg.logo.opacity), cfg.logo.position)
            if cfg.logo.position.startswith("top"):
                top_row = max(top_row, self.logo.y + self.logo.h)
        self.top_row = top_row
        self.card: CardOverlay | None = None  # add_card, once the figure's face is known

    def reserved(self) -> list[tuple[int, int, int, int]]:
        """Where the subtitle and banner reach at their largest, and the logo and label: (x, y, w, h) each."""
        rects = []
        if self.cfg.subtitle.enabled:
            rects.append(self._largest(self.subtitle_layer, self.cfg.subtitle.max_lines, int(self.width * 0.9),
                                       self.sub_style.size))
        if self.cfg.banner.enabled:
            rects.append(self._largest(self.banner_layer, 2, int(self.width * 0.8), self.ban_style.size))
        rects += [(o.x, o.y, o.w, o.h) for o in (self.logo, self.label) if o is not None]
        return rects

    def _largest(self, place, max_lines: int, max_width: int, size: int) -> tuple[int, int, int, int]:
        """The rectangle a caption covers at its largest: `max_lines` full lines at full size (a longer text is
        drawn smaller), as wide as a caption layer may be (the wrap width and a hanging punctuation mark)."""
        one, two = place("国")[0], place("国国")[0]
        glyph = max(1, two.w - one.w)
        per_line = max(1, (max_width - (one.w - glyph)) // glyph)
        tallest = max((place("国" * max(1, per_line * max_lines - d)) for d in (0, 1, 2)), key=lambda p: p[0].h)
        w = min(self.width, max_width + size)
        return (self.width - w) // 2, tallest[2], w, tallest[0].h

    def add_card(self, face: tuple[int, int, int, int] | None) -> None:
        """Product cards, placed clear of `face` (None: unknown, so no card) and of every other overlay."""
        if face is None:
            log.warning("avatar: where the face is drawn is unknown for this avatar: product cards are not shown")
            return
        self.card = CardOverlay(self.cfg.card, self.width, self.height, self.font, [face, *self.reserved()],
                                self.margin)

    def _corner(self, layer: Layer, corner: str) -> Layer:
        m = self.margin
        layer.x = m if corner.endswith("left") else self.width - layer.w - m
        layer.y = m if corner.startswith("top") else self.height - layer.h - m
        return layer

    def subtitle_layer(self, text: str) -> tuple[Layer, int, int]:
        sub = self.cfg.subtitle
        layer = self.text.render(text, self.sub_style, int(self.width * 0.9), sub.max_lines)
        x = (self.width - layer.w) // 2
        edge = int(sub.margin * self.height)
        if sub.position == "bottom":
            y = self.height - edge - layer.h
        elif sub.position == "top":
            y = max(edge, self.top_row + self.margin)
        else:
            y = (self.height - layer.h) // 2
        return layer, x, y

    def banner_layer(self, text: str) -> tuple[Layer, int, int]:
        layer = self.text.render(text, self.ban_style, int(self.width * 0.8), 2)
        x = (self.width - layer.w) // 2
        if self.cfg.banner.position == "top":
            y = max(self.top_row, self.margin) + self.margin
        else:
            y = (
                self.height
                - self.margin
                - layer.h
                - int(self.cfg.subtitle.margin * self.height)
                - self.height // 6
            )
        return layer, x, y

    def placed(self, state: FrameState) -> list[tuple[Layer, int, int]]:
        """The frame's overlays in drawing order, each (layer, dx, dy): drawn at (layer.x + dx, layer.y + dy).
        Layers come from caches, so the same overlay is the same object frame after frame."""
        cfg = self.cfg
        card = self.card if state.card is not None else None
        # The card first and its countdown digits last: the digits change every second, and the compositor keeps
        # in place every layer before the first one that changed.
        placed: list[tuple[Layer, int, int]] = [*card.pieces(state.card)] if card is not None else []
        if cfg.banner.enabled and state.banner:
            placed.append(self.banner_layer(state.banner))
        if cfg.subtitle.enabled and state.subtitle:
            placed.append(self.subtitle_layer(state.subtitle))
        if self.logo is not None:
            placed.append((self.logo, 0, 0))
        if self.label is not None:
            placed.append((self.label, 0, 0))
        if card is not None:
            placed += card.countdown(state.card, state.t)
        return placed

    def draw(self, frame: np.ndarray, state: FrameState) -> None:
        for layer, dx, dy in self.placed(state):
            blend_layer(frame, layer, dx, dy)

"""The overlays drawn over the avatar: subtitle, "answering @user" banner, AI-generated label, logo."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from renderer.background import read_image, to_bgra
from renderer.base import FrameState
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
        placed: list[tuple[Layer, int, int]] = []
        if cfg.banner.enabled and state.banner:
            placed.append(self.banner_layer(state.banner))
        if cfg.subtitle.enabled and state.subtitle:
            placed.append(self.subtitle_layer(state.subtitle))
        if self.logo is not None:
            placed.append((self.logo, 0, 0))
        if self.label is not None:
            placed.append((self.label, 0, 0))
        return placed

    def draw(self, frame: np.ndarray, state: FrameState) -> None:
        for layer, dx, dy in self.placed(state):
            blend_layer(frame, layer, dx, dy)
